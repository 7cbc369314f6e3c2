/**
 * The server's configuration (docs/spec/decisions.md §10 and docs/adr/0010-server-configuration.md): one pure
 * function of an environment record, which reports every problem at once, and a redacted
 * description of the result for `payrail config show` and the startup line.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { type Environment, isIpRange } from '@payrail/core';
import { minKeySecretBytes } from '@payrail/engine';
import { addressList } from '@payrail/http';
import { isSandboxUpstreamSecret } from '@payrail/sandbox';
import { type LogFormat, type LogLevel, logLevels } from './payrail-logger.js';

/** `process.env`, or any record like it. */
export type EnvRecord = Readonly<Record<string, string | undefined>>;

/**
 * The database payrail runs in the data directory when DATABASE_URL is unset (ADR 0037): a
 * PostgreSQL server it starts and owns (durable; the default), or PGlite in its own process.
 */
export type EmbeddedEngine = 'postgres' | 'pglite';

export type DatabaseConfig =
  | {
      readonly kind: 'embedded';
      readonly engine: EmbeddedEngine;
      readonly directory: string;
    }
  | {
      readonly kind: 'server';
      readonly connectionString: string;
      /** `PAYRAIL_DATABASE_READ_URL`: a read replica for the reads that decide nothing (ADR 0054). */
      readonly readConnectionString: string | undefined;
      /**
       * `PAYRAIL_DATABASE_LISTEN_URL` (ADR 0052): where the store LISTENs for other processes'
       * work; undefined: DATABASE_URL itself; false (`none`): no LISTEN.
       */
      readonly listenConnectionString: string | false | undefined;
    };

export type KeySecretSource =
  | { readonly kind: 'env'; readonly secret: Uint8Array }
  | { readonly kind: 'file'; readonly path: string };

export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  readonly environment: Environment;
  /** Undefined when unset: the server generates one at start and prints it once. */
  readonly adminToken: string | undefined;
  readonly database: DatabaseConfig;
  /** The PostgreSQL schema holding payrail's tables. */
  readonly databaseSchema: string;
  /** Absolute; holds the embedded database, the generated key secret and the lock file. */
  readonly dataDir: string;
  /** The data directory as the operator wrote it (`./.payrail`), for messages. */
  readonly dataDirDisplay: string;
  readonly allowInsecureWebhooks: boolean;
  /** Requests per second per API key; 0 turns the limit off. */
  readonly rateLimit: number;
  /**
   * Per client address, before authentication (issue 12, finding 6): failed authentications per
   * 10 s on `/payment` and `/admin`, requests per second on `/checkout` and `/upstream`; 0 is off.
   */
  readonly addressLimit: {
    readonly failedAuthentications: number;
    readonly requestsPerSecond: number;
  };
  /** The HTTP server's timeouts in ms (issue 12, finding 6): whole request, headers, idle. */
  readonly httpTimeouts: {
    readonly requestTimeoutMs: number;
    readonly headersTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
  };
  /** `PAYRAIL_METRICS_TOKEN`: `/metrics` answers only this bearer token; undefined: anyone. */
  readonly metricsToken: string | undefined;
  /** `PAYRAIL_READY_MAX_OUTBOX_BACKLOG`: `/readyz` fails from this many pending messages; 0: off. */
  readonly readyMaxOutboxBacklog: number;
  /** `PAYRAIL_SHUTDOWN_DRAIN_MS`: how long a stopping server serves after `/readyz` turned 503. */
  readonly shutdownDrainMs: number;
  readonly keySecret: KeySecretSource;
  /** Base of checkout_url; undefined: `http://<host>:<port>` once the port is known. */
  readonly publicUrl: string | undefined;
  readonly trustedProxies: readonly string[];
  /** Sandbox only: who may call `POST /upstream/acquiring/sandbox` (addresses, CIDR ranges). */
  readonly upstreamSandboxSources: readonly string[];
  /**
   * Sandbox only: the `whsec_` secret the sandbox chain watcher signs its reports with;
   * undefined when unset: the server generates one at start and prints it once.
   */
  readonly upstreamSandboxSecret: string | undefined;
  /** `PAYRAIL_INSPECT`: the `ws://` address of an XState inspector relay, or none. */
  readonly inspectUrl: string | undefined;
  /** `PAYRAIL_LOG_LEVEL`: the least severe level logged. */
  readonly logLevel: LogLevel;
  /** `PAYRAIL_LOG_FORMAT`; undefined: readable lines on a terminal, JSON lines otherwise. */
  readonly logFormat: LogFormat | undefined;
}

