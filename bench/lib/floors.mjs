/**
 * The floors: what the platform does with no payrail code at all, measured in the same run.
 *   F1 a bare node:http server (a child process, like payrail) answering ~200 bytes of JSON;
 *   F2 raw `pg`, a pool of payrail's size, BEGIN; INSERT; UPDATE; COMMIT from 32 workers;
 *   F3 raw PGlite on a data directory on disk, opened as the PGlite store opens it, the same
 *      transaction with 10 in flight (PGlite runs one at a time). On Node it never fsyncs: a
 *      commit is not durable, so this floor is not one a durable store can reach;
 *   F4 the F2 transaction on the embedded PostgreSQL, the default store without DATABASE_URL: a
 *      fresh data directory started as payrail starts it (`createEmbeddedPostgresStore`), a pool
 *      of payrail's size over its Unix socket, 32 workers;
 *   F5 (issue 24) not a floor but the framework's ceiling: Hono on `@hono/node-server`, as payrail
 *      serves (its versions, from packages/http), one route answering F1's body with `c.json`,
 *      no middleware: what a read through Hono can reach at best.
 */
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createEmbeddedPostgresStore } from '@payrail/store-postgres';
import pg from 'pg';
import { startNode } from './child.mjs';
import { cannonRound, percentile } from './measure.mjs';
import { onCleanup, tempDir, uniqueSuffix } from './run-context.mjs';

/** A node:http server on a free port, printing its URL; 200 bytes of JSON for every GET. */
const bareServerSource = `
const http = require('node:http');
const body = JSON.stringify({
  code: 0,
  message: 'success',
  data: { account: { account_id: 'acc_0123456789abcdef', merchant_id: 'mch_0123456789abcdef',
    status: 'active', currencies: ['USD', 'USDT'], created_at: '2026-01-01T00:00:00.000Z' } },
});
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write('listening on http://127.0.0.1:' + server.address().port + '\\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

/**
 * A GET server of its own (`source`, run by `node -e`, printing the URL it listens on): one
 * autocannon round of GET / per call of `round()`.
 */
const startGetServer = async ({ label, source, connections }) => {
  const child = await startNode({
    label,
    args: ['-e', source],
    env: { PATH: process.env.PATH },
    ready: /listening on (http:\/\/\S+)/,
  });
  return {
    round: async (duration) => {
      const result = await cannonRound({
        url: child.url,
        request: { method: 'GET', path: '/' },
        connections,
        duration,
      });
      return { ...result, unit: 'req/s' };
    },
    stop: child.stop,
  };
};

/** F1: the bare server. */
export const startBareHttp = ({ connections }) =>
  startGetServer({ label: 'bare node:http server', source: bareServerSource, connections });

/** F5's server: Hono and `@hono/node-server` resolved from packages/http, as payrail runs them. */
const honoServerSource = (httpDir) => `
const from = (name) => require(require.resolve(name, { paths: [${JSON.stringify(httpDir)}] }));
const { Hono } = from('hono');
const { serve } = from('@hono/node-server');
const data = { account: { account_id: 'acc_0123456789abcdef', merchant_id: 'mch_0123456789abcdef',
  status: 'active', currencies: ['USD', 'USDT'], created_at: '2026-01-01T00:00:00.000Z' } };
const app = new Hono();
app.get('/', (c) => c.json({ code: 0, message: 'success', data }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write('listening on http://127.0.0.1:' + info.port + '\\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

/** F5: Hono on @hono/node-server with one constant route. */
export const startHonoHttp = ({ connections, httpDir }) =>
  startGetServer({
    label: 'Hono on @hono/node-server',
    source: honoServerSource(httpDir),
    connections,
  });

/**
 * Runs `transaction()` from `workers` concurrent loops for `duration` seconds; answers tx/s and
 * the p50/p99 of one transaction in ms.
 */
const loopTransactions = async ({ workers, duration, transaction }) => {
  const latencies = [];
  let errors = 0;
  let firstError;
  const started = performance.now();
  const deadline = started + duration * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        await transaction();
        latencies.push(performance.now() - t0);
      } catch (error) {
        errors += 1;
        firstError ??= error?.message ?? String(error);
        if (errors > 100) throw new Error(`too many failed transactions: ${firstError}`);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests: latencies.length,
    non2xx: 0,
    errors,
    timeouts: 0,
    errorSamples: firstError === undefined ? [] : [firstError],
    seconds,
    unit: 'tx/s',
  };
};

const scratchTable = `CREATE TABLE scratch (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  reference TEXT NOT NULL,
  status TEXT NOT NULL,
  amount NUMERIC NOT NULL,
  data JSONB NOT NULL,
  updated_at BIGINT NOT NULL
)`;
const insertRow = `INSERT INTO scratch (reference, status, amount, data, updated_at)
  VALUES ($1, 'pending_review', $2, $3::jsonb, $4) RETURNING id`;
const updateRow = `UPDATE scratch SET status = 'approved', updated_at = $2 WHERE id = $1`;
const rowData = JSON.stringify({ beneficiary: { name: 'Jane Doe' }, method_id: 1, fee: '0.75' });

/** Is a PostgreSQL server answering at `databaseUrl`? Answers the error message if not. */
export const probePostgres = async (databaseUrl) => {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error?.message ?? String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
};

/** Creates `schema` on the server now and drops it (CASCADE) at cleanup. */
export const ownedSchema = async (databaseUrl, schema) => {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  return onCleanup(`drop schema ${schema}`, async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  });
};

/** The F2 and F4 transaction on a `pg` pool: BEGIN; INSERT; UPDATE; COMMIT. */
const pgTransaction = (pool) => {
  let n = 0;
  return async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      n += 1;
      const { rows } = await client.query(insertRow, [`REF-${n}`, '25.00', rowData, Date.now()]);
      await client.query(updateRow, [rows[0].id, Date.now()]);
      await client.query('COMMIT');
      client.release();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(error);
      throw error;
    }
  };
};

