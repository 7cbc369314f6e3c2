/**
 * The order of a unit of work's operations (issue 24): reads issued between two writes run
 * together (on a pipelining connection, one round trip), a write waits for every earlier read
 * and write, and a read waits for the writes before it. Operations here are held open until the
 * test lets them finish, so what started before what is seen.
 */
import { describe, expect, it } from 'vitest';
import type { SqlSession } from './sql-executor.js';
import { openUnit } from './sql-unit-of-work.js';

const session: SqlSession = {
  query: async () => ({ rows: [] }),
  exec: async () => undefined,
};

/** An operation that records its start and ends when `finish(name)` is called. */
const heldOperations = () => {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const operation = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.set(name, () => resolve(name));
    });
  const finish = async (name: string) => {
    finishers.get(name)?.();
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, operation, finish };
};

const settle = async () => {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe('a unit of work', () => {
  it('runs the reads issued together at once, and a write only after all of them', async () => {
    const { context } = openUnit(session, 'payrail');
    const held = heldOperations();
    const reads = [context.read(held.operation('read a')), context.read(held.operation('read b'))];
    const write = context.run(held.operation('write c'));
    const later = context.read(held.operation('read d'));
    await settle();
    expect(held.started).toEqual(['read a', 'read b']);
    await held.finish('read a');
    expect(held.started).toEqual(['read a', 'read b']);
    await held.finish('read b');
    expect(held.started).toEqual(['read a', 'read b', 'write c']);
    await held.finish('write c');
    expect(held.started).toEqual(['read a', 'read b', 'write c', 'read d']);
    await held.finish('read d');
    await expect(Promise.all([...reads, write, later])).resolves.toEqual([
      'read a',
      'read b',
      'write c',
      'read d',
    ]);
  });

  it('ends only after the reads still running, then refuses any further operation', async () => {
    const unit = openUnit(session, 'payrail');
    const held = heldOperations();
    const read = unit.context.read(held.operation('read a'));
    let ended = false;
    const end = unit.end().then(() => {
      ended = true;
    });
    await settle();
    expect(ended).toBe(false);
    await held.finish('read a');
    await end;
    await expect(read).resolves.toBe('read a');
    expect(() => unit.context.read(held.operation('read b'))).toThrow(/already ended/);
  });
});
