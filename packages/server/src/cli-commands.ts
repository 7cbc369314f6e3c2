/**
 * What each `payrail` command does: an admin API call to a running server (the data directory
 * belongs to the server process, so these never open the store), printed for a person, or as
 * JSON with `--json`; or a local task on the configuration or a stopped server's data directory.
 * Answers the process exit code.
 */

import { lockDataDir } from '@payrail/store-postgres';
import {
  type CliCommand,
  type CliInvocation,
  defaultServerUrl,
  parseCliArguments,
  usage,
} from './cli-arguments.js';
import { runDoctor } from './cli-doctor.js';
import { runMigrate } from './cli-migrate.js';
import { describeConfig, type EnvRecord, parseConfig, type ServerConfig } from './config.js';
import { migratePGliteData } from './embedded-store.js';
import { type InspectorRelay, startInspectorRelay } from './inspector-relay.js';
import { errorSummary } from './timer-loop.js';

export interface CliIo {
  readonly env: EnvRecord;
  readonly cwd: string;
  readonly fetch: typeof fetch;
  /** stdout */
  out(line: string): void;
  /** stderr */
  err(line: string): void;
  /** Resolves when a command that runs until stopped should stop (cli.ts: SIGINT or SIGTERM). */
  readonly untilStopped?: () => Promise<void>;
}

const exitCodes = { done: 0, refused: 1, usage: 2, unreachable: 3 } as const;

/** The commands that need no server. */
type LocalCommand =
  | 'help'
  | 'config.show'
  | 'store.migrate'
  | 'inspect.relay'
  | 'migrate'
  | 'doctor';

interface AdminCall {
  readonly method: 'POST';
  readonly path: string;
  readonly body: Readonly<Record<string, unknown>>;
}

const adminCallOf = (command: Exclude<CliCommand, { kind: LocalCommand }>): AdminCall => {
  switch (command.kind) {
    case 'merchant.create':
      return {
        method: 'POST',
        path: '/admin/merchants',
        body: {
          name: command.name,
          ...(command.currencies === undefined ? {} : { currencies: command.currencies }),
        },
      };
    case 'key.issue':
      return {
        method: 'POST',
        path: `/admin/accounts/${encodeURIComponent(command.account)}/api-keys`,
        body: {
          permissions: command.permissions,
          ...(command.env === undefined ? {} : { env: command.env }),
          ...(command.ipWhitelist === undefined ? {} : { ip_whitelist: command.ipWhitelist }),
          ...(command.expiresInSeconds === undefined
            ? {}
            : { expires_in_seconds: command.expiresInSeconds }),
          ...(command.name === undefined ? {} : { name: command.name }),
        },
      };
    case 'account.credit':
      return {
        method: 'POST',
        path: `/admin/accounts/${encodeURIComponent(command.account)}/credit`,
        body: { currency: command.currency, amount: command.amount },
      };
    case 'operator.add':
      return {
        method: 'POST',
        path: '/admin/operators',
        body: {
          name: command.name,
          role: command.role,
          ...(command.expiresInSeconds === undefined
            ? {}
            : { expires_in_seconds: command.expiresInSeconds }),
        },
      };
  }
};

/** `object[name]`, inherited properties included (a DOMException's `name`), for any answer. */
const field = (object: unknown, name: string): unknown =>
  typeof object === 'object' && object !== null ? Reflect.get(object, name) : undefined;

const text = (value: unknown): string =>
  Array.isArray(value)
    ? value.join(', ')
    : value === null || value === undefined
      ? '-'
      : String(value);

const unixTime = (value: unknown): string =>
  typeof value === 'number' ? `${new Date(value * 1000).toISOString()} (${value})` : text(value);

