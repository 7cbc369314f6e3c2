import { type OutboxMessage, toEvmChecksumAddress } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { caller, dataOf, refusal, refusalOf, t0 } from '../acquiring/acquiring.test-support.js';
import { createEngine } from '../engine.wiring.js';
import {
  directOrder,
  fromLoopback,
  jsonFromLoopback,
  passThroughProvider,
  testSignatureHeaders,
  type UpstreamBed,
  upstreamBed,
  upstreamEvent,
} from './upstream.test-support.js';

const me = caller();

/** The outbox rows as what the merchant's webhook will receive: type and data. */
const deliveries = async (bed: UpstreamBed) =>
  (await bed.oracle.outbox()).map((row: OutboxMessage) => ({
    type: row.event_type,
    data: (row.payload as { data: Record<string, unknown> }).data,
  }));

const orderOf = async (bed: UpstreamBed, orderId: string) =>
  dataOf(await bed.engine.acquiring.get(me, orderId)).order;

const paymentsOf = async (bed: UpstreamBed, orderId: string) =>
  dataOf(await bed.engine.acquiring.payments(me, orderId)).items;

describe('upstream.receive: who may call', () => {
  it('answers an unknown provider 404/65 with its name, also when none is registered', async () => {
    const bed = await upstreamBed();
    expect(refusalOf(await bed.engine.upstream.receive('acme', fromLoopback([])))).toEqual(
      refusal(404, 65, 'unsupported acquiring webhook provider: acme'),
    );
    const bare = createEngine({ ...bed.deps, acquiringProviders: [] });
    expect(refusalOf(await bare.upstream.receive('test', fromLoopback([])))).toEqual(
      refusal(404, 65, 'unsupported acquiring webhook provider: test'),
    );
    // `constructor` is no provider either: the registry is not a plain object.
    expect(refusalOf(await bed.engine.upstream.receive('constructor', fromLoopback([])))).toEqual(
      refusal(404, 65, 'unsupported acquiring webhook provider: constructor'),
    );
  });

  it('answers a call from outside the sources 403/61 before reading the body', async () => {
    const bed = await upstreamBed();
    for (const ip of ['10.0.0.1', '127.0.0.2', '::2', '::ffff:10.0.0.1', 'unknown', '']) {
      expect(
        refusalOf(await bed.engine.upstream.receive('test', fromLoopback(undefined, ip))),
        ip,
      ).toEqual(refusal(403, 61, 'webhook ip not allowed'));
    }
  });

  it('reads an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    const bed = await upstreamBed();
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '::FFFF:7f00:1', '::1']) {
      // Past the source check, the empty body is what answers.
      expect(
        refusalOf(await bed.engine.upstream.receive('test', fromLoopback(undefined, ip))),
        ip,
      ).toEqual(refusal(400, 51, 'empty upstream webhook event'));
    }
  });

  it('lets nobody in when a provider has no sources', async () => {
    const bed = await upstreamBed([passThroughProvider('test', [])]);
    expect(refusalOf(await bed.engine.upstream.receive('test', fromLoopback([])))).toEqual(
      refusal(403, 61, 'webhook ip not allowed'),
    );
  });

  it('keeps each provider to its own sources', async () => {
    const bed = await upstreamBed([
      passThroughProvider('near', ['127.0.0.1']),
      passThroughProvider('far', ['203.0.113.0/24']),
    ]);
    expect(refusalOf(await bed.engine.upstream.receive('far', fromLoopback([])))).toEqual(
      refusal(403, 61, 'webhook ip not allowed'),
    );
    expect(
      refusalOf(await bed.engine.upstream.receive('far', fromLoopback([], '203.0.113.9'))),
    ).toEqual(refusal(400, 51, 'empty upstream webhook event'));
  });

  it('refuses two providers of one name when the engine is built', async () => {
    const bed = await upstreamBed();
    expect(() =>
      createEngine({
        ...bed.deps,
        acquiringProviders: [passThroughProvider('x'), passThroughProvider('x')],
      }),
    ).toThrow('two acquiring providers are named "x"');
  });
});

