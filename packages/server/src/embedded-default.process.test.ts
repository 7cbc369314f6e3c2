/**
 * The server on its durable embedded default (ADR 0037), as `pnpm start` runs it: every answered
 * create has its write-ahead log flushed to stable storage first (seen with strace), a database
 * orphaned by a SIGKILLed server is reclaimed at the next start, and a data directory written by
 * the PGlite store is refused until `payrail store migrate` moves it, then found whole.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissions } from '@payrail/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  expectDurable,
  ok,
  runProcess,
  type ServerProcess,
  serverMain,
  startServerProcess,
  walkthrough,
} from './server-process.test-support.js';

let root = '';
const running: ServerProcess[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'payrail-default-'));
});
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')));
  await rm(root, { recursive: true, force: true });
});

const start = async (
  dataDir: string,
  env: Record<string, string> = {},
  launcher: string[] = [],
) => {
  const server = await startServerProcess(
    {
      PORT: '0',
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: adminToken,
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
      ...env,
    },
    60_000,
    serverMain,
    launcher,
  );
  running.push(server);
  return server;
};

const hasStrace = (() => {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasStrace && process.env.CI !== 'true') {
  console.warn('strace is not installed: the durability test is skipped (CI installs it).');
}

/** A quick payout of 1.00 to a WALLETA e-mail (method 1 of the sandbox catalogue). */
const payoutBody = (id: string) => ({
  client_request_id: id,
  reference: `INV-${id}`,
  currency: 'USD',
  amount: '1.00',
  method_id: 1,
  notify_url: 'http://127.0.0.1:9/payrail-payouts',
  beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
  beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
});

interface Flush {
  readonly at: number;
  readonly path: string;
}

