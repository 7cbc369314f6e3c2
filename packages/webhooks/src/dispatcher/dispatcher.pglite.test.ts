/**
 * The dispatcher suite on PGlite: one embedded database per file, a schema per test; a second
 * store on the same PGlite and schema plays the second process. Also: sealed secrets survive
 * `payrail store migrate`'s copy (ADR 0041).
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { Store } from '@payrail/core';
import { bootstrapOperator } from '@payrail/engine';
import { copyStore, createPGliteStore } from '@payrail/store-postgres';
import { postgresOracle } from '@payrail/store-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDispatcherSuite } from './dispatcher.suite.test-support.js';
import { dataOf, dispatcherBed, expectSigned, startReceiver } from './dispatcher.test-support.js';

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create('memory://');
});
afterAll(async () => {
  await db.close();
});

runDispatcherSuite({
  name: 'PGlite',
  open: async () => {
    const schema = `dispatch_${randomBytes(6).toString('hex')}`;
    const store = await createPGliteStore({ pglite: db, schema });
    const oracle = postgresOracle(store);
    return {
      store,
      outbox: () => oracle.outbox(),
      another: () => createPGliteStore({ pglite: db, schema }),
      close: () => store.close(),
    };
  },
});

describe('issue 19, secrets at rest (ADR 0041): `payrail store migrate` (copyStore)', () => {
  it('copies the sealed secrets as stored, and a dispatcher on the copy signs with the clear ones', async () => {
    const receiver = await startReceiver();
    // Two databases, as `store migrate` has: the copy reads one while it writes the other.
    const target = await PGlite.create('memory://');
    const suffix = randomBytes(6).toString('hex');
    const fromStore = await createPGliteStore({ pglite: db, schema: `copy_from_${suffix}` });
    const toStore = await createPGliteStore({ pglite: target, schema: `copy_to_${suffix}` });
    try {
      const from = await dispatcherBed(fromStore, {
        outbox: () => postgresOracle(fromStore).outbox(),
      });
      const m = await from.newMerchant();
      const hook = await from.createWebhook(m, receiver.url('/hooks'));
      const orderId = await from.createOrder(m, hook.webhookId);
      await from.pay(orderId, 'processing');
      const payoutId = await from.createPayout(m, receiver.url('/payouts'));
      dataOf(
        await from.engine.admin.reviewPayout(bootstrapOperator, payoutId, { action: 'approve' }),
      );

      await copyStore(fromStore, toStore);
      const read = (store: Store) =>
        store.transaction(async (tx) => ({
          webhook: await tx.webhooks.get(hook.webhookId),
          account: await tx.accounts.get(m.accountId),
        }));
      const copied = await read(toStore);
      expect(copied).toEqual(await read(fromStore));
      expect(copied.webhook?.secret).toMatch(/^enc:v1:/);
      expect(copied.account?.notify_secret).toMatch(/^enc:v1:/);

      const to = await dispatcherBed(toStore, { outbox: () => postgresOracle(toStore).outbox() });
      await to.dispatcher.runOnce();
      expect(receiver.requests.map((request) => request.path).sort()).toEqual([
        '/hooks',
        '/hooks',
        '/payouts',
      ]);
      for (const request of receiver.requests) {
        expectSigned(request, request.path === '/hooks' ? hook.secret : m.notifySecret);
      }
    } finally {
      await receiver.close();
      await toStore.close();
      await fromStore.close();
      await target.close();
    }
  });
});
