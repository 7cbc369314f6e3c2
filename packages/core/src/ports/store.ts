/**
 * The store port: what the engine needs to persist and query, and the unit of work that makes a
 * state change, its ledger postings, its outbox rows and its timers commit together or not at
 * all. Types only (plus the `StoreFailure` and `StoreUnavailable` values stores throw); stores live in their own
 * packages and are graded by @payrail/store-testkit.
 */
import type { Balance, Journal, MerchantBucket, RecordType } from '../ledger/ledger.js';
import type { Currency } from '../money/money.js';
import type { CollectionName, CollectionSpecs, RecordOf, ScalarKeys } from './collections.js';
import type { Environment, RecordMeta } from './records.js';

export type SortOrder = 'asc' | 'desc';

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

export interface ListQuery<R> {
  /** Only records whose scope field equals this (a merchant never sees another's records). */
  readonly scope?: string;
  /**
   * Equality filters, only on the collection's `filters` fields (a store throws a programming
   * error for any other field). `null` matches records whose field is null.
   */
  readonly where?: { readonly [K in ScalarKeys<R>]?: R[K] };
  /** Inclusive bounds on `created_at`, Unix seconds. */
  readonly createdFrom?: number;
  readonly createdTo?: number;
  /**
   * By `created_at`, then by id in the same direction for a stable order (string ids in binary
   * order, like `COLLATE "C"`; numeric ids by value). Default `desc`.
   */
  readonly sort?: SortOrder;
  readonly limit: number;
  readonly offset: number;
}

/** A new record: the store sets `version` to 1. */
export type NewRecord<R extends RecordMeta> = Omit<R, 'version'>;

export interface Collection<R extends RecordMeta> {
  /** Throws `StoreFailure('unique_violation')` when a unique key is taken. */
  insert(record: NewRecord<R>): Promise<R>;
  /** With `scope`, a record of another scope is not found (answers `undefined`). */
  get(id: string | number, scope?: string): Promise<R | undefined>;
  /** The record holding a unique key (all of the key's fields given). */
  findUnique(key: Partial<R>): Promise<R | undefined>;
  /**
   * Writes `record` if the stored version is still `record.version`, and answers it with the
   * version incremented; otherwise (or when no record has its id) throws
   * `StoreFailure('version_conflict')`.
   */
  update(record: R): Promise<R>;
  list(query: ListQuery<R>): Promise<Page<R>>;
}

export type Collections = { readonly [N in CollectionName]: Collection<RecordOf<N>> };

/**
 * One ledger record as the merchant's ledger endpoint shows it: one posting of a journal to one
 * of the account's buckets (`merchantPostingsOf`). A journal that moves money between the buckets
 * (a hold, a release) is two records with one `journal_id`; (`journal_id`, `bucket`) names a
 * record.
 */
export interface LedgerEntry {
  readonly journal_id: string;
  readonly record_type: RecordType;
  readonly account_id: string;
  readonly bucket: MerchantBucket;
  readonly currency: Currency;
  /** Signed, at the currency's scale: into the bucket positive, out of it negative. */
  readonly amount: string;
  /**
   * The bucket's balance in this currency right after this record, at the currency's scale:
   * the sum of the amounts of the bucket's records up to this one in the ledger's order
   * (`created_at`, then posting order), whatever the query filtered or paged.
   */
  readonly balance_after: string;
  readonly business_type: string;
  readonly business_id: string;
  readonly created_at: number;
}

export interface LedgerQuery {
  readonly accountId: string;
  readonly currency?: Currency;
  readonly recordType?: RecordType;
  /** Only the records of this bucket (a statement's opening balance is a bucket's last one). */
  readonly bucket?: MerchantBucket;
  readonly createdFrom?: number;
  readonly createdTo?: number;
  readonly sort?: SortOrder;
  readonly limit: number;
  readonly offset: number;
}

export interface LedgerPort {
  /**
   * Posts a balanced journal. Throws `StoreFailure('duplicate_journal')` when its id was posted
   * before (journal ids name a business object's movement and a business object has one account,
   * so a store keyed by account, ADR 0053, is only held to this within the journal's account), and `StoreFailure('insufficient_balance')` when a merchant bucket would go below
   * zero; either way nothing of it is written.
   */
  post(journal: Journal, at: number): Promise<void>;
  /** One balance per currency the account has postings in, in currency code order. */
  balances(accountId: string): Promise<readonly Balance[]>;
  /**
   * The account's ledger records, by `created_at` then by posting order, both in `sort`'s
   * direction (default `desc`), so `asc` replays the ledger as it was written: a payout's hold
   * comes before its settlement even within one second, whatever their ids, and a journal's
   * records follow the order of its postings. Posting order is a sequence each store assigns as
   * it posts, in the order journals are applied to each bucket (two units of work posting to one
   * bucket at once are numbered in the order the bucket took them); it only ever grows, may have
   * gaps (a unit of work that aborted), and is not part of `LedgerEntry`. `total` counts
   * records. Replaying all of an account's records in `asc` order from zero reproduces each
   * record's `balance_after` and ends at `balances`.
   */
  entries(query: LedgerQuery): Promise<Page<LedgerEntry>>;
}

