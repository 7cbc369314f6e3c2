/**
 * libpq's multi-host connection string for the server store (ADR 0051):
 * `postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`. node-postgres 8 takes one
 * host (multi-host support is upstream PR brianc/node-postgres#3643, still open), so the store
 * does what libpq does: it tries the hosts in order, keeps the first that has the session
 * `target_session_attrs` asks for, and runs a plain `pg.Pool` on it. When that pool's
 * connections die (the primary crashed, was shut down, or was demoted), the next unit of work
 * looks again: one search at a time, shared by every caller that arrives meanwhile, each host
 * bounded by the connect timeout. Until a host is found, units of work fail with
 * `StoreUnavailable`, which the HTTP adapter answers 503 with `Retry-After`.
 *
 * A connection string with one host and no `target_session_attrs` that asks for a check is not
 * this pool's: it goes to a plain `pg.Pool` as it always did.
 */
import { StoreUnavailable } from '@payrail/core';
import pg from 'pg';
import {
  connectWith,
  type ListenConnection,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQuery,
} from './pg-pool.executor.js';
import { isConnectionLoss, type UnitAccess } from './store-unavailable.js';

/**
 * libpq's values: `any` (the first host that answers), `read-write` (`SHOW transaction_read_only`
 * is `off`), `primary` (`pg_is_in_recovery()` is false), `read-only` (it is `on`), `standby` (in
 * recovery), `prefer-standby` (a standby if one answers, else the first that answers).
 */
export type TargetSessionAttrs =
  | 'any'
  | 'read-write'
  | 'primary'
  | 'read-only'
  | 'standby'
  | 'prefer-standby';

/**
 * What a connection string is for: `writes` (`DATABASE_URL`, and the LISTEN connection, which a
 * standby refuses) or `reads` (a read replica, ADR 0054). Each takes only the
 * `target_session_attrs` that pick a server it can use.
 */
export type ConnectionUse = 'writes' | 'reads';

const usableAttrs: Readonly<Record<ConnectionUse, readonly TargetSessionAttrs[]>> = {
  writes: ['read-write', 'primary', 'any'],
  reads: ['any', 'prefer-standby', 'standby', 'read-only'],
};

/** What the store can do through a server that `use` picks, for a refusal's message. */
const useWords: Readonly<Record<ConnectionUse, string>> = {
  writes: 'payrail can write through',
  reads: 'a read replica is chosen by',
};

/** How a URL names itself in a refusal, unless told otherwise. */
const defaultSetting = 'DATABASE_URL';

/** How long one host may take to accept a connection (libpq's `connect_timeout`), by default. */
const defaultConnectTimeoutMs = 5_000;

/**
 * How long a unit of work may wait for a free connection of a full pool, by default: far longer
 * than opening one takes, so a busy but healthy database queues its units of work instead of
 * answering 503; a pool still full after that is overloaded, and 503 with `Retry-After` is the
 * answer that sheds the load.
 */
const defaultPoolWaitMs = 30_000;

/**
 * A `pg.Pool`'s settings with the two limits apart: node-postgres bounds both opening a
 * connection and waiting for a free one by the pool's `connectionTimeoutMillis`, so that is the
 * wait, and each connection the pool opens bounds its own opening by `connectTimeoutMs` (the
 * `Client`'s own timeout, which fires first).
 */
const poolConfig = (
  connectionString: string,
  limits: { readonly max: number; readonly connectTimeoutMs: number; readonly poolWaitMs: number },
): pg.PoolConfig => {
  const { connectTimeoutMs } = limits;
  class BoundedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      // Pipeline mode (issue 24): a unit of work's BEGIN and first statement, and the reads it
      // issues together, go out at once (pg-pool.executor.ts, `unitSession`).
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs, pipeline: true });
    }
  }
  return {
    connectionString,
    max: limits.max,
    connectionTimeoutMillis: limits.poolWaitMs,
    Client: BoundedClient,
  };
};

/** pg-pool's answer when no connection of a full pool came free within `poolWaitMs`. */
const isPoolWaitTimeout = (error: unknown): boolean =>
  error instanceof Error && /^timeout exceeded when trying to connect/.test(error.message);

export interface HostAddress {
  /** As written in the URL: a name, an IPv4 address, or an IPv6 address in brackets. */
  readonly host: string;
  readonly port: number;
}

