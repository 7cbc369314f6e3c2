/**
 * `payrail doctor` (issue 22): what is configured (as `payrail config show` prints it, secrets
 * redacted), what is reachable (the database and its version, the schema's migrations, the data
 * directory and its lock, the inspector relay), and what is wrong, a line per problem; exit 1
 * when anything is. It writes nothing: no migration, no key secret, no database created.
 */
import { existsSync } from 'node:fs';
import { access, constants, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import {
  DataDirInUse,
  lockDataDir,
  type MigrationState,
  postgresPool,
} from '@payrail/store-postgres';
import type { CliIo } from './cli-commands.js';
import {
  embeddedClusterOf,
  embeddedDatabaseExists,
  schemaPlace,
  withUnmigratedStore,
} from './cli-migrate.js';
import {
  defaultPublicUrl,
  describeConfig,
  describeDatabase,
  parseConfig,
  redactConnectionString,
  type ServerConfig,
} from './config.js';
import { errorSummary } from './timer-loop.js';

/** One check's outcome: fine, wrong, or nothing to check. */
interface Finding {
  readonly state: 'ok' | 'problem' | 'skipped';
  readonly check: string;
  readonly said: string;
}

const ok = (check: string, said: string): Finding => ({ state: 'ok', check, said });
const problem = (check: string, said: string): Finding => ({ state: 'problem', check, said });
const skipped = (check: string, said: string): Finding => ({ state: 'skipped', check, said });

/** A PostgreSQL server: connects, asks its version. */
const serverFindings = async (connectionString: string): Promise<Finding> => {
  const where = redactConnectionString(connectionString);
  // The store's own pool: libpq's multi-host form finds the host the server would run on
  // (ADR 0051), and a host that does not answer fails after the connect timeout.
  const pool = postgresPool(connectionString, { max: 1 });
  try {
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ version: string }>({
        text: "SELECT current_setting('server_version') AS version",
      });
      return ok('database', `PostgreSQL ${rows[0]?.version ?? '?'} answers at ${where}`);
    } finally {
      client.release();
    }
  } catch (error) {
    return problem('database', `cannot connect to ${where}: ${errorSummary(error)}`);
  } finally {
    await pool.end().catch(() => undefined);
  }
};

/** The schema's migrations, read without applying any; or why they could not be read. */
const readMigrations = (config: ServerConfig): Promise<MigrationState | Error> =>
  withUnmigratedStore(config, (store) => store.migrationState()).catch((error: unknown) =>
    error instanceof Error ? error : new Error(String(error)),
  );

const migrationFinding = (config: ServerConfig, state: MigrationState | Error): Finding => {
  const place = schemaPlace(config);
  if (state instanceof Error) {
    return problem('migrations', `cannot read the migrations of ${place}: ${errorSummary(state)}`);
  }
  if (state.unknown.length > 0) {
    return problem(
      'migrations',
      `${place} holds migrations this payrail does not know (${state.unknown.join(', ')}): ` +
        'a later payrail migrated it; run that one',
    );
  }
  if (state.pending.length > 0) {
    return problem(
      'migrations',
      `${place} lacks ${state.pending.length} migrations (${state.pending.join(', ')}): run ` +
        'payrail migrate, or start the server, which applies them',
    );
  }
  return ok('migrations', `${place}: ${state.applied.length} applied, none pending`);
};

/** The data directory's lock: free, or held by a running server (whose database it is). */
const lockFinding = async (config: ServerConfig): Promise<{ finding: Finding; free: boolean }> => {
  const check = 'data directory lock';
  // Taking the lock would create the directory: doctor writes nothing.
  if (!existsSync(config.dataDir)) {
    return { finding: ok(check, `free: ${config.dataDirDisplay} does not exist yet`), free: true };
  }
  try {
    const lock = await lockDataDir(config.dataDir, { display: config.dataDirDisplay });
    await lock.release();
    return {
      finding: ok(check, `free: no payrail process holds ${config.dataDirDisplay}`),
      free: true,
    };
  } catch (error) {
    if (!(error instanceof DataDirInUse)) {
      return { finding: problem(check, `cannot take it: ${errorSummary(error)}`), free: false };
    }
    const said =
      `held by payrail process ${error.holder}, a running server: its database and ` +
      'migrations are its own (it migrated them when it started)';
    return { finding: ok(check, said), free: false };
  }
};

