/**
 * The environment a store's data belongs to (ADR 0035): the first claim records it, every later
 * claim answers it whatever it asked for, and concurrent first claims agree on one. This is what
 * lets a live payrail refuse a sandbox store (and the other way round).
 */
import assert from 'node:assert/strict';
import type { Environment } from '@payrail/core';
import type { SuiteContext } from './conformance-context.js';

export const environmentConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  for (const [first, other] of [
    ['sandbox', 'live'],
    ['live', 'sandbox'],
  ] as const) {
    test(`a fresh store records the first claim (${first}) and answers it to a ${other} claim`, async (h) => {
      assert.equal(await h.oracle.environment(), undefined);
      assert.equal(await h.store.claimEnvironment(first), first);
      assert.equal(await h.oracle.environment(), first);
      assert.equal(await h.store.claimEnvironment(other), first);
      assert.equal(await h.store.claimEnvironment(first), first);
      assert.equal(await h.oracle.environment(), first);
    });
  }

  test('concurrent first claims agree on one environment', async (h) => {
    const claims: Environment[] = ['live', 'sandbox', 'live', 'sandbox', 'sandbox', 'live'];
    const answers = await Promise.all(claims.map((claim) => h.store.claimEnvironment(claim)));
    const recorded = await h.oracle.environment();
    assert.ok(recorded === 'sandbox' || recorded === 'live', `recorded ${String(recorded)}`);
    assert.deepEqual(
      answers,
      claims.map(() => recorded),
    );
  });

  test('a unit of work that aborts does not undo the recorded environment', async (h) => {
    assert.equal(await h.store.claimEnvironment('live'), 'live');
    await assert.rejects(
      h.store.transaction(async (tx) => {
        await tx.idempotency.put({
          scope: 'acc_1',
          key: 'k1',
          request_hash: 'h',
          resource_id: 'r',
          created_at: 1,
        });
        throw new Error('crash');
      }),
    );
    assert.equal(await h.store.claimEnvironment('sandbox'), 'live');
  });
};
