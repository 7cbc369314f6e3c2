/**
 * How a payout is kept: the payout record (the machine's persisted snapshot plus the route the
 * payout was priced on, and the columns lists filter on), read and written only through
 * `payoutRepository`, the command handler's contract for the payout aggregate; and the balance a
 * payout is decided on.
 */
import {
  type AccountStatus,
  decodePersistedPayout,
  type NewRecord,
  type PayoutEvent,
  type PayoutInput,
  type PayoutRecord,
  type PayoutRouting,
  type PayoutSnapshot,
  payoutStatePairOf,
  payoutStatusOf,
  payrailError,
  persistPayout,
  restorePayout,
  type StoreReads,
  type StoreTransaction,
} from '@payrail/core';
import {
  type EventRouting,
  payoutDecider,
  type Repository,
  refuse,
} from '../command/command.handler.js';

export interface LoadedPayout {
  readonly record: PayoutRecord;
  readonly snapshot: PayoutSnapshot;
  readonly routing: PayoutRouting | undefined;
}

/** The payout of a record; a corrupt snapshot throws `CorruptSnapshotError` (internal error). */
export const loadedPayoutOf = (record: PayoutRecord): LoadedPayout => {
  const stored = decodePersistedPayout(record.snapshot);
  return { record, snapshot: restorePayout(stored), routing: stored.routing };
};

/** The columns lists filter on, kept in step with the snapshot. */
const columnsOf = (snapshot: PayoutSnapshot, routing: PayoutRouting | undefined) => {
  const pair = payoutStatePairOf(snapshot);
  const context = snapshot.context;
  return {
    currency: context.currency,
    amount: context.amount,
    status: payoutStatusOf(snapshot),
    review_status: pair.review_status,
    execution_status: pair.execution_status,
    snapshot: persistPayout(snapshot, routing),
    updated_at: context.updated_at,
  };
};

/** What a new payout's record holds beside its snapshot. */
export interface NewPayout {
  /** The route it was priced on. */
  readonly routing: PayoutRouting;
  /** SHA-256 of the request that created it, for `client_request_id` repeats. */
  readonly requestHash: string;
  /** The crypto batch it pays an item of. */
  readonly batchId?: string;
}

const newPayoutRecord = (snapshot: PayoutSnapshot, extra: NewPayout): NewRecord<PayoutRecord> => {
  const context = snapshot.context;
  return {
    payout_id: context.payout_id,
    account_id: context.account_id,
    reference: context.reference,
    client_request_id: context.client_request_id ?? null,
    request_hash: extra.requestHash,
    batch_id: extra.batchId ?? null,
    created_at: context.created_at,
    ...columnsOf(snapshot, extra.routing),
  };
};

/** The caller's payout, or `payout not found` (another merchant's payout included). */
const loadPayout = async (
  tx: StoreReads,
  payoutId: string,
  accountId?: string,
): Promise<LoadedPayout> => {
  const record = await tx.payouts.get(payoutId, accountId);
  return record === undefined ? refuse(payrailError('payout_not_found')) : loadedPayoutOf(record);
};

/** The available balance of one currency, read in the unit of work that uses it. */
export const availableBalance = async (
  tx: StoreTransaction,
  accountId: string,
  currency: string,
): Promise<string> =>
  (await tx.ledger.balances(accountId)).find((b) => b.currency === currency)?.available ?? '0';

/**
 * The account's status, read in the unit of work that decides. Every payout event that may move
 * money (an approval, a verification answer, every execution outcome) carries it, and the payout
 * machine takes none of them while the account is frozen: they answer `account frozen` and
 * change nothing (issue 12, ADR 0033). (A merchant's own acts meet `account frozen` at the
 * caller's account first.)
 */
export const accountStatusOf = async (
  tx: StoreTransaction,
  accountId: string,
): Promise<AccountStatus> => (await tx.accounts.get(accountId))?.status ?? 'active';

/** Whether the account is frozen, read in the unit of work that decides. */
export const isAccountFrozen = async (tx: StoreTransaction, accountId: string): Promise<boolean> =>
  (await accountStatusOf(tx, accountId)) === 'frozen';

/** A payout's events go to its notify_url; a batch's payouts without one send no callbacks. */
const payoutRouting = ({ context }: PayoutSnapshot): EventRouting => ({
  accountId: context.account_id,
  ...(context.notify_url === '' ? {} : { notifyUrl: context.notify_url }),
});

/**
 * The payout aggregate for the command handler. A loaded payout carries the route it is saved
 * with: an update that moves the route hands the handler `{ ...loaded, routing }`.
 */
export const payoutRepository: Repository<
  PayoutSnapshot,
  PayoutEvent,
  PayoutInput,
  LoadedPayout,
  NewPayout
> = {
  decider: payoutDecider,
  idOf: (snapshot) => snapshot.context.payout_id,
  load: loadPayout,
  insert: async (tx, snapshot, extra) => ({
    record: await tx.payouts.insert(newPayoutRecord(snapshot, extra)),
    snapshot,
    routing: extra.routing,
  }),
  save: async (tx, loaded, snapshot) => ({
    record: await tx.payouts.update({ ...loaded.record, ...columnsOf(snapshot, loaded.routing) }),
    snapshot,
    routing: loaded.routing,
  }),
  routing: payoutRouting,
};
