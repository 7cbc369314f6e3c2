/**
 * The executor over a node-postgres pool: each unit of work takes a connection of its own, so
 * units of work really run at the same time and PostgreSQL's locks decide who waits.
 */
import { Client, type CustomTypesConfig, types } from 'pg';
import {
  defaultRetryPolicy,
  type PoolUse,
  parseInt8,
  type RetryPolicy,
  retryingTransactions,
  type SqlExecutor,
  type SqlResult,
  type SqlSession,
  type SqlValue,
  type TransactionOptions,
} from './sql-executor.js';
import { classifyingLoss } from './store-unavailable.js';
import { quoteIdent } from './table-layout.js';

const identity = (text: string): string => text;

/** A statement with its parameters and the parsers of its result's columns. */
export interface PostgresQuery {
  readonly text: string;
  readonly values?: unknown[];
  /** Parsers by type oid: `pg`'s `CustomTypesConfig`. */
  readonly types?: {
    readonly getTypeParser: (oid: number, format?: 'text' | 'binary') => unknown;
  };
}

/**
 * What the store asks of a node-postgres pool or connection. The pool's types are named here
 * rather than imported from `pg`, so that the declarations a host type-checks need no
 * `@types/pg` (runtime dependencies carry no `@types/*`); `pg`'s own are checked against them
 * where the store makes its pool.
 */
export interface PostgresQueryable {
  query<R extends object>(
    query: PostgresQuery,
  ): Promise<{ readonly rows: R[]; readonly command: string }>;
  query(text: string): Promise<{ readonly command: string }>;
}

/** A connection taken from a node-postgres pool: `pg`'s `PoolClient` is one. */
export interface PostgresPoolClient extends PostgresQueryable {
  /**
   * node-postgres's pipeline mode (pg 8.23): a statement is sent at once, not after the answer
   * to the one before. payrail's own pools turn it on; a host's pool may leave it off.
   */
  readonly pipeline?: boolean;
  /** The connection's socket (`pg`'s `Client.connection.stream`), corked around a batch. */
  readonly connection?: { readonly stream: { cork(): void; uncork(): void } };
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  /** Back into the pool; with an error (or `true`), the connection is closed instead. */
  release(destroy?: Error | boolean): void;
}

/** A node-postgres pool: `pg`'s `Pool` (pg 8) is one. */
export interface PostgresPool extends PostgresQueryable {
  /** The pool's settings: the store's LISTEN connection, outside the pool, is made with them. */
  readonly options: object;
  /** Connections open, idle, and clients waiting for one (pg 8's counters; metrics read them). */
  readonly totalCount?: number;
  readonly idleCount?: number;
  readonly waitingCount?: number;
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/** What the pool holds right now; a counter a pool lacks counts 0. */
const poolUseOf = (pool: PostgresPool): PoolUse => {
  const max: unknown = Reflect.get(pool.options, 'max');
  return {
    total: pool.totalCount ?? 0,
    idle: pool.idleCount ?? 0,
    waiting: pool.waitingCount ?? 0,
    max: typeof max === 'number' ? max : undefined,
  };
};

/**
 * Our parsers win over the pool's: a host that taught `pg` to parse `numeric` as a float must
 * not turn our amounts into floats.
 */
const ownParsers: Readonly<Record<number, (text: string) => unknown>> = {
  20: parseInt8,
  1700: identity,
  114: JSON.parse,
  3802: JSON.parse,
};

const payrailTypes: CustomTypesConfig = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    ownParsers[oid] ?? types.getTypeParser(oid, format),
};

/** A pool, or one connection taken from it: node-postgres types the rows as the caller asks. */
const sessionOf = (target: PostgresQueryable): SqlSession => ({
  async query<R extends object>(text: string, params: readonly SqlValue[] = []) {
    const result = await target.query<R>({ text, values: [...params], types: payrailTypes });
    return { rows: result.rows } satisfies SqlResult<R>;
  },
  async exec(script: string) {
    await target.query(script);
  },
});

/** The pool's own statements (outside any unit of work), a lost connection as `StoreUnavailable`. */
const classifyingSession = (session: SqlSession): SqlSession => ({
  query: <R extends object>(text: string, params?: readonly SqlValue[]) =>
    classifyingLoss(() => session.query<R>(text, params)),
  exec: (script) => classifyingLoss(() => session.exec(script)),
});

/** Thrown when PostgreSQL answered COMMIT with a rollback: a statement of the unit of work failed. */
export class TransactionRolledBack extends Error {
  constructor() {
    super(
      'the unit of work went on after a failed statement, so PostgreSQL rolled it back: nothing was committed',
    );
    this.name = 'TransactionRolledBack';
  }
}

/** One unit of work's statements on its connection, and whether its transaction was opened. */
interface UnitSession {
  readonly session: SqlSession;
  /** Whether `BEGIN` was sent: a unit of work that ran no statement has nothing to commit. */
  readonly begun: () => boolean;
  /** `COMMIT` or `ROLLBACK`, after every statement the unit issued. */
  readonly end: (text: 'COMMIT' | 'ROLLBACK') => Promise<{ readonly command: string }>;
}