/** The embedded database: its lock, then (when no server holds it) whether it starts. */
const embeddedFindings = async (config: ServerConfig): Promise<Finding[]> => {
  const where = describeDatabase(config);
  const lock = await lockFinding(config);
  if (!lock.free) return [lock.finding];
  if (!embeddedDatabaseExists(config)) {
    const said = `${where}: not created yet; the first start creates it and applies every migration`;
    return [lock.finding, ok('database', said)];
  }
  const version = await readFile(join(embeddedClusterOf(config) ?? '', 'PG_VERSION'), 'utf8').catch(
    () => '?',
  );
  const state = await readMigrations(config);
  if (state instanceof Error) {
    return [lock.finding, problem('database', `${where} does not start: ${errorSummary(state)}`)];
  }
  return [
    lock.finding,
    ok('database', `${where}: PostgreSQL ${version.trim()} data, starts and answers`),
    migrationFinding(config, state),
  ];
};

const databaseFindings = async (config: ServerConfig): Promise<Finding[]> => {
  if (config.database.kind === 'embedded') return embeddedFindings(config);
  const reached = await serverFindings(config.database.connectionString);
  if (reached.state === 'problem') return [reached];
  return [reached, migrationFinding(config, await readMigrations(config))];
};

/** The nearest folder of `path` that exists. */
const existingAncestor = async (path: string): Promise<string> => {
  let at = path;
  while (
    !(await stat(at).then(
      () => true,
      () => false,
    ))
  ) {
    const up = dirname(at);
    if (up === at) return at;
    at = up;
  }
  return at;
};

/** Whether the data directory can hold what payrail writes there, tried with a folder made and removed. */
const dataDirFinding = async (config: ServerConfig): Promise<Finding> => {
  const check = 'data directory';
  const used = config.database.kind === 'embedded' || config.keySecret.kind === 'file';
  if (!used) return skipped(check, 'not used (DATABASE_URL and PAYRAIL_KEY_SECRET are set)');
  const found = await stat(config.dataDir).catch(() => undefined);
  if (found === undefined) {
    const parent = await existingAncestor(config.dataDir);
    return access(parent, constants.W_OK).then(
      () =>
        ok(
          check,
          `${config.dataDirDisplay} does not exist yet: the first start creates it (${parent} is writable)`,
        ),
      () => problem(check, `${config.dataDirDisplay} does not exist and ${parent} is not writable`),
    );
  }
  if (!found.isDirectory()) return problem(check, `${config.dataDirDisplay} is not a directory`);
  try {
    await rm(await mkdtemp(join(config.dataDir, '.doctor-')), { recursive: true });
    return ok(check, `${config.dataDirDisplay} is writable`);
  } catch (error) {
    return problem(check, `${config.dataDirDisplay} is not writable: ${errorSummary(error)}`);
  }
};

/** The generated key secret's file: owner-only, long enough; absent until the first start. */
const keySecretFinding = async (config: ServerConfig): Promise<Finding> => {
  const check = 'key secret';
  if (config.keySecret.kind === 'env') return ok(check, 'PAYRAIL_KEY_SECRET is set');
  const { path } = config.keySecret;
  const found = await stat(path).catch(() => undefined);
  if (found === undefined)
    return ok(check, `${path} does not exist yet: the first start generates it`);
  if ((found.mode & 0o077) !== 0) {
    return problem(
      check,
      `${path} is readable by others (mode ${(found.mode & 0o777).toString(8)}): chmod 600 it`,
    );
  }
  return ok(check, `kept in ${path} (mode 600)`);
};

/** Whether something accepts TCP connections at `host:port` within the timeout. */
const accepts = (host: string, port: number): Promise<string | undefined> =>
  new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 3_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('no answer within 3 s');
    });
    socket.once('error', (error) => resolve(errorSummary(error)));
  });

