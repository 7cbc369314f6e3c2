/**
 * The embedded default on its own (ADR 0037): a PostgreSQL server the store starts under its
 * data directory and stops when it closes; one owner per directory, in this process and across
 * processes; a server orphaned by a killed owner reclaimed at the next open; SIGTERM stopping
 * the server of a host that does not handle it; owner-only files; data that survives a full
 * stop and start.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { depositJournal, money, type StoreTransaction } from '@payrail/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from './data-dir-lock.js';
import { createEmbeddedPostgresStore } from './embedded-postgres-store.js';
import { exitOf, ownerProcess } from './owner-process.test-support.js';
import type { PostgresStore } from './sql-store.js';

let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'payrail-embedded-test-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let dirs = 0;
const freshDir = (): string => {
  dirs += 1;
  return join(root, `db${dirs}`);
};

const postmasterOf = (dataDir: string): number =>
  Number(readFileSync(join(dataDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);

const balanceOf = (store: PostgresStore) => store.transaction((tx) => tx.ledger.balances('acc_1'));

const deposit = (businessId: string, amount: string) => (tx: StoreTransaction) =>
  tx.ledger.post(depositJournal({ accountId: 'acc_1', businessId }, money('USD', amount)), 1);

const gone = async (pid: number, ms = 10_000): Promise<boolean> => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
};

describe('createEmbeddedPostgresStore', () => {
  it('keeps what it committed through a full stop of its server and a new start', async () => {
    const dataDir = freshDir();
    const first = await createEmbeddedPostgresStore({ dataDir });
    const server = postmasterOf(dataDir);
    await first.transaction(deposit('d1', '7.50'));
    await first.close();
    expect(await gone(server)).toBe(true);
    const second = await createEmbeddedPostgresStore({ dataDir });
    try {
      expect(await balanceOf(second)).toEqual([
        { currency: 'USD', available: '7.50', held: '0.00' },
      ]);
    } finally {
      await second.close();
    }
  });

  it('is the only owner of its directory in this process: a second open is refused at once', async () => {
    const dataDir = freshDir();
    const first = await createEmbeddedPostgresStore({ dataDir });
    try {
      await expect(createEmbeddedPostgresStore({ dataDir })).rejects.toThrow(
        `${dataDir} is already open in this process (pid ${process.pid}); close what holds it first`,
      );
      // The refused open changed nothing: the first store still works.
      await first.transaction(deposit('d1', '1.00'));
    } finally {
      await first.close();
    }
  });

  it('refuses a directory another living process holds, naming it; SIGTERM stops that process and its server', async () => {
    const dataDir = freshDir();
    const owner = await ownerProcess('createEmbeddedPostgresStore', dataDir);
    try {
      await expect(
        createEmbeddedPostgresStore({ dataDir, lockRemedy: 'or use another directory' }),
      ).rejects.toThrow(
        `another payrail process (pid ${owner.child.pid}) is using ${dataDir}; stop it first or use another directory`,
      );
    } finally {
      owner.child.kill('SIGTERM');
    }
    // No handler of the host's own: the store stopped its server, then the signal ended the host.
    expect(await exitOf(owner.child)).toBe('SIGTERM');
    expect(await gone(owner.postmaster)).toBe(true);
    const after = await createEmbeddedPostgresStore({ dataDir });
    try {
      expect(await balanceOf(after)).toEqual([
        { currency: 'USD', available: '5.00', held: '0.00' },
      ]);
    } finally {
      await after.close();
    }
  });

  it('reclaims the server a SIGKILLed owner left running, never running two, and keeps its data', async () => {
    const dataDir = freshDir();
    const owner = await ownerProcess('createEmbeddedPostgresStore', dataDir);
    owner.child.kill('SIGKILL');
    expect(await exitOf(owner.child)).toBe('SIGKILL');
    // The owner is gone; its server is not.
    expect(isAlive(owner.postmaster)).toBe(true);
    const said: string[] = [];
    const store = await createEmbeddedPostgresStore({ dataDir, log: (line) => said.push(line) });
    try {
      expect(said).toEqual([
        `stopping the embedded PostgreSQL (pid ${owner.postmaster}) left running by a process that is gone`,
      ]);
      expect(isAlive(owner.postmaster)).toBe(false);
      expect(postmasterOf(dataDir)).not.toBe(owner.postmaster);
      expect(await balanceOf(store)).toEqual([
        { currency: 'USD', available: '5.00', held: '0.00' },
      ]);
    } finally {
      await store.close();
    }
  });

  it('takes over a lock left by a process that is gone', async () => {
    const dataDir = freshDir();
    const store = await createEmbeddedPostgresStore({ dataDir });
    await store.close();
    const dead = spawn(process.execPath, ['-e', '']);
    await exitOf(dead);
    await writeFile(join(dataDir, 'payrail.lock'), `${dead.pid}\n`);
    const again = await createEmbeddedPostgresStore({ dataDir });
    expect(readFileSync(join(dataDir, 'payrail.lock'), 'utf8').trim()).toBe(String(process.pid));
    await again.close();
  });

  it("keeps its directory owner-only: folders 0700, files 0600, the socket its owner's alone", async () => {
    const dataDir = freshDir();
    const store = await createEmbeddedPostgresStore({ dataDir });
    try {
      const wide: string[] = [];
      const walk = async (path: string): Promise<void> => {
        const stats = await lstat(path);
        const mode = stats.mode & 0o777;
        const wanted = stats.isDirectory() || stats.isSocket() ? 0o700 : 0o600;
        if (mode !== wanted) wide.push(`${path} ${mode.toString(8)}`);
        if (stats.isDirectory()) {
          for (const entry of await readdir(path)) await walk(join(path, entry));
        }
      };
      await walk(dataDir);
      expect(wide).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
