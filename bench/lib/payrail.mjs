/**
 * payrail as it is deployed: `node packages/server/dist/main.js` in a child process, on the
 * PostgreSQL server (a fresh schema, dropped afterwards), on the embedded default (no
 * DATABASE_URL: the PostgreSQL server payrail starts and owns under its data directory) or on the
 * PGlite store (PAYRAIL_EMBEDDED_DATABASE=pglite), each embedded one in a fresh data directory
 * removed afterwards; set up as the README's curl flow does: a merchant, an API key with every
 * permission and a funded balance through the `payrail` CLI's own code (`runCli`, calling the
 * admin API), a webhook through the merchant API.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '@payrail/server';
import pg from 'pg';
import { startNode } from './child.mjs';
import { ownedSchema } from './floors.mjs';
import { cpuSecondsByPid, memoryOf, postgresPidsIn, summedMemoryOf } from './measure.mjs';
import { onCleanup, sleep, tempDir, uniqueSuffix } from './run-context.mjs';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const serverMain = join(repoRoot, 'packages', 'server', 'dist', 'main.js');

export const serverBuilt = () => existsSync(serverMain);

/**
 * Where payouts and webhooks notify by default: an https URL on a domain name, as a merchant
 * sends (P1: no DNS on the request path). The outbox and timer rounds pass a local receiver's
 * http URL instead, with `insecureWebhooks`.
 */
const defaultNotifyUrl = 'https://merchant.example.com/payrail/payouts';
const defaultWebhookUrl = 'https://merchant.example.com/payrail/hooks';

/**
 * The stores `startPayrail` runs on: `embedded` sets nothing, so it is whatever a server without
 * DATABASE_URL runs (checked to be the embedded PostgreSQL once it listens).
 */
const stores = ['postgres', 'embedded', 'pglite'];

/** Where the server keeps the embedded PostgreSQL (config.ts, `embeddedDatabaseIn`). */
const embeddedPostgresIn = (dataDir) => join(dataDir, 'postgres');
/** payrail's schema when PAYRAIL_DATABASE_SCHEMA is unset (config.ts). */
const defaultSchema = 'payrail';

/**
 * How often the memory of payrail's postgres processes is sampled under load: a sample reads
 * /proc (some 7 ms of the benchmark's own CPU, which also drives the load), and the pooled
 * backends' memory moves slowly.
 */
const memorySampleMs = 1000;