const table = (rows: readonly (readonly [string, string])[]): string[] => {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`);
};

/** A row per field of `object`, labelled with the field's name and shown as text. */
const rowsOf = (object: unknown, names: readonly string[]): (readonly [string, string])[] =>
  names.map((name) => [name, text(field(object, name))]);

/** An API key or operator credential: its record's rows, its expiry, then its token, shown once. */
const issuedCredential = (
  title: string,
  record: unknown,
  names: readonly string[],
  shownOnce: string,
): string[] => [
  title,
  ...table([...rowsOf(record, names), ['expires_at', unixTime(field(record, 'expires_at'))]]),
  shownOnce,
  text(field(record, 'token')),
];

/** Lines a person reads; secrets shown once are labelled as such. */
const present = (command: CliCommand, data: unknown): string[] => {
  switch (command.kind) {
    case 'merchant.create': {
      const merchant = field(data, 'merchant');
      return [
        'merchant created',
        ...table([
          ...rowsOf(merchant, ['merchant_id', 'account_id', 'name', 'currencies']),
          ['notify_secret', `${text(field(merchant, 'notify_secret'))}  (shown once)`],
        ]),
      ];
    }
    case 'key.issue':
      return issuedCredential(
        'API key issued',
        field(data, 'api_key'),
        ['key_id', 'account_id', 'env', 'permissions', 'ip_whitelist'],
        'token (shown once; send it as "Authorization: Bearer <token>"):',
      );
    case 'operator.add':
      return issuedCredential(
        'operator added',
        field(data, 'operator'),
        ['operator_id', 'name', 'role', 'created_by'],
        'credential (shown once; send it as "Authorization: Bearer <credential>" to /admin):',
      );
    case 'account.credit': {
      const balance = field(data, 'balance');
      return [
        'balance credited',
        ...table([
          ['deposit', text(field(field(data, 'deposit'), 'record_id'))],
          ...rowsOf(balance, ['currency', 'available', 'held', 'total']),
        ]),
      ];
    }
    default:
      return [JSON.stringify(data, null, 2)];
  }
};

const unreachable = (url: string, error: unknown): string => {
  const cause = field(error, 'cause');
  const code = field(cause, 'code');
  const reason =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : field(error, 'name') === 'TimeoutError'
        ? 'no answer within 15 s'
        : text(field(cause, 'message') ?? field(error, 'message'));
  return (
    `cannot reach payrail at ${url}: ${reason}. Is the server running (npx -y pnpm@10 start)? ` +
    'Give its URL with --url or PAYRAIL_URL.'
  );
};

const refusalHint = (command: CliCommand, status: number): string => {
  if (status === 401) {
    return ' PAYRAIL_ADMIN_TOKEN must be the operator token the server was started with (it prints a generated one at start).';
  }
  if (status === 403 && command.kind === 'operator.add') {
    return ' Only an admin operator (or the admin token, see docs/adr/0039) adds operators.';
  }
  if (status === 403 && command.kind === 'account.credit') {
    return ' Crediting a balance is a sandbox feature: this server runs PAYRAIL_ENV=live.';
  }
  return '';
};

const callServer = async (
  invocation: CliInvocation,
  command: Exclude<CliCommand, { kind: LocalCommand }>,
  io: CliIo,
): Promise<number> => {
  const token = io.env.PAYRAIL_ADMIN_TOKEN;
  if (token === undefined || token.trim() === '') {
    io.err(
      'payrail: PAYRAIL_ADMIN_TOKEN is not set. Export the operator token the server printed at ' +
        'start (or the one you started it with): export PAYRAIL_ADMIN_TOKEN=...',
    );
    return exitCodes.usage;
  }
  const base = (invocation.url ?? io.env.PAYRAIL_URL ?? defaultServerUrl).replace(/\/+$/, '');
  const call = adminCallOf(command);
  let response: Response;
  try {
    response = await io.fetch(`${base}${call.path}`, {
      method: call.method,
      headers: { Authorization: `Bearer ${token.trim()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(call.body),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    io.err(`payrail: ${unreachable(base, error)}`);
    return exitCodes.unreachable;
  }
  const envelope: unknown = await response.json().catch(() => undefined);
  const code = field(envelope, 'code');
  const message = field(envelope, 'message');
  if (typeof code !== 'number' || typeof message !== 'string') {
    io.err(`payrail: ${base} did not answer like a payrail server (HTTP ${response.status})`);
    return exitCodes.unreachable;
  }
  if (code !== 0) {
    io.err(
      `payrail: the server refused: ${message} (HTTP ${response.status}, code ${code}).` +
        refusalHint(command, response.status),
    );
    return exitCodes.refused;
  }
  const data = field(envelope, 'data');
  const lines = invocation.json ? [JSON.stringify(data, null, 2)] : present(command, data);
  for (const line of lines) io.out(line);
  return exitCodes.done;
};

