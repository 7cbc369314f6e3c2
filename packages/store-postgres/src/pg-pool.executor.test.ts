/**
 * The unit of work's round trips on a pool connection (issue 24): `BEGIN` goes out with the
 * first statement, reads issued together go out together on a pipelining connection, one after
 * another on one that does not pipeline, a unit that runs no statement opens no transaction, and
 * a failure anywhere still fails the unit of work. The connection here is scripted: each
 * statement is answered only when the test says, so what was sent before any answer is seen.
 */
import { describe, expect, it } from 'vitest';
import { fakePool } from './fake-pool.test-support.js';
import { pgPoolExecutor, TransactionRolledBack } from './pg-pool.executor.js';

interface Sent {
  readonly text: string;
  readonly answer: (command?: string) => void;
  readonly fail: (error: Error) => void;
}

/** A connection that records each statement as sent and answers it when told. */
const heldConnection = (pipeline: boolean | undefined) => {
  const sent: Sent[] = [];
  const answered: string[] = [];
  const { pool, released } = fakePool(
    (query) => {
      const text = typeof query === 'string' ? query : query.text;
      return new Promise((resolve, reject) => {
        sent.push({
          text,
          answer: (command = text.split(' ')[0] ?? text) => resolve({ rows: [], command }),
          fail: reject,
        });
      });
    },
    pipeline === undefined ? {} : { pipeline },
  );
  const texts = () => sent.map((statement) => statement.text);
  /** Answers every statement sent and not answered yet, in order, until none is left. */
  const answerAll = async (commandOf: (text: string) => string | undefined = () => undefined) => {
    for (let i = 0; i < 100; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const statement of sent.splice(0)) {
        answered.push(statement.text);
        statement.answer(commandOf(statement.text));
      }
    }
  };
  return { pool, sent, texts, released, answerAll, answered };
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a unit of work on a pipelining connection', () => {
  it('sends BEGIN with its first statement, before either is answered', async () => {
    const connection = heldConnection(true);
    const executor = pgPoolExecutor(connection.pool, { ownsPool: false });
    const unit = executor.transaction((session) => session.query('SELECT 1'));
    await settle();
    expect(connection.texts()).toEqual(['BEGIN', 'SELECT 1']);
    await connection.answerAll();
    await unit;
    expect(connection.answered).toEqual(['BEGIN', 'SELECT 1', 'COMMIT']);
  });

  it('sends the reads it issues together at once: one round trip for all', async () => {
    const connection = heldConnection(true);
    const executor = pgPoolExecutor(connection.pool, { ownsPool: false });
    const unit = executor.transaction((session) =>
      Promise.all([
        session.query('SELECT a'),
        session.query('SELECT b'),
        session.query('SELECT c'),
      ]),
    );
    await settle();
    expect(connection.texts()).toEqual(['BEGIN', 'SELECT a', 'SELECT b', 'SELECT c']);
    await connection.answerAll();
    await unit;
  });

  it('fails the unit when BEGIN fails, with BEGIN’s error, and sends ROLLBACK', async () => {
    const connection = heldConnection(true);
    const executor = pgPoolExecutor(connection.pool, { ownsPool: false });
    const unit = executor.transaction((session) => session.query('SELECT 1'));
    await settle();
    const refused = Object.assign(new Error('BEGIN refused'), { code: '42601' });
    connection.sent[0]?.fail(refused);
    connection.sent[1]?.answer();
    connection.sent.splice(0, 2);
    const done = expect(unit).rejects.toBe(refused);
    await connection.answerAll();
    await done;
    expect(connection.answered).toEqual(['ROLLBACK']);
  });

  it('fails the unit when a statement it let go left the transaction aborted (COMMIT answers ROLLBACK)', async () => {
    const connection = heldConnection(true);
    const executor = pgPoolExecutor(connection.pool, { ownsPool: false });
    const unit = executor.transaction(async (session) => {
      await session.query('SELECT 1');
      return 'answered';
    });
    const done = expect(unit).rejects.toBeInstanceOf(TransactionRolledBack);
    await connection.answerAll((text) => (text === 'COMMIT' ? 'ROLLBACK' : undefined));
    await done;
  });
});

describe('a unit of work on a connection that does not pipeline (a host’s pool)', () => {
  it('sends one statement at a time, in the order issued', async () => {
    const connection = heldConnection(undefined);
    const executor = pgPoolExecutor(connection.pool, { ownsPool: false });
    const unit = executor.transaction((session) =>
      Promise.all([session.query('SELECT a'), session.query('SELECT b')]),
    );
    await settle();
    expect(connection.texts()).toEqual(['BEGIN']);
    await connection.answerAll();
    await unit;
    expect(connection.answered).toEqual(['BEGIN', 'SELECT a', 'SELECT b', 'COMMIT']);
  });
});

describe('a unit of work whose BEGIN fails on a connection that does not pipeline', () => {
  it('sends nothing after BEGIN, so no statement runs outside a transaction', async () => {
    const connection = heldConnection(undefined);
    const executor = pgPoolExecutor(connection.pool, { ownsPool: false });
    const unit = executor.transaction((session) => session.query('INSERT INTO payouts VALUES (1)'));
    await settle();
    const refused = Object.assign(new Error('BEGIN refused'), { code: '42601' });
    connection.sent.splice(0, 1)[0]?.fail(refused);
    const done = expect(unit).rejects.toBe(refused);
    await connection.answerAll();
    await done;
    // Not even ROLLBACK: the connection whose BEGIN failed is closed, not put back.
    expect(connection.answered).toEqual([]);
    expect(connection.released).toEqual([refused]);
  });
});

describe('a unit of work that runs no statement', () => {
  it.each([true, undefined])(
    'opens no transaction (pipeline %s): no BEGIN, no COMMIT',
    async (pipeline) => {
      const connection = heldConnection(pipeline);
      const executor = pgPoolExecutor(connection.pool, { ownsPool: false });
      await expect(executor.transaction(async () => 'from memory')).resolves.toBe('from memory');
      expect(connection.texts()).toEqual([]);
      expect(connection.released).toEqual([false]);
    },
  );
});
