/**
 * The embedded database is not open to other local users (issue 12, finding 4): PGlite writes
 * its files 0666, and a data directory that already existed kept its 0755, so balances and the
 * webhook and notify secrets in its tables and log were readable (and writable) by anyone on the
 * host. Every folder of the data directory is 0700 and every file 0600 once the store is open
 * and has written, and once it has closed; a directory that existed with wide modes, or whose
 * modes were widened between runs, is closed again at open.
 */
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { depositJournal, money } from '@payrail/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPGliteStore } from './pglite-store.js';

/** Every folder not 0700 and every file not 0600 under `root`, with its mode. */
const notOwnerOnly = async (root: string): Promise<string[]> => {
  const off: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const stats = await lstat(path);
    const mode = stats.mode & 0o777;
    if (stats.isDirectory()) {
      if (mode !== 0o700) off.push(`${path} ${mode.toString(8)}`);
      for (const entry of await readdir(path)) await walk(join(path, entry));
    } else if (mode !== 0o600) {
      off.push(`${path} ${mode.toString(8)}`);
    }
  };
  await walk(root);
  return off;
};

/** Widens everything under `root` as another tool (or an older payrail) might have left it. */
const widen = async (root: string): Promise<void> => {
  const stats = await lstat(root);
  await chmod(root, stats.isDirectory() ? 0o755 : 0o666);
  if (stats.isDirectory()) {
    for (const entry of await readdir(root)) await widen(join(root, entry));
  }
};

const writeSome = async (store: Awaited<ReturnType<typeof createPGliteStore>>, n: number) => {
  await store.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      await tx.ledger.post(
        depositJournal({ accountId: 'acc_1', businessId: `d${i}` }, money('USD', '1.00')),
        1,
      );
      await tx.idempotency.put({
        scope: 'acc_1',
        key: `k${i}`,
        request_hash: 'h',
        resource_id: 'whsec_secret',
        created_at: 1,
      });
    }
  });
};

let parent = '';
beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), 'payrail-modes-'));
});
afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe('open files: the embedded data directory is owner-only', () => {
  it('in a pre-existing 0755 directory: 0700 folders and 0600 files after start and writes, and after close', async () => {
    const dataDir = join(parent, 'pgdata');
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);

    const store = await createPGliteStore({ dataDir });
    await writeSome(store, 50);
    expect((await lstat(dataDir)).mode & 0o777).toBe(0o700);
    expect(await notOwnerOnly(dataDir)).toEqual([]);
    await store.close();
    expect(await notOwnerOnly(dataDir)).toEqual([]);
  }, 60_000);

  it('closes again, at open, a data directory whose modes were widened since', async () => {
    const dataDir = join(parent, 'pgdata');
    await (await createPGliteStore({ dataDir })).close();
    await widen(dataDir);
    await writeFile(join(dataDir, 'left-by-hand.txt'), 'x');
    await chmod(join(dataDir, 'left-by-hand.txt'), 0o666);

    const store = await createPGliteStore({ dataDir });
    expect(await notOwnerOnly(dataDir)).toEqual([]);
    await writeSome(store, 5);
    await store.close();
    expect(await notOwnerOnly(dataDir)).toEqual([]);
  }, 60_000);

  it('in a fresh directory, whose missing parents are created 0700 too', async () => {
    const dataDir = join(parent, 'a', 'b', 'pgdata');
    const store = await createPGliteStore({ dataDir });
    await writeSome(store, 5);
    expect(await notOwnerOnly(join(parent, 'a'))).toEqual([]);
    await store.close();
    expect(await notOwnerOnly(join(parent, 'a'))).toEqual([]);
  }, 60_000);
});
