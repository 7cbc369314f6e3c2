/** Idempotency records: one per (scope, key), the first one kept. */
import assert from 'node:assert/strict';
import type { IdempotencyRecord } from '@payrail/core';
import { assertRefused, type SuiteContext, t0 } from './conformance-context.js';
import type { StoreHarness } from './harness.js';

export const idempotencyRecord = (
  scope: string,
  key: string,
  resourceId = `po_${key}`,
): IdempotencyRecord => ({
  scope,
  key,
  request_hash: `hash_${resourceId}`,
  resource_id: resourceId,
  created_at: t0,
});

const put = (h: StoreHarness, record: IdempotencyRecord) =>
  h.store.transaction((tx) => tx.idempotency.put(record));

const get = (h: StoreHarness, scope: string, key: string) =>
  h.store.transaction((tx) => tx.idempotency.get(scope, key));

export const idempotencyConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  test('put stores a record that get answers; unknown keys answer undefined', async (h) => {
    const record = idempotencyRecord('acc_1:payout.create', 'k1');
    await put(h, record);
    assert.deepEqual(await get(h, 'acc_1:payout.create', 'k1'), record);
    assert.equal(await get(h, 'acc_1:payout.create', 'k2'), undefined);
    assert.equal(await get(h, 'acc_2:payout.create', 'k1'), undefined);
    assert.equal(await h.oracle.idempotencyCount(), 1);
  });

  test('a second put of (scope, key) is refused and the first record stays', async (h) => {
    const first = idempotencyRecord('acc_1', 'k1', 'po_first');
    await put(h, first);
    await assertRefused(put(h, idempotencyRecord('acc_1', 'k1', 'po_second')), 'unique_violation', [
      'scope',
      'key',
    ]);
    assert.deepEqual(await get(h, 'acc_1', 'k1'), first);
    assert.equal(await h.oracle.idempotencyCount(), 1);
  });

  test('the same key in another scope is another record', async (h) => {
    await put(h, idempotencyRecord('acc_1', 'k1', 'po_1'));
    await put(h, idempotencyRecord('acc_2', 'k1', 'po_2'));
    assert.equal((await get(h, 'acc_2', 'k1'))?.resource_id, 'po_2');
    assert.equal(await h.oracle.idempotencyCount(), 2);
  });
};