export type ConfigResult =
  | { readonly ok: true; readonly config: ServerConfig }
  | { readonly ok: false; readonly errors: readonly string[] };

const defaultPort = 8080;
const defaultHost = '127.0.0.1';
const defaultDataDir = './.payrail';
const defaultDatabaseSchema = 'payrail';
/** docs/spec/decisions.md §9: 100 requests per second per key. */
const defaultRateLimit = 100;
/** The sandbox provider answers this machine only, unless told otherwise. */
export const defaultUpstreamSandboxSources: readonly string[] = ['127.0.0.1/32', '::1/128'];
/** A shorter operator token is refused: it guards every merchant's money. */
const minAdminTokenLength = 16;

/** Where the generated key secret is kept (mode 0600). */
const keySecretFileIn = (dataDir: string): string => join(dataDir, 'key-secret');
/** Where each embedded database keeps its files; `pgdata` is where PGlite always has. */
export const embeddedDatabaseIn = (dataDir: string, engine: EmbeddedEngine = 'postgres'): string =>
  join(dataDir, engine === 'postgres' ? 'postgres' : 'pgdata');

const present = (value: string | undefined): value is string =>
  value !== undefined && value.trim() !== '';

const flagValues: Readonly<Record<string, boolean>> = {
  '1': true,
  true: true,
  '0': false,
  false: false,
};

/** What reading a setting needs: the environment record, and where its problems are listed. */
interface Reading {
  readonly env: EnvRecord;
  readonly errors: string[];
}

/** A comma-separated list, its entries trimmed and empty ones dropped. */
const commaList = (raw: string): string[] =>
  raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

const readPort = ({ env, errors }: Reading): number => {
  const raw = env.PORT;
  if (!present(raw)) return defaultPort;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value > 65535) {
    errors.push(`PORT must be a whole number from 0 to 65535 (0 picks a free port), not "${raw}"`);
    return defaultPort;
  }
  return value;
};

const readEnvironment = ({ env, errors }: Reading): Environment => {
  const raw = env.PAYRAIL_ENV;
  // Unset is the sandbox; set to nothing is a mistake (issue 19, L6), not a quiet sandbox.
  if (raw === undefined) return 'sandbox';
  if (raw === 'sandbox' || raw === 'live') return raw;
  errors.push(`PAYRAIL_ENV must be "sandbox" or "live", not "${raw}"`);
  return 'sandbox';
};

const readAdminToken = ({ env, errors }: Reading): string | undefined => {
  const raw = env.PAYRAIL_ADMIN_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (raw.trim().length < minAdminTokenLength || /\s/.test(raw)) {
    errors.push(
      `PAYRAIL_ADMIN_TOKEN must be at least ${minAdminTokenLength} characters without spaces ` +
        '(or unset: a token is generated and printed at start)',
    );
    return undefined;
  }
  return raw;
};

/** The data directory as written, and resolved against where the command was typed. */
const readDataDir = (
  env: EnvRecord,
  cwd: string,
): { readonly dataDir: string; readonly dataDirDisplay: string } => {
  const dataDirDisplay = present(env.PAYRAIL_DATA_DIR) ? env.PAYRAIL_DATA_DIR : defaultDataDir;
  const base = present(env.INIT_CWD) ? env.INIT_CWD : cwd;
  const dataDir = isAbsolute(dataDirDisplay) ? dataDirDisplay : resolve(base, dataDirDisplay);
  return { dataDir, dataDirDisplay };
};

const readEmbeddedEngine = ({ env, errors }: Reading): EmbeddedEngine => {
  const named = env.PAYRAIL_EMBEDDED_DATABASE;
  if (!present(named)) return 'postgres';
  if (named === 'postgres' || named === 'pglite') return named;
  errors.push(`PAYRAIL_EMBEDDED_DATABASE must be "postgres" or "pglite", not "${named}"`);
  return 'postgres';
};

/**
 * `PAYRAIL_DATABASE_READ_URL`: only beside a DATABASE_URL (the embedded database has no replica).
 * libpq's host list names several replicas (the store reads on the first that answers, ADR 0054).
 */