const inspectFinding = async (config: ServerConfig, shown: string): Promise<Finding> => {
  const check = 'PAYRAIL_INSPECT';
  if (config.inspectUrl === undefined) return skipped(check, 'unset: no inspector');
  const url = new URL(config.inspectUrl);
  const port = Number(url.port || (url.protocol === 'wss:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const refused = await accepts(host, port);
  return refused === undefined
    ? ok(check, `the relay at ${shown} accepts connections`)
    : problem(
        check,
        `the relay at ${shown} does not accept connections (${refused}); the server keeps the ` +
          'last events until it does',
      );
};

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]', '0.0.0.0']);

const publicUrlFinding = (config: ServerConfig): Finding => {
  const check = 'PAYRAIL_PUBLIC_URL';
  const live = config.environment === 'live';
  if (config.publicUrl === undefined) {
    const fallback = defaultPublicUrl(config.host, config.port);
    return live
      ? problem(
          check,
          `unset: checkout_url would name ${fallback}, which payers cannot reach; set it to where clients reach payrail`,
        )
      : ok(check, `unset: checkout_url names ${fallback} (fine for the sandbox on this machine)`);
  }
  const url = new URL(config.publicUrl);
  if (live && url.protocol !== 'https:') {
    return problem(
      check,
      `${config.publicUrl} is not https://: payers' checkout pages would travel unencrypted`,
    );
  }
  if (live && loopbackHosts.has(url.hostname)) {
    return problem(
      check,
      `${config.publicUrl} names this machine: payers cannot reach its checkout_url`,
    );
  }
  return ok(check, `checkout_url is ${config.publicUrl}/checkout/<order_id>`);
};

/** In live, `/metrics` without a token tells anyone who reaches it the business's volumes. */
const metricsFinding = (config: ServerConfig): Finding => {
  const check = 'PAYRAIL_METRICS_TOKEN';
  if (config.metricsToken !== undefined) return ok(check, 'set: /metrics asks for it');
  return config.environment === 'live'
    ? problem(check, 'unset in live: /metrics answers whoever reaches it; set a token')
    : ok(check, 'unset: /metrics answers whoever reaches it (fine for the sandbox)');
};

const findingsOf = async (config: ServerConfig): Promise<Finding[]> => {
  const shownInspect =
    describeConfig(config).find((entry) => entry.name === 'PAYRAIL_INSPECT')?.value ?? '';
  // The key secret's mode before the lock is taken: taking it makes the directory owner-only.
  return [
    await dataDirFinding(config),
    await keySecretFinding(config),
    ...(await databaseFindings(config)),
    await inspectFinding(config, shownInspect),
    publicUrlFinding(config),
    metricsFinding(config),
  ];
};

const printed = (io: CliIo, findings: readonly Finding[]): void => {
  const width = Math.max(...findings.map((finding) => finding.check.length));
  for (const { state, check, said } of findings) {
    io.out(`  ${state.padEnd(8)} ${check.padEnd(width)}  ${said}`);
  }
};

const problemsPrinted = (io: CliIo, problems: readonly string[]): number => {
  if (problems.length === 0) {
    io.out('problems: none');
    return 0;
  }
  io.out(`problems (${problems.length}):`);
  for (const line of problems) io.out(`  - ${line}`);
  return 1;
};

/** `payrail doctor`; answers the exit code: 1 when anything is wrong. */
export const runDoctor = async (json: boolean, io: CliIo): Promise<number> => {
  const parsed = parseConfig(io.env, io.cwd);
  if (!parsed.ok) {
    if (json)
      io.out(JSON.stringify({ configuration: null, checks: [], problems: parsed.errors }, null, 2));
    else
      problemsPrinted(
        io,
        parsed.errors.map((error) => `configuration: ${error}`),
      );
    return 1;
  }
  const { config } = parsed;
  const entries = describeConfig(config);
  const findings = await findingsOf(config);
  const problems = findings
    .filter((finding) => finding.state === 'problem')
    .map((finding) => `${finding.check}: ${finding.said}`);
  if (json) {
    const configuration = Object.fromEntries(entries.map((entry) => [entry.name, entry.value]));
    io.out(JSON.stringify({ configuration, checks: findings, problems }, null, 2));
    return problems.length === 0 ? 0 : 1;
  }
  io.out('configuration (secrets redacted, as payrail config show prints it):');
  const width = Math.max(...entries.map((entry) => entry.name.length));
  for (const entry of entries) io.out(`  ${entry.name.padEnd(width)}  ${entry.value}`);
  io.out('checks:');
  printed(io, findings);
  return problemsPrinted(io, problems);
};