/** The environment of the server: this run's settings only, nothing inherited but PATH. */
const serverEnv = ({
  store,
  dataDir,
  databaseUrl,
  schema,
  adminToken,
  keySecret,
  insecureWebhooks,
}) => ({
  PATH: process.env.PATH,
  NODE_ENV: 'production',
  PAYRAIL_ENV: 'sandbox',
  PAYRAIL_ADMIN_TOKEN: adminToken,
  PAYRAIL_KEY_SECRET: keySecret,
  PORT: '0',
  HOST: '127.0.0.1',
  PAYRAIL_DATA_DIR: dataDir,
  PAYRAIL_RATE_LIMIT: '0',
  ...(insecureWebhooks ? { PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1' } : {}),
  ...(store === 'postgres' ? { DATABASE_URL: databaseUrl, PAYRAIL_DATABASE_SCHEMA: schema } : {}),
  ...(store === 'pglite' ? { PAYRAIL_EMBEDDED_DATABASE: 'pglite' } : {}),
});

/** Runs one `payrail` CLI command against the server; answers its `--json` output parsed. */
const cli = async (url, adminToken, argv) => {
  const out = [];
  const err = [];
  const code = await runCli([...argv, '--json'], {
    env: { PAYRAIL_ADMIN_TOKEN: adminToken, PAYRAIL_URL: url },
    cwd: repoRoot,
    fetch,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  if (code !== 0) throw new Error(`payrail ${argv.join(' ')} failed (${code}): ${err.join('\n')}`);
  return JSON.parse(out.join('\n'));
};

const merchantCall = async (url, key, method, path, body) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const envelope = await response.json();
  if (!response.ok || envelope.code !== 0) {
    throw new Error(`${method} ${path} answered ${response.status} ${JSON.stringify(envelope)}`);
  }
  return envelope.data;
};

/**
 * Starts payrail on `store` (one of `stores`), sets up a merchant, and answers the requests of
 * the rows and the measurements of the process (with the embedded PostgreSQL, of payrail and the
 * postgres processes it owns together). `notifyUrl` and `webhookUrl` are
 * where payouts and the order webhook notify; `insecureWebhooks` sets
 * PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 (sandbox: lets http and loopback targets through);
 * `nodeArgs` go to node before the server's script and `extraEnv` into its environment (for
 * `profile.mjs`).
 */
export const startPayrail = async ({
  store,
  databaseUrl,
  notifyUrl = defaultNotifyUrl,
  webhookUrl = defaultWebhookUrl,
  insecureWebhooks = false,
  nodeArgs = [],
  extraEnv = {},
}) => {
  if (!stores.includes(store)) throw new Error(`unknown store ${store} (known: ${stores})`);
  const { dir: dataDir, remove } = await tempDir(`payrail-bench-${store}-`);
  const schema = `bench_payrail_${uniqueSuffix()}`;
  const dropSchema = store === 'postgres' ? await ownedSchema(databaseUrl, schema) : undefined;
  const adminToken = randomBytes(24).toString('hex');
  const keySecret = randomBytes(32).toString('hex');
  const settings = { store, databaseUrl, schema, adminToken, keySecret, insecureWebhooks };
  const server = await startNode({
    label: `payrail (${store})`,
    args: [...nodeArgs, serverMain],
    env: { ...serverEnv({ ...settings, dataDir }), ...extraEnv },
    cwd: repoRoot,
    ready: /payrail listening on (http:\/\/\S+)/,
  });
  const { url, pid } = server;

  // The embedded PostgreSQL is payrail's too: its processes count in the memory and CPU of the
  // rows. A server that listens with none running is not on the store the rows are named after.
  const postgresDir = store === 'embedded' ? embeddedPostgresIn(dataDir) : undefined;
  const postgresPids = () => (postgresDir === undefined ? [] : postgresPidsIn(postgresDir));
  if (postgresDir !== undefined && postgresPids().length === 0) {
    await server.stop();
    throw new Error(
      `payrail without DATABASE_URL listened with no PostgreSQL running in ${postgresDir}: ` +
        'the embedded default is not the embedded PostgreSQL',
    );
  }
  const processes = () => [pid, ...postgresPids()];
  /**
   * payrail's own peak is the kernel's (VmHWM); its postgres processes' is the largest sum of
   * their VmRSS (and PSS) sampled every `memorySampleMs`. Summed, they bound what payrail and its
   * database held at once under load from above.
   */
  const postgresPeak = { rssMb: 0, pssMb: 0, processes: 0 };
  const samplePostgres = () => {
    const now = summedMemoryOf(postgresPids());
    postgresPeak.rssMb = Math.max(postgresPeak.rssMb, now.rssMb);
    postgresPeak.pssMb = Math.max(postgresPeak.pssMb, now.pssMb);
    postgresPeak.processes = Math.max(postgresPeak.processes, now.processes);
    return now;
  };
  let sampler;
  if (postgresDir !== undefined) {
    samplePostgres();
    sampler = setInterval(samplePostgres, memorySampleMs);
    sampler.unref();
  }
  const stopSampler = onCleanup('stop the memory sampler', () => clearInterval(sampler));

  const { merchant } = await cli(url, adminToken, ['merchant', 'create', '--name', 'Bench']);
  const account = merchant.account_id;
  const { api_key: apiKey } = await cli(url, adminToken, [
    ...['key', 'issue', '--account', account, '--permissions', 'all'],
  ]);
  const key = apiKey.token;
  await cli(url, adminToken, [
    ...['account', 'credit', '--account', account, '--currency', 'USD'],
    ...['--amount', '100000000.00'],
  ]);
  const { webhook } = await merchantCall(url, key, 'POST', '/payment/webhooks', {
    url: webhookUrl,
    events: ['acquiring.*'],
  });

  const run = uniqueSuffix();
  let round = 0;
  const quickpayout = (headers) => () => {
    round += 1;
    const prefix = `${run}-${round}`;
    return {
      method: 'POST',
      path: '/payment/quickpayout',
      headers,
      makeBody: (n) =>
        JSON.stringify({
          client_request_id: `bench-${prefix}-${n}`,
          reference: `INV-${prefix}-${n}`,
          currency: 'USD',
          amount: '25.00',
          method_id: 1,
          notify_url: notifyUrl,
          beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
          beneficiary_account: {
            network_code: 'WALLETA',
            fields: { walleta_email: 'jane@example.com' },
          },
        }),
    };
  };
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const requests = {
    quickpayout: quickpayout(headers),
    order: () => {
      round += 1;
      const prefix = `${run}-${round}`;
      return {
        method: 'POST',
        path: '/payment/acquiring/orders',
        headers,
        makeBody: (n) =>
          JSON.stringify({
            out_trade_no: `ORDER-${prefix}-${n}`,
            order_currency: 'USD',
            order_amount: '10.00',
            expire_seconds: 600,
            underpay_tolerance: '0',
            notify_webhook_id: webhook.webhook_id,
          }),
      };
    },
    account: () => ({ method: 'GET', path: '/payment/account', headers }),
  };

  /**
   * The outbox round: the README's flow enqueues nothing when a payout is created (it waits for
   * review) nor when an order is created, so the outbox is measured on a second merchant whose
   * account approves on its own (`auto_approve`): each create then enqueues
   * `payout.review.approved` to notify_url, and the dispatcher delivers it.
   */
  const autoApproved = async () => {
    const { merchant: other } = await cli(url, adminToken, [
      'merchant',
      'create',
      '--name',
      'Auto',
    ]);
    const otherAccount = other.account_id;
    const { api_key: otherKey } = await cli(url, adminToken, [
      ...['key', 'issue', '--account', otherAccount, '--permissions', 'all'],
    ]);
    await cli(url, adminToken, [
      ...['account', 'credit', '--account', otherAccount, '--currency', 'USD'],
      ...['--amount', '100000000.00'],
    ]);
    await merchantCall(url, adminToken, 'PATCH', `/admin/accounts/${otherAccount}`, {
      auto_approve: true,
    });
    return quickpayout({
      Authorization: `Bearer ${otherKey.token}`,
      'Content-Type': 'application/json',
    });
  };

  // On a PostgreSQL server, the one of DATABASE_URL or the embedded one (over its socket, as
  // its owner: the bench runs as the user payrail runs as), the tables are read directly
  // (packages/store-postgres/src/migrations), in the server's schema: the outbox (a message is
  // pending until delivered or given up on, waiting while it was never attempted), the orders,
  // the payouts. PGlite's data directory belongs to the server process: none is read there.
  // Only the outbox and timer rounds read, so the reader's backend is in no memory row.
  let readerPool;
  if (store === 'postgres') {
    readerPool = new pg.Pool({
      connectionString: databaseUrl,
      max: 1,
      options: `-c search_path=${schema}`,
    });
  } else if (postgresDir !== undefined) {
    readerPool = new pg.Pool({
      host: postgresDir,
      user: 'payrail',
      database: 'postgres',
      max: 1,
      options: `-c search_path=${defaultSchema}`,
    });
  }
  const endReaderPool = onCleanup('end the table reader', async () => readerPool?.end());
  const query = async (sql, params) => {
    if (readerPool === undefined) return undefined;
    return (await readerPool.query(sql, params)).rows;
  };
  const outbox = async () => {
    if (readerPool === undefined) return undefined;
    const rows = await query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status = 'pending')::int AS pending,
              count(*) FILTER (WHERE status = 'pending' AND attempts = 0)::int AS waiting
         FROM outbox`,
    );
    return rows[0];
  };

  /**
   * Another server process on the same PostgreSQL schema (started after this one migrated and
   * was set up), with the same secrets, so the same API keys work on both.
   */
  const startPeer = async () => {
    if (store !== 'postgres') throw new Error('a second process needs the PostgreSQL store');
    const peerDir = await tempDir('payrail-bench-peer-');
    const peer = await startNode({
      label: 'payrail (postgres, second process)',
      args: [serverMain],
      env: serverEnv({ ...settings, dataDir: peerDir.dir }),
      cwd: repoRoot,
      ready: /payrail listening on (http:\/\/\S+)/,
    });
    return {
      url: peer.url,
      pid: peer.pid,
      alive: peer.alive,
      output: peer.output,
      stop: async () => {
        await peer.stop();
        await peerDir.remove();
      },
    };
  };

  return {
    store,
    url,
    pid,
    /** Whether `outbox()` and `query()` read the server's tables (not on PGlite). */
    readsTables: readerPool !== undefined,
    requests,
    autoApproved,
    outbox,
    query,
    startPeer,
    account,
    webhookId: webhook.webhook_id,
    /** A merchant API call with the set-up key; answers `data`. */
    call: (method, path, body) => merchantCall(url, key, method, path, body),
    alive: server.alive,
    output: server.output,
    /**
     * `peakMb` and `rssMb` in MB: payrail's VmHWM and VmRSS, plus, on the embedded PostgreSQL,
     * its postgres processes' summed PSS (peak: the largest sample), with their summed VmRSS
     * apart. PSS (issue 24): every backend maps the shared buffers it touched, so a sum of VmRSS
     * counts those pages once per backend (under load, 10 backends × 32 MB of buffers); PSS
     * counts each page once across the processes that share it, which is the memory they hold.
     */
    memory: () => {
      const own = memoryOf(pid);
      if (own === undefined || postgresDir === undefined) return own;
      const now = samplePostgres();
      return {
        peakMb: own.peakMb + postgresPeak.pssMb,
        rssMb: own.rssMb + now.pssMb,
        payrail: own,
        postgres: { ...now, peakRssMb: postgresPeak.rssMb, peakPssMb: postgresPeak.pssMb },
      };
    },
    /**
     * CPU of one core the idle server uses (with its postgres processes), in %, over `seconds`
     * after `settle` seconds. A process that ends meanwhile is left out, one that starts counts
     * from zero.
     */
    idleCpu: async (settle, seconds) => {
      await sleep(settle * 1000);
      const before = cpuSecondsByPid(processes());
      const t0 = performance.now();
      await sleep(seconds * 1000);
      const after = cpuSecondsByPid(processes());
      let used = 0;
      for (const [p, cpu] of after) used += cpu - (before.get(p) ?? 0);
      return (100 * used) / ((performance.now() - t0) / 1000);
    },
    stop: async () => {
      await stopSampler();
      await endReaderPool();
      await server.stop();
      if (dropSchema !== undefined) await dropSchema();
      await remove();
    },
  };
};
