/**
 * The real server process on the embedded PostgreSQL, as the README starts it: the
 * walkthrough over real HTTP, the `payrail` CLI against it, a clean SIGTERM, and a restart on
 * the same data directory that finds everything where it was.
 */
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  expectDurable,
  ok,
  printedAdminToken,
  runProcess,
  type ServerProcess,
  serverMain,
  startServerProcess,
  walkthrough,
} from './server-process.test-support.js';

let dataDir = '';
const running: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payrail-process-'));
});
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')));
  await rm(dataDir, { recursive: true, force: true });
});

const start = async (env: Record<string, string>) => {
  const server = await startServerProcess({
    PORT: '0',
    PAYRAIL_DATA_DIR: dataDir,
    PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
    ...env,
  });
  running.push(server);
  return server;
};

describe('the server process on the embedded store', () => {
  let ids: Awaited<ReturnType<typeof walkthrough>>;

  it('serves the walkthrough, answers the CLI, and stops cleanly on SIGTERM', async () => {
    const server = await start({ PAYRAIL_ADMIN_TOKEN: adminToken });
    expect(server.output()).toContain(
      `payrail listening on ${server.url} (sandbox, embedded PostgreSQL in ${dataDir})`,
    );
    expect((await stat(join(dataDir, 'key-secret'))).mode & 0o777).toBe(0o600);

    ids = await walkthrough(server.url, adminToken);

    // The operator CLI, through the package's bin, against the running server.
    const cli = (...args: string[]) =>
      runProcess(['bin/payrail.js', ...args], {
        PAYRAIL_URL: server.url,
        PAYRAIL_ADMIN_TOKEN: adminToken,
      });
    const created = await cli('merchant', 'create', '--name', 'Cli Co', '--json');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const accountId = JSON.parse(created.stdout).merchant.account_id as string;
    const issued = await cli('key', 'issue', '--account', accountId, '--permissions', 'all');
    expect(issued.code).toBe(0);
    const token = issued.stdout.trim().split('\n').at(-1) ?? '';
    expect((await ok(server.url, 'GET', '/payment/account', token)).account.account_id).toBe(
      accountId,
    );
    const traced = await fetch(`${server.url}/payment/account`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Request-Id': 'readme-1' },
    });
    expect([traced.status, traced.headers.get('x-request-id')]).toEqual([200, 'readme-1']);
    const credited = await cli(
      'account',
      'credit',
      '--account',
      accountId,
      '--currency',
      'USD',
      '--amount',
      '5.00',
    );
    expect(credited).toMatchObject({ code: 0 });
    expect(credited.stdout).toContain('available  5.00');
    const refused = await cli(
      'account',
      'credit',
      '--account',
      'acc_nope',
      '--currency',
      'USD',
      '--amount',
      '1.00',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^payrail: the server refused: .+ \(HTTP 40\d, code \d+\)/);

    // The README's named reviewer: added with the CLI, her credential approves a payout, and
    // the audit trail answers who approved it.
    const added = await cli('operator', 'add', '--name', 'alice', '--role', 'reviewer', '--json');
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const alice = JSON.parse(added.stdout).operator.token as string;
    const { payout } = await ok(server.url, 'POST', '/payment/quickpayout', token, {
      currency: 'USD',
      amount: '1.00',
      method_id: 1,
      reference: 'AUDIT-1',
      notify_url: 'http://127.0.0.1:9/payrail-payouts',
      beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane02' } },
      beneficiary_account: {
        network_code: 'WALLETA',
        fields: { walleta_email: 'jane@example.com' },
      },
    });
    await ok(server.url, 'POST', `/admin/payouts/${payout.payout_id}/review`, alice, {
      action: 'approve',
    });
    const trail = await ok(
      server.url,
      'GET',
      `/admin/audit?object_id=${payout.payout_id}&action=payout.review`,
      adminToken,
    );
    expect(trail.items).toMatchObject([
      { actor_type: 'operator', actor_name: 'alice', detail: 'approve', object_type: 'payout' },
    ]);

    // One process per data directory.
    const second = await runProcess(serverMain, {
      PORT: '0',
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: adminToken,
    });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      'payrail: could not start: DataDirInUse: another payrail process',
    );

    const exit = await server.stop('SIGTERM');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(5000);
    expect(server.output()).toContain('payrail stopped');
    // The log (stdout is a pipe): JSON records, but for the secret generated for this run, and
    // one of them the access record of the request that sent its own id (issue 22).
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.filter((line) => !line.startsWith('{'))).toEqual([
      expect.stringMatching(/^ {2}PAYRAIL_UPSTREAM_SANDBOX_SECRET=whsec_/),
    ]);
    // The secret is on the line after the record that announces it (the log is written off the
    // event loop, the secret by a plain write: it waits for the log).
    const secretLine = lines.findIndex((line) => !line.startsWith('{'));
    expect(JSON.parse(lines[secretLine - 1] ?? '{}')).toMatchObject({
      level: 'warn',
      setting: 'PAYRAIL_UPSTREAM_SANDBOX_SECRET',
    });
    const records = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(records.find((record) => record.request_id === 'readme-1')).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      route: '/payment/account',
      status: 200,
      account_id: accountId,
    });
    // Secrets never reach the log: neither the configured operator token nor an API key.
    expect(server.output()).not.toContain(adminToken);
    expect(server.output()).not.toContain(ids.key);
    expect(server.output()).not.toContain(token);
    expect(server.output()).not.toContain(alice);
  });

  it('starts again on the same data directory and finds everything', async () => {
    // No operator token this time: one is generated and printed once.
    const server = await start({});
    const operator = printedAdminToken(server.output());
    expect(server.output().split(operator)).toHaveLength(2);
    await expectDurable(server.url, ids);
    expect(
      (await ok(server.url, 'GET', `/admin/accounts/${ids.accountId}/api-keys`, operator)).items,
    ).toHaveLength(1);
    const exit = await server.stop('SIGINT');
    expect(exit).toMatchObject({ code: 0 });
    expect(exit.ms).toBeLessThan(5000);
  });

  it('live without PAYRAIL_ADMIN_TOKEN writes the token it generated to a 0600 file and logs the path, never the token (issue 35, L5)', async () => {
    const liveDir = await mkdtemp(join(tmpdir(), 'payrail-live-'));
    try {
      const server = await startServerProcess({
        PORT: '0',
        PAYRAIL_ENV: 'live',
        PAYRAIL_DATA_DIR: liveDir,
      });
      running.push(server);
      const file = join(liveDir, 'admin-token');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const token = (await readFile(file, 'utf8')).trim();
      expect(token).toMatch(/^\S{20,}$/);
      expect(server.output()).toContain(`the operator token of this run is in ${file} (mode 0600`);
      expect(server.output()).not.toContain(token);
      expect(server.output()).not.toMatch(/^ {2}PAYRAIL_ADMIN_TOKEN=/m);
      // The token in the file is the operator token of the running server.
      expect(await ok(server.url, 'GET', '/admin/operators', token)).toHaveProperty('items');
      expect(await server.stop('SIGTERM')).toMatchObject({ code: 0 });
    } finally {
      await rm(liveDir, { recursive: true, force: true });
    }
  });

  it('sandbox money becomes live money: PAYRAIL_ENV=live on this sandbox data directory exits 1 and says how to start live', async () => {
    const result = await runProcess(serverMain, { PAYRAIL_ENV: 'live', PAYRAIL_DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'payrail: could not start: StoreEnvironmentError: this store was created for sandbox; ' +
        `payrail live will not use it. Start live on a new PAYRAIL_DATA_DIR (this one is ${dataDir})`,
    );
    expect(result.stdout).not.toContain('payrail listening');
  });

  it('refuses insecure webhooks in live with a clear startup error', async () => {
    const result = await runProcess(serverMain, {
      PAYRAIL_ENV: 'live',
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
      PAYRAIL_DATA_DIR: dataDir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'payrail: the configuration is not valid:\n' +
        '  - PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 is a sandbox setting (http and loopback webhook ' +
        'targets) and is refused with PAYRAIL_ENV=live; unset it\n',
    );
    expect(result.stdout).toBe('');
  });
});

