/**
 * The `payrail` command line, parsed: a pure function from argv to one command, or the sentence
 * that tells a person what is wrong. Nothing here talks to a server.
 */
import { parseArgs } from 'node:util';
import { type OperatorRole, operatorRoles } from '@payrail/core';
import { type Permission, permissions } from '@payrail/engine';

export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'merchant.create'; readonly name: string; readonly currencies?: string[] }
  | {
      readonly kind: 'key.issue';
      readonly account: string;
      readonly permissions: readonly Permission[];
      readonly env?: 'sandbox' | 'live';
      readonly ipWhitelist?: string[];
      readonly expiresInSeconds?: number;
      readonly name?: string;
    }
  | {
      readonly kind: 'account.credit';
      readonly account: string;
      readonly currency: string;
      /** As typed: an amount is never a JavaScript number. */
      readonly amount: string;
    }
  | {
      readonly kind: 'operator.add';
      readonly name: string;
      readonly role: OperatorRole;
      readonly expiresInSeconds?: number;
    }
  | { readonly kind: 'config.show' }
  | { readonly kind: 'migrate'; readonly check: boolean }
  | { readonly kind: 'doctor' }
  | { readonly kind: 'inspect.relay'; readonly port?: number; readonly host?: string }
  | { readonly kind: 'store.migrate' };

export interface CliInvocation {
  readonly command: CliCommand;
  /** `--url`; else `PAYRAIL_URL`, else the default. */
  readonly url?: string;
  /** `--json`: print the answer's `data` as JSON instead of lines for a person. */
  readonly json: boolean;
}

export type CliParse =
  | { readonly ok: true; readonly invocation: CliInvocation }
  | { readonly ok: false; readonly error: string };

export const defaultServerUrl = 'http://127.0.0.1:8080';

export const usage = `Usage: payrail <command> [options]

Operator tasks against a running payrail server's admin API (the server prints its URL and,
when PAYRAIL_ADMIN_TOKEN was not set, the operator token it generated).

Commands:
  merchant create --name <name> [--currencies USD,USDT]
      Creates a merchant and its first account; prints merchant_id, account_id and the
      account's notify_secret (shown once).
  key issue --account <account_id> --permissions <p1,p2,...|all> [--env sandbox|live]
            [--ip 203.0.113.7,198.51.100.0/24] [--expires-in <seconds>] [--name <label>]
      Issues an API key; prints its token once.
  account credit --account <account_id> --currency USD --amount 100.00
      Funds a balance (sandbox servers only).
  operator add --name <name> --role viewer|reviewer|treasurer|admin [--expires-in <seconds>]
      Adds a named operator; prints its credential once. Operators act on /admin with their
      own credential, and the audit trail names them (docs/server.md has the role matrix).
  config show
      Prints the server configuration the current environment gives, secrets redacted
      (local: no server needed).
  store migrate
      Moves the PGlite database an earlier payrail wrote in PAYRAIL_DATA_DIR (pgdata/) into
      the embedded PostgreSQL, and keeps the old files as pgdata.migrated-<time>/ (local: stop
      the server first).
  inspect-relay [--port 8095] [--host 127.0.0.1]
      Runs the XState inspector relay until Ctrl-C: start payrail with
      PAYRAIL_INSPECT=ws://127.0.0.1:8095 and open http://127.0.0.1:8095/ in a browser (local).
  migrate [--check]
      Applies the database migrations the schema lacks (DATABASE_URL, or the embedded database
      of PAYRAIL_DATA_DIR: stop the server first) and prints them. --check applies nothing: it
      prints what is pending and exits 1 when anything is (local).
  doctor
      Prints the configuration (secrets redacted), checks what it names (the database, its
      schema's migrations, the data directory, PAYRAIL_INSPECT, PAYRAIL_PUBLIC_URL) and prints
      each problem on a line; exits 1 when there is one (local).
  help
      Prints this text.

Options:
  --url <url>   the server (default: PAYRAIL_URL, else ${defaultServerUrl})
  --json        print the answer's data as JSON

Environment:
  PAYRAIL_ADMIN_TOKEN   the operator token or a named operator's credential (required by the
                        merchant, key, account and operator commands)
  PAYRAIL_URL           the server, when --url is not given

Exit codes: 0 done, 1 the server refused (its message is printed), migrations are pending
(migrate --check) or doctor found a problem, 2 wrong usage or configuration, 3 the server or
the database could not be reached.`;

const optionSpec = {
  url: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  currencies: { type: 'string' },
  account: { type: 'string' },
  permissions: { type: 'string' },
  env: { type: 'string' },
  ip: { type: 'string' },
  'expires-in': { type: 'string' },
  currency: { type: 'string' },
  amount: { type: 'string' },
  role: { type: 'string' },
  check: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
} as const;

type OptionName = keyof typeof optionSpec;
type Values = Partial<Record<OptionName, string | boolean>>;

const globalOptions: readonly OptionName[] = ['url', 'json', 'help'];

const commandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  'merchant create': ['name', 'currencies'],
  'key issue': ['account', 'permissions', 'env', 'ip', 'expires-in', 'name'],
  'account credit': ['account', 'currency', 'amount'],
  'operator add': ['name', 'role', 'expires-in'],
  'config show': [],
  'store migrate': [],
  migrate: ['check'],
  doctor: [],
  'inspect-relay': ['port', 'host'],
};

