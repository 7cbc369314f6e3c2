/**
 * What every group of the conformance suite shares: a test that opens a fresh store and always
 * closes it, assertions about store refusals, and loose views of the typed ports for the tests
 * that are driven by the collection specs.
 */
import assert from 'node:assert/strict';
import {
  type Collection,
  type CollectionName,
  depositJournal,
  isStoreFailure,
  type ListQuery,
  money,
  type NewRecord,
  type RecordMeta,
  type StoreFailureReason,
  type StoreTransaction,
} from '@payrail/core';
import type { ConformanceOptions, StoreHarness } from './harness.js';

export interface SuiteContext {
  readonly options: ConformanceOptions;
  /** Registers a test that gets a fresh harness, closed whatever the outcome. */
  readonly test: (
    title: string,
    body: (harness: StoreHarness) => Promise<void>,
    timeout?: number,
  ) => void;
}

export const suiteContext = (options: ConformanceOptions): SuiteContext => ({
  options,
  test: (title, body, timeout) => {
    const run = async (): Promise<void> => {
      const harness = await options.createHarness();
      try {
        await body(harness);
      } finally {
        await harness.close();
      }
    };
    if (timeout === undefined) options.it(title, run);
    else options.it(title, run, timeout);
  },
});

/** Unix seconds the fixtures start from. */
export const t0 = 1_700_000_000;

/** Asserts that `action` is refused with `reason` (and, when given, the unique key's fields). */
export const assertRefused = async (
  action: Promise<unknown>,
  reason: StoreFailureReason,
  fields?: readonly string[],
): Promise<void> => {
  await assert.rejects(action, (error: unknown) => {
    assert.ok(isStoreFailure(error), `expected a StoreFailure, got ${String(error)}`);
    assert.equal(error.reason, reason);
    if (fields !== undefined) assert.deepEqual([...error.fields].sort(), [...fields].sort());
    return true;
  });
};

/** The reason of a StoreFailure, rethrowing anything else. */
export const refusalOf = (error: unknown): StoreFailureReason => {
  if (isStoreFailure(error)) return error.reason;
  throw error;
};

/** A record seen field by field, whatever its collection. */
export type AnyRecord = RecordMeta & { readonly [field: string]: unknown };

/** A new record seen field by field. */
export type AnyFields = { readonly [field: string]: unknown };

export const collectionOf = (tx: StoreTransaction, name: CollectionName): Collection<AnyRecord> =>
  tx[name] as unknown as Collection<AnyRecord>;

export type AnyListQuery = Omit<ListQuery<AnyRecord>, 'where'> & {
  readonly where?: Readonly<Record<string, unknown>>;
};

export const insertAll = (
  harness: StoreHarness,
  name: CollectionName,
  records: readonly AnyFields[],
): Promise<AnyRecord[]> =>
  harness.store.transaction(async (tx) => {
    const inserted: AnyRecord[] = [];
    for (const record of records) {
      inserted.push(await collectionOf(tx, name).insert(record as NewRecord<AnyRecord>));
    }
    return inserted;
  });

export const list = (harness: StoreHarness, name: CollectionName, query: AnyListQuery) =>
  harness.store.transaction((tx) => collectionOf(tx, name).list(query as ListQuery<AnyRecord>));

/** Puts `amount` USD on the account's available balance. */
export const fund = (harness: StoreHarness, accountId: string, amount: string, at = t0) =>
  harness.store.transaction((tx) =>
    tx.ledger.post(
      depositJournal(
        { accountId, businessId: `dep_${accountId}_${amount}_${at}` },
        money('USD', amount),
      ),
      at,
    ),
  );

/** Ids of a page's items, in order. */
export const idsOf = (items: readonly AnyRecord[], idField: string): unknown[] =>
  items.map((item) => item[idField]);

/** Changes every nested array and object of a value, to prove the store kept its own copy. */
export const scribbleOver = (value: unknown): void => {
  // A frozen answer cannot be changed by its caller either.
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    for (const item of value) scribbleOver(item);
    value.push('scribbled');
  } else {
    for (const item of Object.values(value)) scribbleOver(item);
    (value as Record<string, unknown>).scribbled = true;
  }
};