/** Every folder not 0700 and every file not 0600 (a socket: 0700) under `root`, with its mode. */
const notOwnerOnly = async (root: string): Promise<string[]> => {
  const off: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const stats = await lstat(path).catch(() => undefined);
    if (stats === undefined) return; // removed while walking (a recycled log segment)
    const mode = stats.mode & 0o777;
    if (stats.isDirectory()) {
      if (mode !== 0o700) off.push(`${path} ${mode.toString(8)}`);
      for (const entry of await readdir(path).catch(() => [])) await walk(join(path, entry));
    } else if (mode !== (stats.isSocket() ? 0o700 : 0o600)) {
      off.push(`${path} ${mode.toString(8)}`);
    }
  };
  await walk(root);
  return off;
};

describe('open files: the server on a pre-existing 0755 data directory', () => {
  it('keeps every folder 0700 and every file 0600, after start and the walkthrough and after stop', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'payrail-modes-'));
    try {
      const dir = join(parent, 'data');
      await mkdir(dir);
      await chmod(dir, 0o755);
      await writeFile(join(dir, 'notes.txt'), 'left here before payrail');
      await chmod(join(dir, 'notes.txt'), 0o666);
      const server = await startServerProcess({
        PORT: '0',
        PAYRAIL_DATA_DIR: dir,
        PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
        PAYRAIL_ADMIN_TOKEN: adminToken,
      });
      running.push(server);
      await walkthrough(server.url, adminToken);
      expect(await notOwnerOnly(dir)).toEqual([]);
      expect(await server.stop('SIGTERM')).toMatchObject({ code: 0 });
      expect(await notOwnerOnly(dir)).toEqual([]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
