/**
 * What every port of one unit of work shares: its connection, the schema's table names, a queue
 * that runs the unit's operations one at a time (a connection runs one statement at a time, and a
 * savepoint must not interleave with another operation), and savepoints, so an operation the store
 * refuses leaves nothing behind and the unit of work stays usable.
 */
import { type LooseCollectionSpec, StoreFailure } from '@payrail/core';
import { type SqlSession, sqlStateOf } from './sql-executor.js';
import { tableIn } from './table-layout.js';

export interface UnitContext {
  readonly session: SqlSession;
  /** The qualified name of one of the store's tables. */
  readonly table: (name: string) => string;
  /** Runs an operation after the unit's earlier ones; refuses once the unit has ended. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  /** Runs `body` inside a savepoint: when it throws, its writes are undone and the error rethrown. */
  savepoint<T>(body: () => Promise<T>): Promise<T>;
  /** Marks the unit as one that enqueued outbox messages or set timers (`Store.onWork`). */
  noteWork(): void;
}

export interface UnitHandle {
  readonly context: UnitContext;
  /** Whether an operation of the unit enqueued outbox messages or set timers. */
  readonly wroteWork: boolean;
  /** Waits for operations still queued, then refuses any further one. */
  end(): Promise<void>;
}

export const openUnit = (session: SqlSession, schema: string): UnitHandle => {
  let open = true;
  let wroteWork = false;
  let tail: Promise<unknown> = Promise.resolve();
  const guard = (): void => {
    if (!open) throw new Error('this unit of work has already ended');
  };
  const context: UnitContext = {
    session,
    table: tableIn(schema),
    run<T>(operation: () => Promise<T>): Promise<T> {
      guard();
      const result = tail.then(() => {
        guard();
        return operation();
      });
      tail = result.catch(() => undefined);
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
    noteWork() {
      wroteWork = true;
    },
  };
  return {
    context,
    get wroteWork() {
      return wroteWork;
    },
    async end() {
      await tail;
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
  const constraint = (error as { constraint?: unknown }).constraint;
  const fields = typeof constraint === 'string' ? uniqueIndexes.get(constraint) : undefined;
  return fields === undefined ? undefined : new StoreFailure('unique_violation', spec.name, fields);
};
