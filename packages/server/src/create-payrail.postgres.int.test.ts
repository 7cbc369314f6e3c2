/**
 * Hosts starting together on one PostgreSQL schema (two processes of a deployment, each with its
 * own pool): every one starts, and the sandbox catalogue is there once. Runs wherever a server
 * answers (CI always); skipped with a message elsewhere.
 */
import { createPostgresStore, type PostgresStore } from '@payrail/store-postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { createPayrail, type Payrail } from './create-payrail.js';
import { orThrow } from './facade.js';
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  postgresSkipped,
} from './process-load.test-support.js';

const skipped = await postgresSkipped('createPayrail on a shared PostgreSQL schema');

describe.skipIf(skipped)('createPayrail: hosts starting at once on one PostgreSQL schema', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });

  it('all start on an empty schema, and the sandbox catalogue is seeded once', async () => {
    // A few rounds: the seeds must meet (both read an empty catalogue) for the race to show.
    for (let round = 0; round < 5; round += 1) {
      const schema = freshSchema('payrail_seed');
      schemas.push(schema);
      const stores: PostgresStore[] = [];
      const started: Payrail[] = [];
      try {
        const results = await Promise.allSettled(
          [0, 1, 2].map(async () => {
            const store = await createPostgresStore({ connectionString: databaseUrl, schema });
            stores.push(store);
            const payrail = await createPayrail({
              store,
              environment: 'sandbox',
              keySecret: 'a secret of thirty-two bytes, ok',
              log: () => undefined,
            });
            started.push(payrail);
            return payrail;
          }),
        );
        expect(results.map((result) => result.status)).toEqual([
          'fulfilled',
          'fulfilled',
          'fulfilled',
        ]);
        for (const payrail of started) {
          const routes = orThrow(await payrail.admin.listRoutes({ limit: 100 }));
          expect(routes.items.map((route) => route.currency).sort()).toEqual([
            'USD',
            'USDC',
            'USDT',
          ]);
        }
      } finally {
        await Promise.all(started.map((payrail) => payrail.stop()));
        await Promise.all(stores.map((store) => store.close()));
      }
    }
  });
});
