/**
 * The read-back a store offers its conformance suite (@payrail/store-testkit): an independent read
 * path (raw SQL for PostgreSQL, the raw maps for memory), so a store never grades itself; the suite
 * writes through the store and checks through the oracle. Each store ships its oracle in its
 * `/testing` entry, never in its main one.
 */
import type { Posting } from '../ledger/ledger.js';
import type { CollectionName } from './collections.js';
import type { Environment } from './records.js';
import type { OutboxMessage, TimerRecord } from './store.js';

export interface StoreOracle {
  /** The stored record, as JSON, or undefined. */
  record(collection: CollectionName, id: string | number): Promise<unknown>;
  count(collection: CollectionName): Promise<number>;
  /** Every posting of every journal, in any order. */
  postings(): Promise<readonly (Posting & { readonly journal_id: string })[]>;
  journalIds(): Promise<readonly string[]>;
  outbox(): Promise<readonly OutboxMessage[]>;
  timers(): Promise<readonly TimerRecord[]>;
  idempotencyCount(): Promise<number>;
  /** The environment the store recorded (`Store.claimEnvironment`), or undefined before any. */
  environment(): Promise<Environment | undefined>;
}
