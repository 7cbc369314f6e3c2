/**
 * fast-check arbitraries of valid acquiring and webhook-management inputs, as a merchant would
 * send them (wire form: decimal strings, `null` or a missing key for "not set"). For tests only.
 */
import fc from 'fast-check';
import { webhookEventPatterns } from '../codecs/webhook.codecs.js';
import { type PayTokenId, payTokenIds, payTokens } from '../money/pay-tokens.js';

export const payTokenIdArb: fc.Arbitrary<PayTokenId> = fc.constantFrom(...payTokenIds);

/**
 * A USD amount between `minCents` and `maxCents`, written any way the wire allows: "12",
 * "12.0", "12.00", "0.5", "0.50".
 */
export const usdAmountArb = (minCents: bigint, maxCents: bigint): fc.Arbitrary<string> =>
  fc.tuple(fc.bigInt(minCents, maxCents), fc.nat(2)).map(([cents, style]) => {
    const units = (cents / 100n).toString();
    const fraction = (cents % 100n).toString().padStart(2, '0');
    if (fraction === '00') return [units, `${units}.0`, `${units}.00`][style] ?? units;
    if (fraction.endsWith('0') && style === 0) return `${units}.${fraction.charAt(0)}`;
    return `${units}.${fraction}`;
  });

/** The canonical wire form at USD scale, to compare decoded amounts with. */
export const usdScaled = (amount: string): string => {
  const [units = '0', fraction = ''] = amount.split('.');
  return `${units}.${fraction.padEnd(2, '0')}`;
};

/** Absolute https URLs: DNS names, IPv4 and IPv6 literals, ports, paths, queries, fragments. */
export const httpsUrlArb: fc.Arbitrary<string> = fc
  .webUrl({
    validSchemes: ['https'],
    withQueryParameters: true,
    withFragments: true,
    authoritySettings: { withIPv4: true, withIPv6: true, withPort: true },
  })
  // Port 0 is no port a browser or client connects to.
  .filter((url) => !/^https:\/\/[^/?#]*:0(?:[/?#]|$)/.test(url));

/** Same-origin relative paths: one leading `/`, printable ASCII, no backslash. */
export const sameOriginPathArb: fc.Arbitrary<string> = fc.oneof(
  fc.constant('/'),
  fc
    .tuple(
      fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/),
      fc.stringMatching(
        /^(\/[A-Za-z0-9._~%-]{0,12}){0,4}(\?[A-Za-z0-9=&%]{0,20})?(#[A-Za-z0-9]*)?$/,
      ),
    )
    .map(([first, rest]) => `/${first}${rest}`),
);

const absent = Symbol('absent');

/** An optional field: left out, `null`, or a value. */
const optional = <A>(arb: fc.Arbitrary<A>): fc.Arbitrary<A | null | typeof absent> =>
  fc.oneof(fc.constant(absent), fc.constant(null), arb);

const withoutAbsent = (fields: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== absent));

const remarkArb = fc
  .string({ minLength: 1, maxLength: 256 })
  .filter((s) => /^[^\p{Cc}]*\S[^\p{Cc}]*$/u.test(s));

/** Every field but the webhook, pay currencies, mode and pair, which depend on each other. */
const independentOrderFields = {
  out_trade_no: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/),
  order_currency: fc.constant('USD'),
  expire_seconds: fc.integer({ min: 60, max: 10800 }),
  redirect_url: optional(fc.oneof(httpsUrlArb, sameOriginPathArb)),
  logo_url: optional(httpsUrlArb),
  remark: optional(remarkArb),
  checkout_type: optional(fc.constant('hosted')),
  redirect_automatically: optional(fc.boolean()),
  unknown_key: optional(fc.constant('ignored')),
};

/** order_amount and an underpay_tolerance below it (up to 10 000.00). */
const orderAmountsArb = fc.bigInt(1n, 10n ** 12n).chain((cents) =>
  fc.record({
    order_amount: usdAmountArb(cents, cents),
    underpay_tolerance: usdAmountArb(0n, cents - 1n < 10n ** 6n ? cents - 1n : 10n ** 6n),
  }),
);

/** Which pay tokens an order may name: `sendable` in allowed_pay_currencies, `unsent` when absent. */
interface OrderPayTokens {
  readonly sendable: readonly PayTokenId[];
  /** The tokens the order gets without allowed_pay_currencies; none: always send it. */
  readonly unsent: readonly PayTokenId[];
}

