/**
 * `payrail doctor` without a database server (issue 22): a fresh data directory is fine and is
 * left uncreated; a held lock names its holder; each wrong thing is one problem line and exit 1.
 * The database checks on a PostgreSQL server are in cli-database.int.test.ts.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDataDir } from '@payrail/store-postgres';
import { freePort } from '@payrail/store-postgres/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runLocal } from './cli-database.test-support.js';

let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'payrail-doctor-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('payrail doctor', () => {
  it('finds nothing wrong with a data directory a first start would create, and creates nothing', async () => {
    const dataDir = join(root, 'fresh');
    const result = await runLocal(['doctor'], { PAYRAIL_DATA_DIR: dataDir });
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toContain(`${dataDir} does not exist yet: the first start creates it`);
    expect(result.out).toContain(
      'not created yet; the first start creates it and applies every migration',
    );
    expect(result.out.split('\n').at(-1)).toBe('problems: none');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('names the process holding the data directory: a running server, whose database it is', async () => {
    const dataDir = join(root, 'held');
    const lock = await lockDataDir(dataDir);
    try {
      const result = await runLocal(['doctor'], { PAYRAIL_DATA_DIR: dataDir });
      expect(result.out).toMatch(
        new RegExp(
          `ok +data directory lock +held by payrail process ${process.pid}, a running server`,
        ),
      );
      expect(result.code).toBe(0);
    } finally {
      await lock.release();
    }
  });

  it('says each wrong thing on a line and exits 1: a live URL without https, an unreachable relay, a key secret others can read, an open /metrics in live', async () => {
    const dataDir = join(root, 'wrong');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'key-secret'), 'k'.repeat(43));
    await chmod(join(dataDir, 'key-secret'), 0o644);
    const port = await freePort();
    const result = await runLocal(['doctor'], {
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ENV: 'live',
      PAYRAIL_PUBLIC_URL: 'http://pay.example.com',
      PAYRAIL_INSPECT: `ws://127.0.0.1:${port}`,
    });
    expect(result.code).toBe(1);
    expect(result.out.split('\n').slice(-5)).toEqual([
      'problems (4):',
      `  - key secret: ${dataDir}/key-secret is readable by others (mode 644): chmod 600 it`,
      `  - PAYRAIL_INSPECT: the relay at ws://127.0.0.1:${port}/ does not accept connections ` +
        `(Error: connect ECONNREFUSED 127.0.0.1:${port}); the server keeps the last events until it does`,
      "  - PAYRAIL_PUBLIC_URL: http://pay.example.com is not https://: payers' checkout pages would travel unencrypted",
      '  - PAYRAIL_METRICS_TOKEN: unset in live: /metrics answers whoever reaches it; set a token',
    ]);
  });

  it('lists a configuration that is not valid as problems, the secret it was given unprinted', async () => {
    const result = await runLocal(['doctor'], {
      PAYRAIL_DATA_DIR: join(root, 'x'),
      PAYRAIL_ADMIN_TOKEN: 'short-secret',
      PAYRAIL_LOG_LEVEL: 'loud',
    });
    expect(result.code).toBe(1);
    expect(result.out).not.toContain('short-secret');
    expect(result.out).toContain(
      '  - configuration: PAYRAIL_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
    );
  });
});