/** F2: raw pg in a schema of its own (dropped at `stop()`). */
export const startRawPg = async ({ databaseUrl, poolSize, connections }) => {
  const schema = `bench_floor_${uniqueSuffix()}`;
  const dropSchema = await ownedSchema(databaseUrl, schema);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    options: `-c search_path=${schema}`,
  });
  const endPool = onCleanup('end the F2 pool', () => pool.end());
  await pool.query(scratchTable);
  const transaction = pgTransaction(pool);
  return {
    round: (duration) => loopTransactions({ workers: connections, duration, transaction }),
    stop: async () => {
      await endPool();
      await dropSchema();
    },
  };
};

/**
 * F4: raw pg on the embedded PostgreSQL, in a fresh data directory (removed at `stop()`). The
 * store is opened as the server opens it (the same server settings, its migrations applied) and
 * kept open so its server runs; the floor's own pool reaches it as the store's does, over the
 * socket in the directory as the superuser the cluster was made with (the socket trusts its
 * owner). `about` is the server's version.
 */
export const startRawEmbeddedPg = async ({ poolSize, connections }) => {
  const { dir, remove } = await tempDir('payrail-bench-embedded-pg-');
  // Where the server keeps it: `<PAYRAIL_DATA_DIR>/postgres` (config.ts, embeddedDatabaseIn).
  const directory = join(dir, 'postgres');
  const store = await createEmbeddedPostgresStore({ dataDir: directory });
  const closeStore = onCleanup('close the F4 embedded PostgreSQL', () => store.close());
  const pool = new pg.Pool({
    host: directory,
    user: 'payrail',
    database: 'postgres',
    max: poolSize,
    options: '-c search_path=bench_floor',
  });
  // `pool.end()` resolves before its connections have closed: the server's shutdown right after
  // may still end one with an error (57P01), on the pool, which must not crash the run.
  pool.on('error', () => undefined);
  const endPool = onCleanup('end the F4 pool', () => pool.end());
  await pool.query('CREATE SCHEMA bench_floor');
  await pool.query(scratchTable);
  const { rows } = await pool.query('SHOW server_version');
  const transaction = pgTransaction(pool);
  return {
    about: { server_version: rows[0].server_version },
    round: (duration) => loopTransactions({ workers: connections, duration, transaction }),
    stop: async () => {
      await endPool();
      await closeStore();
      await remove();
    },
  };
};

/**
 * F3: raw PGlite on a data directory on disk, opened as the PGlite store opens it (not durable:
 * PGlite on Node writes its files without fsync).
 */
export const startRawPglite = async ({ inFlight }) => {
  const { dir, remove } = await tempDir('payrail-bench-pglite-');
  // packages/store-postgres/src/pglite-store.ts: `await PGlite.create(options.dataDir ?? ...)`.
  const db = await PGlite.create(dir);
  const close = onCleanup('close the F3 PGlite', () => db.close());
  await db.exec(scratchTable);
  let n = 0;
  // pglite.executor.ts runs a unit of work as `db.transaction(...)`.
  const transaction = () =>
    db.transaction(async (tx) => {
      n += 1;
      const { rows } = await tx.query(insertRow, [`REF-${n}`, '25.00', rowData, Date.now()]);
      await tx.query(updateRow, [rows[0].id, Date.now()]);
    });
  return {
    round: (duration) => loopTransactions({ workers: inFlight, duration, transaction }),
    stop: async () => {
      await close();
      await remove();
    },
  };
};
