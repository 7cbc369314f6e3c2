/**
 * Which driver errors are "the database cannot be reached" (ADR 0051), and what the pool's
 * executor does with one: `StoreUnavailable`, thrown once, never a unit of work run again after
 * its COMMIT may have reached the server.
 */
import { isStoreUnavailable, StoreUnavailable } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { fakePool } from './fake-pool.test-support.js';
import { pgPoolExecutor } from './pg-pool.executor.js';
import { classifyDriverError, isConnectionLoss } from './store-unavailable.js';

const withCode = (code: string, message = `code ${code}`): Error =>
  Object.assign(new Error(message), { code });

describe('a driver error', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a host that does not answer', withCode('ETIMEDOUT')],
    ['a socket that is gone', withCode('ENOENT', 'connect ENOENT /tmp/.s.PGSQL.5432')],
    ['class 08', withCode('08006', 'connection failure')],
    ['an administrator shutdown', withCode('57P01', 'terminating connection')],
    ['a crash shutdown', withCode('57P02')],
    ['a server starting up', withCode('57P03', 'the database system is starting up')],
    [
      'a write on a demoted primary',
      withCode('25006', 'cannot execute INSERT in a read-only transaction'),
    ],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a full pool that waited too long', new Error('timeout exceeded when trying to connect')],
    ['every address refused', new AggregateError([withCode('ECONNREFUSED')], 'refused')],
  ])('is unavailability: %s', (_, error) => {
    expect(isConnectionLoss(error)).toBe(true);
    const classified = classifyDriverError(error);
    expect(isStoreUnavailable(classified)).toBe(true);
    expect(classified).toMatchObject({ cause: error });
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a serialization failure', withCode('40001')],
    ['a syntax error', withCode('42601')],
    ['a statement cancelled by its timeout', withCode('57014')],
    ["the engine's own error", new Error('refused')],
    ['not an error', 'text'],
  ])('is itself: %s', (_, error) => {
    expect(isConnectionLoss(error)).toBe(false);
    expect(classifyDriverError(error)).toBe(error);
  });

  it('is itself in a read-only unit of work: a write refused there is the read’s own', () => {
    const refused = withCode('25006', 'cannot execute INSERT in a read-only transaction');
    expect(isConnectionLoss(refused, 'read-only')).toBe(false);
    expect(classifyDriverError(refused, 'read-only')).toBe(refused);
    // Whatever the unit of work, a lost connection is one.
    expect(isConnectionLoss(withCode('57P01'), 'read-only')).toBe(true);
  });

  it('already classified stays as it is', () => {
    const unavailable = new StoreUnavailable('no host');
    expect(classifyDriverError(unavailable)).toBe(unavailable);
  });
});

/** A pool of one connection whose statements answer as `answer` says; it counts them. */
const scriptedPool = (answer: (text: string) => Promise<{ readonly command: string }>) => {
  const statements: string[] = [];
  const { pool, released } = fakePool((query) => {
    const text = typeof query === 'string' ? query : query.text;
    statements.push(text);
    return answer(text).then((result) => ({ rows: [], ...result }));
  });
  return { pool, statements, released };
};

describe('the pool executor', () => {
  it('answers StoreUnavailable when the connection dies at COMMIT, and runs nothing again', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    const { pool, statements, released } = scriptedPool(async (text) => {
      if (text === 'COMMIT' || text === 'ROLLBACK') throw lost;
      return { command: text };
    });
    const executor = pgPoolExecutor(pool, { ownsPool: false });
    let runs = 0;
    const unit = executor.transaction(async (session) => {
      runs += 1;
      await session.query('INSERT INTO payouts VALUES (1)');
      return 'answered';
    });
    await expect(unit).rejects.toSatisfy(isStoreUnavailable);
    expect(runs).toBe(1);
    expect(statements.filter((text) => text === 'COMMIT')).toHaveLength(1);
    // The broken connection is closed, not put back into the pool.
    expect(released).toEqual([lost]);
  });

  it('still runs a unit of work again after a serialization failure', async () => {
    let commits = 0;
    const { pool } = scriptedPool(async (text) => {
      if (text === 'COMMIT' && ++commits === 1) throw withCode('40001');
      return { command: text };
    });
    const executor = pgPoolExecutor(pool, {
      ownsPool: false,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const unit = executor.transaction(async (session) => {
      await session.query('UPDATE payouts SET version = 2');
      return 'committed';
    });
    await expect(unit).resolves.toBe('committed');
    expect(commits).toBe(2);
  });

  it('opens a read BEGIN READ ONLY and answers a write refused there as it is', async () => {
    const refused = withCode('25006', 'cannot execute INSERT in a read-only transaction');
    const { pool, statements } = scriptedPool(async (text) => {
      if (text.startsWith('INSERT')) throw refused;
      return { command: text };
    });
    const executor = pgPoolExecutor(pool, { ownsPool: false });
    const read = executor.transaction(
      (session) => session.query('INSERT INTO payouts VALUES (1)'),
      { readOnly: true },
    );
    await expect(read).rejects.toBe(refused);
    expect(statements[0]).toBe('BEGIN READ ONLY');
    // The same refusal in a unit of work that may write is a demoted primary: unavailable.
    const write = executor.transaction((session) =>
      session.query('INSERT INTO payouts VALUES (1)'),
    );
    await expect(write).rejects.toSatisfy(isStoreUnavailable);
    expect(statements).toContain('BEGIN');
  });

  it('answers StoreUnavailable for a statement outside a unit of work', async () => {
    const { pool } = scriptedPool(async () => {
      throw withCode('ECONNREFUSED');
    });
    const executor = pgPoolExecutor(pool, { ownsPool: false });
    await expect(executor.query('SELECT 1')).rejects.toSatisfy(isStoreUnavailable);
  });
});