const readReplicaUrl = ({ env, errors }: Reading, server: boolean): string | undefined => {
  const raw = env.PAYRAIL_DATABASE_READ_URL;
  if (!present(raw)) return undefined;
  if (!server) {
    errors.push(
      'PAYRAIL_DATABASE_READ_URL needs DATABASE_URL: the embedded database has no replica',
    );
  } else if (!isPostgresUrl(raw)) {
    errors.push('PAYRAIL_DATABASE_READ_URL must be a postgres:// or postgresql:// URL');
  }
  return raw;
};

/**
 * `PAYRAIL_DATABASE_LISTEN_URL`: only beside a DATABASE_URL. Behind a transaction-mode pooler
 * (PgBouncer) it must be a direct URL to the server, or `none` (ADR 0052). A host list (the
 * primary and its standbys, as in DATABASE_URL) LISTENs on the first read-write host.
 */
const readListenUrl = ({ env, errors }: Reading, server: boolean): string | false | undefined => {
  const raw = env.PAYRAIL_DATABASE_LISTEN_URL;
  if (!present(raw)) return undefined;
  if (!server) {
    errors.push(
      'PAYRAIL_DATABASE_LISTEN_URL needs DATABASE_URL: the embedded database is listened to directly',
    );
    return undefined;
  }
  if (raw.trim() === 'none') return false;
  if (!isPostgresUrl(raw)) {
    errors.push('PAYRAIL_DATABASE_LISTEN_URL must be a postgres:// or postgresql:// URL, or none');
  }
  return raw;
};

const readDatabase = (reading: Reading, dataDir: string): DatabaseConfig => {
  const raw = reading.env.DATABASE_URL;
  if (!present(raw)) {
    readReplicaUrl(reading, false);
    readListenUrl(reading, false);
    const engine = readEmbeddedEngine(reading);
    return { kind: 'embedded', engine, directory: embeddedDatabaseIn(dataDir, engine) };
  }
  if (!isPostgresUrl(raw)) {
    // Not echoed: a connection string usually carries a password.
    reading.errors.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  return {
    kind: 'server',
    connectionString: raw,
    readConnectionString: readReplicaUrl(reading, true),
    listenConnectionString: readListenUrl(reading, true),
  };
};

const readDatabaseSchema = ({ env, errors }: Reading): string => {
  const raw = env.PAYRAIL_DATABASE_SCHEMA;
  if (!present(raw)) return defaultDatabaseSchema;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw)) {
    errors.push(
      `PAYRAIL_DATABASE_SCHEMA must be a lower-case PostgreSQL identifier (a-z, 0-9, _), not "${raw}"`,
    );
  }
  return raw;
};

const readAllowInsecureWebhooks = ({ env, errors }: Reading, environment: Environment): boolean => {
  const raw = env.PAYRAIL_ALLOW_INSECURE_WEBHOOKS;
  if (raw === undefined || raw === '') return false;
  const value = flagValues[raw.trim().toLowerCase()];
  if (value === undefined) {
    errors.push(`PAYRAIL_ALLOW_INSECURE_WEBHOOKS must be 1 or 0, not "${raw}"`);
    return false;
  }
  if (value && environment === 'live') {
    errors.push(
      'PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 is a sandbox setting (http and loopback webhook ' +
        'targets) and is refused with PAYRAIL_ENV=live; unset it',
    );
  }
  return value;
};

const readRateLimit = ({ env, errors }: Reading): number => {
  const raw = env.PAYRAIL_RATE_LIMIT;
  if (!present(raw)) return defaultRateLimit;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(value)) {
    errors.push(
      `PAYRAIL_RATE_LIMIT must be a number of requests per second per key (0 turns it off), not "${raw}"`,
    );
    return defaultRateLimit;
  }
  return value;
};

/** A whole number of milliseconds from 1 to 10 minutes, else the default. */
const readMilliseconds = ({ env, errors }: Reading, name: string, fallback: number): number => {
  const raw = env[name];
  if (!present(raw)) return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < 1 || value > 600_000) {
    errors.push(`${name} must be a whole number of milliseconds from 1 to 600000, not "${raw}"`);
    return fallback;
  }
  return value;
};

/** A whole number from 0 (off) to a million, else the default. */
const readCount = (
  { env, errors }: Reading,
  name: string,
  fallback: number,
  unit: string,
): number => {
  const raw = env[name];
  if (!present(raw)) return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value > 1_000_000) {
    errors.push(`${name} must be a whole number of ${unit} (0 turns it off), not "${raw}"`);
    return fallback;
  }
  return value;
};

