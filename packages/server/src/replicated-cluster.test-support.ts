/**
 * A PostgreSQL primary and a synchronous streaming standby of it, both private clusters
 * (private-cluster.test-support.ts: Debian's binaries, a temporary directory, a free port of
 * 127.0.0.1, run as the `postgres` user), which a test can fail over again and again: kill the
 * primary, promote the standby, rebuild a standby of the new primary on the dead node's port.
 *
 *     const cluster = await createReplicatedCluster();
 *     // DATABASE_URL = cluster.multiHostUrl(): both ports, target_session_attrs=read-write
 *     await cluster.killPrimary();     // SIGKILL, as a machine that loses power
 *     await cluster.promoteStandby();  // pg_ctl promote; resolves once it takes writes
 *     await cluster.rebuildStandby();  // pg_basebackup -R of the new primary; resolves once sync
 *     await cluster.remove();
 *
 * What every node runs with: `wal_level=replica`, `max_wal_senders`, `hot_standby=on` and
 * `synchronous_commit=on` (`-c` at each start), and `synchronous_standby_names='*'`, set on the
 * first primary by `ALTER SYSTEM` (postgresql.auto.conf, which pg_basebackup copies to each
 * standby, so a promoted one has it too, and which `ALTER SYSTEM` can change again: a `-c`
 * setting could not be). A commit is acknowledged only once a standby has flushed it, so the
 * standby that is promoted holds every commit a client was told of. The host-based
 * authentication is initdb's with `--auth=trust` (private-cluster), whose lines already let
 * `postgres` open replication connections over 127.0.0.1; pg_basebackup copies it to the standby.
 *
 * Synchronous replication after a promotion. The promoted node keeps
 * `synchronous_standby_names='*'`, so it acknowledges no commit until a standby streams from
 * it: its commits wait (they are not refused). This helper keeps that, strict, as Patroni's
 * `synchronous_mode_strict` does: no commit is acknowledged by one node alone, and the wait is
 * part of the failover's gap (docs/scaling.md, "The failover test"). Under `'*'` the first
 * stream that releases the waits is `pg_basebackup`'s own (it streams the WAL through a
 * temporary replication slot, so it reports a flush position and ranks as a synchronous
 * standby): commits resume once the base backup starts, and what it acknowledges is written
 * into the new standby's `pg_wal`. A real deployment names its standbys instead of `'*'`. A
 * test that wants the other choice (Patroni's plain `synchronous_mode`, which drops to
 * asynchronous while no standby is there) calls `setSynchronous(false)` after
 * `promoteStandby()` and `setSynchronous(true)` once `rebuildStandby()` is done.
 *
 * The roles move, the two ports do not: `primaryUrl()` and `standbyUrl()` answer the node that
 * has the role now, and `multiHostUrl()` lists both ports in a fixed order, as an application's
 * DATABASE_URL would.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  createPrivateCluster,
  defaultBinDir,
  type PrivateCluster,
  privateClusterMissing,
} from './private-cluster.test-support.js';

const run = promisify(execFile);

export interface ReplicatedClusterOptions {
  /** Default: the newest of `/usr/lib/postgresql/<major>/bin` (private-cluster's choice). */
  readonly binDir?: string;
  /** More `-c name=value` settings for every node (they override the replication ones). */
  readonly settings?: Readonly<Record<string, string>>;
}

export interface ReplicatedCluster {
  /** The node that is the primary now (another one after `promoteStandby()`). */
  readonly primary: () => PrivateCluster;
  /** The node that is the standby now; undefined between `promoteStandby()` and a rebuild. */
  readonly standby: () => PrivateCluster | undefined;
  /** `postgres://postgres@127.0.0.1:<primary port>/<database>`. */
  primaryUrl(database?: string): string;
  /** `postgres://postgres@127.0.0.1:<standby port>/<database>`; throws when there is none. */
  standbyUrl(database?: string): string;
  /**
   * libpq's multi-host form over both ports, in the order the nodes were made:
   * `postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/<database>?target_session_attrs=read-write`.
   */
  multiHostUrl(database?: string): string;
  /** One statement on the primary or the standby (database `postgres`), on its own connection. */
  query<R extends pg.QueryResultRow>(
    on: 'primary' | 'standby',
    text: string,
    params?: unknown[],
  ): Promise<R[]>;
  /** SIGKILL to the primary's postmaster and its backends; resolves once they are gone. */
  killPrimary(): Promise<void>;
  /**
   * `pg_ctl promote` of the standby (the primary is killed first if it still runs); resolves
   * once `pg_is_in_recovery()` is false there. The dead node is kept (its directory too) until
   * `rebuildStandby()`.
   */
  promoteStandby(): Promise<void>;
  /**
   * Deletes the dead node and makes a new standby of the primary on its port (`pg_basebackup
   * -R`, a fast checkpoint); resolves once the primary's `pg_stat_replication` shows it
   * streaming and synchronous.
   */
  rebuildStandby(): Promise<void>;
  /**
   * Resolves once a standby (not a base backup's WAL stream) streams synchronously from the
   * primary (`timeoutMs`, default 60 s).
   */
  waitSynchronous(timeoutMs?: number): Promise<void>;
  /**
   * `synchronous_standby_names` of the primary, by `ALTER SYSTEM` and a reload: `false` lets it
   * commit alone (asynchronous), `true` gives back `'*'`. A standby built later copies it.
   */
  setSynchronous(on: boolean): Promise<void>;
  /** The primary's server log so far and the standby's (for a failing test's message). */
  logs(): Promise<string>;
  /** Stops and deletes every node. */
  remove(): Promise<void>;
}

