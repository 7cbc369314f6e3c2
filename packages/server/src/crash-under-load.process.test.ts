/**
 * The real server process killed with SIGKILL at random moments under load, on the embedded
 * default (payrail and its PostgreSQL's whole process group killed together) and on PostgreSQL (crash-under-load.test-support.ts says what each restart must show).
 * `CRASH_KILLS` kills per store (25 by default; `pnpm test:deep` runs more), `CRASH_SEED` repeats
 * a run's choices (the moments of the kills follow the machine's timing).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createEmbeddedPostgresStore,
  createPostgresStore,
  type PostgresStore,
} from '@payrail/store-postgres';
import { postgresOracle } from '@payrail/store-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedDatabaseIn } from './config.js';
import {
  type CrashFigures,
  runCrashesUnderLoad,
  type StoreContents,
} from './crash-under-load.test-support.js';
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  loadEnv,
  postgresSkipped,
  type Random,
  type Receiver,
  seededRandom,
  startReceiver,
} from './process-load.test-support.js';
import {
  adminToken,
  killEmbeddedDatabase,
  type ServerProcess,
  startServerProcess,
} from './server-process.test-support.js';

const kills = Number(process.env.CRASH_KILLS ?? 25);
const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** A minute per kill at most: a restart, a check of everything so far, a second of load. */
const timeout = 120_000 + kills * 60_000;

const report = (store: string, figures: CrashFigures): void => {
  console.info(
    `crash under load (${store}, seed ${seed}): ${figures.kills} kills, ${figures.requests} ` +
      `requests (${figures.answered} answered, ${figures.unanswered} cut off), ` +
      `${figures.payouts} payouts, ${figures.orders} orders, ${figures.credits} credits, ` +
      `${figures.events} events delivered (${figures.redeliveries} redelivered), ` +
      `${Math.round(figures.ms / 1000)} s`,
  );
};

const contentsOf = async (store: PostgresStore): Promise<StoreContents> => {
  const oracle = postgresOracle(store);
  return { outbox: await oracle.outbox(), timers: await oracle.timers() };
};

let dataDir = '';
const running: ServerProcess[] = [];
const receivers: Receiver[] = [];
const skipped = await postgresSkipped('crashes under load on PostgreSQL');

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payrail-crash-'));
});
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')));
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await rm(dataDir, { recursive: true, force: true });
});

/** A receiver of the run's own, answering after 0-40 ms so attempts are in flight at a kill. */
const receiverOf = async (random: Random): Promise<Receiver> => {
  const receiver = await startReceiver(() => random.int(0, 40));
  receivers.push(receiver);
  return receiver;
};

const starter = (env: Record<string, string>) => {
  const fixed = loadEnv(adminToken);
  return async () => {
    const server = await startServerProcess({ ...fixed, ...env });
    running.push(server);
    return server;
  };
};

describe('crashes under load', () => {
  it(
    `keeps every answer, the ledger, the timers and the deliveries through ${kills} SIGKILLs of payrail and its embedded PostgreSQL`,
    async () => {
      const random = seededRandom(seed);
      const embedded = join(dataDir, 'embedded');
      const figures = await runCrashesUnderLoad({
        kills,
        random,
        receiver: await receiverOf(random),
        start: starter({ PAYRAIL_DATA_DIR: embedded }),
        afterKill: () => killEmbeddedDatabase(embedded),
        label: `embedded PostgreSQL, seed ${seed}`,
        readStore: async () => {
          const store = await createEmbeddedPostgresStore({
            dataDir: embeddedDatabaseIn(embedded),
          });
          try {
            return await contentsOf(store);
          } finally {
            await store.close();
          }
        },
      });
      report('embedded', figures);
      expect(figures.kills).toBe(kills);
    },
    timeout,
  );

  describe.skipIf(skipped)('on PostgreSQL', () => {
    const schema = freshSchema('payrail_crash');
    afterAll(() => dropSchema(schema));

    it(
      `keeps every answer, the ledger, the timers and the deliveries through ${kills} SIGKILLs on PostgreSQL`,
      async () => {
        const random = seededRandom(seed + 1);
        const figures = await runCrashesUnderLoad({
          kills,
          random,
          receiver: await receiverOf(random),
          start: starter({
            DATABASE_URL: databaseUrl,
            PAYRAIL_DATABASE_SCHEMA: schema,
            PAYRAIL_KEY_SECRET: randomBytes(32).toString('base64url'),
            PAYRAIL_DATA_DIR: join(dataDir, 'postgres'),
          }),
          label: `PostgreSQL schema ${schema}, seed ${seed}`,
          readStore: async () => {
            const store = await createPostgresStore({ connectionString: databaseUrl, schema });
            try {
              return await contentsOf(store);
            } finally {
              await store.close();
            }
          },
        });
        report('PostgreSQL', figures);
        expect(figures.kills).toBe(kills);
      },
      timeout,
    );
  });
});