describe('upstream.receive: forged provider events (issue 12, finding 1)', () => {
  it('answers a delivery the provider does not verify 401/61 unauthorized, after the source check and before the payload', async () => {
    const bed = await upstreamBed();
    const { address, order_id } = await directOrder(bed, 'ORD-FORGED');
    const paid = fromLoopback([upstreamEvent(address, 'confirmed')]);
    const { 'x-test-signature': _signature, ...unsigned } = paid.headers;
    for (const headers of [unsigned, { ...unsigned, 'x-test-signature': 'forged' }]) {
      expect(refusalOf(await bed.engine.upstream.receive('test', { ...paid, headers }))).toEqual(
        refusal(401, 61, 'unauthorized'),
      );
      // Unsigned garbage is refused for its signature, never read.
      expect(
        refusalOf(await bed.engine.upstream.receive('test', { ...paid, body: '{', headers })),
      ).toEqual(refusal(401, 61, 'unauthorized'));
    }
    // The address check still comes first: it is the second factor.
    expect(
      refusalOf(
        await bed.engine.upstream.receive('test', { ...paid, ip: '10.0.0.1', headers: unsigned }),
      ),
    ).toEqual(refusal(403, 61, 'webhook ip not allowed'));
    expect((await orderOf(bed, order_id)).status).toBe('pending');
    expect(await bed.oracle.outbox()).toEqual([]);
  });

  it('reads only JSON: a signed form post or text body is refused as an invalid payload and moves nothing', async () => {
    const bed = await upstreamBed();
    const { address, order_id } = await directOrder(bed, 'ORD-FORM');
    const paid = fromLoopback([upstreamEvent(address, 'confirmed')]);
    for (const type of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      '',
    ]) {
      const headers = { ...testSignatureHeaders, ...(type === '' ? {} : { 'content-type': type }) };
      expect(
        refusalOf(await bed.engine.upstream.receive('test', { ...paid, headers })),
        type,
      ).toEqual(refusal(400, 51, 'invalid upstream merchant deposit payload'));
    }
    expect((await orderOf(bed, order_id)).status).toBe('pending');
    for (const type of ['application/json', 'Application/JSON; charset=utf-8']) {
      const headers = { ...testSignatureHeaders, 'content-type': type };
      expect(dataOf(await bed.engine.upstream.receive('test', { ...paid, headers }))).toBeDefined();
    }
    expect((await orderOf(bed, order_id)).status).toBe('completed');
  });
});

describe('upstream.receive: the payload', () => {
  it("answers the provider's own refusal of its payload", async () => {
    const bed = await upstreamBed();
    expect(refusalOf(await bed.engine.upstream.receive('test', fromLoopback([])))).toEqual(
      refusal(400, 51, 'empty upstream webhook event'),
    );
    expect(
      refusalOf(await bed.engine.upstream.receive('test', jsonFromLoopback({ events: 'x' }))),
    ).toEqual(refusal(400, 51, 'invalid upstream merchant deposit payload'));
  });

  it('answers an empty list from a provider as an empty event', async () => {
    const bed = await upstreamBed([
      {
        name: 'lax',
        allowedSources: ['127.0.0.1'],
        verify: () => true,
        parse: () => ({ _tag: 'Right', right: [] }),
      },
    ]);
    expect(refusalOf(await bed.engine.upstream.receive('lax', fromLoopback([])))).toEqual(
      refusal(400, 51, 'empty upstream webhook event'),
    );
  });

  it('refuses an event whose token is not on its network, or not a token', async () => {
    const bed = await upstreamBed();
    const { address } = await directOrder(bed, 'ORD-1');
    for (const event of [
      upstreamEvent(address, 'detected', { network: 'ETH' }),
      { ...upstreamEvent(address, 'detected'), token_id: 'TRON_DOGE' as 'TRON_USDT' },
      upstreamEvent(address, 'detected', { amount: '-1' }),
      upstreamEvent(address, 'detected', { amount: '1.0000001' }),
      upstreamEvent(address, 'detected', { payment_id: '' }),
      upstreamEvent(address, 'detected', { confirmations: -1 }),
      { ...upstreamEvent(address, 'detected'), kind: 'seen' as 'detected' },
    ]) {
      expect(refusalOf(await bed.engine.upstream.receive('test', fromLoopback([event])))).toEqual(
        refusal(400, 51, 'invalid upstream merchant deposit payload'),
      );
    }
  });

  it('answers an address no order handed out on that network 400/53', async () => {
    const bed = await upstreamBed();
    const { address } = await directOrder(bed, 'ORD-1');
    const elsewhere = 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC';
    expect(
      refusalOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([upstreamEvent(elsewhere, 'detected')]),
        ),
      ),
    ).toEqual(refusal(400, 53, 'merchant deposit address not found'));
    // The order's TRON address, reported on ETH, is not an ETH deposit address.
    expect(
      refusalOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([upstreamEvent(address, 'detected', { token_id: 'ETH_USDT' })]),
        ),
      ),
    ).toEqual(refusal(400, 53, 'merchant deposit address not found'));
  });

  it('answers an address whose order is gone 400/53 acquiring order not found', async () => {
    const bed = await upstreamBed();
    const address = 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC';
    await bed.deps.store.transaction((tx) =>
      tx.depositAddresses.insert({
        address_id: 'dep_orphan',
        account_id: 'acc_a',
        network: 'TRON',
        address,
        order_id: 'ord_gone',
        created_at: t0,
        updated_at: t0,
      }),
    );
    expect(
      refusalOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([upstreamEvent(address, 'detected')]),
        ),
      ),
    ).toEqual(refusal(400, 53, 'acquiring order not found'));
  });

  it('refuses an event that contradicts the recorded transfer', async () => {
    const bed = await upstreamBed();
    const { address } = await directOrder(bed, 'ORD-1');
    dataOf(
      await bed.engine.upstream.receive('test', fromLoopback([upstreamEvent(address, 'detected')])),
    );
    expect(
      refusalOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([upstreamEvent(address, 'confirmed', { amount: '29.000000' })]),
        ),
      ),
    ).toEqual(refusal(400, 51, 'invalid upstream merchant deposit payload'));
  });
});