/**
 * Order bodies over `tokens`, naming `webhookId`: allowed_pay_currencies some of the sendable
 * tokens (ids may repeat) or, when unsent tokens exist, absent or `null`; the pair always there
 * in `direct` mode, sometimes in `checkout` mode, and always one of the allowed tokens.
 */
const orderBodies = (
  tokens: OrderPayTokens,
  webhookId: fc.Arbitrary<string>,
): fc.Arbitrary<Record<string, unknown>> => {
  const sent = fc.array(fc.constantFrom(...tokens.sendable), { minLength: 1, maxLength: 14 });
  return fc
    .tuple(
      fc.record({ ...independentOrderFields, notify_webhook_id: webhookId }),
      orderAmountsArb,
      tokens.unsent.length === 0 ? sent : optional(sent),
      fc.constantFrom(absent, null, 'checkout', 'direct'),
      fc.boolean(),
      fc.nat(),
    )
    .map(([fields, amounts, allowed, mode, preselect, pick]) => {
      const choices = Array.isArray(allowed) ? allowed : tokens.unsent;
      const token = payTokens[choices[pick % choices.length] ?? 'TRON_USDT'];
      const pair =
        mode === 'direct' || preselect ? { network: token.network, currency: token.currency } : {};
      return withoutAbsent({
        ...fields,
        ...amounts,
        allowed_pay_currencies: allowed,
        mode,
        ...pair,
      });
    });
};

/**
 * Valid `POST /payment/acquiring/orders` bodies, with every optional field sometimes absent or
 * `null`. The pair is always there in `direct` mode, sometimes in `checkout` mode, and always one
 * of the sent allowed_pay_currencies (which may repeat ids).
 */
export const acquiringOrderInputArb: fc.Arbitrary<Record<string, unknown>> = orderBodies(
  { sendable: payTokenIds, unsent: payTokenIds },
  fc.stringMatching(/^wh_[a-z0-9]{8,24}$/),
);

/** What an order needs of the merchant's account (`merchant.accounts.current()` fits). */
export interface OrderAccount {
  readonly enabled_pay_tokens: readonly PayTokenId[];
  readonly default_pay_tokens: readonly PayTokenId[];
}

/**
 * `POST /payment/acquiring/orders` bodies the engine creates for `account`: its enabled pay
 * tokens only (its default ones when allowed_pay_currencies is left out), notified through
 * `notifyWebhookId`, an active webhook of the account that receives acquiring events. Each
 * out_trade_no is new to a merchant that has made no order yet. Throws at once for an account
 * with no pay token enabled.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const acceptedOrderCreateBody = (
  account: OrderAccount,
  notifyWebhookId: string,
): fc.Arbitrary<Record<string, unknown>> => {
  const enabled = account.enabled_pay_tokens;
  if (enabled.length === 0) throw new Error('the account has no pay token enabled: no order');
  return orderBodies(
    { sendable: enabled, unsent: account.default_pay_tokens.filter((id) => enabled.includes(id)) },
    fc.constant(notifyWebhookId),
  );
};

/** Valid `POST /payment/webhooks` bodies. */
export const webhookCreateInputArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    url: httpsUrlArb,
    events: fc.array(fc.constantFrom(...webhookEventPatterns), { minLength: 1, maxLength: 12 }),
    status: optional(fc.constantFrom('active', 'inactive')),
  })
  .map(withoutAbsent);

/** Valid `PATCH /payment/webhooks/{webhook_id}` bodies (any subset of the fields). */
export const webhookUpdateInputArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    url: optional(httpsUrlArb),
    events: optional(
      fc.array(fc.constantFrom(...webhookEventPatterns), { minLength: 1, maxLength: 12 }),
    ),
    status: optional(fc.constantFrom('active', 'inactive')),
  })
  .map(withoutAbsent);

/** A TRON address a refund can be sent to (any well-formed one: refunds check the format). */
const refundTronAddress = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

/**
 * A valid refund request body for an order paid in TRON_USDT (ADR 0044): every refund type, a
 * partial one with an amount of 0.000001 to 1,000 tokens.
 */
export const refundCreateInputArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constantFrom('full', 'overpaid').map((refund_type) => ({
    refund_type,
    address: refundTronAddress,
  })),
  fc.bigInt({ min: 1n, max: 1_000_000_000n }).map((units) => ({
    refund_type: 'partial',
    amount: `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, '0')}`,
    token_id: 'TRON_USDT',
    address: refundTronAddress,
  })),
);
