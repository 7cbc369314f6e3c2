/**
 * `pnpm start`: reads the configuration from the environment, starts payrail, logs where it
 * listens, and stops cleanly on SIGTERM or SIGINT (exit 0). The log is pino's (ADR 0047): JSON
 * records on stdout, or readable lines when stdout is a terminal. Secrets are never logged: the
 * operator token and the sandbox upstream secret this run generated when none was configured
 * are printed once each, labelled, on a line of their own outside the records; in live the
 * generated operator token is written to `admin-token` in the data directory (0600) instead.
 */

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateSandboxUpstreamSecret } from '@payrail/sandbox';
import type { Logger } from 'pino';
import { describeDatabase, parseConfig, type ServerConfig } from './config.js';
import { generateAdminToken, loadKeySecret } from './credentials.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { createServerLog } from './pino-logger.js';
import { errorSummary } from './timer-loop.js';

const complain = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** The log of this run, once the configuration names its level and format. */
interface RunLog {
  readonly logger: Logger;
  /** A line for a person, outside the log's records (a secret generated for this run). */
  readonly say: (line: string) => void;
  /** JSON records: a collector reads them, so a fatal failure is a record too. */
  readonly json: boolean;
}

let runLog: RunLog | undefined;

/** Why the process stops: on stderr for the person, and a `fatal` record for a collector. */
const fail = (line: string): never => {
  if (runLog?.json === true) runLog.logger.fatal({}, line);
  complain(`payrail: ${line}`);
  process.exit(1);
};

const openLog = (config: ServerConfig): RunLog => {
  const terminal = process.stdout.isTTY === true;
  const format = config.logFormat ?? (terminal ? 'pretty' : 'json');
  const color = format === 'pretty' && terminal && process.env.NO_COLOR === undefined;
  const { logger, say } = createServerLog({ level: config.logLevel, format, color });
  return { logger, say, json: format === 'json' };
};

/**
 * A secret this run generated: a record saying so, then the secret alone on its line, written
 * on the log's own stream (pino-logger.ts: off the event loop for JSON), so it is the next line.
 */
const showGenerated = (log: RunLog, name: string, what: string, value: string): void => {
  log.logger.warn(
    { setting: name },
    `${name} is not set; ${what} (shown once, not stored, a new one at each start unless you ` +
      'set it) is on the next line',
  );
  log.say(`  ${name}=${value}`);
};

/** The API-key signing secret, read or generated (and kept) in the data directory. */
const keySecretOf = async (config: ServerConfig, logger: Logger): Promise<Uint8Array> => {
  const { secret, createdFile } = await loadKeySecret(config.keySecret).catch((error: unknown) =>
    fail(`cannot read the API-key signing secret: ${errorSummary(error)}`),
  );
  if (createdFile !== undefined) {
    logger.info(
      { file: createdFile },
      `generated the API-key signing secret in ${createdFile} (mode 0600; keep it: every API ` +
        'key this server issues is signed with it)',
    );
  }
  if (config.database.kind === 'server' && config.keySecret.kind === 'file') {
    logger.warn(
      { file: config.keySecret.path },
      `PAYRAIL_KEY_SECRET is unset, so API keys are signed with the secret in ` +
        `${config.keySecret.path}; every process sharing this database needs the same secret: ` +
        'set PAYRAIL_KEY_SECRET to it',
    );
  }
  return secret;
};

/**
 * Live: the operator token this run generated goes to a file of the data directory that only
 * its owner reads (mode 0600), and the log names the file, never the token (issue 35, L5): a log
 * stream is read by more people and systems than the machine's owner.
 */
const writeGeneratedAdminToken = async (config: ServerConfig, log: RunLog, token: string) => {
  const file = join(config.dataDir, 'admin-token');
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // A new file each start, created 0600 before the token is in it: an older one, whatever its
  // mode, is removed first, so the token is never in a file another user could read.
  await rm(file, { force: true });
  await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  log.logger.warn(
    { setting: 'PAYRAIL_ADMIN_TOKEN', file },
    `PAYRAIL_ADMIN_TOKEN is not set; the operator token of this run is in ${file} (mode 0600, ` +
      'a new one at each start unless you set it)',
  );
};

