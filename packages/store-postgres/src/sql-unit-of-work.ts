/**
 * What every port of one unit of work shares: its connection, the schema's table names, a queue
 * that runs the unit's writes one at a time (a savepoint must not interleave with another
 * operation) and lets the reads issued between two writes run together (on a pipelining
 * connection they reach the database at once: issue 24), and savepoints, so an operation the
 * store refuses leaves nothing behind and the unit of work stays usable.
 */
import { type LooseCollectionSpec, StoreFailure } from '@payrail/core';
import { constraintOf } from './error-code.js';
import { type SqlSession, type SqlValue, sqlStateOf } from './sql-executor.js';
import { tableIn } from './table-layout.js';

export interface UnitContext {
  readonly session: SqlSession;
  /** The qualified name of one of the store's tables. */
  readonly table: (name: string) => string;
  /** Runs an operation after the unit's earlier ones; refuses once the unit has ended. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  /**
   * Runs a read (statements that write nothing and open no savepoint) after the unit's earlier
   * writes, beside the reads issued since the last of them (the writes issued after it wait for
   * it); refuses once the unit has ended.
   */
  read<T>(operation: () => Promise<T>): Promise<T>;
  /** Runs `body` inside a savepoint: when it throws, its writes are undone and the error rethrown. */
  savepoint<T>(body: () => Promise<T>): Promise<T>;
  /**
   * Marks the unit as one that enqueued outbox messages or set timers (`Store.onWork`), and
   * answers the statement that writes them with the unit's `NOTIFY` riding on it when other
   * processes listen and the unit has not notified yet: one round trip instead of two.
   */
  writingWork(text: string, params: readonly SqlValue[]): { text: string; params: SqlValue[] };
}

/** Where a unit of work tells other processes that it wrote work (`pg_notify`'s arguments). */
export interface WorkNotice {
  readonly channel: string;
  readonly payload: string;
}

export interface UnitHandle {
  readonly context: UnitContext;
  /** Whether an operation of the unit enqueued outbox messages or set timers. */
  readonly wroteWork: boolean;
  /** Whether one of those statements carried the unit's `NOTIFY`. */
  readonly notified: boolean;
  /** Waits for operations still queued, then refuses any further one. */
  end(): Promise<void>;
}

export const openUnit = (session: SqlSession, schema: string, notice?: WorkNotice): UnitHandle => {
  let open = true;
  let wroteWork = false;
  let notified = false;
  /** The last write (or the start): every later operation waits for it. */
  let tail: Promise<unknown> = Promise.resolve();
  /** The reads issued since that write: the next write waits for them too. */
  let readers: Promise<unknown>[] = [];
  const guard = (): void => {
    if (!open) throw new Error('this unit of work has already ended');
  };
  const after = <T>(before: Promise<unknown>, operation: () => Promise<T>): Promise<T> =>
    before.then(() => {
      guard();
      return operation();
    });
  const context: UnitContext = {
    session,
    table: tableIn(schema),
    run<T>(operation: () => Promise<T>): Promise<T> {
      guard();
      const result = after(
        readers.length === 0 ? tail : Promise.all([tail, ...readers]),
        operation,
      );
      tail = result.catch(() => undefined);
      readers = [];
      return result;
    },
    read<T>(operation: () => Promise<T>): Promise<T> {
      guard();
      const result = after(tail, operation);
      readers.push(result.catch(() => undefined));
      return result;
    },
    async savepoint<T>(body: () => Promise<T>): Promise<T> {
      await session.query('SAVEPOINT payrail_operation');
      try {
        const result = await body();
        await session.query('RELEASE SAVEPOINT payrail_operation');
        return result;
      } catch (error) {
        // If the connection itself is gone the rollback fails too; the original error matters.
        await session.query('ROLLBACK TO SAVEPOINT payrail_operation').catch(() => undefined);
        throw error;
      }
    },
    writingWork(text, params) {
      wroteWork = true;
      if (notice === undefined || notified) return { text, params: [...params] };
      notified = true;
      const n = params.length;
      // A data-modifying CTE runs whether or not the query reads it; PostgreSQL delivers the
      // notification only if and when the transaction commits.
      return {
        text: `WITH written AS (${text}) SELECT pg_notify($${n + 1}, $${n + 2})`,
        params: [...params, notice.channel, notice.payload],
      };
    },
  };
  return {
    context,
    get wroteWork() {
      return wroteWork;
    },
    get notified() {
      return notified;
    },
    async end() {
      await Promise.all([tail, ...readers]);
      open = false;
    },
  };
};

/** A unique violation (23505) of one of the spec's keys, as the port's `StoreFailure`. */
export const uniqueFailureOf = (
  error: unknown,
  spec: Pick<LooseCollectionSpec, 'name'>,
  uniqueIndexes: ReadonlyMap<string, readonly string[]>,
): StoreFailure | undefined => {
  if (sqlStateOf(error) !== '23505') return undefined;
  const constraint = constraintOf(error);
  const fields = constraint === undefined ? undefined : uniqueIndexes.get(constraint);
  return fields === undefined ? undefined : new StoreFailure('unique_violation', spec.name, fields);
};
