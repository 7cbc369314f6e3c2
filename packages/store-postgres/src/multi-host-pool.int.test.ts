/**
 * The multi-host pool on a real server (ADR 0051). A host that dies is played by a TCP relay to
 * the shared server: closing it (and cutting its connections) is what clients see of a primary
 * that crashed. The URL lists the relay first and the server itself second, so after the relay
 * dies the pool must find the second host, answer `StoreUnavailable` meanwhile (never hang, never
 * an unclassified error), and bring the store's LISTEN back on the host it found.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import {
  type AccountRecord,
  isStoreUnavailable,
  type StoreReads,
  type StoreTransaction,
} from '@payrail/core';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MultiHostPool, parseDatabaseUrl, postgresPool } from './multi-host-pool.js';
import { serverForTests, serverUrl } from './postgres-harness.test-support.js';
import { createPostgresStore } from './postgres-store.js';
import { type PostgresStore, workChannelOf } from './sql-store.js';
import { isConnectionLoss } from './store-unavailable.js';
import { quoteIdent } from './table-layout.js';
import { freePort } from './testing/free-port.js';

const server = await serverForTests();
const target = new URL(serverUrl);
const targetPort = Number(target.port || 5432);

/** A TCP relay to the shared server; `kill()` closes it and cuts every connection through it. */
const startRelay = async (port = 0): Promise<{ port: number; kill: () => Promise<void> }> => {
  const sockets = new Set<Socket>();
  const relay: Server = createServer((inbound) => {
    const outbound = tcpConnect(targetPort, target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => relay.listen(port, '127.0.0.1', resolve));
  const address = relay.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  return {
    port: address.port,
    kill: async () => {
      const closed = new Promise<void>((resolve) => relay.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
};

/** The shared server's URL with its host list replaced by `hosts` and `query` appended. */
const urlWith = (hosts: readonly string[], query: string): string => {
  const user = target.username === '' ? '' : `${target.username}@`;
  return `postgres://${user}${hosts.join(',')}${target.pathname}?${query}`;
};

const account: Omit<AccountRecord, 'version'> = {
  account_id: 'acc_slipped',
  merchant_id: 'mch_1',
  status: 'active',
  currencies: ['USD'],
  verification_enabled: false,
  auto_approve: false,
  products: { payout: true, acquiring: true },
  enabled_pay_tokens: [],
  default_pay_tokens: [],
  notify_secret: 'whsec_x',
  created_at: 1,
  updated_at: 1,
};

/** An outbox message: work another process's LISTEN hears of. */
const outboxMessage = (id: string) => ({
  outbox_id: id,
  event_id: `evt_${id}`,
  account_id: 'acc_1',
  business_type: 'payout',
  business_id: `po_${id}`,
  event_type: 'payout.created',
  destination: { kind: 'webhook' as const, webhookId: 'wh_1' },
  payload: {},
  available_at: 1_700_000_000,
  created_at: 1_700_000_000,
});

const parsed = (url: string) => {
  const found = parseDatabaseUrl(url);
  if (found === undefined) throw new Error(url);
  return found;
};

describe.skipIf(server.skip)('the multi-host pool on a PostgreSQL server', () => {
  const schemas: string[] = [];
  const freshSchema = (): string => {
    const schema = `payrail_mh_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    return schema;
  };
  let admin: Client;
  beforeAll(async () => {
    admin = new Client({ connectionString: serverUrl });
    await admin.connect();
  });
  afterAll(async () => {
    for (const schema of schemas) {
      await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    }
    await admin.end();
  });

  it('skips a host that refuses connections and runs on the next', async () => {
    const dead = await freePort();
    const store = await createPostgresStore({
      connectionString: urlWith(
        [`127.0.0.1:${dead}`, `${target.hostname}:${targetPort}`],
        'target_session_attrs=read-write',
      ),
      schema: freshSchema(),
    });
    try {
      await expect(store.transaction(async (tx) => tx.ledger.balances('acc_1'))).resolves.toEqual(
        [],
      );
    } finally {
      await store.close();
    }
  });

  it('skips a read-only session for read-write, and takes it for any', async () => {
    const readOnly = 'options=-c%20default_transaction_read_only%3Don';
    const hosts = [`${target.hostname}:${targetPort}`];
    const refusing = new MultiHostPool(
      parsed(urlWith(hosts, `target_session_attrs=read-write&${readOnly}`)),
      { max: 2, connectTimeoutMs: 2000 },
    );
    try {
      const error: unknown = await refusing.connect().catch((caught: unknown) => caught);
      expect(isStoreUnavailable(error)).toBe(true);
      expect(String(error)).toMatch(/read-only or a standby/);
    } finally {
      await refusing.end();
    }
    const taking = new MultiHostPool(
      parsed(
        urlWith(
          [...hosts, `127.0.0.1:${await freePort()}`],
          `target_session_attrs=any&${readOnly}`,
        ),
      ),
      { max: 2, connectTimeoutMs: 2000 },
    );
    try {
      const client = await taking.connect();
      const { rows } = await client.query<{ transaction_read_only: string }>({
        text: 'SHOW transaction_read_only',
      });
      client.release();
      expect(rows[0]?.transaction_read_only).toBe('on');
      expect(taking.currentHost).toBe(`${target.hostname}:${targetPort}`);
    } finally {
      await taking.end();
    }
  });

  it('loses a host that refuses a write, but not for a write slipped into a read', async () => {
    // A server whose sessions are read-only stands for a primary demoted to a standby.
    const readOnly = 'options=-c%20default_transaction_read_only%3Don';
    const direct = `${target.hostname}:${targetPort}`;
    const schema = freshSchema();
    await (await createPostgresStore({ connectionString: serverUrl, schema })).close();
    const pool = new MultiHostPool(
      parsed(
        urlWith([direct, `127.0.0.1:${await freePort()}`], `target_session_attrs=any&${readOnly}`),
      ),
      { max: 2, connectTimeoutMs: 2000 },
    );
    const store = await createPostgresStore({ pool, schema, applyMigrations: false });
    const isWritable = (tx: StoreReads): tx is StoreTransaction =>
      typeof Reflect.get(tx.accounts, 'insert') === 'function';
    const insert = async (tx: StoreReads): Promise<void> => {
      if (!isWritable(tx)) throw new Error('the read was given no writable ports');
      await tx.accounts.insert(account);
    };
    try {
      const refused: unknown = await store.read(insert).catch((caught: unknown) => caught);
      expect(isStoreUnavailable(refused)).toBe(false);
      expect(String(refused)).toMatch(/read-only transaction/);
      expect(pool.currentHost).toBe(direct);
      const lost: unknown = await store.transaction(insert).catch((caught: unknown) => caught);
      expect(isStoreUnavailable(lost)).toBe(true);
      expect(pool.currentHost).toBeUndefined();
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('reads on the first replica of a host list that answers (PAYRAIL_DATABASE_READ_URL)', async () => {
    const schema = freshSchema();
    const direct = `${target.hostname}:${targetPort}`;
    const application = `payrail_replica_${randomBytes(4).toString('hex')}`;
    const store = await createPostgresStore({
      connectionString: serverUrl,
      schema,
      readConnectionString: urlWith(
        [`127.0.0.1:${await freePort()}`, direct],
        `application_name=${application}`,
      ),
    });
    try {
      // While the read is open, its transaction is on the replica pool's connection.
      const onReplica = await store.read(async (tx) => {
        await tx.accounts.list({ limit: 1, offset: 0, sort: 'asc' });
        const { rows } = await admin.query<{ open: number }>(
          `SELECT count(*)::int AS open FROM pg_stat_activity
            WHERE application_name = $1 AND state LIKE 'idle in transaction%'`,
          [application],
        );
        return rows[0]?.open;
      });
      expect(onReplica).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('LISTENs on the first read-write host of a host list (PAYRAIL_DATABASE_LISTEN_URL)', async () => {
    const schema = freshSchema();
    const application = `payrail_listen_${randomBytes(4).toString('hex')}`;
    const store = await createPostgresStore({
      connectionString: serverUrl,
      schema,
      listenConnectionString: urlWith(
        [`127.0.0.1:${await freePort()}`, `${target.hostname}:${targetPort}`],
        `application_name=${application}`,
      ),
    });
    const other = await createPostgresStore({ connectionString: serverUrl, schema });
    try {
      let heard = 0;
      store.onWork(() => {
        heard += 1;
      });
      const listening = async (): Promise<number> => {
        const { rows } = await admin.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query = $2',
          [application, `LISTEN ${quoteIdent(workChannelOf(schema))}`],
        );
        return rows[0]?.n ?? 0;
      };
      await expect.poll(listening, { timeout: 10_000 }).toBe(1);
      await other.transaction((tx) => tx.outbox.enqueue([outboxMessage('ob_listen')]));
      await expect.poll(() => heard, { timeout: 5000 }).toBeGreaterThan(0);
    } finally {
      await other.close();
      await store.close();
    }
  });

  it('opens a LISTEN that failed at start once its server answers, and hears others then', async () => {
    const schema = freshSchema();
    const port = await freePort();
    const application = `payrail_late_${randomBytes(4).toString('hex')}`;
    const store = await createPostgresStore({
      connectionString: serverUrl,
      schema,
      listenConnectionString: urlWith([`127.0.0.1:${port}`], `application_name=${application}`),
    });
    const other = await createPostgresStore({ connectionString: serverUrl, schema });
    let relay: { kill: () => Promise<void> } | undefined;
    try {
      let heard = 0;
      store.onWork(() => {
        heard += 1;
      });
      // The first LISTEN is refused (nothing on the port yet); then the server comes up there.
      await new Promise((resolve) => setTimeout(resolve, 300));
      relay = await startRelay(port);
      const listening = async (): Promise<number> => {
        const { rows } = await admin.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query = $2',
          [application, `LISTEN ${quoteIdent(workChannelOf(schema))}`],
        );
        return rows[0]?.n ?? 0;
      };
      await expect.poll(listening, { timeout: 10_000 }).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = heard;
      await other.transaction((tx) => tx.outbox.enqueue([outboxMessage('ob_late')]));
      await expect.poll(() => heard, { timeout: 5000 }).toBeGreaterThan(before);
    } finally {
      await other.close();
      await store.close();
      await relay?.kill();
    }
  });

  it('waits for a free connection longer than the connect timeout, one host or several', async () => {
    const direct = `${target.hostname}:${targetPort}`;
    const pools = [
      postgresPool(urlWith([direct], 'connect_timeout=2'), { max: 1 }),
      postgresPool(urlWith([direct, `127.0.0.1:${await freePort()}`], 'connect_timeout=2'), {
        max: 1,
      }),
    ];
    try {
      await Promise.all(
        pools.map(async (pool) => {
          const busy = await pool.connect();
          const waiting = pool.connect();
          // Busy past the 2 s connect timeout: the waiting unit of work gets the connection.
          setTimeout(() => busy.release(), 3000);
          const freed = await waiting;
          freed.release();
        }),
      );
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('answers a full pool that frees nothing in time once, keeping its host (no new search)', async () => {
    const pool = new MultiHostPool(
      parsed(urlWith([`${target.hostname}:${targetPort}`, `127.0.0.1:${await freePort()}`], '')),
      { max: 1, connectTimeoutMs: 2000, poolWaitMs: 1500 },
    );
    try {
      const busy = await pool.connect();
      const host = pool.currentHost;
      const started = Date.now();
      const error: unknown = await pool.connect().catch((caught: unknown) => caught);
      const waited = Date.now() - started;
      expect(isConnectionLoss(error)).toBe(true);
      // One wait of poolWaitMs, not a second one after searching the hosts again.
      expect(waited).toBeLessThan(2800);
      expect(pool.currentHost).toBe(host);
      expect(pool.totalCount).toBe(1);
      busy.release();
    } finally {
      await pool.end();
    }
  });

  it('still fails a connection the server never answers after the connect timeout', async () => {
    const accepted = new Set<Socket>();
    const silent = createServer((socket) => {
      accepted.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const pool = postgresPool(urlWith([`127.0.0.1:${address.port}`], 'connect_timeout=2'), {
      max: 1,
      poolWaitMs: 60_000,
    });
    const started = Date.now();
    try {
      const error: unknown = await pool.connect().catch((caught: unknown) => caught);
      expect(isConnectionLoss(error)).toBe(true);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await pool.end();
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('answers StoreUnavailable, naming every host, when none answers', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const pool = new MultiHostPool(
      parsed(urlWith([`127.0.0.1:${a}`, `127.0.0.1:${b}`], 'target_session_attrs=primary')),
      { max: 2, connectTimeoutMs: 2000 },
    );
    try {
      const error: unknown = await pool.connect().catch((caught: unknown) => caught);
      expect(isStoreUnavailable(error)).toBe(true);
      expect(String(error)).toContain(`127.0.0.1:${a} cannot be reached`);
      expect(String(error)).toContain(`127.0.0.1:${b} cannot be reached`);
    } finally {
      await pool.end();
    }
  });

  it('finds the next host when its host dies under traffic, and LISTENs there again', async () => {
    const relay = await startRelay();
    const direct = `${target.hostname}:${targetPort}`;
    const pool = new MultiHostPool(
      parsed(urlWith([`127.0.0.1:${relay.port}`, direct], 'target_session_attrs=read-write')),
      { max: 4, connectTimeoutMs: 2000 },
    );
    const schema = freshSchema();
    const store: PostgresStore = await createPostgresStore({ pool, schema });
    const other = await createPostgresStore({ connectionString: serverUrl, schema });
    try {
      expect(pool.currentHost).toBe(`127.0.0.1:${relay.port}`);
      let heard = 0;
      store.onWork(() => {
        heard += 1;
      });
      /** The backends LISTENing on the schema's channel. */
      const listening = async (): Promise<number[]> => {
        const { rows } = await admin.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE query = $1',
          [`LISTEN ${quoteIdent(workChannelOf(schema))}`],
        );
        return rows.map((row) => row.pid);
      };
      await expect.poll(async () => (await listening()).length, { timeout: 5000 }).toBe(1);
      const [relayedListener] = await listening();

      // Traffic across the death of the host: each unit of work commits or is unavailable.
      let stop = false;
      const outcomes = { committed: 0, unavailable: 0, other: [] as unknown[] };
      const traffic = Array.from({ length: 4 }, async () => {
        while (!stop) {
          try {
            await store.transaction(async (tx) => tx.ledger.balances('acc_1'));
            outcomes.committed += 1;
          } catch (error) {
            if (isStoreUnavailable(error)) outcomes.unavailable += 1;
            else outcomes.other.push(error);
          }
        }
      });
      await expect.poll(() => outcomes.committed, { timeout: 5000 }).toBeGreaterThan(10);
      await relay.kill();
      const afterKill = outcomes.committed;
      await expect
        .poll(() => outcomes.committed, { timeout: 10_000 })
        .toBeGreaterThan(afterKill + 10);
      stop = true;
      await Promise.all(traffic);
      expect(outcomes.other).toEqual([]);
      expect(pool.currentHost).toBe(direct);

      // The LISTEN is opened again on the host found (a backend of its own, the relayed one
      // gone), and another process's work is heard through it.
      await expect
        .poll(async () => (await listening()).filter((pid) => pid !== relayedListener), {
          timeout: 10_000,
        })
        .toHaveLength(1);
      await expect.poll(listening, { timeout: 10_000 }).not.toContain(relayedListener);
      // The reopened LISTEN tells once of what committed meanwhile; let that pass first.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = heard;
      await other.transaction((tx) => tx.outbox.enqueue([outboxMessage('ob_failover')]));
      await expect.poll(() => heard, { timeout: 5000 }).toBeGreaterThan(before);
    } finally {
      await other.close();
      await store.close();
      await pool.end();
    }
  });
});
