/**
 * The real server process, started as `pnpm start` starts it (`node dist/main.js` in this
 * package: the build, with plain node), and the walkthrough of the README run against it over
 * real HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { permissions } from '@payrail/engine';
import { expect } from 'vitest';
import { type EnvRecord, embeddedDatabaseIn } from './config.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
/** The built server, run by plain `node` in one process, so a signal reaches the server itself. */
export const serverMain: readonly string[] = ['dist/main.js'];

/**
 * The test runner's environment without anything that configures payrail, but for the drain of
 * a stopping server: none, so that stops take what they took before it (a test of the drain
 * sets its own, metrics.prometheus.process.test.ts).
 */
const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = { PAYRAIL_SHUTDOWN_DRAIN_MS: '0' };
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(PAYRAIL_|DATABASE_URL$|PORT$|HOST$|INIT_CWD$)/.test(name)) continue;
    env[name] = value;
  }
  return env;
};

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly ms: number;
}

export interface ServerProcess {
  readonly url: string;
  /** stdout and stderr so far. */
  output(): string;
  /** Sends `signal` and answers how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
  readonly exited: Promise<Exit>;
}

const exitOf = (child: ChildProcess, started: () => number): Promise<Exit> =>
  new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - started() }));
  });

/**
 * SIGKILLs the embedded PostgreSQL of a data directory, its server and every backend (each
 * PostgreSQL child is a process group of its own, so they are found by their working directory,
 * the cluster's), as a machine that loses power would: a crash of payrail's process alone leaves
 * the database running, to be reclaimed at the next start.
 */
export const killEmbeddedDatabase = (dataDir: string): void => {
  const cluster = realpathSync(join(embeddedDatabaseIn(dataDir), 'data'));
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let cwd: string | undefined;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      cwd = undefined;
    }
    if (cwd !== cluster) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
};

/** Runs a command to its end. */
export const runProcess = (
  args: readonly string[],
  env: EnvRecord,
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: packageDir,
      env: { ...baseEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });

/**
 * `node dist/main.js`, as `pnpm start` runs it; resolves once it prints where it listens. A
 * `launcher` (`['strace', ...]`) runs in front of node.
 */
export const startServerProcess = (
  env: EnvRecord,
  timeoutMs = 60_000,
  args: readonly string[] = serverMain,
  launcher: readonly string[] = [],
): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const [command = process.execPath, ...before] = launcher;
    const argv = launcher.length === 0 ? args : [...before, process.execPath, ...args];
    const child = spawn(command, argv, {
      cwd: packageDir,
      env: { ...baseEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stopAt = Date.now();
    const exited = exitOf(child, () => stopAt);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not print its URL within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onOutput = (chunk: Buffer): void => {
      output += String(chunk);
      const match = /payrail listening on (http:\/\/\S+) /.exec(output);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      child.stdout?.off('data', onOutput);
      child.stdout?.on('data', (more) => {
        output += String(more);
      });
      resolve({
        url: match[1],
        output: () => output,
        exited,
        stop: (signal = 'SIGTERM') => {
          stopAt = Date.now();
          child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', (chunk) => {
      output += String(chunk);
    });
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(
        new Error(`the server exited (${exit.code ?? exit.signal}) before listening:\n${output}`),
      );
    });
  });

export interface Envelope {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers by path, as a merchant reads JSON.
  readonly data: any;
}

export const call = async (
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Envelope> => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, ...((await res.json()) as Omit<Envelope, 'status'>) };
};

/** A call that must succeed; answers its data. */
export const ok = async (
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: see Envelope.
): Promise<any> => {
  const answer = await call(base, method, path, token, body);
  expect(answer, `${method} ${path}`).toMatchObject({ status: 200, code: 0, message: 'success' });
  return answer.data;
};

export const adminToken = 'operator-token-for-the-process-test';

/**
 * The README's walkthrough against a running server: a merchant and a key through the admin
 * API, a credit, a webhook, a payout approved and executed, an order paid. Answers the ids a
 * restarted server must still know.
 */