const list = (raw: string): string[] =>
  raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

class UsageError extends Error {}

const required = (values: Values, name: OptionName): string => {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`--${name} is required`);
  }
  return value.trim();
};

const optional = (values: Values, name: OptionName): string | undefined => {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`--${name} needs a value`);
  }
  return value.trim();
};

const isPermission = (name: string): name is Permission =>
  permissions.some((permission) => permission === name);

const isOperatorRole = (name: string): name is OperatorRole =>
  operatorRoles.some((role) => role === name);

const isOptionName = (name: string): name is OptionName => Object.hasOwn(optionSpec, name);

const parsePermissions = (raw: string): readonly Permission[] => {
  if (raw === 'all') return permissions;
  const asked = list(raw);
  if (asked.length === 0) throw new UsageError('--permissions needs at least one permission');
  const unknown = asked.filter((p) => !isPermission(p));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown permission ${unknown.join(', ')}; use "all" or some of: ${permissions.join(', ')}`,
    );
  }
  return [...new Set(asked.filter(isPermission))];
};

/** `--expires-in`, when given: a whole number of seconds. */
const expiresInOf = (values: Values): { expiresInSeconds?: number } => {
  const expiresIn = optional(values, 'expires-in');
  if (expiresIn !== undefined && !/^[1-9]\d*$/.test(expiresIn)) {
    throw new UsageError(`--expires-in must be a whole number of seconds, not "${expiresIn}"`);
  }
  return expiresIn === undefined ? {} : { expiresInSeconds: Number(expiresIn) };
};

const buildCommand = (name: string, values: Values): CliCommand => {
  switch (name) {
    case 'merchant create': {
      const currencies = optional(values, 'currencies');
      return {
        kind: 'merchant.create',
        name: required(values, 'name'),
        ...(currencies === undefined ? {} : { currencies: list(currencies) }),
      };
    }
    case 'key issue': {
      const env = optional(values, 'env');
      if (env !== undefined && env !== 'sandbox' && env !== 'live') {
        throw new UsageError(`--env must be sandbox or live, not "${env}"`);
      }
      const ip = optional(values, 'ip');
      const expiresIn = expiresInOf(values);
      const label = optional(values, 'name');
      return {
        kind: 'key.issue',
        account: required(values, 'account'),
        permissions: parsePermissions(required(values, 'permissions')),
        ...(env === undefined ? {} : { env }),
        ...(ip === undefined ? {} : { ipWhitelist: list(ip) }),
        ...expiresIn,
        ...(label === undefined ? {} : { name: label }),
      };
    }
    case 'account credit':
      return {
        kind: 'account.credit',
        account: required(values, 'account'),
        currency: required(values, 'currency'),
        amount: required(values, 'amount'),
      };
    case 'operator add': {
      const role = required(values, 'role');
      if (!isOperatorRole(role)) {
        throw new UsageError(`--role must be one of ${operatorRoles.join(', ')}, not "${role}"`);
      }
      const expiresIn = expiresInOf(values);
      return { kind: 'operator.add', name: required(values, 'name'), role, ...expiresIn };
    }
    case 'store migrate':
      return { kind: 'store.migrate' };
    case 'migrate':
      return { kind: 'migrate', check: values.check === true };
    case 'doctor':
      return { kind: 'doctor' };
    case 'inspect-relay': {
      const port = optional(values, 'port');
      if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) <= 65_535)) {
        throw new UsageError(`--port must be a port number (0 picks a free one), not "${port}"`);
      }
      const host = optional(values, 'host');
      return {
        kind: 'inspect.relay',
        ...(port === undefined ? {} : { port: Number(port) }),
        ...(host === undefined ? {} : { host }),
      };
    }
    default:
      return { kind: 'config.show' };
  }
};

export const parseCliArguments = (argv: readonly string[]): CliParse => {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof optionSpec; allowPositionals: true }>>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: optionSpec,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // node:util's messages name the option: "Unknown option '--nme'", "... argument missing".
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  const values: Values = parsed.values;
  const words = parsed.positionals;
  const json = values.json === true;
  const url = typeof values.url === 'string' ? values.url.trim() : undefined;
  if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) {
    return { ok: false, error: `--url must be an http:// or https:// URL, not "${url}"` };
  }
  const withUrl = url === undefined ? {} : { url };

  if (values.help === true || words.length === 0 || words[0] === 'help') {
    return { ok: true, invocation: { command: { kind: 'help' }, json, ...withUrl } };
  }
  const name = words.slice(0, 2).join(' ');
  const allowed = commandOptions[name];
  if (allowed === undefined || words.length > 2) {
    return { ok: false, error: `unknown command "${words.join(' ')}"` };
  }
  const stray = Object.keys(values)
    .filter(isOptionName)
    .filter((option) => !allowed.includes(option) && !globalOptions.includes(option));
  if (stray.length > 0) {
    return { ok: false, error: `${name} does not take --${stray.join(', --')}` };
  }
  try {
    return { ok: true, invocation: { command: buildCommand(name, values), json, ...withUrl } };
  } catch (error) {
    if (error instanceof UsageError) return { ok: false, error: `${name}: ${error.message}` };
    throw error;
  }
};