const readAddressLimit = (reading: Reading): ServerConfig['addressLimit'] => ({
  failedAuthentications: readCount(
    reading,
    'PAYRAIL_AUTH_FAILURES_PER_ADDRESS',
    50,
    'failed authentications per 10 s per client address',
  ),
  requestsPerSecond: readCount(
    reading,
    'PAYRAIL_RATE_LIMIT_PER_ADDRESS',
    100,
    'requests per second per client address',
  ),
});

const readHttpTimeouts = (reading: Reading): ServerConfig['httpTimeouts'] => ({
  requestTimeoutMs: readMilliseconds(reading, 'PAYRAIL_REQUEST_TIMEOUT_MS', 30_000),
  headersTimeoutMs: readMilliseconds(reading, 'PAYRAIL_HEADERS_TIMEOUT_MS', 20_000),
  keepAliveTimeoutMs: readMilliseconds(reading, 'PAYRAIL_KEEP_ALIVE_TIMEOUT_MS', 5_000),
});

const readMetricsToken = ({ env, errors }: Reading): string | undefined => {
  const raw = env.PAYRAIL_METRICS_TOKEN;
  if (raw === undefined) return undefined;
  // Never echoed: it is a secret. Set but empty (a template that rendered nothing) is refused,
  // not taken for "unset": that would open /metrics by accident.
  if (raw.length < minAdminTokenLength || /\s/.test(raw)) {
    errors.push(
      `PAYRAIL_METRICS_TOKEN must be at least ${minAdminTokenLength} characters without spaces ` +
        '(or unset: /metrics answers whoever reaches it)',
    );
    return undefined;
  }
  return raw;
};

/** The drain of a stopping server: 0 (none) to 10 minutes, default 3 s (docs/observability.md). */
const readShutdownDrainMs = ({ env, errors }: Reading): number => {
  const raw = env.PAYRAIL_SHUTDOWN_DRAIN_MS;
  if (!present(raw)) return 3000;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value > 600_000) {
    errors.push(
      `PAYRAIL_SHUTDOWN_DRAIN_MS must be a whole number of milliseconds from 0 to 600000, not "${raw}"`,
    );
    return 3000;
  }
  return value;
};

const readKeySecret = ({ env, errors }: Reading, dataDir: string): KeySecretSource => {
  const raw = env.PAYRAIL_KEY_SECRET;
  if (raw === undefined || raw === '') return { kind: 'file', path: keySecretFileIn(dataDir) };
  const secret = new TextEncoder().encode(raw);
  if (secret.byteLength < minKeySecretBytes) {
    errors.push(`PAYRAIL_KEY_SECRET must be at least ${minKeySecretBytes} bytes`);
  }
  return { kind: 'env', secret };
};

const readPublicUrl = ({ env, errors }: Reading): string | undefined => {
  const raw = env.PAYRAIL_PUBLIC_URL;
  if (!present(raw)) return undefined;
  const url = parseUrl(raw.trim());
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    errors.push(`PAYRAIL_PUBLIC_URL must be an http:// or https:// URL, not "${raw}"`);
    return undefined;
  }
  if (url.search !== '' || url.hash !== '') {
    errors.push('PAYRAIL_PUBLIC_URL must not have a query or a fragment');
  }
  return raw.trim().replace(/\/+$/, '');
};

/** A CIDR block wider than any private range: /0 to /7 for IPv4, /0 to /6 for IPv6. */
const isTooWide = (entry: string): boolean => {
  const [address = '', bits] = entry.split('/');
  if (bits === undefined || !/^\d+$/.test(bits)) return false;
  return Number(bits) < (address.includes(':') ? 7 : 8);
};

