/**
 * `EngineDeps.depositAddresses`: a live engine hands out its custody's addresses, records them so
 * upstream payments find the order, and refuses what it cannot honour.
 */
import type { DepositAddressProvider, DepositAddressRequest } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import type { EngineDeps } from '../engine.deps.js';
import { createEngine } from '../engine.wiring.js';
import {
  directOrder,
  fromLoopback,
  passThroughProvider,
  upstreamEvent,
} from '../upstream/upstream.test-support.js';
import { caller, dataOf, refusal, refusalOf, seed, testBed } from './acquiring.test-support.js';
import { depositAddressOf, sandboxDepositAddresses } from './deposit-addresses.store.js';

/** A custody that allocates a fresh address per (order, network) and remembers it. */
const custody = (spell: (address: string) => string = (a) => a) => {
  const requests: DepositAddressRequest[] = [];
  const allocated = new Map<string, string>();
  const provider: DepositAddressProvider = {
    addressFor: async (request) => {
      requests.push(request);
      const key = `${request.order_id}/${request.network}`;
      const address =
        allocated.get(key) ?? depositAddressOf(`custody-${allocated.size + 1}`, request.network);
      allocated.set(key, address);
      return spell(address);
    },
  };
  return { provider, requests };
};

const liveBed = async (extra: Partial<Omit<EngineDeps, 'clock'>>) => {
  const bed = testBed({ environment: 'live' });
  await seed(bed);
  const deps = { ...bed.deps, acquiringProviders: [passThroughProvider()], ...extra };
  return { ...bed, deps, engine: createEngine(deps) };
};

const checkoutOrder = {
  out_trade_no: 'CO-1',
  order_currency: 'USD',
  order_amount: '30.00',
  allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
  expire_seconds: 1800,
  underpay_tolerance: '0',
  notify_webhook_id: 'wh_a',
};

describe('deposit addresses from the host’s provider', () => {
  it('the order shows the custody’s address, and a payment to it completes the order', async () => {
    const { provider, requests } = custody();
    const bed = await liveBed({ depositAddresses: provider });
    const order = await directOrder(bed, 'ORD-1');
    const custodyAddress = depositAddressOf('custody-1', 'TRON');
    expect(order.address).toBe(custodyAddress);
    expect(order.address).not.toBe(depositAddressOf(order.order_id, 'TRON'));
    expect(requests).toEqual([
      { order_id: order.order_id, account_id: 'acc_a', network: 'TRON', token_id: 'TRON_USDT' },
    ]);

    const answer = dataOf(
      await bed.engine.upstream.receive(
        'test',
        fromLoopback([upstreamEvent(custodyAddress, 'confirmed')]),
      ),
    );
    expect(answer.events).toEqual([
      expect.objectContaining({ order_id: order.order_id, order_status: 'completed' }),
    ]);
    // The address the sandbox would have derived was never handed out.
    const derived = depositAddressOf(order.order_id, 'TRON');
    expect(
      refusalOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([upstreamEvent(derived, 'confirmed', { payment_id: 'chain_2' })]),
        ),
      ),
    ).toEqual(refusal(400, 53, 'merchant deposit address not found'));
  });

  it('records an EVM address checksummed, whatever case the custody spelt it in', async () => {
    const { provider } = custody((a) => a.toLowerCase());
    const bed = await liveBed({ depositAddresses: provider });
    const order = await directOrder(bed, 'ORD-E', 'ETH_USDC');
    const checksummed = depositAddressOf('custody-1', 'ETH');
    expect(order.address).toBe(checksummed);
    const answer = dataOf(
      await bed.engine.upstream.receive(
        'test',
        fromLoopback([
          upstreamEvent(checksummed.toUpperCase().replace('0X', '0x'), 'confirmed', {
            token_id: 'ETH_USDC',
          }),
        ]),
      ),
    );
    expect(answer.events).toEqual([
      expect.objectContaining({ order_id: order.order_id, order_status: 'completed' }),
    ]);
  });

  it('the hosted checkout’s token selection asks the custody too', async () => {
    const { provider, requests } = custody();
    const bed = await liveBed({ depositAddresses: provider });
    const created = dataOf(await bed.engine.acquiring.create(caller(), checkoutOrder));
    const orderId = (created.order as { order_id: string }).order_id;
    expect(created).not.toHaveProperty('payment_address');
    expect(requests).toEqual([]);

    const chosen = dataOf(
      await bed.engine.checkout.selectToken(orderId, { network: 'ETH', currency: 'USDC' }),
    );
    expect((chosen.order as { selected_token: { address: string } }).selected_token.address).toBe(
      depositAddressOf('custody-1', 'ETH'),
    );
    expect(requests).toEqual([
      { order_id: orderId, account_id: 'acc_a', network: 'ETH', token_id: 'ETH_USDC' },
    ]);
    expect(await bed.oracle.count('depositAddresses')).toBe(1);
  });

  it('fails the unit of work on an address malformed for the network, recording nothing', async () => {
    const bed = await liveBed({
      depositAddresses: { addressFor: async () => '0x1234' },
    });
    await expect(directOrder(bed, 'ORD-BAD')).rejects.toThrow(
      'the deposit address provider answered a malformed TRON address',
    );
    expect(await bed.oracle.count('acquiringOrders')).toBe(0);
    expect(await bed.oracle.count('depositAddresses')).toBe(0);
  });

  it('live without a provider: orders are refused, and chain watchers without one at build', async () => {
    const bed = await liveBed({ acquiringProviders: [] });
    expect(refusalOf(await bed.engine.acquiring.create(caller(), checkoutOrder))).toEqual(
      refusal(400, 53, 'no available pay tokens for current account'),
    );
    expect(
      refusalOf(
        await bed.engine.acquiring.create(caller(), {
          ...checkoutOrder,
          mode: 'direct',
          network: 'TRON',
          currency: 'USDT',
        }),
      ),
    ).toEqual(refusal(400, 53, 'no available pay tokens for current account'));
    // Validation still answers first.
    expect(
      refusalOf(
        await bed.engine.acquiring.create(caller(), { ...checkoutOrder, order_amount: '0' }),
      ),
    ).toEqual(refusal(400, 51, 'order_amount must be > 0'));
    expect(await bed.oracle.count('acquiringOrders')).toBe(0);

    expect(() =>
      createEngine({ ...bed.deps, acquiringProviders: [passThroughProvider()] }),
    ).toThrow('live acquiring needs a deposit address provider');
  });

  it('the sandbox derives addresses from the order id by default, as `sandboxDepositAddresses`', async () => {
    const bed = testBed();
    await seed(bed);
    const engine = createEngine({ ...bed.deps, acquiringProviders: [passThroughProvider()] });
    const order = await directOrder({ ...bed, engine }, 'ORD-S');
    expect(order.address).toBe(depositAddressOf(order.order_id, 'TRON'));
    expect(
      await sandboxDepositAddresses.addressFor({
        order_id: order.order_id,
        account_id: 'acc_a',
        network: 'TRON',
        token_id: 'TRON_USDT',
      }),
    ).toBe(order.address);
  });
});