export type OutboxDestination =
  | { readonly kind: 'webhook'; readonly webhookId: string }
  | { readonly kind: 'notify_url'; readonly url: string };

/**
 * A destination as a key: every store dedupes a replayed event to the same destination into one
 * message, and orders one business object's messages per destination, by this key.
 */
export const outboxDestinationKey = (destination: OutboxDestination): string =>
  destination.kind === 'webhook' ? `webhook:${destination.webhookId}` : `url:${destination.url}`;

export interface OutboxMessage {
  readonly outbox_id: string;
  readonly event_id: string;
  readonly account_id: string;
  readonly business_type: string;
  readonly business_id: string;
  readonly event_type: string;
  readonly destination: OutboxDestination;
  /** The JSON body to deliver (an envelope, or a bare verification request). */
  readonly payload: Readonly<Record<string, unknown>>;
  readonly status: 'pending' | 'delivered' | 'failed';
  /** Attempts made so far: `complete`, `retry` and `fail` each count one. */
  readonly attempts: number;
  /** Not claimable before this Unix second. */
  readonly available_at: number;
  readonly created_at: number;
}

export type NewOutboxMessage = Omit<OutboxMessage, 'status' | 'attempts'>;

export interface ClaimOptions {
  readonly worker: string;
  readonly now: number;
  readonly limit: number;
  /**
   * A claim lapses after this many seconds (it is active while `now < claimed at +
   * leaseSeconds`), so a crashed worker's rows are claimed again.
   */
  readonly leaseSeconds: number;
  /**
   * Only rows whose account falls in one of these work buckets (`workBucketOf`, ADR 0053), so
   * claimers can each take their own buckets (a shard's). Omitted: every bucket, in one claim.
   */
  readonly buckets?: readonly number[];
}

export interface OutboxPort {
  /** Adds messages; a repeat of (event_id, destination) is ignored, so replays deduplicate. */
  enqueue(messages: readonly NewOutboxMessage[]): Promise<void>;
  /**
   * Claims up to `limit` pending messages that are due and unclaimed (or whose lease lapsed),
   * at most the oldest one per (destination, business object), so each object's events go out
   * in order. Oldest means smallest `created_at`, then enqueue order; the answer is in that
   * order too. Concurrent claimers never receive the same message.
   */
  claim(options: ClaimOptions): Promise<readonly OutboxMessage[]>;
  /** Marks a claimed message delivered (only by the worker holding the claim). */
  complete(outboxId: string, worker: string): Promise<boolean>;
  /** Releases a claimed message for another attempt at `availableAt`, counting the attempt. */
  retry(outboxId: string, worker: string, availableAt: number): Promise<boolean>;
  /** Gives up on a claimed message after its last attempt. */
  fail(outboxId: string, worker: string): Promise<boolean>;
  get(outboxId: string): Promise<OutboxMessage | undefined>;
  /**
   * The earliest Unix second at which `claim` would hand out a message: over the head of each
   * queue (the oldest pending message per destination and business object), its `available_at`,
   * or its lease's end when that is later. `undefined` when nothing is pending. A time at or
   * before now means something is claimable now (unless a concurrent claimer holds it).
   */
  nextAvailableAt(): Promise<number | undefined>;
}

export interface TimerRecord {
  /** `<name>:<business_id>`: one timer of a name per object. */
  readonly timer_id: string;
  readonly name: string;
  readonly business_type: string;
  readonly business_id: string;
  readonly account_id: string;
  readonly due_at: number;
}

export interface TimerPort {
  /** Sets (or moves) a timer; moving `due_at` drops any claim on it. */
  set(timer: TimerRecord): Promise<void>;
  clear(timerId: string): Promise<void>;
  /**
   * Claims up to `limit` due timers (`due_at <= now`, no active claim), earliest `due_at` first,
   * then by `timer_id`; concurrent claimers never receive the same timer.
   */
  claimDue(options: ClaimOptions): Promise<readonly TimerRecord[]>;
  /** Removes a fired timer (only by the worker holding the claim). */
  complete(timerId: string, worker: string): Promise<boolean>;
  get(timerId: string): Promise<TimerRecord | undefined>;
  /**
   * The earliest Unix second at which `claimDue` would hand out a timer: its `due_at`, or its
   * lease's end when that is later. `undefined` when there is no timer.
   */
  nextDueAt(): Promise<number | undefined>;
}