/** Every fsync/fdatasync of a file under pg_wal/ (PostgreSQL's) or of PGlite's WAL, with its time. */
const walFlushes = (trace: string): Flush[] =>
  [...trace.matchAll(/^\d+\s+(\d+\.\d+)\s+f(?:data)?sync\(\d+<([^>]*)>/gm)]
    .map((match) => ({ at: Number(match[1]) * 1000, path: match[2] ?? '' }))
    .filter((flush) => flush.path.includes('/pg_wal/'));

/**
 * Runs the server under `strace -f` (fsync and fdatasync only, with the paths of their files),
 * answers, for each of `creates` payout creates, the WAL flushes between sending it and reading
 * its answer.
 */
const flushesPerCreate = async (dataDir: string, env: Record<string, string>, creates: number) => {
  const tracePath = join(root, `${env.PAYRAIL_EMBEDDED_DATABASE ?? 'postgres'}.trace`);
  const server = await start(dataDir, env, [
    'strace',
    '-f',
    '--seccomp-bpf',
    '-ttt',
    '-y',
    '-e',
    'trace=fsync,fdatasync',
    '-o',
    tracePath,
  ]);
  const { merchant } = await ok(server.url, 'POST', '/admin/merchants', adminToken, {
    name: 'Acme',
  });
  const accountId = merchant.account_id as string;
  const { api_key } = await ok(
    server.url,
    'POST',
    `/admin/accounts/${accountId}/api-keys`,
    adminToken,
    {
      permissions,
    },
  );
  await ok(server.url, 'POST', `/admin/accounts/${accountId}/credit`, adminToken, {
    currency: 'USD',
    amount: '1000.00',
  });
  const windows: { from: number; to: number; payoutId: string }[] = [];
  for (let i = 0; i < creates; i++) {
    const from = Date.now();
    const { payout } = await ok(
      server.url,
      'POST',
      '/payment/quickpayout',
      api_key.token,
      payoutBody(`durable-${i}`),
    );
    windows.push({ from, to: Date.now(), payoutId: payout.payout_id });
  }
  // The server's own pid is in its lock; SIGTERM to it stops the database too, and strace with it.
  const pid = Number(readFileSync(join(dataDir, 'payrail.lock'), 'utf8'));
  process.kill(pid, 'SIGTERM');
  await server.exited;
  const flushes = walFlushes(readFileSync(tracePath, 'utf8'));
  return windows.map(({ from, to }) => flushes.filter((f) => f.at >= from && f.at <= to).length);
};

describe('the server on the embedded default', () => {
  it.skipIf(!hasStrace && process.env.CI !== 'true')(
    'durability: each answered payout create flushed its WAL (fdatasync on pg_wal) before the answer; PGlite flushes none',
    async () => {
      const perCreate = await flushesPerCreate(join(root, 'strace-default'), {}, 10);
      console.info(`WAL flushes per create, embedded PostgreSQL: ${perCreate.join(' ')}`);
      expect(perCreate.filter((n) => n === 0)).toEqual([]);

      // What ADR 0037 reports of PGlite: it says a sync is done without doing it.
      const onPGlite = await flushesPerCreate(
        join(root, 'strace-pglite'),
        { PAYRAIL_EMBEDDED_DATABASE: 'pglite' },
        10,
      );
      console.info(`WAL flushes per create, PGlite: ${onPGlite.join(' ')}`);
      expect(onPGlite.reduce((sum, n) => sum + n, 0)).toBe(0);
    },
    180_000,
  );

  it('owners: a database orphaned by a SIGKILLed server is stopped at the next start, and nothing answered is lost', async () => {
    const dataDir = join(root, 'orphan');
    const first = await start(dataDir);
    const ids = await walkthrough(first.url, adminToken);
    const orphan = Number(
      readFileSync(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    expect((await first.stop('SIGKILL')).signal).toBe('SIGKILL');

    const second = await start(dataDir);
    expect(second.output()).toContain(
      `stopping the embedded PostgreSQL (pid ${orphan}) left running by a process that is gone`,
    );
    await expectDurable(second.url, ids);
    expect(await second.stop('SIGTERM')).toMatchObject({ code: 0 });
  }, 120_000);

  it('existing data: a PGlite data directory is refused until `payrail store migrate` moves it, then everything is there', async () => {
    const dataDir = join(root, 'legacy');
    // Written as an earlier payrail wrote it: PGlite in <data dir>/pgdata.
    const old = await start(dataDir, { PAYRAIL_EMBEDDED_DATABASE: 'pglite' });
    expect(old.output()).toContain('embedded PGlite (not flushed to disk: ADR 0037)');
    const ids = await walkthrough(old.url, adminToken);
    expect(await old.stop('SIGTERM')).toMatchObject({ code: 0 });

    const refused = await runProcess(serverMain, { PAYRAIL_DATA_DIR: dataDir, PORT: '0' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `payrail: could not start: UnmigratedPGliteData: ${dataDir} holds a PGlite database ` +
        '(pgdata/) written by an earlier payrail, and the default embedded database is now ' +
        'PostgreSQL. Move it with `payrail store migrate` (stop payrail first), or keep it as it ' +
        'is with PAYRAIL_EMBEDDED_DATABASE=pglite',
    );
    // Refused before anything was created beside the old money.
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);

    const moved = await runProcess(['bin/payrail.js', 'store', 'migrate'], {
      PAYRAIL_DATA_DIR: dataDir,
    });
    expect(moved).toMatchObject({ code: 0, stderr: '' });
    expect(moved.stdout).toMatch(
      new RegExp(
        `^payrail: moved \\d+ rows in \\d+ tables into the embedded PostgreSQL in ${dataDir}; ` +
          `the PGlite files are kept in ${dataDir}/pgdata\\.migrated-`,
      ),
    );
    expect(readdirSync(dataDir).filter((name) => name.startsWith('pgdata'))).toHaveLength(1);

    const server = await start(dataDir);
    await expectDurable(server.url, ids);
    // Writing goes on where it left off.
    const { payout } = await ok(
      server.url,
      'POST',
      '/payment/quickpayout',
      ids.key,
      payoutBody('after-the-move'),
    );
    expect(payout.status).toBe('pending_review');
    expect(await server.stop('SIGTERM')).toMatchObject({ code: 0 });

    // A second migrate finds nothing to move and says so.
    const again = await runProcess(['bin/payrail.js', 'store', 'migrate'], {
      PAYRAIL_DATA_DIR: dataDir,
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `payrail: store migrate failed: Error: ${dataDir} holds no PGlite database (pgdata/): nothing to move\n`,
    );
  }, 240_000);
});