export interface DatabaseUrl {
  readonly hosts: readonly HostAddress[];
  readonly use: ConnectionUse;
  readonly targetSessionAttrs: TargetSessionAttrs;
  /** `connect_timeout` in seconds, as milliseconds; undefined when the URL has none. */
  readonly connectTimeoutMs: number | undefined;
  /** The same URL naming `host` alone, without `target_session_attrs`: what one pool opens. */
  readonly urlOf: (host: HostAddress) => string;
}

const urlShape = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/s;

const hostOf = (setting: string, text: string): HostAddress => {
  const bracketed = /^(\[[^\]]+\])(?::(\d*))?$/.exec(text);
  const plain = /^([^:[\]]+)(?::(\d*))?$/.exec(text);
  const match = bracketed ?? plain;
  if (match === null) throw new Error(`${setting}: host "${text}" is not host[:port]`);
  const [, host = '', port] = match;
  const number = port === undefined || port === '' ? 5432 : Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65_535) {
    throw new Error(`${setting}: host "${text}" has a port out of range`);
  }
  return { host, port: number };
};

/**
 * Unset, `any` for one host, as libpq, and for a list of replicas (the first that answers);
 * `read-write` for several hosts the store writes through (libpq would say `any`): a payment
 * engine must never write to a standby it happened to reach first.
 */
const attrsOf = (
  value: string | null,
  hostCount: number,
  use: ConnectionUse,
  setting: string,
): TargetSessionAttrs => {
  if (value === null) return use === 'writes' && hostCount > 1 ? 'read-write' : 'any';
  const usable = usableAttrs[use];
  const found = usable.find((attrs) => attrs === value);
  if (found === undefined) {
    throw new Error(
      `${setting}: target_session_attrs=${value} is not one ${useWords[use]}; use ${usable.join(', ')}`,
    );
  }
  return found;
};

const timeoutOf = (value: string | null, setting: string): number | undefined => {
  if (value === null || value === '') return undefined;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 0) {
    throw new Error(`${setting}: connect_timeout=${value} is not a whole number of seconds`);
  }
  // Anything under 2 seconds counts as 2, as in libpq. Zero, which libpq reads as "wait for
  // ever", keeps the default (5 s): a unit of work must never hang on a host that vanished.
  return seconds === 0 ? undefined : Math.max(seconds, 2) * 1000;
};

/**
 * The hosts, `target_session_attrs` and `connect_timeout` of a `postgres://` or
 * `postgresql://` URL; undefined for any other connection string (libpq's `key=value` form, a
 * socket path), which a plain `pg.Pool` reads as it always did.
 */
export const parseDatabaseUrl = (
  connectionString: string,
  options: { readonly use?: ConnectionUse; readonly setting?: string } = {},
): DatabaseUrl | undefined => {
  const { use = 'writes', setting = defaultSetting } = options;
  const shape = urlShape.exec(connectionString);
  if (shape === null) return undefined;
  const [, scheme = '', authority = '', rest = ''] = shape;
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  const hostList = authority.slice(at + 1);
  const queryAt = rest.indexOf('?');
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const pairs = queryAt === -1 ? [] : rest.slice(queryAt + 1).split('&');
  const query = new URLSearchParams(queryAt === -1 ? '' : rest.slice(queryAt + 1));
  const kept = pairs.filter((pair) => !pair.startsWith('target_session_attrs='));
  const hosts = hostList === '' ? [] : hostList.split(',').map((text) => hostOf(setting, text));
  return {
    hosts,
    use,
    targetSessionAttrs: attrsOf(query.get('target_session_attrs'), hosts.length, use, setting),
    connectTimeoutMs: timeoutOf(query.get('connect_timeout'), setting),
    urlOf: ({ host, port }) =>
      `${scheme}${userinfo}${host}:${port}${path}${kept.length === 0 ? '' : `?${kept.join('&')}`}`,
  };
};

/** Whether the URL needs the search for a host: several hosts, or one whose session is checked. */
export const needsLocating = (url: DatabaseUrl): boolean =>
  url.hosts.length > 1 || (url.hosts.length === 1 && url.targetSessionAttrs !== 'any');

const nameOf = ({ host, port }: HostAddress): string => `${host}:${port}`;

interface Located {
  readonly address: HostAddress;
  readonly pool: pg.Pool;
}