export interface IdempotencyRecord {
  readonly scope: string;
  readonly key: string;
  readonly request_hash: string;
  readonly resource_id: string;
  readonly created_at: number;
}

export interface IdempotencyPort {
  /** Throws `StoreFailure('unique_violation')` when (scope, key) is taken. */
  put(record: IdempotencyRecord): Promise<void>;
  get(scope: string, key: string): Promise<IdempotencyRecord | undefined>;
}

/** Everything a unit of work can touch. */
export interface StoreTransaction extends Collections {
  readonly ledger: LedgerPort;
  readonly outbox: OutboxPort;
  readonly timers: TimerPort;
  readonly idempotency: IdempotencyPort;
}

/**
 * The reads of a unit of work and nothing else (ADR 0054): a collection's `get`, `findUnique` and
 * `list`, and the ledger's balances and records. A read replica can answer them; no write, no
 * idempotency record and no claim is among them.
 */
export type CollectionReads<R extends RecordMeta> = Pick<
  Collection<R>,
  'get' | 'findUnique' | 'list'
>;

export type StoreReads = { readonly [N in CollectionName]: CollectionReads<RecordOf<N>> } & {
  readonly ledger: Pick<LedgerPort, 'balances' | 'entries'>;
};

export interface Store {
  /**
   * Runs `work` as one unit of work: everything it wrote commits when it resolves and nothing
   * does when it throws (the error is rethrown). A store retries transient conflicts
   * (serialization failures, deadlocks) by running `work` again, so `work` must not have
   * effects outside the store. After a store refuses an operation (`StoreFailure`), `work` must
   * end by throwing: a refused operation wrote nothing, but PostgreSQL aborts the transaction.
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /**
   * Runs `work`, which only reads, where reads that decide nothing may be answered (ADR 0054): a
   * read replica when the store has one, which may lag the primary by its replay lag; else as
   * `transaction` does. Optional: without it the engine reads through `transaction`. Whatever
   * moves money, checks a balance, an idempotency key or an API key reads through `transaction`.
   */
  read?<T>(work: (tx: StoreReads) => Promise<T>): Promise<T>;
  /**
   * Calls `listener` after a unit of work that enqueued outbox messages or set timers has
   * committed (never for one that rolled back; in this process, before `transaction`
   * resolves), so the timer loop and the webhook dispatcher
   * sleep until there is work instead of polling (ADR 0030). Every store tells of its own units
   * of work; a store shared by several processes (PostgreSQL) also tells of theirs, at best
   * effort. A listener must not throw and should only schedule work. Answers the unsubscribe.
   * Optional, so a host's wrapper of a store still fits: without it the loops fall back to
   * their safety-net interval.
   */
  onWork?(listener: () => void): () => void;
  /**
   * The environment this store's data belongs to (ADR 0035): the first claim records
   * `environment`, and every claim answers what was recorded, for good (also across processes,
   * concurrent first claims included, and after reopening a durable store). `createPayrail`
   * claims before anything else and refuses a store recorded for the other environment, so
   * sandbox money never serves as live money. A store whose data predates the record answers
   * `sandbox`.
   */
  claimEnvironment(environment: Environment): Promise<Environment>;
  close(): Promise<void>;
}

export type StoreFailureReason =
  | 'unique_violation'
  | 'version_conflict'
  | 'duplicate_journal'
  | 'insufficient_balance'
  | 'unbalanced_journal';

/** What a store throws for a refusal the engine handles; anything else is unexpected. */
export class StoreFailure extends Error {
  readonly _tag = 'StoreFailure';
  constructor(
    readonly reason: StoreFailureReason,
    readonly collection: string,
    /** For a unique violation: the fields of the key that was taken. */
    readonly fields: readonly string[] = [],
  ) {
    super(`${reason} in ${collection}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`);
    this.name = 'StoreFailure';
  }
}

export const isStoreFailure = (error: unknown): error is StoreFailure =>
  error instanceof StoreFailure ||
  (typeof error === 'object' && error !== null && '_tag' in error && error._tag === 'StoreFailure');

/**
 * What a store throws when it cannot reach its database (ADR 0051): no host accepts writes, or
 * the connection died during the unit of work. Nothing is known to have committed, nor known not
 * to have: the caller answers `service unavailable` (503, `Retry-After`), and a client's repeat
 * with the same idempotency key answers what committed, if anything did. Never a refusal, and
 * never retried by the store once COMMIT may have reached the server.
 */
export class StoreUnavailable extends Error {
  readonly _tag = 'StoreUnavailable';
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}

export const isStoreUnavailable = (error: unknown): error is StoreUnavailable =>
  error instanceof StoreUnavailable ||
  (typeof error === 'object' &&
    error !== null &&
    '_tag' in error &&
    error._tag === 'StoreUnavailable');

export type { CollectionSpecs };