export { privateClusterMissing as replicatedClusterMissing };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const createReplicatedCluster = async (
  options: ReplicatedClusterOptions = {},
): Promise<ReplicatedCluster> => {
  const binDir = options.binDir ?? defaultBinDir();
  if (binDir === undefined) throw new Error(privateClusterMissing());
  const settings: Record<string, string> = {
    wal_level: 'replica',
    max_wal_senders: '8',
    hot_standby: 'on',
    synchronous_commit: 'on',
    ...options.settings,
  };
  /** A binary of `binDir`, as the user PostgreSQL runs as, in a directory that user may enter. */
  const pgAs = (binary: string, args: readonly string[], cwd: string) =>
    process.getuid?.() === 0
      ? run('runuser', ['-u', 'postgres', '--', join(binDir, binary), ...args], { cwd })
      : run(join(binDir, binary), [...args], { cwd });

  let primary = await createPrivateCluster({ binDir, settings });
  let standby: PrivateCluster | undefined;
  /** A killed primary, kept until a rebuild takes its port. */
  let dead: PrivateCluster | undefined;
  const ports = [primary.port];

  const query = async <R extends pg.QueryResultRow>(
    on: 'primary' | 'standby',
    text: string,
    params: unknown[] = [],
  ): Promise<R[]> => {
    const node = on === 'primary' ? primary : standby;
    if (node === undefined) throw new Error('there is no standby now');
    const client = new pg.Client({ connectionString: node.url(), connectionTimeoutMillis: 10_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<R>(text, params)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };

  const waitSynchronous = async (timeoutMs = 60_000): Promise<void> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await query<{ synchronous: number }>(
        'primary',
        `SELECT count(*)::int AS synchronous FROM pg_stat_replication
          WHERE state = 'streaming' AND sync_state = 'sync'
            AND application_name <> 'pg_basebackup'`,
      );
      if ((row?.synchronous ?? 0) > 0) return;
      if (Date.now() > end) {
        throw new Error(`no synchronous standby streams from the primary after ${timeoutMs} ms`);
      }
      await pause(50);
    }
  };

  /** A standby of the primary on `port`, filled by `pg_basebackup -R` and started. */
  const newStandby = async (port?: number): Promise<PrivateCluster> => {
    const node = await createPrivateCluster({
      binDir,
      settings,
      initialize: false,
      ...(port === undefined ? {} : { port }),
    });
    try {
      await pgAs(
        'pg_basebackup',
        [
          ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'],
          ...['-D', node.dataDir, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync'],
        ],
        dirname(node.dataDir),
      );
      await node.start();
    } catch (error) {
      await node.remove();
      throw error;
    }
    return node;
  };

  const url = (node: PrivateCluster | undefined, role: string, database?: string): string => {
    if (node === undefined) throw new Error(`there is no ${role} now`);
    return node.url(database);
  };

  const cluster: ReplicatedCluster = {
    primary: () => primary,
    standby: () => standby,
    primaryUrl: (database) => url(primary, 'primary', database),
    standbyUrl: (database) => url(standby, 'standby', database),
    multiHostUrl: (database = 'postgres') =>
      `postgres://postgres@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/${database}` +
      '?target_session_attrs=read-write',
    query,
    killPrimary: async () => {
      if (dead !== undefined) throw new Error('the primary is dead already');
      await primary.kill();
      dead = primary;
    },
    promoteStandby: async () => {
      const promoted = standby;
      if (promoted === undefined) throw new Error('there is no standby to promote');
      // Never two primaries: one still running is killed first.
      if (dead === undefined) await cluster.killPrimary();
      await pgAs(
        'pg_ctl',
        ['-D', promoted.dataDir, '-w', '-t', '60', 'promote'],
        dirname(promoted.dataDir),
      );
      standby = undefined;
      primary = promoted;
      const end = Date.now() + 60_000;
      for (;;) {
        const [row] = await query<{ recovering: boolean }>(
          'primary',
          'SELECT pg_is_in_recovery() AS recovering',
        );
        if (row?.recovering === false) return;
        if (Date.now() > end) throw new Error('the promoted standby is still in recovery');
        await pause(50);
      }
    },
    rebuildStandby: async () => {
      if (standby !== undefined) throw new Error('there is a standby already');
      const port = dead?.port;
      await dead?.remove();
      dead = undefined;
      standby = await newStandby(port);
      await waitSynchronous();
    },
    waitSynchronous,
    setSynchronous: async (on) => {
      await query('primary', `ALTER SYSTEM SET synchronous_standby_names = '${on ? '*' : ''}'`);
      await query('primary', 'SELECT pg_reload_conf()');
    },
    logs: async () =>
      `primary (${primary.port}):\n${await primary.log()}\n` +
      `standby (${standby?.port ?? 'none'}):\n${(await standby?.log()) ?? ''}`,
    remove: async () => {
      await Promise.all([primary.remove(), standby?.remove(), dead?.remove()]);
    },
  };
  try {
    await primary.start();
    await cluster.setSynchronous(true);
    standby = await newStandby();
    ports.push(standby.port);
    await waitSynchronous();
  } catch (error) {
    await standby?.remove();
    await primary.remove();
    throw error;
  }
  return cluster;
};