export interface MultiHostPoolSettings {
  readonly max: number;
  readonly connectTimeoutMs: number;
  /** How long a unit of work waits for a free connection; default 30 s. */
  readonly poolWaitMs?: number;
}

/** One check of a host's session; `prefer-standby` is two searches, `standby` then `any`. */
type SessionCheck = Exclude<TargetSessionAttrs, 'prefer-standby'>;

const checksOf = (attrs: TargetSessionAttrs): readonly SessionCheck[] =>
  attrs === 'prefer-standby' ? ['standby', 'any'] : [attrs];

/** Why a host whose session does not fit `check` was passed over. */
const mismatch: Readonly<Record<SessionCheck, string>> = {
  any: '',
  'read-write': 'is read-only or a standby',
  primary: 'is read-only or a standby',
  'read-only': 'accepts writes',
  standby: 'is not a standby',
};

/** Whether the server behind `client` has the session `check` asks for. */
const hasSession = async (client: pg.Client, check: SessionCheck): Promise<boolean> => {
  if (check === 'any') return true;
  if (check === 'read-write' || check === 'read-only') {
    const { rows } = await client.query<{ transaction_read_only: string }>(
      'SHOW transaction_read_only',
    );
    return rows[0]?.transaction_read_only === (check === 'read-write' ? 'off' : 'on');
  }
  const { rows } = await client.query<{ recovery: boolean }>(
    'SELECT pg_is_in_recovery() AS recovery',
  );
  return rows[0]?.recovery === (check === 'standby');
};

