import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDataDir } from './data-dir-lock.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A process that exists while the test runs. */
const otherProcess = () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
  return { pid: child.pid ?? 0, stop: () => child.kill('SIGKILL') };
};

describe('lockDataDir', () => {
  it('holds the directory with its pid and lets go on release', async () => {
    const lock = await lockDataDir(dir);
    expect((await readFile(join(dir, 'payrail.lock'), 'utf8')).trim()).toBe(String(process.pid));
    await lock.release();
    await (await lockDataDir(dir)).release();
  });

  it('refuses a directory a living process holds', async () => {
    const other = otherProcess();
    try {
      await writeFile(join(dir, 'payrail.lock'), `${other.pid}\n`);
      await expect(lockDataDir(dir, './.payrail')).rejects.toThrow(
        `another payrail process (pid ${other.pid}) is using ./.payrail`,
      );
    } finally {
      other.stop();
    }
  });

  it('takes over a lock left by a process that is gone', async () => {
    const other = otherProcess();
    other.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await writeFile(join(dir, 'payrail.lock'), `${other.pid}\n`);
    const lock = await lockDataDir(dir);
    expect((await readFile(join(dir, 'payrail.lock'), 'utf8')).trim()).toBe(String(process.pid));
    await lock.release();
  });
});
