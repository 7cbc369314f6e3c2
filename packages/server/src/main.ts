/**
 * `pnpm start`: reads the configuration from the environment, starts payrail, prints where it
 * listens, and stops cleanly on SIGTERM or SIGINT (exit 0). Secrets are never printed, except
 * the operator token and the sandbox upstream secret this run generated when none was
 * configured: once each, labelled.
 */

import { generateSandboxUpstreamSecret } from '@payrail/sandbox';
import { describeDatabase, parseConfig } from './config.js';
import { generateAdminToken, loadKeySecret } from './credentials.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { errorSummary } from './timer-loop.js';

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const complain = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
/** Runtime problems (a failed request, the timer loop): timestamped, on stderr. */
const log = (line: string): void => {
  complain(`${new Date().toISOString()} payrail: ${line}`);
};

const fail = (line: string): never => {
  complain(`payrail: ${line}`);
  process.exit(1);
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

  const { secret, createdFile } = await loadKeySecret(config.keySecret).catch((error: unknown) =>
    fail(`cannot read the API-key signing secret: ${errorSummary(error)}`),
  );
  if (createdFile !== undefined) {
    say(`payrail: generated the API-key signing secret in ${createdFile} (mode 0600; keep it:`);
    say('  every API key this server issues is signed with it)');
  }
  if (config.database.kind === 'server' && config.keySecret.kind === 'file') {
    say(
      `payrail: PAYRAIL_KEY_SECRET is unset, so API keys are signed with the secret in ` +
        `${config.keySecret.path}; every process sharing this database needs the same secret: ` +
        'set PAYRAIL_KEY_SECRET to it',
    );
  }

  const adminToken = config.adminToken ?? generateAdminToken();
  if (config.adminToken === undefined) {
    say('payrail: PAYRAIL_ADMIN_TOKEN is not set; the operator token of this run (shown once,');
    say('  not stored, a new one at each start unless you set it) is:');
    say(`  PAYRAIL_ADMIN_TOKEN=${adminToken}`);
  }

  // The sandbox chain watcher's signing secret (ADR 0032), generated and shown like the token.
  const upstreamSandboxSecret =
    config.environment === 'sandbox'
      ? (config.upstreamSandboxSecret ?? generateSandboxUpstreamSecret())
      : undefined;
  if (upstreamSandboxSecret !== undefined && config.upstreamSandboxSecret === undefined) {
    say('payrail: PAYRAIL_UPSTREAM_SANDBOX_SECRET is not set; what sandbox chain payment reports');
    say('  (POST /upstream/acquiring/sandbox) must be signed with in this run (shown once, not');
    say('  stored, a new one at each start unless you set it) is:');
    say(`  PAYRAIL_UPSTREAM_SANDBOX_SECRET=${upstreamSandboxSecret}`);
  }

  let server: PayrailServer;
  try {
    server = await startPayrail({
      config,
      adminToken,
      keySecret: secret,
      log,
      ...(upstreamSandboxSecret === undefined ? {} : { upstreamSandboxSecret }),
    });
  } catch (error) {
    fail(`could not start: ${errorSummary(error)}`);
    return;
  }
  say(`payrail listening on ${server.url} (${config.environment}, ${describeDatabase(config)})`);

  const stop = (signal: NodeJS.Signals): void => {
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
    const now = (again: NodeJS.Signals): void => {
      complain(`payrail: ${again} again, exiting without waiting`);
      process.exit(1);
    };
    process.once('SIGTERM', now);
    process.once('SIGINT', now);
    say(`payrail: ${signal} received, finishing requests in flight and stopping`);
    server.stop().then(
      () => {
        say('payrail: stopped');
        process.exit(0);
      },
      (error: unknown) => fail(`stopping failed: ${errorSummary(error)}`),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
};

start().catch((error: unknown) => fail(`could not start: ${errorSummary(error)}`));
