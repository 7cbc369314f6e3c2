/**
 * Fixtures of the upstream tests: a provider whose payload is already the normalised events
 * (`{events: UpstreamPaymentEvent[]}`), an engine with it registered on the acquiring test bed,
 * and direct orders whose deposit address is known at once.
 */
import {
  type AcquiringProvider,
  type ChainNetwork,
  type PayTokenId,
  payrailError,
  payTokens,
  type UpstreamPaymentEvent,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import {
  caller,
  dataOf,
  seed,
  type TestBed,
  testBed,
} from '../acquiring/acquiring.test-support.js';
import { sandboxRequiredConfirmations } from '../acquiring/sandbox-payment-event.policy.js';
import type { Engine, UpstreamRequest } from '../engine.api.js';
import { createEngine } from '../engine.wiring.js';

const loopbackSources = ['127.0.0.1/32', '::1/128'];

/** The test provider's "signature": a header, so the engine's order of checks can be seen. */
export const testSignatureHeaders = { 'x-test-signature': 'signed' } as const;

/**
 * A provider that speaks the normalised shape itself; `{}` or no body is an empty event. Its
 * signature check is a fixed header (`testSignatureHeaders`), not a secret: the engine's tests
 * see that the check runs and where; the real check is the sandbox provider's.
 */
export const passThroughProvider = (
  name = 'test',
  allowedSources: readonly string[] = loopbackSources,
): AcquiringProvider => ({
  name,
  allowedSources,
  verify: ({ headers }) => headers['x-test-signature'] === testSignatureHeaders['x-test-signature'],
  parse: (body) => {
    const events = (body as { events?: unknown } | undefined)?.events;
    if (events === undefined || (Array.isArray(events) && events.length === 0)) {
      return E.left(payrailError('empty_upstream_event'));
    }
    return Array.isArray(events)
      ? E.right(events as UpstreamPaymentEvent[])
      : E.left(payrailError('invalid_upstream_deposit_payload'));
  },
});

export interface UpstreamBed extends TestBed {
  readonly engine: Engine;
}

export const upstreamBed = async (
  providers: readonly AcquiringProvider[] = [passThroughProvider()],
): Promise<UpstreamBed> => {
  const bed = testBed();
  await seed(bed);
  const deps = { ...bed.deps, acquiringProviders: providers };
  return { ...bed, deps, engine: createEngine(deps) };
};

export interface DirectOrder {
  readonly order_id: string;
  readonly address: string;
}

/** A `direct` order of merchant A paid in `token`: its deposit address is answered at once. */
export const directOrder = async (
  bed: UpstreamBed,
  outTradeNo: string,
  token: PayTokenId = 'TRON_USDT',
  overrides: Record<string, unknown> = {},
): Promise<DirectOrder> => {
  const { network, currency } = payTokens[token];
  const data = dataOf(
    await bed.engine.acquiring.create(caller(), {
      out_trade_no: outTradeNo,
      order_currency: 'USD',
      order_amount: '30.00',
      allowed_pay_currencies: [token],
      expire_seconds: 1800,
      underpay_tolerance: '0.50',
      notify_webhook_id: 'wh_a',
      mode: 'direct',
      network,
      currency,
      ...overrides,
    }),
  );
  const order = data.order as { order_id: string };
  const address = (data.payment_address as { address: string }).address;
  return { order_id: order.order_id, address };
};

export type EventKind = UpstreamPaymentEvent['kind'];

const confirmationsOf = (kind: EventKind, network: ChainNetwork): number =>
  ({ detected: 0, confirming: 1, confirmed: sandboxRequiredConfirmations[network], failed: 0 })[
    kind
  ];

/** A normalised event for `address`; the tx hash is derived from the payment id. */
export const upstreamEvent = (
  address: string,
  kind: EventKind,
  overrides: Partial<UpstreamPaymentEvent> = {},
): UpstreamPaymentEvent => {
  const token_id = overrides.token_id ?? 'TRON_USDT';
  const network = payTokens[token_id].network;
  const payment_id = overrides.payment_id ?? 'chain_1';
  return {
    network,
    address,
    token_id,
    payment_id,
    tx_hash: `tx-${payment_id}`,
    amount: '30.000000',
    kind,
    confirmations: confirmationsOf(kind, network),
    required_confirmations: sandboxRequiredConfirmations[network],
    ...overrides,
  };
};

/** A signed JSON call from the loopback address with `body` as its JSON (none: no body). */
export const jsonFromLoopback = (body: unknown, ip = '127.0.0.1'): UpstreamRequest => ({
  ip,
  body: body === undefined ? '' : JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...testSignatureHeaders },
});

/** A signed JSON call from the loopback address with the events as the body. */
export const fromLoopback = (
  events: readonly UpstreamPaymentEvent[] | undefined,
  ip = '127.0.0.1',
): UpstreamRequest => jsonFromLoopback(events === undefined ? undefined : { events }, ip);