export const walkthrough = async (url: string, operator: string) => {
  const { merchant } = await ok(url, 'POST', '/admin/merchants', operator, { name: 'Acme' });
  const accountId = merchant.account_id as string;
  const { api_key } = await ok(url, 'POST', `/admin/accounts/${accountId}/api-keys`, operator, {
    permissions,
  });
  const key = api_key.token as string;
  await ok(url, 'POST', `/admin/accounts/${accountId}/credit`, operator, {
    currency: 'USD',
    amount: '100.00',
  });
  const { webhook } = await ok(url, 'POST', '/payment/webhooks', key, {
    url: 'http://127.0.0.1:9/payrail-hooks',
    events: ['acquiring.*'],
  });

  const { payout } = await ok(url, 'POST', '/payment/quickpayout', key, {
    client_request_id: 'walkthrough-1',
    currency: 'USD',
    amount: '25.00',
    method_id: 1,
    reference: 'INV-1001',
    notify_url: 'http://127.0.0.1:9/payrail-payouts',
    beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
    beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
  });
  expect(payout).toMatchObject({ status: 'pending_review', amount: '25.00' });
  const payoutId = payout.payout_id as string;
  await ok(url, 'POST', `/admin/payouts/${payoutId}/review`, operator, { action: 'approve' });
  await ok(url, 'POST', `/admin/sandbox/payouts/${payoutId}/execution`, operator, {
    outcome: 'completed',
  });

  const { order } = await ok(url, 'POST', '/payment/acquiring/orders', key, {
    out_trade_no: 'ORDER-1001',
    order_currency: 'USD',
    order_amount: '10.00',
    expire_seconds: 600,
    underpay_tolerance: '0',
    notify_webhook_id: webhook.webhook_id,
  });
  expect(order.checkout_url).toBe(`${url}/checkout/${order.order_id}`);
  const orderId = order.order_id as string;
  const { payment } = await ok(
    url,
    'POST',
    `/admin/sandbox/acquiring/orders/${orderId}/payments`,
    operator,
    { token_id: 'TRON_USDT', amount: '10.000000', status: 'confirmed', tx_hash: '0xfeed' },
  );
  expect(payment).toMatchObject({ order_id: orderId, token_id: 'TRON_USDT' });

  expect((await ok(url, 'GET', `/payment/payouts/${payoutId}`, key)).payout).toMatchObject({
    status: 'completed',
    review_status: 'approved',
    execution_status: 'completed',
  });
  expect((await ok(url, 'GET', `/payment/acquiring/orders/${orderId}`, key)).order).toMatchObject({
    status: 'completed',
    paid_amount_total: '10.000000',
  });
  // 100.00 - (25.00 + 0.50 fixed + 1 % of 25.00)
  const balances = await ok(url, 'GET', '/payment/balances?currency=USD', key);
  expect(JSON.stringify(balances)).toContain('"available":"74.25"');
  return { accountId, key, payoutId, orderId };
};

/** What a restarted server must still answer for the walkthrough's objects. */
export const expectDurable = async (
  url: string,
  ids: { key: string; payoutId: string; orderId: string },
) => {
  // The same API key still works: the signing secret survived the restart.
  expect((await ok(url, 'GET', `/payment/payouts/${ids.payoutId}`, ids.key)).payout).toMatchObject({
    payout_id: ids.payoutId,
    status: 'completed',
  });
  expect(
    (await ok(url, 'GET', `/payment/acquiring/orders/${ids.orderId}`, ids.key)).order,
  ).toMatchObject({ order_id: ids.orderId, status: 'completed' });
  expect(JSON.stringify(await ok(url, 'GET', '/payment/balances?currency=USD', ids.key))).toContain(
    '"available":"74.25"',
  );
};

/** The operator token a server printed because none was configured. */
export const printedAdminToken = (output: string): string => {
  const match = /^ {2}PAYRAIL_ADMIN_TOKEN=(\S+)$/m.exec(output);
  if (match?.[1] === undefined) throw new Error(`no generated token in the output:\n${output}`);
  return match[1];
};
