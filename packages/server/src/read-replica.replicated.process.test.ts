/**
 * The read replica over real replication (ADR 0054): a server process with DATABASE_URL on a
 * primary and PAYRAIL_DATABASE_READ_URL on its streaming hot standby. What a merchant notices:
 *
 * - a payout created through the primary is readable through GET once the standby replayed it
 *   (the delay is measured and printed: docs/scaling.md quotes it);
 * - lists, balances and single reads come from the standby: with its replay paused, a new payout
 *   is not listed and the balance shows the money it holds as still there, while a repeat of the
 *   create with the same client_request_id answers the original (idempotency on the primary) and
 *   a second payout that the old balance would have paid fails for want of funds (the hold is
 *   decided on the primary);
 * - a standby that is down sends the reads to the primary: they answer, and answer fresh.
 *
 * Needs PostgreSQL's binaries for two private clusters; CI=true fails without them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateClusterMissing } from './private-cluster.test-support.js';
import { loadEnv } from './process-load.test-support.js';
import { createPrimaryAndStandby, type PrimaryAndStandby } from './read-replica.test-support.js';
import {
  adminToken,
  call,
  ok,
  type ServerProcess,
  startServerProcess,
} from './server-process.test-support.js';

const missing = privateClusterMissing();
const inCI = process.env.CI === 'true';
if (missing !== undefined && !inCI) {
  console.warn(`${missing}: the read-replica test on a primary and a standby is skipped.`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(missing !== undefined && !inCI)('reads on a streaming standby', () => {
  let pair: PrimaryAndStandby | undefined;
  let server: ServerProcess | undefined;
  let dataDir = '';
  let url = '';
  let key = '';
  let n = 0;

  const payoutBody = (clientRequestId: string, amount: string) => {
    n += 1;
    return {
      client_request_id: clientRequestId,
      currency: 'USD',
      amount,
      method_id: 1,
      reference: `INV-${n}`,
      notify_url: 'http://127.0.0.1:9/payrail-payouts',
      beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
      beneficiary_account: {
        network_code: 'WALLETA',
        fields: { walleta_email: 'jane@example.com' },
      },
    };
  };

  const availableUsd = async (): Promise<string> => {
    const { items } = await ok(url, 'GET', '/payment/balances?currency=USD', key);
    return items[0]?.available as string;
  };

  /** Approved by an operator and executed in the sandbox: the hold and the debit. */
  const execute = async (payoutId: string) => {
    await ok(url, 'POST', `/admin/payouts/${payoutId}/review`, adminToken, { action: 'approve' });
    return (
      await ok(url, 'POST', `/admin/sandbox/payouts/${payoutId}/execution`, adminToken, {
        outcome: 'completed',
      })
    ).payout;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-replica-'));
    pair = await createPrimaryAndStandby();
    server = await startServerProcess({
      ...loadEnv(adminToken),
      PAYRAIL_DATA_DIR: dataDir,
      DATABASE_URL: pair.primary.url(),
      PAYRAIL_DATABASE_READ_URL: pair.standby.url(),
      PAYRAIL_KEY_SECRET: randomBytes(32).toString('base64url'),
    });
    url = server.url;
    const { merchant } = await ok(url, 'POST', '/admin/merchants', adminToken, { name: 'Acme' });
    const { api_key } = await ok(
      url,
      'POST',
      `/admin/accounts/${merchant.account_id}/api-keys`,
      adminToken,
      {
        permissions: [
          'payment.payout.create',
          'payment.payout.submit',
          'payment.payout.read',
          'payment.wallet.read',
          'payment.ledger.read',
        ],
      },
    );
    key = api_key.token as string;
    await ok(url, 'POST', `/admin/accounts/${merchant.account_id}/credit`, adminToken, {
      currency: 'USD',
      amount: '100.00',
    });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await pair?.remove();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a created payout is readable through GET once the standby replayed it', async () => {
    const delays: number[] = [];
    let staleFirstReads = 0;
    for (let i = 0; i < 20; i += 1) {
      const { payout } = await ok(url, 'POST', '/payment/quickpayout', key, {
        ...payoutBody(`lag-${i}`, '1.00'),
      });
      const answered = performance.now();
      for (let polls = 0; ; polls += 1) {
        const read = await call(url, 'GET', `/payment/payouts/${payout.payout_id}`, key);
        if (read.status === 200) {
          expect(read.data.payout).toMatchObject({ payout_id: payout.payout_id });
          break;
        }
        // Not replayed yet: the standby has not seen the payout.
        expect(read.message).toBe('payout not found');
        if (polls === 0) staleFirstReads += 1;
        if (performance.now() - answered > 30_000) throw new Error('never replayed');
      }
      delays.push(performance.now() - answered);
    }
    const sorted = [...delays].sort((a, b) => a - b);
    const at = (q: number) => (sorted[Math.floor(q * (sorted.length - 1))] ?? 0).toFixed(1);
    const [lag] = await (pair as PrimaryAndStandby).query<{ replay_lag: string | null }>(
      'primary',
      'SELECT replay_lag::text FROM pg_stat_replication',
    );
    console.log(
      `read replica: a created payout readable through GET after median ${at(0.5)} ms, ` +
        `max ${at(1)} ms over ${delays.length} payouts; ${staleFirstReads} first reads were ` +
        `stale (payout not found); pg_stat_replication.replay_lag ${lag?.replay_lag ?? 'null'}`,
    );
    expect(delays).toHaveLength(20);
  }, 120_000);

  it('reads come from the standby; idempotency and the balance are decided on the primary', async () => {
    const cluster = pair as PrimaryAndStandby;
    const before = await availableUsd();
    await cluster.pause();
    try {
      const first = (
        await ok(url, 'POST', '/payment/quickpayout', key, payoutBody('paused-1', '60.00'))
      ).payout;
      // The standby has not replayed it: the list and the payout itself do not show it yet.
      const listed = await ok(url, 'GET', '/payment/payouts?client_request_id=paused-1', key);
      expect(listed.total).toBe(0);
      const single = await call(url, 'GET', `/payment/payouts/${first.payout_id}`, key);
      expect(single).toMatchObject({ status: 404, message: 'payout not found' });
      // The same create again is answered by the primary: the original payout, not a second one.
      const again = await call(url, 'POST', '/payment/quickpayout', key, {
        ...payoutBody('paused-1', '60.00'),
        reference: first.reference,
      });
      expect(again.status === 200 ? again.data.payout.payout_id : again.message).toBe(
        first.payout_id,
      );

      // 60.00 + fee 1.10 leaves 38.90 on the primary; the standby still shows what was before.
      expect((await execute(first.payout_id)).status).toBe('completed');
      expect(await availableUsd()).toBe(before);
      // A second 60.00 would be paid out of the stale balance: the primary's says no.
      const second = (
        await ok(url, 'POST', '/payment/quickpayout', key, payoutBody('paused-2', '60.00'))
      ).payout;
      expect(await execute(second.payout_id)).toMatchObject({ status: 'failed' });
    } finally {
      await cluster.resume();
    }
    // Replayed: the standby now shows all of it.
    const lsn = await cluster.primaryLsn();
    while (!(await cluster.replayed(lsn))) await sleep(20);
    expect(await availableUsd()).toBe('38.90');
    const listed = await ok(url, 'GET', '/payment/payouts?client_request_id=paused-1', key);
    expect(listed.total).toBe(1);
  }, 120_000);

  it('a standby that is down sends the reads to the primary', async () => {
    const cluster = pair as PrimaryAndStandby;
    await cluster.standby.stop('immediate');
    const { payout } = await ok(
      url,
      'POST',
      '/payment/quickpayout',
      key,
      payoutBody('standby-down', '1.00'),
    );
    // Fresh at once: the primary answers the read.
    const read = await ok(url, 'GET', `/payment/payouts/${payout.payout_id}`, key);
    expect(read.payout.payout_id).toBe(payout.payout_id);
    const listed = await ok(url, 'GET', '/payment/payouts?client_request_id=standby-down', key);
    expect(listed.total).toBe(1);
    expect((await ok(url, 'GET', '/payment/ledger?currency=USD', key)).total).toBeGreaterThan(0);
  }, 60_000);
});
