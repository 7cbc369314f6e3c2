/**
 * How an acquiring order is stored: its machine snapshot as versioned JSON, read back through a
 * codec of the order's context (checked, upgraded from older formats on the way in).
 */
import * as t from 'io-ts';
import {
  type AcquiringOrderContext,
  type AcquiringOrderSnapshot,
  acquiringOrderMachine,
  resolutionActions,
} from './acquiring-order.machine.js';
import { chainStatuses, orderStatuses, paymentStatuses } from './order-status.js';
import {
  CorruptSnapshotError,
  decodeStored,
  oneOf,
  StoredChainNetwork,
  StoredCryptoCurrency,
  StoredFiatCurrency,
  StoredPayTokenId,
  storedVersionOf,
} from './snapshot-persistence.js';

/**
 * Version of the stored snapshot format; bump when the order context changes shape, and teach
 * `contextUpgrades` the step from the one before. 2: `redirect_automatically` (ADR 0021);
 * 3: `refunds` and `resolution` (ADR 0044).
 */
const orderSnapshotVersion = 3;

const StoredPaymentRecord = t.type({
  payment_id: t.string,
  order_id: t.string,
  network: StoredChainNetwork,
  currency: StoredCryptoCurrency,
  chain_status: oneOf(chainStatuses, 'ChainStatus'),
  token_id: StoredPayTokenId,
  address: t.string,
  amount: t.string,
  tx_hash: t.string,
  confirmations: t.number,
  required_confirmations: t.number,
  status: oneOf(paymentStatuses, 'PaymentStatus'),
  detected_at: t.number,
  confirmed_at: t.union([t.number, t.null]),
  created_at: t.number,
  updated_at: t.number,
});

const StoredOrderContext = t.intersection([
  t.type({
    order_id: t.string,
    platform_order_no: t.string,
    out_trade_no: t.string,
    account_id: t.string,
    order_currency: StoredFiatCurrency,
    order_amount: t.string,
    pay_amount: t.string,
    allowed_pay_currencies: t.readonlyArray(StoredPayTokenId),
    underpay_tolerance: t.string,
    expire_time: t.number,
    notify_webhook_id: t.string,
    checkout_type: t.string,
    mode: t.keyof({ checkout: null, direct: null }),
    selected_token: t.union([
      t.null,
      t.type({
        network: StoredChainNetwork,
        currency: StoredCryptoCurrency,
        token_id: StoredPayTokenId,
        address: t.string,
      }),
    ]),
    redirect_automatically: t.boolean,
    payments: t.record(t.string, StoredPaymentRecord),
    anomaly_tag: t.keyof({ '': null, expired_paid: null }),
    close_reason: t.union([t.string, t.null]),
    refunds: t.record(t.string, t.type({ token_id: StoredPayTokenId, amount: t.string })),
    resolution: t.union([
      t.null,
      t.type({
        action: oneOf(resolutionActions, 'ResolutionAction'),
        reason: t.string,
        operator_id: t.string,
        resolved_at: t.number,
      }),
    ]),
    revision: t.number,
    created_at: t.number,
    updated_at: t.number,
  }),
  t.partial({ redirect_url: t.string, logo_url: t.string, remark: t.string }),
]);

/** The order's stored JSON in today's format. */
export const PersistedOrder = t.type({
  version: t.literal(orderSnapshotVersion),
  snapshot: t.type({ value: oneOf(orderStatuses, 'OrderStatus'), context: StoredOrderContext }),
});
export type PersistedOrder = t.TypeOf<typeof PersistedOrder>;

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * One step up from each older format, on the raw JSON (it is checked once, in today's shape).
 * Version 1 knew no `redirect_automatically`: those orders never redirect by themselves; version
 * 2 no refunds and no resolution: it had none.
 */
const contextUpgrades: Readonly<Record<number, (context: unknown) => unknown>> = {
  1: (context) => (isObject(context) ? { redirect_automatically: false, ...context } : context),
  2: (context) => (isObject(context) ? { refunds: {}, resolution: null, ...context } : context),
};

/** The stored JSON raised to today's format version, or corrupt for a version it cannot be. */
const upgraded = (json: unknown): unknown => {
  let version = storedVersionOf('acquiring order', json);
  let snapshot = isObject(json) ? json.snapshot : undefined;
  while (version !== orderSnapshotVersion) {
    const upgrade = contextUpgrades[version];
    if (upgrade === undefined || !isObject(snapshot)) {
      throw new CorruptSnapshotError(
        'acquiring order',
        `unsupported order snapshot version: ${version}`,
      );
    }
    snapshot = { ...snapshot, context: upgrade(snapshot.context) };
    version += 1;
  }
  return { version, snapshot };
};

/** The JSON a store keeps for an order. */
export const persistOrder = (snapshot: AcquiringOrderSnapshot): PersistedOrder => ({
  version: orderSnapshotVersion,
  snapshot: {
    ...acquiringOrderMachine.getPersistedSnapshot(snapshot),
    value: snapshot.value,
    context: snapshot.context,
  },
});

/**
 * The snapshot of a stored order, ready for `decide`: an older format is upgraded on the way in
 * (and written in today's format by the next save); an unknown version, a status that is not
 * one, or a context missing a field throws `CorruptSnapshotError`.
 */
export const restoreOrder = (json: unknown): AcquiringOrderSnapshot => {
  const persisted = decodeStored('acquiring order', PersistedOrder, upgraded(json));
  const context: AcquiringOrderContext = persisted.snapshot.context;
  return acquiringOrderMachine.resolveState({ value: persisted.snapshot.value, context });
};
