/**
 * The floors: what the platform does with no payrail code at all, measured in the same run.
 *   F1 a bare node:http server (a child process, like payrail) answering ~200 bytes of JSON;
 *   F2 raw `pg`, a pool of payrail's size, BEGIN; INSERT; UPDATE; COMMIT from 32 workers;
 *   F3 raw PGlite on a durable data directory, opened as the embedded store opens it, the same
 *      transaction with 10 in flight (PGlite runs one at a time).
 */
import { PGlite } from '@electric-sql/pglite';
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

/** F1: starts the bare server, answers one autocannon round per call of `round()`. */
export const startBareHttp = async ({ connections }) => {
  const child = await startNode({
    label: 'bare node:http server',
    args: ['-e', bareServerSource],
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
  let n = 0;
  const transaction = async () => {
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
  return {
    round: (duration) => loopTransactions({ workers: connections, duration, transaction }),
    stop: async () => {
      await endPool();
      await dropSchema();
    },
  };
};

/** F3: raw PGlite on a data directory on disk, opened as the embedded store opens it. */
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