/** The operator token and the sandbox upstream secret: configured, or generated and shown. */
const runSecrets = async (config: ServerConfig, log: RunLog) => {
  const adminToken = config.adminToken ?? generateAdminToken();
  if (config.adminToken === undefined && config.environment === 'live') {
    await writeGeneratedAdminToken(config, log, adminToken).catch((error: unknown) =>
      fail(`cannot write the generated operator token: ${errorSummary(error)}`),
    );
  } else if (config.adminToken === undefined) {
    showGenerated(log, 'PAYRAIL_ADMIN_TOKEN', 'the operator token of this run', adminToken);
  }
  // The sandbox chain watcher's signing secret (ADR 0032), generated and shown like the token.
  const upstreamSandboxSecret =
    config.environment === 'sandbox'
      ? (config.upstreamSandboxSecret ?? generateSandboxUpstreamSecret())
      : undefined;
  if (upstreamSandboxSecret !== undefined && config.upstreamSandboxSecret === undefined) {
    showGenerated(
      log,
      'PAYRAIL_UPSTREAM_SANDBOX_SECRET',
      'what sandbox chain payment reports (POST /upstream/acquiring/sandbox) must be signed ' +
        'with in this run',
      upstreamSandboxSecret,
    );
  }
  return { adminToken, upstreamSandboxSecret };
};

const stopOnSignals = (server: PayrailServer, logger: Logger, drainMs: number): void => {
  const stop = (signal: NodeJS.Signals): void => {
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
    const now = (again: NodeJS.Signals): void => {
      logger.warn({ signal: again }, `${again} again, exiting without waiting`);
      process.exit(1);
    };
    process.once('SIGTERM', now);
    process.once('SIGINT', now);
    // /readyz answers 503 at once; requests are still served for the drain (docs/observability.md).
    logger.info(
      { signal, drain_ms: drainMs },
      `${signal} received: not ready any more, serving ${drainMs} ms more ` +
        '(PAYRAIL_SHUTDOWN_DRAIN_MS), then finishing requests in flight and stopping',
    );
    server.stop().then(
      () => {
        logger.info({}, 'payrail stopped');
        process.exit(0);
      },
      (error: unknown) => fail(`stopping failed: ${errorSummary(error)}`),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
};

const start = async (): Promise<void> => {
  // Whatever this process creates is its owner's alone (the data directory's files among them).
  process.umask(0o077);
  const parsed = parseConfig(process.env, process.cwd());
  if (!parsed.ok) {
    fail(`the configuration is not valid:\n${parsed.errors.map((e) => `  - ${e}`).join('\n')}`);
    return;
  }
  const config = parsed.config;
  runLog = openLog(config);
  const { logger } = runLog;
  const keySecret = await keySecretOf(config, logger);
  const { adminToken, upstreamSandboxSecret } = await runSecrets(config, runLog);

  let server: PayrailServer;
  try {
    server = await startPayrail({
      config,
      adminToken,
      keySecret,
      log: logger,
      ...(upstreamSandboxSecret === undefined ? {} : { upstreamSandboxSecret }),
      shutdownDrainMs: config.shutdownDrainMs,
      processMetrics: true,
    });
  } catch (error) {
    fail(`could not start: ${errorSummary(error)}`);
    return;
  }
  const database = describeDatabase(config);
  logger.info(
    { url: server.url, environment: config.environment, database },
    `payrail listening on ${server.url} (${config.environment}, ${database})`,
  );
  stopOnSignals(server, logger, config.shutdownDrainMs);
};

start().catch((error: unknown) => fail(`could not start: ${errorSummary(error)}`));