const readTrustedProxies = ({ env, errors }: Reading): readonly string[] => {
  const raw = env.PAYRAIL_TRUSTED_PROXIES;
  if (!present(raw)) return [];
  const entries = commaList(raw);
  try {
    addressList(entries);
  } catch {
    errors.push(
      `PAYRAIL_TRUSTED_PROXIES must list IP addresses or CIDR blocks separated by commas, not "${raw}"`,
    );
  }
  // A /0 block believes X-Forwarded-For from anyone: every client would name its own address,
  // and API keys' IP whitelists would mean nothing (issue 19, L6). So do a few wide blocks that
  // together cover every address (`0.0.0.0/1,128.0.0.0/1`, issue 35): no block may be wider than
  // the widest private range, /8 for IPv4 (10.0.0.0/8) and /7 for IPv6 (fc00::/7).
  const everyone = entries.filter(isTooWide);
  if (everyone.length > 0) {
    errors.push(
      `PAYRAIL_TRUSTED_PROXIES must not trust every address (${everyone.join(', ')}): any ` +
        'client could then write its own address; list your proxies (no block wider than /8, ' +
        'or /7 for IPv6)',
    );
  }
  return entries;
};

const readUpstreamSandboxSources = (
  { env, errors }: Reading,
  environment: Environment,
): readonly string[] => {
  const raw = env.PAYRAIL_UPSTREAM_SANDBOX_SOURCES;
  if (!present(raw)) return defaultUpstreamSandboxSources;
  if (environment === 'live') {
    errors.push(
      'PAYRAIL_UPSTREAM_SANDBOX_SOURCES is a sandbox setting (who may report sandbox chain ' +
        'payments) and is refused with PAYRAIL_ENV=live; unset it',
    );
  }
  const entries = commaList(raw);
  if (entries.length === 0 || !entries.every(isIpRange)) {
    errors.push(
      `PAYRAIL_UPSTREAM_SANDBOX_SOURCES must list IP addresses or CIDR blocks separated by commas, not "${raw}"`,
    );
  }
  return entries;
};

const readUpstreamSandboxSecret = (
  { env, errors }: Reading,
  environment: Environment,
): string | undefined => {
  const raw = env.PAYRAIL_UPSTREAM_SANDBOX_SECRET;
  if (raw === undefined || raw === '') return undefined;
  // Never echoed: it is a secret.
  if (environment === 'live') {
    errors.push(
      'PAYRAIL_UPSTREAM_SANDBOX_SECRET is a sandbox setting (what sandbox chain payment reports ' +
        'are signed with) and is refused with PAYRAIL_ENV=live; unset it',
    );
  } else if (!isSandboxUpstreamSecret(raw)) {
    errors.push(
      'PAYRAIL_UPSTREAM_SANDBOX_SECRET must be whsec_ followed by the base64 of 24 to 64 bytes ' +
        '(or unset: a secret is generated and printed at start)',
    );
  }
  return raw;
};

const readInspectUrl = ({ env, errors }: Reading, environment: Environment): string | undefined => {
  const raw = env.PAYRAIL_INSPECT;
  if (!present(raw)) return undefined;
  const url = parseUrl(raw.trim());
  if (url === undefined || (url.protocol !== 'ws:' && url.protocol !== 'wss:')) {
    errors.push(
      `PAYRAIL_INSPECT must be the ws:// or wss:// address of an inspector relay, not "${redactUrl(raw)}"`,
    );
    return undefined;
  }
  // Every decision, amounts and ids included, goes to the relay: in live only to this machine,
  // unless the operator says so (issue 19, L6).
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (environment === 'live' && !loopback && env.PAYRAIL_INSPECT_ALLOW_REMOTE !== '1') {
    errors.push(
      'PAYRAIL_INSPECT sends every payout, order and batch decision to the relay: with ' +
        'PAYRAIL_ENV=live it must be on this machine (127.0.0.1, [::1] or localhost), or set ' +
        'PAYRAIL_INSPECT_ALLOW_REMOTE=1 to send it elsewhere',
    );
  }
  return url.toString();
};

const isLogLevel = (raw: string): raw is LogLevel => logLevels.some((level) => level === raw);

const readLogging = ({ env, errors }: Reading): Pick<ServerConfig, 'logLevel' | 'logFormat'> => {
  const level = env.PAYRAIL_LOG_LEVEL?.trim().toLowerCase() || 'info';
  if (!isLogLevel(level)) {
    errors.push(`PAYRAIL_LOG_LEVEL must be one of ${logLevels.join(', ')}, not "${level}"`);
  }
  const format = env.PAYRAIL_LOG_FORMAT?.trim().toLowerCase() || undefined;
  if (format !== undefined && format !== 'json' && format !== 'pretty') {
    errors.push(`PAYRAIL_LOG_FORMAT must be json or pretty, not "${format}"`);
  }
  return {
    logLevel: isLogLevel(level) ? level : 'info',
    logFormat: format === 'json' || format === 'pretty' ? format : undefined,
  };
};

