/**
 * `/readyz` of an embedded payrail: each check named and `ok` or `failing` as the loops start and
 * stop, as the server drains, as the outbox fills past its bound, as the schema lacks a
 * migration and as the store goes away; never a 500, never an error's words.
 */
import type { Store } from '@payrail/core';
import { createMemoryStore } from '@payrail/store-memory';
import {
  createPGliteStore,
  createPostgresStore,
  type PostgresStore,
} from '@payrail/store-postgres';
import { afterAll, describe, expect, it } from 'vitest';
import type { Payrail } from './create-payrail.js';
import { embeddedPayrails } from './embedded-payrail.test-support.js';
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  postgresSkipped,
  sqlQuery,
} from './process-load.test-support.js';
import { readinessOf } from './readiness.js';

const skipped = await postgresSkipped('the readiness test of migrations on PostgreSQL');

const adminToken = 'operator-token-for-the-readiness-test';

const embed = embeddedPayrails(adminToken);

const probe = async (payrail: Payrail) => {
  const answer = await payrail.app.request('/readyz');
  return { status: answer.status, body: (await answer.json()) as unknown };
};

const allOk = {
  store: 'ok',
  migrations: 'ok',
  timer_loop: 'ok',
  webhook_dispatcher: 'ok',
  outbox_backlog: 'ok',
  serving: 'ok',
};

describe('/readyz of an embedded payrail', () => {
  it('is ready only while the loops run, and not while it drains', async () => {
    const payrail = await embed();
    expect(await probe(payrail)).toEqual({
      status: 503,
      body: {
        status: 'unready',
        checks: { ...allOk, timer_loop: 'failing', webhook_dispatcher: 'failing' },
      },
    });
    payrail.start();
    expect(await probe(payrail)).toEqual({ status: 200, body: { status: 'ready', checks: allOk } });
    payrail.drain();
    expect(await probe(payrail)).toEqual({
      status: 503,
      body: { status: 'unready', checks: { ...allOk, serving: 'failing' } },
    });
    // Still serving while it drains: the process lives and answers.
    expect((await payrail.app.request('/healthz')).status).toBe(200);
    await payrail.stop();
    payrail.start();
    expect((await probe(payrail)).status).toBe(200);
  });
});

describe('/readyz of a payrail on PostgreSQL (PGlite)', () => {
  const stores: PostgresStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close().catch(() => undefined);
  });

  it('fails the outbox check from the bound on, and every store check once the store is gone', async () => {
    const store = await createPGliteStore();
    stores.push(store);
    const payrail = await embed({ store, readyMaxOutboxBacklog: 2 });
    payrail.start();
    expect(await probe(payrail)).toEqual({ status: 200, body: { status: 'ready', checks: allOk } });
    // Two messages wait for a later attempt: the bound of 2 is reached.
    const waiting = (n: number) => ({
      outbox_id: `obx_${n}`,
      event_id: `evt_${n}`,
      account_id: 'acc_x',
      business_type: 'payout',
      business_id: `po_${n}`,
      event_type: 'payout.review.approved',
      destination: { kind: 'notify_url', url: 'https://merchant.example/cb' } as const,
      payload: {},
      available_at: 4_000_000_000,
      created_at: 1_800_000_000,
    });
    await store.transaction((tx) => tx.outbox.enqueue([waiting(1)]));
    expect((await probe(payrail)).status).toBe(200);
    await store.transaction((tx) => tx.outbox.enqueue([waiting(2)]));
    expect(await probe(payrail)).toEqual({
      status: 503,
      body: { status: 'unready', checks: { ...allOk, outbox_backlog: 'failing' } },
    });

    await payrail.stop();
    await store.close();
    payrail.start();
    const gone = await probe(payrail);
    expect(gone).toEqual({
      status: 503,
      body: {
        status: 'unready',
        checks: { ...allOk, store: 'failing', migrations: 'failing', outbox_backlog: 'failing' },
      },
    });
    await payrail.stop();
  });
});

describe.skipIf(skipped)('/readyz of a payrail on a PostgreSQL server', () => {
  const schema = freshSchema('payrail_ready');
  afterAll(async () => {
    await dropSchema(schema);
  });

  it('fails the migrations check while the schema lacks one of this payrail’s migrations', async () => {
    const store = await createPostgresStore({ connectionString: databaseUrl, schema });
    const payrail = await embed({ store });
    try {
      payrail.start();
      expect((await probe(payrail)).status).toBe(200);
      const [last] = await sqlQuery<{ id: string }>(
        `SELECT id FROM ${schema}.payrail_migrations ORDER BY id DESC LIMIT 1`,
      );
      await sqlQuery(`DELETE FROM ${schema}.payrail_migrations WHERE id = $1`, [last?.id]);
      expect(await probe(payrail)).toEqual({
        status: 503,
        body: { status: 'unready', checks: { ...allOk, migrations: 'failing' } },
      });
      // Recorded again (as a migration would): ready again.
      await sqlQuery(`INSERT INTO ${schema}.payrail_migrations (id) VALUES ($1)`, [last?.id]);
      expect((await probe(payrail)).status).toBe(200);
    } finally {
      await payrail.stop();
      await store.close();
    }
  });
});

describe('readiness against a store that never answers', () => {
  it('fails the store check after its timeout, and asks the store once, not once per probe', async () => {
    const memory = createMemoryStore();
    let asked = 0;
    // A database host that drops packets: the question is taken and never answered.
    const silent: Store = {
      ...memory,
      transaction: () => {
        asked += 1;
        return new Promise<never>(() => undefined);
      },
    };
    const readiness = readinessOf({
      store: silent,
      loops: () => ({ timerLoop: true, dispatcher: true }),
      serving: () => true,
      maxOutboxBacklog: 0,
      timeoutMs: 20,
    });
    for (let probe = 0; probe < 5; probe += 1) {
      const answer = await readiness();
      expect(answer.ready).toBe(false);
      expect(answer.checks.store).toBe('failing');
      expect(answer.checks.timer_loop).toBe('ok');
    }
    expect(asked).toBe(1);
  });
});
