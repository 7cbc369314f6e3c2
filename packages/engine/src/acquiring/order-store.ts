/**
 * How an acquiring order is kept: its machine snapshot (versioned JSON) plus the `status` column
 * lists filter on, always written together so the two never disagree.
 */
import {
  type AcquiringOrderRecord,
  type AcquiringOrderSnapshot,
  acquiringOrderMachine,
  type NewRecord,
  type StoreTransaction,
} from '@payrail/core';

/**
 * Version of the stored snapshot format; bump when the order context changes shape, and teach
 * `upgradeContext` the step from the one before. 2: `redirect_automatically` (ADR 0021).
 */
export const orderSnapshotVersion = 2;

type OrderContext = AcquiringOrderSnapshot['context'];

interface PersistedOrder {
  readonly version: number;
  readonly snapshot: {
    readonly value: AcquiringOrderSnapshot['value'];
    readonly context: OrderContext;
  };
}

/** Version 1 knew no `redirect_automatically`: those orders never redirect by themselves. */
const contextUpgrades: Readonly<Record<number, (context: OrderContext) => OrderContext>> = {
  1: (context) => ({ ...context, redirect_automatically: false }),
};

/** A stored context in today's shape, or a refusal for a version this code does not know. */
const upgradeContext = (version: number, context: OrderContext): OrderContext => {
  if (version === orderSnapshotVersion) return context;
  const upgrade = contextUpgrades[version];
  if (upgrade === undefined) {
    throw new TypeError(`unsupported order snapshot version: ${String(version)}`);
  }
  return upgradeContext(version + 1, upgrade(context));
};

const persistOrder = (snapshot: AcquiringOrderSnapshot): PersistedOrder => ({
  version: orderSnapshotVersion,
  snapshot: acquiringOrderMachine.getPersistedSnapshot(
    snapshot,
  ) as unknown as PersistedOrder['snapshot'],
});

/**
 * The snapshot of a stored order, ready for `decide`: an older format is upgraded on the way in
 * (and written in today's format by the next save); an unknown version is refused.
 */
export const restoreOrder = (record: AcquiringOrderRecord): AcquiringOrderSnapshot => {
  const persisted = record.snapshot as PersistedOrder;
  return acquiringOrderMachine.resolveState({
    value: persisted.snapshot.value,
    context: upgradeContext(persisted.version, persisted.snapshot.context),
  });
};

/** A new order's record. */
export const newOrderRecord = (
  snapshot: AcquiringOrderSnapshot,
): NewRecord<AcquiringOrderRecord> => {
  const c = snapshot.context;
  return {
    order_id: c.order_id,
    account_id: c.account_id,
    out_trade_no: c.out_trade_no,
    status: snapshot.value,
    snapshot: persistOrder(snapshot),
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
};

/** Writes the next snapshot over the version that was read (optimistic concurrency). */
export const saveOrder = (
  tx: StoreTransaction,
  read: AcquiringOrderRecord,
  snapshot: AcquiringOrderSnapshot,
): Promise<AcquiringOrderRecord> =>
  tx.acquiringOrders.update({
    ...read,
    status: snapshot.value,
    snapshot: persistOrder(snapshot),
    updated_at: snapshot.context.updated_at,
  });

/** An order with its snapshot, as read (or last written) in the current unit of work. */
export interface LoadedOrder {
  readonly record: AcquiringOrderRecord;
  readonly snapshot: AcquiringOrderSnapshot;
}

/** The order, if it exists (and, with `scope`, belongs to that merchant account). */
export const loadOrder = async (
  tx: StoreTransaction,
  orderId: string,
  scope?: string,
): Promise<LoadedOrder | undefined> => {
  const record = await tx.acquiringOrders.get(orderId, scope);
  return record === undefined ? undefined : { record, snapshot: restoreOrder(record) };
};