/**
 * Reads the configuration from `env`. Relative paths are resolved against the directory the
 * command was typed in: `INIT_CWD` (set by pnpm and npm, whose scripts run in the package's own
 * directory), else `cwd`. Each setting is read in turn, so problems are listed in this order.
 */
export const parseConfig = (env: EnvRecord, cwd: string): ConfigResult => {
  const reading: Reading = { env, errors: [] };
  const port = readPort(reading);
  const host = present(env.HOST) ? env.HOST.trim() : defaultHost;
  const environment = readEnvironment(reading);
  const adminToken = readAdminToken(reading);
  const { dataDir, dataDirDisplay } = readDataDir(env, cwd);
  const config: ServerConfig = {
    port,
    host,
    environment,
    adminToken,
    database: readDatabase(reading, dataDir),
    databaseSchema: readDatabaseSchema(reading),
    dataDir,
    dataDirDisplay,
    allowInsecureWebhooks: readAllowInsecureWebhooks(reading, environment),
    rateLimit: readRateLimit(reading),
    addressLimit: readAddressLimit(reading),
    httpTimeouts: readHttpTimeouts(reading),
    metricsToken: readMetricsToken(reading),
    readyMaxOutboxBacklog: readCount(
      reading,
      'PAYRAIL_READY_MAX_OUTBOX_BACKLOG',
      10_000,
      'pending outbox messages',
    ),
    shutdownDrainMs: readShutdownDrainMs(reading),
    keySecret: readKeySecret(reading, dataDir),
    publicUrl: readPublicUrl(reading),
    trustedProxies: readTrustedProxies(reading),
    upstreamSandboxSources: readUpstreamSandboxSources(reading, environment),
    upstreamSandboxSecret: readUpstreamSandboxSecret(reading, environment),
    inspectUrl: readInspectUrl(reading, environment),
    ...readLogging(reading),
  };
  if (reading.errors.length > 0) return { ok: false, errors: reading.errors };
  return { ok: true, config };
};

const parseUrl = (raw: string): URL | undefined => {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
};

/** Stands in for libpq's host list while `URL` reads the rest of a connection string. */
const hostListStandIn = 'payrail-host-list.invalid';

/**
 * A `postgres://` URL as `URL` reads it, libpq's multi-host form (`h1:5432,h2:5432`, ADR 0051)
 * included: `URL` refuses a host list, so it reads a stand-in, and `hosts` is the list as written.
 */