describe('upstream.receive: payments', () => {
  it('takes an order through processing, confirming and completed, crediting once', async () => {
    const bed = await upstreamBed();
    const { order_id, address } = await directOrder(bed, 'ORD-1');
    const steps = [
      ['detected', 'processing', 'processing'],
      ['confirming', 'confirming', 'confirming'],
      ['confirmed', 'completed', 'completed'],
    ] as const;
    for (const [kind, paymentStatus, orderStatus] of steps) {
      bed.deps.clock.advance(10);
      expect(
        dataOf(
          await bed.engine.upstream.receive('test', fromLoopback([upstreamEvent(address, kind)])),
        ),
      ).toEqual({
        events: [
          {
            payment_id: 'chain_1',
            order_id,
            payment_status: paymentStatus,
            order_status: orderStatus,
            changed: true,
          },
        ],
      });
    }
    expect(await orderOf(bed, order_id)).toMatchObject({
      status: 'completed',
      paid_amount_total: '30.000000',
      remaining_amount: '0.000000',
      overpaid_amount: '0.000000',
    });
    expect(await paymentsOf(bed, order_id)).toEqual([
      {
        payment_id: 'chain_1',
        order_id,
        network: 'TRON',
        currency: 'USDT',
        token_id: 'TRON_USDT',
        address,
        amount: '30.000000',
        confirmations: 19,
        required_confirmations: 19,
        tx_hash: 'tx-chain_1',
        status: 'completed',
        detected_at: t0 + 10,
        confirmed_at: t0 + 30,
        created_at: t0 + 10,
        updated_at: t0 + 30,
      },
    ]);
    expect(await bed.oracle.journalIds()).toEqual(['chain_1:pay_in']);
    const rows = await deliveries(bed);
    expect(rows.map((row) => [row.type, row.data.status])).toEqual([
      ['acquiring.payment.updated', 'processing'],
      ['acquiring.order.updated', 'processing'],
      ['acquiring.payment.updated', 'confirming'],
      ['acquiring.order.updated', 'confirming'],
      ['acquiring.payment.updated', 'completed'],
      ['acquiring.order.updated', 'completed'],
    ]);
    expect(rows.at(-1)?.data).toMatchObject({
      provider_event: 'transaction_confirmed',
      previous_status: 'confirming',
      status_changed: true,
      amount_changed: true,
      paid_amount_total: '30.000000',
      anomaly_tag: '',
    });

    // The provider repeats itself: nothing changes, nothing is sent.
    const repeat = dataOf(
      await bed.engine.upstream.receive('test', fromLoopback([upstreamEvent(address, 'detected')])),
    );
    expect(repeat).toEqual({
      events: [
        {
          payment_id: 'chain_1',
          order_id,
          payment_status: 'completed',
          order_status: 'completed',
          changed: false,
        },
      ],
    });
    expect(await deliveries(bed)).toHaveLength(6);
    expect(await bed.oracle.journalIds()).toEqual(['chain_1:pay_in']);
  });

  it('finds an EVM order whatever the letter case and records the address as handed out', async () => {
    const bed = await upstreamBed();
    const { order_id, address } = await directOrder(bed, 'ORD-E', 'ETH_USDC');
    expect(address).toBe(toEvmChecksumAddress(address));
    const lower = address.toLowerCase();
    dataOf(
      await bed.engine.upstream.receive(
        'test',
        fromLoopback([upstreamEvent(lower, 'detected', { token_id: 'ETH_USDC' })]),
      ),
    );
    dataOf(
      await bed.engine.upstream.receive(
        'test',
        fromLoopback([
          upstreamEvent(address.toUpperCase().replace('0X', '0x'), 'confirmed', {
            token_id: 'ETH_USDC',
          }),
        ]),
      ),
    );
    const [payment] = await paymentsOf(bed, order_id);
    expect(payment).toMatchObject({ address, status: 'completed', network: 'ETH' });
  });

  it('applies several events of one request in order, to one order or several', async () => {
    const bed = await upstreamBed();
    const one = await directOrder(bed, 'ORD-1');
    const two = await directOrder(bed, 'ORD-2');
    const answer = dataOf(
      await bed.engine.upstream.receive(
        'test',
        fromLoopback([
          upstreamEvent(one.address, 'detected', { payment_id: 'a', amount: '10' }),
          upstreamEvent(two.address, 'confirmed', { payment_id: 'b' }),
          upstreamEvent(one.address, 'confirmed', { payment_id: 'a', amount: '10' }),
          upstreamEvent(one.address, 'confirmed', { payment_id: 'c', amount: '20' }),
        ]),
      ),
    );
    expect(answer.events).toEqual([
      {
        payment_id: 'a',
        order_id: one.order_id,
        payment_status: 'processing',
        order_status: 'processing',
        changed: true,
      },
      {
        payment_id: 'b',
        order_id: two.order_id,
        payment_status: 'completed',
        order_status: 'completed',
        changed: true,
      },
      {
        payment_id: 'a',
        order_id: one.order_id,
        payment_status: 'completed',
        order_status: 'partial_paid',
        changed: true,
      },
      {
        payment_id: 'c',
        order_id: one.order_id,
        payment_status: 'completed',
        order_status: 'completed',
        changed: true,
      },
    ]);
    expect([...(await bed.oracle.journalIds())].sort()).toEqual([
      'a:pay_in',
      'b:pay_in',
      'c:pay_in',
    ]);
    expect(await bed.oracle.record('acquiringOrders', one.order_id)).toMatchObject({
      status: 'completed',
      version: 4,
    });
  });

  it("refuses a payment id another order's payment was credited under", async () => {
    const bed = await upstreamBed();
    const one = await directOrder(bed, 'ORD-1');
    const two = await directOrder(bed, 'ORD-2');
    const paid = (address: string, tx_hash: string) =>
      fromLoopback([upstreamEvent(address, 'confirmed', { payment_id: 'dup', tx_hash })]);
    dataOf(await bed.engine.upstream.receive('test', paid(one.address, 'tx-1')));
    expect(refusalOf(await bed.engine.upstream.receive('test', paid(two.address, 'tx-2')))).toEqual(
      refusal(400, 51, 'invalid upstream merchant deposit payload'),
    );
    expect(await orderOf(bed, two.order_id)).toMatchObject({ status: 'pending' });
    expect(await paymentsOf(bed, two.order_id)).toEqual([]);
    expect(await bed.oracle.journalIds()).toEqual(['dup:pay_in']);
  });

  it('refuses one transfer under a second payment id (issue 19, L1): in one request or later, and credits it once', async () => {
    const bed = await upstreamBed();
    const { order_id, address } = await directOrder(bed, 'ORD-1', 'TRON_USDT', {
      order_amount: '90.00',
    });
    const transfer = (payment_id: string, kind: 'detected' | 'confirmed' = 'confirmed') =>
      upstreamEvent(address, kind, { payment_id, tx_hash: 'tx-feed' });
    const invalid = refusal(400, 51, 'invalid upstream merchant deposit payload');
    // Both in one request: refused whole, nothing recorded.
    expect(
      refusalOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([transfer('one', 'detected'), transfer('two')]),
        ),
      ),
    ).toEqual(invalid);
    expect(await paymentsOf(bed, order_id)).toEqual([]);
    dataOf(await bed.engine.upstream.receive('test', fromLoopback([transfer('one')])));
    for (const paymentId of ['two', 'three']) {
      expect(
        refusalOf(await bed.engine.upstream.receive('test', fromLoopback([transfer(paymentId)]))),
      ).toEqual(invalid);
    }
    expect((await paymentsOf(bed, order_id)).map((p) => p.payment_id)).toEqual(['one']);
    expect(await orderOf(bed, order_id)).toMatchObject({ paid_amount_total: '30.000000' });
    expect(await bed.oracle.journalIds()).toEqual(['one:pay_in']);
  });

  it('leaves a transfer whose tx_hash is unknown alone until it learns one another payment holds', async () => {
    const bed = await upstreamBed();
    const { order_id, address } = await directOrder(bed, 'ORD-1', 'TRON_USDT', {
      order_amount: '90.00',
    });
    const receive = (...events: Parameters<typeof upstreamEvent>[]) =>
      bed.engine.upstream.receive('test', fromLoopback(events.map((e) => upstreamEvent(...e))));
    dataOf(await receive([address, 'detected', { payment_id: 'early', tx_hash: '' }]));
    dataOf(await receive([address, 'confirmed', { payment_id: 'known', tx_hash: 'tx-feed' }]));
    expect(
      refusalOf(await receive([address, 'confirmed', { payment_id: 'early', tx_hash: 'tx-feed' }])),
    ).toEqual(refusal(400, 51, 'invalid upstream merchant deposit payload'));
    expect(await bed.oracle.journalIds()).toEqual(['known:pay_in']);
    // Its own transaction confirms it: another transfer, credited.
    dataOf(await receive([address, 'confirmed', { payment_id: 'early', tx_hash: 'tx-other' }]));
    expect(await orderOf(bed, order_id)).toMatchObject({ paid_amount_total: '60.000000' });
    expect([...(await bed.oracle.journalIds())].sort()).toEqual(['early:pay_in', 'known:pay_in']);
  });

  it('applies a request whole or not at all', async () => {
    const bed = await upstreamBed();
    const { order_id, address } = await directOrder(bed, 'ORD-1');
    const before = await bed.oracle.outbox();
    expect(
      refusalOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([
            upstreamEvent(address, 'confirmed'),
            upstreamEvent('TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC', 'confirmed', { payment_id: 'x' }),
          ]),
        ),
      ),
    ).toEqual(refusal(400, 53, 'merchant deposit address not found'));
    expect(await orderOf(bed, order_id)).toMatchObject({ status: 'pending' });
    expect(await paymentsOf(bed, order_id)).toEqual([]);
    expect(await bed.oracle.journalIds()).toEqual([]);
    expect(await bed.oracle.outbox()).toEqual(before);
  });

  it('records a payment after expiry as late and tags the order expired_paid', async () => {
    const bed = await upstreamBed();
    const { order_id, address } = await directOrder(bed, 'ORD-1');
    bed.deps.clock.advance(1800);
    // The expiry timer has not run: the call settles the expiry first, as a read would.
    expect(
      dataOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([upstreamEvent(address, 'confirmed')]),
        ),
      ),
    ).toEqual({
      events: [
        {
          payment_id: 'chain_1',
          order_id,
          payment_status: 'late',
          order_status: 'expired',
          changed: true,
        },
      ],
    });
    expect(await orderOf(bed, order_id)).toMatchObject({
      status: 'expired',
      paid_amount_total: '0.000000',
    });
    // The money did arrive: the merchant's balance has it (domain rules), the order does not.
    expect(await bed.oracle.journalIds()).toEqual(['chain_1:pay_in']);
    const rows = await deliveries(bed);
    expect(rows.map((row) => [row.type, row.data.status, row.data.anomaly_tag])).toEqual([
      ['acquiring.order.updated', 'expired', ''],
      ['acquiring.payment.updated', 'late', undefined],
      ['acquiring.order.updated', 'expired', 'expired_paid'],
    ]);
    expect(rows[0]?.data.provider_event).toBe('order_expired');
    expect(rows[2]?.data).toMatchObject({
      provider_event: 'transaction_confirmed',
      previous_status: 'expired',
      status_changed: false,
    });
  });

  it('tells the same story of a late payment whether the expiry timer ran first or not', async () => {
    const story = async (timerFirst: boolean) => {
      const bed = await upstreamBed();
      const { address } = await directOrder(bed, 'ORD-1');
      bed.deps.clock.advance(1800);
      if (timerFirst) expect(await bed.engine.workers.runDueTimers('w')).toBe(1);
      dataOf(
        await bed.engine.upstream.receive(
          'test',
          fromLoopback([upstreamEvent(address, 'confirmed')]),
        ),
      );
      return (await bed.oracle.outbox()).map(({ outbox_id: _, ...row }) => row);
    };
    expect(await story(false)).toEqual(await story(true));
  });
});
