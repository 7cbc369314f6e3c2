/**
 * The dispatcher suite on PGlite: one embedded database per file, a schema per test; a second
 * store on the same PGlite and schema plays the second process.
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { createPGliteStore } from '@payrail/store-postgres';
import { postgresOracle } from '@payrail/store-postgres/testing';
import { afterAll, beforeAll } from 'vitest';
import { runDispatcherSuite } from './dispatcher.suite.test-support.js';

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
