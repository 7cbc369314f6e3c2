/**
 * A PgBouncer in transaction mode in front of a PostgreSQL server, for tests that must run
 * payrail the way a host behind a pooler does (ADR 0052): each transaction may get another server
 * connection, so whatever a store leaves on a connection between statements (a session `SET`, a
 * named prepared statement, a session advisory lock, a `LISTEN`) is lost or leaks to others.
 *
 * Debian's `pgbouncer` (apt) runs from a directory of its own with its own pgbouncer.ini, on a
 * free port of 127.0.0.1, trusting the server's user (the server decides what it may do). It
 * refuses to run as root: as root it runs as the `postgres` OS user through `runuser`, the
 * directory handed to it, as the private clusters of the server's tests do.
 *
 *     const bouncer = await startPgBouncer({ server: 'postgres://postgres@127.0.0.1:5432/test' });
 *     // bouncer.url: postgres://postgres@127.0.0.1:<port>/test, through PgBouncer
 *     // bouncer.adminUrl: its console (`SHOW POOLS`, `SHOW STATS`)
 *     await bouncer.stop();
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Where Debian's package puts it; else the first `pgbouncer` on the PATH. */
const binaries = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

const pgBouncerBinary = (): string | undefined =>
  binaries.find((path) => existsSync(path)) ??
  (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, 'pgbouncer'))
    .find((path) => existsSync(path));

const asRoot = (): boolean => process.getuid?.() === 0;

/** Why PgBouncer cannot be started on this machine; undefined when it can. */
export const pgBouncerMissing = (): string | undefined => {
  if (pgBouncerBinary() === undefined) return 'no pgbouncer binary (apt-get install pgbouncer)';
  if (asRoot() && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) {
    return 'running as root without runuser to run pgbouncer as the postgres user';
  }
  return undefined;
};

export interface PgBouncerOptions {
  /** The server behind it: `postgres://user[:password]@host:port/database`. */
  readonly server: string;
  /** Server connections per database and user (`default_pool_size`). Default 20. */
  readonly poolSize?: number;
  /** Client connections it accepts (`max_client_conn`). Default 400. */
  readonly maxClients?: number;
}

/** What node-postgres needs to reach a PgBouncer another process started (vitest's `provide`). */
export interface PgBouncerConnection {
  /** The server's database through PgBouncer, as `server` named it but on PgBouncer's port. */
  readonly url: string;
  /** PgBouncer's admin console (`SHOW POOLS`, `SHOW STATS`): simple queries only. */
  readonly adminUrl: string;
}

export interface PgBouncer extends PgBouncerConnection {
  /** Its log so far (for a failing test's message). */
  log(): Promise<string>;
  /** Ends it at once (SIGTERM: clients see their connections end) and removes its directory. */
  stop(): Promise<void>;
}

/** A value of pgbouncer.ini's `[databases]` line, quoted when it holds a space or a quote. */
const connectValue = (value: string): string =>
  /[\s'\\]/.test(value) ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : value;

/** The `[databases]` line that sends `database` to the server of `server`. */
const databaseLine = (server: URL, database: string): string => {
  const settings: [string, string][] = [
    ['host', server.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1'],
    ['port', server.port || '5432'],
    ['dbname', database],
    ['user', decodeURIComponent(server.username) || 'postgres'],
  ];
  if (server.password !== '') settings.push(['password', decodeURIComponent(server.password)]);
  return `${database} = ${settings.map(([key, value]) => `${key}=${connectValue(value)}`).join(' ')}`;
};

/** Waits until the admin console answers, or the process has ended. */
const untilReady = async (adminUrl: string, child: ChildProcess): Promise<void> => {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`pgbouncer ended at start (${child.exitCode ?? child.signalCode})`);
    }
    const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SHOW VERSION');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
};

export const startPgBouncer = async (options: PgBouncerOptions): Promise<PgBouncer> => {
  const binary = pgBouncerBinary();
  const missing = pgBouncerMissing();
  if (binary === undefined || missing !== undefined) throw new Error(missing);
  const server = new URL(options.server);
  const database = decodeURIComponent(server.pathname.slice(1)) || 'postgres';
  const user = decodeURIComponent(server.username) || 'postgres';
  const directory = await mkdtemp(join(tmpdir(), 'payrail-pgbouncer-'));
  const port = await freePort();
  const ini = join(directory, 'pgbouncer.ini');
  const logFile = join(directory, 'pgbouncer.log');
  await writeFile(
    ini,
    [
      '[databases]',
      databaseLine(server, database),
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      // No Unix socket: it would go where Debian's own PgBouncer puts its socket.
      'unix_socket_dir =',
      'pool_mode = transaction',
      'auth_type = trust',
      `auth_file = ${join(directory, 'userlist.txt')}`,
      `admin_users = ${user}`,
      `default_pool_size = ${options.poolSize ?? 20}`,
      `max_client_conn = ${options.maxClients ?? 400}`,
      `logfile = ${logFile}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  // Under trust a client's user must still be listed; its password is not asked.
  await writeFile(join(directory, 'userlist.txt'), `"${user.replace(/"/g, '""')}" ""\n`);
  if (asRoot()) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    for (const path of [directory, ini, join(directory, 'userlist.txt')]) {
      await chown(path, uid, gid);
    }
  }
  // In the foreground: `runuser` hands our SIGTERM on to it, and it ends with this process.
  const [command, args] = asRoot()
    ? ['runuser', ['-u', 'postgres', '--', binary, ini]]
    : [binary, [ini]];
  const child = spawn(command, args, { cwd: directory, stdio: 'ignore' });
  const ended = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const address = `127.0.0.1:${port}`;
  const credentials = `${server.username}${server.password === '' ? '' : `:${server.password}`}`;
  const at = credentials === '' ? address : `${credentials}@${address}`;
  const adminUrl = `postgres://${at}/pgbouncer`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await ended;
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await untilReady(adminUrl, child);
  } catch (error) {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    await stop();
    throw new Error(`pgbouncer did not start: ${String(error)}\n${log}`);
  }
  return {
    url: `postgres://${at}/${encodeURIComponent(database)}${server.search}`,
    adminUrl,
    log: () => readFile(logFile, 'utf8').catch(() => ''),
    stop,
  };
};