/** A connection to `address` whose session fits `check`, or why there is none. */
const openFitting = async (
  url: DatabaseUrl,
  address: HostAddress,
  check: SessionCheck,
  timeoutMs: number,
): Promise<pg.Client | string> => {
  const client = new pg.Client({
    connectionString: url.urlOf(address),
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  // A connection that breaks while probed must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    if (await hasSession(client, check)) return client;
    await client.end().catch(() => undefined);
    return mismatch[check];
  } catch (error) {
    await client.end().catch(() => undefined);
    return `cannot be reached (${error instanceof Error ? error.message : String(error)})`;
  }
};

/**
 * The hosts of `url` in order: the first whose session fits, with a connection to it. Each host
 * is bounded by the timeout for the connection and again for the check query.
 */
const search = async (
  url: DatabaseUrl,
  timeoutMs: number,
): Promise<{ readonly address: HostAddress; readonly client: pg.Client }> => {
  const refusals: string[] = [];
  for (const check of checksOf(url.targetSessionAttrs)) {
    for (const address of url.hosts) {
      const found = await openFitting(url, address, check, timeoutMs);
      if (typeof found !== 'string') return { address, client: found };
      refusals.push(`${nameOf(address)} ${found}`);
    }
  }
  throw new StoreUnavailable(
    `no host of the connection string has target_session_attrs=${url.targetSessionAttrs}: ${refusals.join('; ')}`,
  );
};

/**
 * A `PostgresPool` over the hosts of `url`: a `pg.Pool` on the host found, another when that one
 * is lost. `options` are the current host's pool's, so the store's LISTEN connection, made from
 * them, opens on the current primary.
 */
export class MultiHostPool implements PostgresPool {
  readonly #url: DatabaseUrl;
  readonly #settings: MultiHostPoolSettings;
  #located: Located | undefined;
  /** The host lost last: kept, should the search find it again, until another is found. */
  #lost: Located | undefined;
  #locating: Promise<Located> | undefined;
  #ended = false;

  constructor(url: DatabaseUrl, settings: MultiHostPoolSettings) {
    if (url.hosts.length === 0) throw new Error('DATABASE_URL names no host');
    this.#url = url;
    this.#settings = settings;
  }

  /** The current host's pool settings; before any is found, those the first host would get. */
  get options(): object {
    return (
      (this.#located ?? this.#lost)?.pool.options ??
      this.#poolOptions(this.#url.hosts[0] as HostAddress)
    );
  }

  get totalCount(): number {
    return this.#located?.pool.totalCount ?? 0;
  }

  get idleCount(): number {
    return this.#located?.pool.idleCount ?? 0;
  }

  get waitingCount(): number {
    return this.#located?.pool.waitingCount ?? 0;
  }

  /** The host the pool runs on now, if one was found and not lost since (`host:port`). */
  get currentHost(): string | undefined {
    return this.#located === undefined ? undefined : nameOf(this.#located.address);
  }

  /**
   * A connection on the current host. A host whose connection cannot be made is lost, and the
   * search runs once more before this fails: nothing was sent yet, so trying again is safe.
   */
  async connect(): Promise<PostgresPoolClient> {
    for (let attempt = 1; ; attempt += 1) {
      const located = await this.#current();
      try {
        return this.#watched(await located.pool.connect(), located);
      } catch (error) {
        // A full pool that freed no connection in time is a busy host, not a lost one: the
        // unit of work answers StoreUnavailable now, and the host and its pool stay.
        if (!isConnectionLoss(error) || isPoolWaitTimeout(error) || attempt >= 2) throw error;
        this.#lose(located);
      }
    }
  }

  query<R extends object>(
    query: PostgresQuery,
  ): Promise<{ readonly rows: R[]; readonly command: string }>;
  query(text: string): Promise<{ readonly command: string }>;
  async query<R extends object>(
    query: PostgresQuery | string,
  ): Promise<{ readonly rows: R[]; readonly command: string } | { readonly command: string }> {
    const client = await this.connect();
    let broken: Error | undefined;
    try {
      return typeof query === 'string' ? await client.query(query) : await client.query<R>(query);
    } catch (error) {
      if (isConnectionLoss(error) && error instanceof Error) broken = error;
      throw error;
    } finally {
      client.release(broken ?? false);
    }
  }

  async end(): Promise<void> {
    this.#ended = true;
    await this.#locating?.catch(() => undefined);
    const pools = [this.#located?.pool, this.#lost?.pool].filter((pool) => pool !== undefined);
    this.#located = undefined;
    this.#lost = undefined;
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  }

  #poolOptions(address: HostAddress): pg.PoolConfig {
    return poolConfig(this.#url.urlOf(address), {
      max: this.#settings.max,
      connectTimeoutMs: this.#settings.connectTimeoutMs,
      poolWaitMs: this.#settings.poolWaitMs ?? defaultPoolWaitMs,
    });
  }

  #current(): Promise<Located> {
    if (this.#ended) return Promise.reject(new Error('the PostgreSQL pool has ended'));
    if (this.#located !== undefined) return Promise.resolve(this.#located);
    if (this.#locating === undefined) {
      const search = this.#locate();
      this.#locating = search;
      const done = (): void => {
        if (this.#locating === search) this.#locating = undefined;
      };
      search.then(done, done);
    }
    return this.#locating;
  }

  /** Forgets `located` as the current host, unless another search already replaced it. */
  #lose(located: Located): void {
    if (this.#located !== located) return;
    this.#located = undefined;
    this.#lost = located;
  }

  /** The hosts in order; the first with the session asked for (its probe connection closed). */
  async #locate(): Promise<Located> {
    const { address, client } = await search(this.#url, this.#settings.connectTimeoutMs);
    await client.end().catch(() => undefined);
    return this.#settle(address);
  }

  /** Runs on `address`: the lost host's pool when the search found that host again. */
  #settle(address: HostAddress): Located {
    const lost = this.#lost;
    this.#lost = undefined;
    if (this.#ended) throw new Error('the PostgreSQL pool has ended');
    if (lost !== undefined && nameOf(lost.address) === nameOf(address)) {
      this.#located = lost;
      return lost;
    }
    // The old host's connections are dead or on a server that is no longer the primary.
    lost?.pool.end().catch(() => undefined);
    const pool = new pg.Pool(this.#poolOptions(address));
    const located: Located = { address, pool };
    // An idle connection that breaks is dropped by the pool (no listener would crash the
    // process); when the server went away, the next unit of work looks for the primary again.
    const onLoss = (error: Error): void => {
      if (isConnectionLoss(error)) this.#lose(located);
    };
    pool.on('error', onLoss);
    // And while a connection is checked out: a backend that outlives its killed postmaster
    // sends 57P01 in the same chunk as a statement's answer, before the caller can release it;
    // with no listener on the connection then, the 'error' event would crash the process. A
    // listener for the connection's whole life takes it (the failover test found this).
    pool.on('connect', (client) => client.on('error', onLoss));
    this.#located = located;
    return located;
  }

  /**
   * `client`, losing its host when one of its statements finds the connection (or primary) gone.
   * Inside a transaction opened `BEGIN READ ONLY` (a store's `read`), a refused write (25006) is
   * the read's own error, not a demoted primary.
   */
  #watched(pooled: pg.PoolClient, located: Located): PostgresPoolClient {
    const client: PostgresPoolClient = pooled;
    let access: UnitAccess = 'read-write';
    const lose = (error: unknown): never => {
      if (isConnectionLoss(error, access)) this.#lose(located);
      throw error;
    };
    function query<R extends object>(
      query: PostgresQuery,
    ): Promise<{ readonly rows: R[]; readonly command: string }>;
    function query(text: string): Promise<{ readonly command: string }>;
    function query<R extends object>(
      query: PostgresQuery | string,
    ): Promise<{ readonly rows: R[]; readonly command: string } | { readonly command: string }> {
      const text = typeof query === 'string' ? query : query.text;
      if (/^BEGIN\b/i.test(text))
        access = /^BEGIN READ ONLY$/i.test(text) ? 'read-only' : 'read-write';
      return (typeof query === 'string' ? client.query(query) : client.query<R>(query)).catch(lose);
    }
    return {
      query,
      pipeline: pooled.pipeline,
      connection: pooled.connection,
      on: (event, listener) => client.on(event, listener),
      off: (event, listener) => client.off(event, listener),
      release: (destroy) => client.release(destroy),
    };
  }
}

export interface PostgresPoolOptions {
  readonly max: number;
  /** Default `writes`: `DATABASE_URL`. A read replica's URL is `reads` (ADR 0054). */
  readonly use?: ConnectionUse;
  /** How the URL is named in a refusal; default `DATABASE_URL`. */
  readonly setting?: string;
  /** The connect timeout when the URL has no `connect_timeout`; default 5 s. */
  readonly connectTimeoutMs?: number;
  /** How long a unit of work waits for a free connection of a full pool; default 30 s. */
  readonly poolWaitMs?: number;
}

/**
 * The pool the server store makes of a connection string (ADR 0051): libpq's multi-host form
 * (or one host whose session is to be checked) as a `MultiHostPool`, anything else as a plain
 * `pg.Pool`, as always. Either way a host that does not answer fails a connection after the
 * connect timeout (the URL's `connect_timeout`, default 5 s) instead of hanging it, and a unit of
 * work waits for a free connection up to `poolWaitMs` (default 30 s). `payrail doctor` reaches
 * the database through it as the server does.
 */
export const postgresPool = (
  connectionString: string,
  options: PostgresPoolOptions,
): PostgresPool => {
  const url = parseDatabaseUrl(connectionString, options);
  const connectTimeoutMs =
    url?.connectTimeoutMs ?? options.connectTimeoutMs ?? defaultConnectTimeoutMs;
  const poolWaitMs = options.poolWaitMs ?? defaultPoolWaitMs;
  if (url !== undefined && needsLocating(url)) {
    return new MultiHostPool(url, { max: options.max, connectTimeoutMs, poolWaitMs });
  }
  const pool = new pg.Pool(
    poolConfig(connectionString, { max: options.max, connectTimeoutMs, poolWaitMs }),
  );
  // An idle connection that breaks is dropped by the pool; without a listener it would crash
  // the process. The next unit of work opens a fresh connection.
  pool.on('error', () => undefined);
  return pool;
};

/**
 * One connection of its own (the store's LISTEN, ADR 0052) made of a connection string as
 * `postgresPool` reads it: on the first host of a list whose session fits (`read-write` unset,
 * for several hosts: a standby refuses LISTEN), each attempt bounded by the connect timeout.
 * A host list none of whose hosts fits fails with `StoreUnavailable`.
 */
export const connectedClient = async (
  connectionString: string,
  options: Omit<PostgresPoolOptions, 'max'> = {},
): Promise<ListenConnection> => {
  const url = parseDatabaseUrl(connectionString, options);
  const connectTimeoutMs =
    url?.connectTimeoutMs ?? options.connectTimeoutMs ?? defaultConnectTimeoutMs;
  if (url !== undefined && needsLocating(url)) return (await search(url, connectTimeoutMs)).client;
  return connectWith({ connectionString, connectionTimeoutMillis: connectTimeoutMs });
};
