/**
 * The stores the engine suites run on: the memory store, and PostgreSQL embedded through PGlite.
 * PGlite stores share one database per test file, each in a schema of its own, so a suite may
 * open a fresh store per test cheaply.
 */
import { PGlite } from '@electric-sql/pglite';
import { createMemoryStore } from '@payrail/store-memory';
import { createPGliteStore } from '@payrail/store-postgres';
import type { StoreUnderTest } from './engine-app.test-support.js';

let shared: Promise<PGlite> | undefined;
let schemas = 0;

export const storesUnderTest: readonly StoreUnderTest[] = [
  { name: 'memory', open: async () => createMemoryStore() },
  {
    name: 'PostgreSQL (PGlite)',
    open: async () => {
      shared ??= PGlite.create('memory://');
      schemas += 1;
      return createPGliteStore({ pglite: await shared, schema: `payrail_${schemas}` });
    },
  },
];