const parsePostgresUrl = (raw: string): { url: URL; hosts: string } | undefined => {
  // The host list ends at the path, query or fragment: a password with a comma is no host list.
  const shape = /^(postgres(?:ql)?:\/\/(?:[^/?#]*@)?)([^/?#@]*,[^/?#@]*)((?:[/?#].*)?)$/s.exec(raw);
  if (shape === null) {
    const url = parseUrl(raw);
    return url === undefined ? undefined : { url, hosts: url.host };
  }
  const [, head = '', hosts = '', rest = ''] = shape;
  const url = parseUrl(`${head}${hostListStandIn}${rest}`);
  return url === undefined ? undefined : { url, hosts };
};

const isPostgresUrl = (raw: string): boolean => {
  const url = parsePostgresUrl(raw)?.url;
  return url !== undefined && (url.protocol === 'postgres:' || url.protocol === 'postgresql:');
};

/**
 * libpq's connection parameters that hold no secret, shown as written; any other query value
 * (`sslpassword`, a proxy's `auth`, `sig` or `jwt`, a name payrail does not know) is `***`.
 */
const harmlessPostgresParameters = new Set([
  'application_name',
  'channel_binding',
  'connect_timeout',
  'dbname',
  'fallback_application_name',
  'gssencmode',
  'host',
  'hostaddr',
  'keepalives',
  'keepalives_count',
  'keepalives_idle',
  'keepalives_interval',
  'load_balance_hosts',
  'options',
  'port',
  'replication',
  'require_auth',
  'ssl',
  'sslcert',
  'sslcompression',
  'sslkey',
  'sslmode',
  'sslrootcert',
  'target_session_attrs',
  'tcp_user_timeout',
  'user',
]);

/** A connection string without its password or any query value that may be a credential. */
export const redactConnectionString = (raw: string): string => {
  const parsed = parsePostgresUrl(raw);
  if (parsed === undefined) return '<unparsable>';
  const { url, hosts } = parsed;
  if (url.password !== '') url.password = '***';
  for (const key of [...url.searchParams.keys()]) {
    if (!harmlessPostgresParameters.has(key)) url.searchParams.set(key, '***');
  }
  return url.toString().replace(hostListStandIn, hosts);
};

/**
 * Any other URL a setting names, without what may be a credential: the user and password, and
 * every query value, whatever its name (`ws://***:***@relay:8081/?token=***`, `?auth=***`).
 */
const redactUrl = (raw: string): string => {
  const url = parseUrl(raw.trim());
  // Unparsable: echoed unless it may hold a user and password, or a query.
  if (url === undefined) return /[@?]/.test(raw) ? '<unparsable>' : raw.trim();
  const keys = [...url.searchParams.keys()];
  // Nothing to hide: the address as it was written.
  if (url.username === '' && url.password === '' && keys.length === 0) return raw.trim();
  if (url.username !== '') url.username = '***';
  if (url.password !== '') url.password = '***';
  for (const key of keys) url.searchParams.set(key, '***');
  return url.toString();
};

/** Where the server is reached when PAYRAIL_PUBLIC_URL is unset. */
export const defaultPublicUrl = (host: string, port: number): string => {
  const reachable = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
};

const embeddedNames: Readonly<Record<EmbeddedEngine, string>> = {
  postgres: 'embedded PostgreSQL',
  pglite: 'embedded PGlite (not flushed to disk: ADR 0037)',
};

/** `embedded PostgreSQL in ./.payrail`, or `PostgreSQL at db:5432/payrail`. */
export const describeDatabase = (config: ServerConfig): string => {
  if (config.database.kind === 'embedded') {
    return `${embeddedNames[config.database.engine]} in ${config.dataDirDisplay}`;
  }
  const url = parseUrl(config.database.connectionString);
  const where = url === undefined ? 'a server' : `${url.host}${url.pathname}`;
  const schema =
    config.databaseSchema === defaultDatabaseSchema ? '' : `, schema ${config.databaseSchema}`;
  return `PostgreSQL at ${where}${schema}`;
};

export interface ConfigEntry {
  readonly name: string;
  readonly value: string;
}

/** A limit's line: `0 (off)`, or the limit in words. */
const limitOrOff = (limit: number, described: string): string =>
  limit === 0 ? '0 (off)' : `${limit} ${described}`;

/**
 * Each variable's line of `config show`, in the order shown; a variable that does not apply to
 * the configuration (`PAYRAIL_EMBEDDED_DATABASE` beside a DATABASE_URL) shows `undefined`.
 */
const configLines: readonly {
  readonly name: string;
  readonly show: (config: ServerConfig) => string | undefined;
}[] = [
  { name: 'PORT', show: (config) => String(config.port) },
  { name: 'HOST', show: (config) => config.host },
  { name: 'PAYRAIL_ENV', show: (config) => config.environment },
  {
    name: 'PAYRAIL_ADMIN_TOKEN',
    show: (config) =>
      config.adminToken === undefined
        ? '(unset: generated and printed at each start)'
        : '(set, redacted)',
  },
  {
    name: 'DATABASE_URL',
    show: ({ database }) =>
      database.kind === 'server'
        ? redactConnectionString(database.connectionString)
        : `(unset: ${embeddedNames[database.engine]} in ${database.directory})`,
  },
  {
    name: 'PAYRAIL_DATABASE_READ_URL',
    show: ({ database }) =>
      database.kind !== 'server'
        ? undefined
        : database.readConnectionString === undefined
          ? '(unset: every read on DATABASE_URL)'
          : redactConnectionString(database.readConnectionString),
  },
  {
    name: 'PAYRAIL_DATABASE_LISTEN_URL',
    show: ({ database }) =>
      database.kind !== 'server'
        ? undefined
        : database.listenConnectionString === undefined
          ? '(unset: LISTEN on DATABASE_URL)'
          : database.listenConnectionString === false
            ? "none (no LISTEN: other processes' work waits for the loops' due time and safety net)"
            : redactConnectionString(database.listenConnectionString),
  },
  {
    name: 'PAYRAIL_EMBEDDED_DATABASE',
    show: ({ database }) => (database.kind === 'embedded' ? database.engine : undefined),
  },
  { name: 'PAYRAIL_DATABASE_SCHEMA', show: (config) => config.databaseSchema },
  { name: 'PAYRAIL_DATA_DIR', show: (config) => config.dataDir },
  {
    name: 'PAYRAIL_ALLOW_INSECURE_WEBHOOKS',
    show: (config) => (config.allowInsecureWebhooks ? '1' : '0'),
  },
  {
    name: 'PAYRAIL_RATE_LIMIT',
    show: (config) => limitOrOff(config.rateLimit, 'requests/s per key'),
  },
  {
    name: 'PAYRAIL_AUTH_FAILURES_PER_ADDRESS',
    show: ({ addressLimit }) =>
      limitOrOff(
        addressLimit.failedAuthentications,
        'failed authentications per 10 s per client address',
      ),
  },
  {
    name: 'PAYRAIL_RATE_LIMIT_PER_ADDRESS',
    show: ({ addressLimit }) =>
      limitOrOff(
        addressLimit.requestsPerSecond,
        'requests/s per client address on checkout and upstream',
      ),
  },
  {
    name: 'PAYRAIL_REQUEST_TIMEOUT_MS',
    show: ({ httpTimeouts }) =>
      `${httpTimeouts.requestTimeoutMs} ms for a whole request, body included`,
  },
  {
    name: 'PAYRAIL_HEADERS_TIMEOUT_MS',
    show: ({ httpTimeouts }) => `${httpTimeouts.headersTimeoutMs} ms for a request's headers`,
  },
  {
    name: 'PAYRAIL_KEEP_ALIVE_TIMEOUT_MS',
    show: ({ httpTimeouts }) => `${httpTimeouts.keepAliveTimeoutMs} ms for an idle connection`,
  },
  {
    name: 'PAYRAIL_METRICS_TOKEN',
    show: (config) =>
      config.metricsToken === undefined
        ? '(unset: /metrics answers whoever reaches it)'
        : '(set, redacted)',
  },
  {
    name: 'PAYRAIL_READY_MAX_OUTBOX_BACKLOG',
    show: (config) =>
      limitOrOff(config.readyMaxOutboxBacklog, 'pending outbox messages make /readyz 503'),
  },
  {
    name: 'PAYRAIL_SHUTDOWN_DRAIN_MS',
    show: (config) =>
      `${config.shutdownDrainMs} ms of serving with /readyz 503 before a stop closes the socket`,
  },
  {
    name: 'PAYRAIL_KEY_SECRET',
    show: ({ keySecret }) =>
      keySecret.kind === 'env'
        ? '(set, redacted)'
        : `(unset: generated once and kept in ${keySecret.path})`,
  },
  {
    name: 'PAYRAIL_PUBLIC_URL',
    show: (config) => config.publicUrl ?? `(unset: ${defaultPublicUrl(config.host, config.port)})`,
  },
  {
    name: 'PAYRAIL_TRUSTED_PROXIES',
    show: (config) =>
      config.trustedProxies.length === 0
        ? '(none: the socket address is the client address)'
        : config.trustedProxies.join(','),
  },
  {
    name: 'PAYRAIL_UPSTREAM_SANDBOX_SOURCES',
    show: (config) =>
      config.environment === 'sandbox'
        ? config.upstreamSandboxSources.join(',')
        : '(live: no sandbox provider)',
  },
  {
    name: 'PAYRAIL_UPSTREAM_SANDBOX_SECRET',
    show: (config) =>
      config.environment === 'live'
        ? '(live: no sandbox provider)'
        : config.upstreamSandboxSecret === undefined
          ? '(unset: generated and printed at each start)'
          : '(set, redacted)',
  },
  {
    name: 'PAYRAIL_INSPECT',
    show: (config) =>
      config.inspectUrl === undefined ? '(unset: no inspector)' : redactUrl(config.inspectUrl),
  },
  { name: 'PAYRAIL_LOG_LEVEL', show: (config) => config.logLevel },
  {
    name: 'PAYRAIL_LOG_FORMAT',
    show: (config) =>
      config.logFormat ?? '(unset: readable lines on a terminal, JSON lines otherwise)',
  },
];

/** The effective configuration, one line per variable, with every secret redacted. */
export const describeConfig = (config: ServerConfig): readonly ConfigEntry[] =>
  configLines.flatMap(({ name, show }) => {
    const value = show(config);
    return value === undefined ? [] : [{ name, value }];
  });
