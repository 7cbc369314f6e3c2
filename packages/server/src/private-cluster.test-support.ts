/**
 * A PostgreSQL cluster a test owns: Debian's PostgreSQL binaries (`initdb`, `pg_ctl`) run a
 * cluster of its own in a temporary directory, on a free port of 127.0.0.1, with trust
 * authentication for `postgres` (replication included), so a test can stop it, kill it and start
 * it again under a running payrail: what the shared server of CI (127.0.0.1:5432) must never be
 * made to do.
 *
 * PostgreSQL refuses to run as root: when the test runs as root (CI, these machines) every
 * command runs as the `postgres` OS user through `runuser`, and the directory is handed to it.
 *
 *     const cluster = await createPrivateCluster();
 *     await cluster.start();
 *     // DATABASE_URL = cluster.url()
 *     await cluster.stop();    // pg_ctl stop -m fast: clients see their connections end
 *     await cluster.start();
 *     await cluster.kill();    // SIGKILL to the postmaster, as a machine that loses power
 *     await cluster.remove();
 *
 * `settings` become `-c name=value` at each start (a primary's `wal_level`, a standby's
 * `primary_conninfo`), and `dataDir` lets a later test fill it (`pg_basebackup`) before `start()`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@payrail/store-postgres/testing';

const run = promisify(execFile);

/** The newest PostgreSQL of Debian's layout (`/usr/lib/postgresql/<major>/bin`). */
export const defaultBinDir = (): string | undefined => {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((entry) => /^\d+$/.test(entry) && existsSync(join(root, entry, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? undefined : join(root, majors[0], 'bin');
};

/** Why a private cluster cannot be made on this machine; undefined when it can. */
export const privateClusterMissing = (): string | undefined => {
  if (defaultBinDir() === undefined) {
    return 'no PostgreSQL binaries in /usr/lib/postgresql/<major>/bin (apt-get install postgresql)';
  }
  if (
    process.getuid?.() === 0 &&
    !existsSync('/usr/sbin/runuser') &&
    !existsSync('/sbin/runuser')
  ) {
    return 'running as root without runuser to run PostgreSQL as the postgres user';
  }
  return undefined;
};

export interface PrivateClusterOptions {
  /** Default: the newest of `/usr/lib/postgresql/<major>/bin`. */
  readonly binDir?: string;
  /** Default: a port free on 127.0.0.1 when the cluster is created. */
  readonly port?: number;
  /** `-c name=value` at every start. */
  readonly settings?: Readonly<Record<string, string>>;
  /** Default true: `initdb` makes the data directory; false leaves it empty to be filled. */
  readonly initialize?: boolean;
}

export interface PrivateCluster {
  readonly port: number;
  /** The cluster's data directory (owned by the user PostgreSQL runs as). */
  readonly dataDir: string;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` (default database `postgres`). */
  url(database?: string): string;
  /** `pg_ctl start`, waiting until it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl stop`, waiting until it is down; default `fast` (sessions are ended at once). */
  stop(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  /**
   * SIGKILL to the postmaster and every process of it at once, as a machine that loses power;
   * resolves once they are gone (a later `start()` recovers from the WAL).
   */
  kill(): Promise<void>;
  /** Stops it if it runs, and deletes its directory. */
  remove(): Promise<void>;
  /** The server's log so far (for a failing test's message). */
  log(): Promise<string>;
}

/** The user PostgreSQL runs as, and how to run a command as it. */
const runner = async (): Promise<{
  readonly owner: { readonly uid: number; readonly gid: number } | undefined;
  readonly command: (binary: string, args: readonly string[]) => [string, string[]];
}> => {
  if (process.getuid?.() !== 0) {
    return { owner: undefined, command: (binary, args) => [binary, [...args]] };
  }
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return {
    owner: { uid, gid },
    command: (binary, args) => ['runuser', ['-u', 'postgres', '--', binary, ...args]],
  };
};

const postmasterPid = async (dataDir: string): Promise<number | undefined> => {
  const text = await readFile(join(dataDir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  const pid = Number(text?.split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};

/** The processes whose parent is `pid` (the postmaster's backends and workers), from /proc. */
const childrenOf = (pid: number): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        // `pid (comm) state ppid ...`: the command may hold spaces, so read after its `)`.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === pid ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });

/** Whether `pid` exists, a zombie (killed, not yet reaped) included: what PostgreSQL checks. */
const exists = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether `pid` runs: a zombie (killed, not yet reaped by its parent) does not. */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

export const createPrivateCluster = async (
  options: PrivateClusterOptions = {},
): Promise<PrivateCluster> => {
  const binDir = options.binDir ?? defaultBinDir();
  if (binDir === undefined) throw new Error(privateClusterMissing());
  const as = await runner();
  const root = await mkdtemp(join(tmpdir(), 'payrail-pg-'));
  const dataDir = join(root, 'data');
  const socketDir = join(root, 'socket');
  await mkdir(dataDir, { mode: 0o700 });
  await mkdir(socketDir, { mode: 0o700 });
  if (as.owner !== undefined) {
    for (const path of [root, dataDir, socketDir]) await chown(path, as.owner.uid, as.owner.gid);
  }
  const port = options.port ?? (await freePort());
  const pg = (binary: string, args: readonly string[]) => {
    const [command, argv] = as.command(join(binDir, binary), args);
    return run(command, argv, { cwd: root });
  };
  if (options.initialize !== false) {
    await pg('initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
  }
  const serverOptions = [
    `-p ${port}`,
    `-k ${socketDir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    ...Object.entries(options.settings ?? {}).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const logFile = join(root, 'server.log');
  const cluster: PrivateCluster = {
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: async () => {
      await pg('pg_ctl', [
        '-D',
        dataDir,
        '-l',
        logFile,
        '-o',
        serverOptions,
        '-w',
        '-t',
        '60',
        'start',
      ]);
    },
    stop: async (mode = 'fast') => {
      await pg('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
    },
    kill: async () => {
      const pid = await postmasterPid(dataDir);
      if (pid === undefined || !alive(pid)) return;
      const children = childrenOf(pid);
      for (const each of [pid, ...children]) {
        try {
          process.kill(each, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      // A new postmaster refuses the lock file while the old one's pid exists; its backends
      // only need to have let go of the shared memory.
      const lingering = (): boolean => exists(pid) || children.some(alive);
      for (let waited = 0; lingering() && waited < 10_000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // A postmaster nobody reaps stays a zombie: its lock file would then stop the next start.
      if (exists(pid) && !alive(pid)) await rm(join(dataDir, 'postmaster.pid'), { force: true });
    },
    remove: async () => {
      const pid = await postmasterPid(dataDir);
      if (pid !== undefined && alive(pid))
        await cluster.stop('immediate').catch(() => cluster.kill());
      await rm(root, { recursive: true, force: true });
    },
    log: () => readFile(logFile, 'utf8').catch(() => ''),
  };
  return cluster;
};