const configOrErrors = (io: CliIo): ServerConfig | undefined => {
  const parsed = parseConfig(io.env, io.cwd);
  if (parsed.ok) return parsed.config;
  io.err('payrail: the configuration is not valid:');
  for (const error of parsed.errors) io.err(`  - ${error}`);
  return undefined;
};

const showConfig = (invocation: CliInvocation, io: CliIo): number => {
  const config = configOrErrors(io);
  if (config === undefined) return exitCodes.usage;
  const entries = describeConfig(config);
  if (invocation.json) {
    io.out(JSON.stringify(Object.fromEntries(entries.map((e) => [e.name, e.value])), null, 2));
    return exitCodes.done;
  }
  const width = Math.max(...entries.map((e) => e.name.length));
  for (const entry of entries) io.out(`${entry.name.padEnd(width)}  ${entry.value}`);
  return exitCodes.done;
};

/** `payrail store migrate`, with the data directory locked as a server would lock it. */
const migrateStore = async (invocation: CliInvocation, io: CliIo): Promise<number> => {
  const config = configOrErrors(io);
  if (config === undefined) return exitCodes.usage;
  if (config.database.kind !== 'embedded') {
    io.err('payrail: store migrate moves the data of PAYRAIL_DATA_DIR; unset DATABASE_URL');
    return exitCodes.usage;
  }
  try {
    const lock = await lockDataDir(config.dataDir, {
      display: config.dataDirDisplay,
      remedy: 'and run store migrate again',
    });
    try {
      const moved = await migratePGliteData(config);
      if (invocation.json) {
        io.out(JSON.stringify(moved, null, 2));
      } else {
        const rows = moved.tables.reduce((sum, table) => sum + table.rows, 0);
        io.out(
          `payrail: moved ${rows} rows in ${moved.tables.length} tables into the embedded ` +
            `PostgreSQL in ${config.dataDirDisplay}; the PGlite files are kept in ${moved.keptAt}`,
        );
      }
      return exitCodes.done;
    } finally {
      await lock.release();
    }
  } catch (error) {
    io.err(`payrail: store migrate failed: ${errorSummary(error)}`);
    return exitCodes.refused;
  }
};

/** `payrail inspect-relay`: the relay, until stopped. */
const runInspectorRelay = async (
  command: Extract<CliCommand, { kind: 'inspect.relay' }>,
  io: CliIo,
): Promise<number> => {
  let relay: InspectorRelay;
  try {
    relay = await startInspectorRelay(command);
  } catch (error) {
    io.err(`payrail: the inspector relay cannot listen: ${errorSummary(error)}`);
    if (field(error, 'code') === 'EADDRINUSE') io.err('Give it another port with --port.');
    return exitCodes.refused;
  }
  io.out(`payrail: inspector relay listening on ${relay.url} (Ctrl-C stops it)`);
  io.out(`  start payrail with PAYRAIL_INSPECT=${relay.url}`);
  io.out(`  open ${relay.page} in a browser for the Stately inspector`);
  await (io.untilStopped?.() ?? new Promise<void>(() => {}));
  await relay.stop();
  return exitCodes.done;
};

export const runCli = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const parsed = parseCliArguments(argv);
  if (!parsed.ok) {
    io.err(`payrail: ${parsed.error}`);
    io.err('Run "payrail help" for the commands and their options.');
    return exitCodes.usage;
  }
  const { invocation } = parsed;
  const { command } = invocation;
  switch (command.kind) {
    case 'help':
      io.out(usage);
      return exitCodes.done;
    case 'config.show':
      return showConfig(invocation, io);
    case 'store.migrate':
      return migrateStore(invocation, io);
    case 'migrate': {
      const config = configOrErrors(io);
      if (config === undefined) return exitCodes.usage;
      return runMigrate(config, { check: command.check, json: invocation.json }, io);
    }
    case 'doctor':
      return runDoctor(invocation.json, io);
    case 'inspect.relay':
      return runInspectorRelay(command, io);
    default:
      return callServer(invocation, command, io);
  }
};
