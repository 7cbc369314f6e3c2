/**
 * How a refund is stored: its machine snapshot as versioned JSON, read back through a checked
 * codec of its status and context.
 */
import * as t from 'io-ts';
import {
  type AcquiringRefundSnapshot,
  acquiringRefundMachine,
  refundStatuses,
  refundStatusOf,
  refundTypes,
} from './acquiring-refund.machine.js';
import {
  CorruptSnapshotError,
  decodeStored,
  oneOf,
  StoredChainNetwork,
  StoredCryptoCurrency,
  StoredPayTokenId,
  storedVersionOf,
} from './snapshot-persistence.js';

const refundSnapshotVersion = 1;

const nullableString = t.union([t.string, t.null]);

const StoredRefundContext = t.type({
  refund_id: t.string,
  order_id: t.string,
  account_id: t.string,
  out_trade_no: t.string,
  notify_webhook_id: t.string,
  refund_type: oneOf(refundTypes, 'RefundType'),
  token_id: StoredPayTokenId,
  network: StoredChainNetwork,
  currency: StoredCryptoCurrency,
  amount: t.string,
  address: t.string,
  reason: nullableString,
  client_refund_id: nullableString,
  review_required: t.boolean,
  requested_by: t.string,
  reviewed_by: nullableString,
  review_reason: nullableString,
  fail_reason: nullableString,
  completed_at: t.union([t.number, t.null]),
  revision: t.number,
  created_at: t.number,
  updated_at: t.number,
});

/** The refund's stored JSON. */
export const PersistedRefund = t.type({
  version: t.literal(refundSnapshotVersion),
  snapshot: t.type({ value: oneOf(refundStatuses, 'RefundStatus'), context: StoredRefundContext }),
});
export type PersistedRefund = t.TypeOf<typeof PersistedRefund>;

/** The JSON a store keeps for a refund. */
export const persistRefund = (snapshot: AcquiringRefundSnapshot): PersistedRefund => ({
  version: refundSnapshotVersion,
  snapshot: {
    ...acquiringRefundMachine.getPersistedSnapshot(snapshot),
    value: refundStatusOf(snapshot),
    context: snapshot.context,
  },
});

/**
 * A stored refund back, ready for `decide`; another format version, a status that is not one or
 * a context missing a field throws `CorruptSnapshotError`.
 */
export const restoreRefund = (json: unknown): AcquiringRefundSnapshot => {
  const version = storedVersionOf('acquiring refund', json);
  if (version !== refundSnapshotVersion) {
    throw new CorruptSnapshotError(
      'acquiring refund',
      `unsupported refund snapshot version: ${version}`,
    );
  }
  const persisted = decodeStored('acquiring refund', PersistedRefund, json);
  return acquiringRefundMachine.resolveState({
    value: persisted.snapshot.value,
    context: persisted.snapshot.context,
  });
};