/**
 * The session of one unit of work (issue 24, round trips). `BEGIN` is sent with the unit's first
 * statement rather than on its own: on a pipelining connection both go out at once and cost one
 * round trip, and a unit of work that runs no statement (its answer came from memory) opens no
 * transaction at all. READ COMMITTED takes its snapshot per statement, so where `BEGIN` goes
 * changes nothing of what the statements see. `BEGIN`'s own failure is the statement's failure.
 *
 * Statements the unit of work issues together (`Promise.all` of reads) are all sent at once on a
 * pipelining connection, one round trip for all; on one that does not pipeline (a host's pool)
 * they run one after another, in the order issued, as node-postgres asks.
 */
const unitSession = (client: PostgresPoolClient, begin: string): UnitSession => {
  let opened: Promise<unknown> | undefined;
  /** The last statement issued on a connection that does not pipeline: the next waits for it. */
  let previous: Promise<unknown> = Promise.resolve();
  const socket = client.pipeline === true ? client.connection?.stream : undefined;
  let corked = false;
  /**
   * Statements sent in one burst of promise jobs leave in one socket write: the socket is corked
   * at the first and uncorked in `process.nextTick`, which Node runs once the promise jobs ready
   * then have run (when the first is sent from a promise job, as a use case's statements are;
   * sent straight from an I/O callback, the tick comes first and only that statement's own
   * messages are joined). So `BEGIN` and the first statement, and the reads a unit issues
   * together, cost one write (a system call of 100 µs or more on a loopback TCP socket of this
   * machine: docs/performance.md) instead of one each, and no statement waits for a timer.
   */
  const batched = <R>(query: () => Promise<R>): Promise<R> => {
    if (socket !== undefined && !corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    return query();
  };
  /** Set when `BEGIN` failed: on a connection that does not pipeline nothing is sent after it. */
  let refusedBegin: { readonly error: unknown } | undefined;
  const send = <R extends object>(query: () => Promise<R>): Promise<R> => {
    if (client.pipeline === true) return batched(query);
    const next = (): Promise<R> =>
      refusedBegin === undefined ? query() : Promise.reject(refusedBegin.error);
    const sent = previous.then(next, next);
    previous = sent.catch(() => undefined);
    return sent;
  };
  const opening = (): Promise<unknown> => {
    if (opened === undefined) {
      opened = send(() => client.query(begin));
      // Its failure is answered with the first statement's; never left unhandled. A pipelined
      // statement is already on its way with it: BEGIN fails only with its connection, which
      // fails the statement too.
      opened.catch((error: unknown) => {
        refusedBegin = { error };
      });
    }
    return opened;
  };
  const inUnit = async <R>(statement: Promise<R>, begun: Promise<unknown>): Promise<R> => {
    const [opening, answer] = await Promise.allSettled([begun, statement]);
    if (opening.status === 'rejected') throw opening.reason;
    if (answer.status === 'rejected') throw answer.reason;
    return answer.value;
  };
  return {
    session: {
      query<R extends object>(text: string, params: readonly SqlValue[] = []) {
        const begun = opening();
        const statement = send(() =>
          client.query<R>({ text, values: [...params], types: payrailTypes }),
        );
        return inUnit(statement, begun).then((result) => ({ rows: result.rows }));
      },
      async exec(script: string) {
        const begun = opening();
        await inUnit(
          send(() => client.query(script)),
          begun,
        );
      },
    },
    begun: () => opened !== undefined,
    end: (text) => send(() => client.query(text)),
  };
};

const runOnce =
  (pool: PostgresPool) =>
  async <T>(
    work: (session: SqlSession) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> => {
    const client = await pool.connect();
    // A connection that broke (its backend was terminated, the network dropped) must not go
    // back into the pool; and an 'error' event with no listener would crash the process.
    let broken: Error | undefined;
    const onError = (error: Error): void => {
      broken = error;
    };
    client.on('error', onError);
    const unit = unitSession(client, options?.readOnly === true ? 'BEGIN READ ONLY' : 'BEGIN');
    try {
      const result = await work(unit.session);
      if (unit.begun()) {
        // A statement that failed and was let go by the work leaves the transaction aborted:
        // PostgreSQL answers COMMIT with ROLLBACK, and nothing of the unit is kept.
        const commit = await unit.end('COMMIT');
        if (commit.command === 'ROLLBACK') throw new TransactionRolledBack();
      }
      return result;
    } catch (error) {
      if (unit.begun()) {
        await unit.end('ROLLBACK').catch((rollbackError: Error) => {
          broken ??= rollbackError;
        });
      }
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken ?? false);
    }
  };

/**
 * The store's LISTEN connection, as far as it is used: `pg`'s `Client` is one. Named here so
 * that the declarations a host type-checks need no `@types/pg` (as `PostgresPool`).
 */
export interface ListenConnection {
  on(
    event: 'notification',
    listener: (message: {
      readonly channel: string;
      readonly payload?: string | undefined;
    }) => void,
  ): unknown;
  addListener(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
}

export interface PgPoolExecutorOptions {
  /** Whether `close()` ends the pool (true when the store created it). */
  readonly ownsPool: boolean;
  readonly retry?: RetryPolicy;
  /**
   * How the LISTEN connection is opened (connected, not yet listening); default a connection
   * made with the pool's own settings. `false`: no LISTEN (ADR 0052), for a pool behind a
   * transaction-mode pooler with no direct connection to the server.
   */
  readonly listenWith?: (() => Promise<ListenConnection>) | false;
}

/** The pause before a lost LISTEN connection is opened again, and the longest while it fails. */
const relistenFirstPauseMs = 1_000;
const relistenLongestPauseMs = 30_000;

/** A connection made with `settings` (the pool's own: on its current host). */
export const connectWith = async (settings: object): Promise<ListenConnection> => {
  const client = new Client(settings);
  // A connection that breaks must not crash the process; the listener watches its end.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
};

/**
 * A connection of its own, outside the pool (it is held for the store's life and must not take
 * a slot the units of work need), opened by `connect` each time one is needed: with the pool's
 * own settings, or a direct connection when the pool goes through a transaction-mode pooler
 * (ADR 0052), which hands a LISTEN's server connection to other clients and never delivers its
 * notifications.
 */
const listen =
  (connect: () => Promise<ListenConnection>) =>
  async (channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> => {
    let stopped = false;
    let current: ListenConnection | undefined;
    let pending: ReturnType<typeof setTimeout> | undefined;
    let pauseMs = relistenFirstPauseMs;
    const open = async (): Promise<ListenConnection> => {
      const client = await connect();
      // A broken listening connection is dropped; an 'error' event with no listener would crash.
      client.addListener('error', () => lost(client));
      client.addListener('end', () => lost(client));
      client.on('notification', (message) => {
        if (message.channel === channel) onNotify(message.payload ?? '');
      });
      try {
        await client.query(`LISTEN ${quoteIdent(channel)}`);
        return client;
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
    };
    // A lost connection (the server restarted, a failover, ADR 0051), or one never made, is
    // opened again by
    // `connect`, on the current primary, after a pause that doubles while it fails.
    // Work committed while nobody listened is told once the LISTEN is back (an empty sender).
    const reopen = (): void => {
      pending = setTimeout(() => {
        pending = undefined;
        open().then(
          (client) => {
            if (stopped) {
              client.end().catch(() => undefined);
              return;
            }
            current = client;
            pauseMs = relistenFirstPauseMs;
            onNotify('');
          },
          () => {
            pauseMs = Math.min(pauseMs * 2, relistenLongestPauseMs);
            if (!stopped) reopen();
          },
        );
      }, pauseMs);
      pending.unref?.();
    };
    const lost = (client: ListenConnection): void => {
      if (stopped || current !== client) return;
      current = undefined;
      client.end().catch(() => undefined);
      reopen();
    };
    // A first connection that fails (the database down as the process starts) is tried again
    // the same way: LISTEN is off until then, not for the life of the store.
    try {
      current = await open();
    } catch {
      reopen();
    }
    return async () => {
      stopped = true;
      if (pending !== undefined) clearTimeout(pending);
      const last = current;
      current = undefined;
      await last?.end().catch(() => undefined);
    };
  };

/** LISTEN turned off: nothing to hear, nothing to close; other processes' work waits for the loops. */
const listenNowhere = async (): Promise<() => Promise<void>> => async () => undefined;

/**
 * A lost connection is `StoreUnavailable` (ADR 0051), after the retries: only a conflict is run
 * again, never a unit of work whose COMMIT may have reached the server. A write refused in a
 * read-only unit of work stays the unit's own error.
 */
const classifiedTransactions = (
  transaction: SqlExecutor['transaction'],
): SqlExecutor['transaction'] =>
  function classified<T>(
    work: (session: SqlSession) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> {
    return classifyingLoss(
      () => transaction(work, options),
      options?.readOnly === true ? 'read-only' : 'read-write',
    );
  };

export const pgPoolExecutor = (
  pool: PostgresPool,
  options: PgPoolExecutorOptions,
): SqlExecutor => ({
  ...classifyingSession(sessionOf(pool)),
  transaction: classifiedTransactions(
    retryingTransactions(runOnce(pool), options.retry ?? defaultRetryPolicy),
  ),
  // Without LISTEN the store still NOTIFYs: other processes may listen on a direct connection.
  listen:
    options.listenWith === false
      ? listenNowhere
      : listen(options.listenWith ?? (() => connectWith(pool.options))),
  poolUse: () => poolUseOf(pool),
  async close() {
    if (options.ownsPool) await pool.end();
  },
});
