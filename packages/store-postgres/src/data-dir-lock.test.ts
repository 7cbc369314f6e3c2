import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirInUse, lockDataDir } from './data-dir-lock.js';

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
      await expect(lockDataDir(dir, { display: './.payrail' })).rejects.toThrow(
        `another payrail process (pid ${other.pid}) is using ./.payrail; stop it first (if no ` +
          `payrail runs there, remove ${join(dir, 'payrail.lock')})`,
      );
    } finally {
      other.stop();
    }
  });

  it('refuses a second lock of the same directory in this process, by any path to it', async () => {
    const lock = await lockDataDir(dir);
    const again = lockDataDir(`${dir}/../${dir.split('/').pop()}`, { display: 'the data' });
    await expect(again).rejects.toBeInstanceOf(DataDirInUse);
    await expect(again).rejects.toThrow(
      `the data is already open in this process (pid ${process.pid}); close what holds it first`,
    );
    await lock.release();
    await lock.release();
    await (await lockDataDir(dir)).release();
  });

  it('open files: makes a pre-existing 0755 data directory and what is in it owner-only; the lock is 0600', async () => {
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'old'));
    await chmod(join(dir, 'old'), 0o755);
    await writeFile(join(dir, 'old', 'notes'), 'x');
    await chmod(join(dir, 'old', 'notes'), 0o666);
    const lock = await lockDataDir(dir);
    const modeOf = async (path: string) => (await stat(join(dir, path))).mode & 0o777;
    expect({
      dir: await modeOf('.'),
      old: await modeOf('old'),
      notes: await modeOf('old/notes'),
      lock: await modeOf('payrail.lock'),
    }).toEqual({ dir: 0o700, old: 0o700, notes: 0o600, lock: 0o600 });
    await lock.release();
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
