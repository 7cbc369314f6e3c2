/**
 * Failover under load (issue 23, docs/scaling.md "The failover test"): two real server processes
 * (`node dist/main.js`, sandbox) run on a primary and its synchronous standby
 * (replicated-cluster.test-support.ts) through libpq's multi-host DATABASE_URL with
 * `target_session_attrs=read-write`. Clients create quick payouts (each with a
 * client_request_id and a notify_url), an operator approves them (the review an operator does,
 * not the merchant's key) and the sandbox executes them, while webhooks and callbacks go to a
 * receiver of the test. `FAILOVERS` times (5 by default; `pnpm test:deep` runs 20) the primary
 * is killed with SIGKILL, the standby promoted and a new standby built on the dead node's port.
 *
 * What the clients are told must hold on the last primary:
 *
 * - every request is answered 200 or 503 `service unavailable` with `Retry-After`, within the
 *   client's timeout: never a 500, never a hang;
 * - every payout answered is there, in the state answered or one asked for since; its ledger is
 *   as its status says (a hold once executed, then the debit and fee, or the release);
 * - a create answered 503 left nothing half done: repeated with its client_request_id it answers
 *   exactly one payout, with nothing in the ledger; an approval or execution answered 503 either
 *   happened whole (state, ledger, event) or not at all;
 * - every outbox message is delivered, each event of each answered state is among them, and the
 *   receiver saw each one: at least once. A duplicate carries the same webhook-id and the same
 *   body, so a receiver that keeps the ids it has seen drops it.
 *
 * The gap of each failover (SIGKILL to the first new create answered 200 among those sent once
 * the killed processes were gone) and the totals are printed. `FAILOVER_SEED` repeats a run's choices (the timing is the machine's).
 * In CI the PostgreSQL binaries must be there; elsewhere the test is skipped without them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutboxMessage } from '@payrail/core';
import { createPostgresStore } from '@payrail/store-postgres';
import { postgresOracle } from '@payrail/store-postgres/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  allPages,
  loadEnv,
  type Random,
  type Receiver,
  seededRandom,
  startReceiver,
  until,
} from './process-load.test-support.js';
import {
  createReplicatedCluster,
  type ReplicatedCluster,
  replicatedClusterMissing,
} from './replicated-cluster.test-support.js';
import {
  adminToken,
  type Envelope,
  ok,
  type ServerProcess,
  startServerProcess,
} from './server-process.test-support.js';

const failovers = Number(process.env.FAILOVERS ?? 5);
const seed = Number(process.env.FAILOVER_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Concurrent clients, each sending to either process. */
const clients = 4;
/**
 * How long a client waits for an answer: a request past it is a hang. Commits on a promoted
 * primary wait for its new standby (synchronous replication), seconds on a loaded machine.
 */
const clientTimeoutMs = 30_000;
/** Creates answered between two failovers, so each kill meets a process under load. */
const createsBetween = 15;
const timeout = 120_000 + failovers * 40_000;

const missing = replicatedClusterMissing();
const inCI = process.env.CI === 'true';
if (missing !== undefined && !inCI) console.warn(`${missing}: the failover test is skipped.`);

type Stage = 'pending_review' | 'approved' | 'completed' | 'failed';
const stageRank: Readonly<Record<Stage, number>> = {
  pending_review: 0,
  approved: 1,
  completed: 2,
  failed: 2,
};

interface PayoutModel {
  readonly id: string;
  readonly body: Record<string, unknown>;
  readonly cents: number;
  /** The furthest state a client was told of. */
  answered: Stage;
  /** The furthest state a client asked for, answered or not. */
  attempted: Stage;
}

/** One request of the load, as its client saw it. */
interface Reply {
  /** `create` is a first attempt; `repeat` a create repeated after a 503. */
  readonly kind: 'create' | 'repeat' | 'approve' | 'execute';
  readonly what: string;
  readonly server: number;
  readonly sentAt: number;
  readonly answeredAt: number;
  /** 0: no answer within the client's timeout, or the connection failed. */
  readonly status: number;
  readonly retryAfter: string | null;
  readonly envelope: Omit<Envelope, 'status'> | undefined;
  readonly error?: string;
}

interface FailoverFigures {
  /** SIGKILL to the first new create answered 200 among those sent after it. */
  gapMs: number;
  /** SIGKILL until the killed processes were gone (the harness's wait). */
  killMs: number;
  promoteMs: number;
  /** From the promotion to the first new create answered 200. */
  servedMs: number;
  /** pg_basebackup, start, and until the standby streams synchronously. */
  rebuildMs: number;
  /** Requests answered within the gap, and how. */
  requests: number;
  succeeded: number;
  unavailable: number;
}

/** What the test reads of a payout answered by a create. */
interface PayoutData {
  readonly payout_id: string;
  readonly status: string;
  readonly amount: string;
}

interface LedgerRecord {
  record_type: string;
  currency: string;
  bucket: 'available' | 'held';
  amount: string;
  business_type: string;
  business_id: string;
}

const usd = (cents: number): string =>
  `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
/** The sandbox USD route: 0.50 fixed + 1 %, half up. */
const feeCents = (cents: number): number => 50 + Math.floor((cents + 50) / 100);
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/** A request with the client's timeout; any answer's status, `Retry-After` and envelope. */
const send = async (
  base: string,
  server: number,
  kind: Reply['kind'],
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Reply> => {
  const what = `${method} ${path}`;
  const sentAt = Date.now();
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(clientTimeoutMs),
    });
    const text = await res.text();
    let envelope: Omit<Envelope, 'status'> | undefined;
    try {
      envelope = JSON.parse(text) as Omit<Envelope, 'status'>;
    } catch {
      envelope = undefined;
    }
    return {
      kind,
      what,
      server,
      sentAt,
      answeredAt: Date.now(),
      status: res.status,
      retryAfter: res.headers.get('Retry-After'),
      envelope,
      ...(envelope === undefined ? { error: `not the envelope: ${text.slice(0, 200)}` } : {}),
    };
  } catch (error) {
    return {
      kind,
      what,
      server,
      sentAt,
      answeredAt: Date.now(),
      status: 0,
      retryAfter: null,
      envelope: undefined,
      // fetch's own message is "fetch failed": the reason (refused, reset, timeout) is its cause.
      error: `${String(error)} (${String(error instanceof Error ? error.cause : undefined)})`,
    };
  }
};

const succeeded = (reply: Reply): boolean => reply.status === 200 && reply.envelope?.code === 0;
/** 503 `service unavailable` with a `Retry-After` of whole seconds: the failover's answer. */
const unavailable = (reply: Reply): boolean =>
  reply.status === 503 &&
  reply.envelope?.message === 'service unavailable' &&
  /^\d+$/.test(reply.retryAfter ?? '');

const running: ServerProcess[] = [];
let cluster: ReplicatedCluster | undefined;
let receiver: Receiver | undefined;
let dataDir = '';

afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')));
  await receiver?.close();
  await cluster?.remove();
  if (dataDir !== '') await rm(dataDir, { recursive: true, force: true });
});

describe.skipIf(missing !== undefined && !inCI)('failover under load', () => {
  it(
    `keeps every answer, the ledger and the deliveries through ${failovers} failovers of a synchronous pair`,
    async () => {
      const began = Date.now();
      const random: Random = seededRandom(seed);
      const label = `failover seed ${seed}`;
      dataDir = await mkdtemp(join(tmpdir(), 'payrail-failover-load-'));
      const pair = await createReplicatedCluster();
      cluster = pair;
      const hooks = await startReceiver(() => random.int(0, 20));
      receiver = hooks;

      const env = {
        ...loadEnv(adminToken),
        PAYRAIL_ENV: 'sandbox',
        DATABASE_URL: pair.multiHostUrl(),
        PAYRAIL_KEY_SECRET: randomBytes(32).toString('base64url'),
      };
      const servers = await Promise.all(
        ['a', 'b'].map((name) =>
          startServerProcess({ ...env, PAYRAIL_DATA_DIR: join(dataDir, name) }),
        ),
      );
      running.push(...servers);
      const urls = servers.map((server) => server.url);
      const first = urls[0] ?? '';

      const { merchant } = await ok(first, 'POST', '/admin/merchants', adminToken, {
        name: 'Failover Co',
      });
      const accountId = merchant.account_id as string;
      const { api_key } = await ok(
        first,
        'POST',
        `/admin/accounts/${accountId}/api-keys`,
        adminToken,
        {
          permissions: [
            'payment.payout.create',
            'payment.payout.submit',
            'payment.payout.read',
            'payment.wallet.read',
            'payment.ledger.read',
            'payment.webhook.read',
            'payment.webhook.write',
          ],
        },
      );
      const key = api_key.token as string;
      await ok(first, 'POST', `/admin/accounts/${accountId}/credit`, adminToken, {
        currency: 'USD',
        amount: '1000000.00',
      });
      const { webhook } = await ok(first, 'POST', '/payment/webhooks', key, {
        url: hooks.url('/hooks'),
        events: ['payout.*'],
      });
      const webhookId = webhook.webhook_id as string;

      // The load: every reply kept, the payouts' model, what a failover's gap is measured by.
      const replies: Reply[] = [];
      const payouts = new Map<string, PayoutModel>();
      /** Creates answered 503, by client_request_id, until one of their repeats is answered. */
      const unansweredCreates = new Map<string, Record<string, unknown>>();
      let repeatedInLoad = 0;
      const pendingPool: string[] = [];
      const approvedPool: string[] = [];
      let serial = 0;
      let createsAnswered = 0;
      let stopping = false;

      const request = async (
        kind: Reply['kind'],
        method: string,
        path: string,
        token: string,
        body?: unknown,
      ) => {
        const server = random.int(0, 1);
        const reply = await send(urls[server] ?? '', server, kind, method, path, token, body);
        replies.push(reply);
        return reply;
      };
      const take = (pool: string[]): string | undefined =>
        pool.length === 0 ? undefined : pool.splice(random.int(0, pool.length - 1), 1)[0];

      const newCreate = (): Record<string, unknown> => {
        serial += 1;
        const payee = random.int(1, 3);
        return {
          client_request_id: `failover-${serial}`,
          currency: 'USD',
          amount: usd(random.int(100, 5000)),
          method_id: 1,
          reference: `FAILOVER-${serial}`,
          notify_url: hooks.url('/payouts'),
          beneficiary: { name: `Payee ${payee}`, fields: { payee_id: `payee${payee}` } },
          beneficiary_account: {
            network_code: 'WALLETA',
            fields: { walleta_email: `payee${payee}@example.com` },
          },
        };
      };
      /** Records a create answered 200 (a first attempt, a repeat, or one repeated at the end). */
      const answeredCreate = (body: Record<string, unknown>, payout: PayoutData): void => {
        expect(payout, `${label}: ${body.client_request_id}`).toMatchObject({
          status: 'pending_review',
          amount: body.amount,
        });
        expect(payouts.has(payout.payout_id), `${label}: a payout answered twice`).toBe(false);
        payouts.set(payout.payout_id, {
          id: payout.payout_id,
          body,
          cents: Math.round(Number(body.amount) * 100),
          answered: 'pending_review',
          attempted: 'pending_review',
        });
      };

      const createPayout = async (): Promise<Reply> => {
        // A merchant answered 503 repeats the create with its client_request_id: half of those
        // are repeated during the load, the rest at the end.
        const waiting = [...unansweredCreates.keys()];
        const again =
          waiting.length > 0 && random.next() < 0.5
            ? waiting[random.int(0, waiting.length - 1)]
            : undefined;
        const body =
          (again === undefined ? undefined : unansweredCreates.get(again)) ?? newCreate();
        unansweredCreates.delete(body.client_request_id as string);
        const reply = await request(
          again === undefined ? 'create' : 'repeat',
          'POST',
          '/payment/quickpayout',
          key,
          body,
        );
        if (!succeeded(reply)) {
          unansweredCreates.set(body.client_request_id as string, body);
          return reply;
        }
        const payout = reply.envelope?.data.payout as PayoutData;
        answeredCreate(body, payout);
        if (again !== undefined) repeatedInLoad += 1;
        pendingPool.push(payout.payout_id);
        createsAnswered += 1;
        return reply;
      };

      const approve = async (): Promise<Reply> => {
        const id = take(pendingPool);
        if (id === undefined) return createPayout();
        const payout = payouts.get(id) as PayoutModel;
        payout.attempted = 'approved';
        const reply = await request('approve', 'POST', `/admin/payouts/${id}/review`, adminToken, {
          action: 'approve',
        });
        if (!succeeded(reply)) return reply;
        expect(reply.envelope?.data.payout, `${label}: approving ${id}`).toMatchObject({
          status: 'approved',
        });
        payout.answered = 'approved';
        approvedPool.push(id);
        return reply;
      };

      const execute = async (): Promise<Reply> => {
        const id = take(approvedPool);
        if (id === undefined) return approve();
        const payout = payouts.get(id) as PayoutModel;
        const outcome = random.next() < 0.8 ? 'completed' : 'failed';
        payout.attempted = outcome;
        const reply = await request(
          'execute',
          'POST',
          `/admin/sandbox/payouts/${id}/execution`,
          adminToken,
          {
            outcome,
            ...(outcome === 'failed' ? { reason: 'recipient wallet closed' } : {}),
          },
        );
        if (!succeeded(reply)) return reply;
        expect(reply.envelope?.data.payout, `${label}: executing ${id}`).toMatchObject({
          status: outcome,
        });
        payout.answered = outcome;
        return reply;
      };

      const act = (): Promise<Reply> => {
        const roll = random.next();
        return roll < 0.4 ? createPayout() : roll < 0.7 ? approve() : execute();
      };
      /** A client that found a violation stops the run: the failovers wait no longer. */
      let failure: unknown;
      const loops = Array.from({ length: clients }, async () => {
        while (!stopping) {
          try {
            // A client told to wait waits a little (not the whole Retry-After: the gap is
            // measured by the first create that succeeds, which a second's sleep would hide).
            if (!succeeded(await act())) {
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          } catch (error) {
            failure ??= error;
            stopping = true;
          }
        }
      });

      // The failovers.
      const figures: FailoverFigures[] = [];
      try {
        for (let round = 1; round <= failovers; round += 1) {
          const before = createsAnswered;
          await until(
            `${label}: ${createsBetween} creates before failover ${round}`,
            () => {
              if (failure !== undefined) throw failure;
              return createsAnswered >= before + createsBetween;
            },
            120_000,
          );
          await new Promise((resolve) => setTimeout(resolve, random.int(0, 100)));
          const killAt = Date.now();
          await pair.killPrimary();
          const killed = Date.now();
          await pair.promoteStandby();
          const promoted = Date.now();
          await pair.rebuildStandby();
          const rebuilt = Date.now();
          // The gap ends with the first new create (a commit, where a repeat of one that had
          // committed only reads) sent once the old primary's processes were gone: one sent in
          // the instant before the SIGKILL landed may still have committed there.
          let firstOk: Reply | undefined;
          await until(
            `${label}: a create answered after failover ${round}`,
            () => {
              if (failure !== undefined) throw failure;
              firstOk = replies.find(
                (reply) => reply.sentAt >= killed && reply.kind === 'create' && succeeded(reply),
              );
              return firstOk !== undefined;
            },
            60_000,
          );
          const end = firstOk?.answeredAt ?? Date.now();
          const inGap = replies.filter(
            (reply) => reply.answeredAt >= killAt && reply.answeredAt <= end,
          );
          figures.push({
            gapMs: end - killAt,
            killMs: killed - killAt,
            promoteMs: promoted - killed,
            servedMs: end - promoted,
            rebuildMs: rebuilt - promoted,
            requests: inGap.length,
            succeeded: inGap.filter(succeeded).length,
            unavailable: inGap.filter(unavailable).length,
          });
        }
      } finally {
        stopping = true;
        await Promise.all(loops);
      }
      if (failure !== undefined) throw failure;

      // Every answer was a success or a 503 with Retry-After, within the client's timeout.
      const wrong = replies.filter((reply) => !succeeded(reply) && !unavailable(reply));
      expect(
        wrong.map((reply) => ({
          what: reply.what,
          status: reply.status,
          retryAfter: reply.retryAfter,
          message: reply.envelope?.message,
          error: reply.error,
          ms: reply.answeredAt - reply.sentAt,
        })),
        `${label}: answers neither 200 nor 503 with Retry-After; the processes said:\n${servers
          .map((server, index) => `server ${index}: ${server.output().slice(-4000)}`)
          .join('\n')}`,
      ).toEqual([]);

      // Creates answered 503, repeated with their client_request_id: one payout each.
      const repeated = unansweredCreates.size;
      for (const body of unansweredCreates.values()) {
        const crid = body.client_request_id as string;
        const again = await ok(first, 'POST', '/payment/quickpayout', key, body);
        answeredCreate(body, again.payout as PayoutData);
        const same = await ok(first, 'GET', `/payment/payouts?client_request_id=${crid}`, key);
        expect(same.total, `${label}: payouts of ${crid}`).toBe(1);
      }
      // An answered create, repeated, answers the same payout.
      const sample = [...payouts.values()][random.int(0, payouts.size - 1)];
      if (sample !== undefined) {
        const again = await ok(urls[1] ?? '', 'POST', '/payment/quickpayout', key, sample.body);
        expect(again.payout.payout_id, `${label}: an answered create repeated`).toBe(sample.id);
      }

      // Every payout there (and no other), between what was answered and what was asked.
      const listed = await allPages<{ payout_id: string; status: string }>((offset) =>
        ok(first, 'GET', `/payment/payouts?limit=100&offset=${offset}`, key),
      );
      expect(listed.length, `${label}: payouts listed`).toBe(payouts.size);
      const statusOf = new Map(listed.map((item) => [item.payout_id, item.status as Stage]));
      for (const payout of payouts.values()) {
        const status = statusOf.get(payout.id);
        const allowed = (['pending_review', 'approved', payout.attempted] as Stage[]).filter(
          (stage) =>
            stageRank[stage] >= stageRank[payout.answered] &&
            stageRank[stage] <= stageRank[payout.attempted],
        );
        expect(allowed, `${label}: payout ${JSON.stringify(payout)}`).toContain(status);
      }

      // The ledger of each payout is as its status says; the balances are its sums.
      const records = await allPages<LedgerRecord>((offset) =>
        ok(first, 'GET', `/payment/ledger?sort_order=asc&limit=100&offset=${offset}`, key),
      );
      const ofType = (id: string, type: string) =>
        records.filter((record) => record.business_id === id && record.record_type === type);
      for (const payout of payouts.values()) {
        const status = statusOf.get(payout.id);
        const holds = ofType(payout.id, 'payout_hold').map((r) => `${r.bucket} ${r.amount}`);
        const releases = ofType(payout.id, 'payout_release');
        const settled = ofType(payout.id, 'payout').map((r) => r.amount);
        const fees = ofType(payout.id, 'payout_fee').map((r) => r.amount);
        const hold = usd(payout.cents + feeCents(payout.cents));
        const story = `${label}: the ledger of ${payout.id} (${status})`;
        if (status === 'completed') {
          expect(holds, story).toEqual([`available -${hold}`, `held ${hold}`]);
          expect(releases, story).toEqual([]);
          expect(settled, story).toEqual([`-${usd(payout.cents)}`]);
          expect(fees, story).toEqual([`-${usd(feeCents(payout.cents))}`]);
        } else if (status === 'failed') {
          expect([0, 2], story).toContain(holds.length);
          expect(releases.length, story).toBe(holds.length);
          expect([...settled, ...fees], story).toEqual([]);
        } else {
          expect([...holds, ...releases, ...settled, ...fees], story).toEqual([]);
        }
      }
      expect(
        records.filter(
          (record) => record.business_type === 'payout' && !payouts.has(record.business_id),
        ),
        `${label}: ledger records of no payout`,
      ).toEqual([]);
      const cents = (amount: string) => Math.round(Number(amount) * 100);
      const sums = new Map<string, number>();
      for (const record of records.filter((r) => r.currency === 'USD')) {
        sums.set(record.bucket, (sums.get(record.bucket) ?? 0) + cents(record.amount));
      }
      const balances = await ok(first, 'GET', '/payment/balances?currency=USD', key);
      const usdBalance = (balances.items as { available: string; held: string }[])[0];
      expect(
        { available: cents(usdBalance?.available ?? '0'), held: cents(usdBalance?.held ?? '0') },
        `${label}: the balances are the ledger's sums`,
      ).toEqual({ available: sums.get('available') ?? 0, held: sums.get('held') ?? 0 });

      // Deliveries: past every claim a process held when its database went away (a claim
      // lapses after 60 s of the sandbox clock), until each listed delivery succeeded.
      for (const url of urls) {
        await ok(url, 'POST', '/admin/sandbox/clock/advance', adminToken, { seconds: 120 });
      }
      type Listed = { event_id: string; status: string };
      const deliveries = async (): Promise<Listed[]> => {
        const listedDeliveries = await allPages<Listed>((offset) =>
          ok(
            first,
            'GET',
            `/payment/webhooks/${webhookId}/deliveries?limit=100&offset=${offset}`,
            key,
          ),
        );
        for (const id of payouts.keys()) {
          if (statusOf.get(id) === 'pending_review') continue;
          listedDeliveries.push(
            ...(await allPages<Listed>((offset) =>
              ok(first, 'GET', `/payment/payouts/${id}/deliveries?limit=100&offset=${offset}`, key),
            )),
          );
        }
        return listedDeliveries;
      };
      let all: Listed[] = [];
      await until(
        `${label}: every delivery succeeded`,
        async () => {
          all = await deliveries();
          const seen = hooks.counts();
          return all.every((d) => d.status === 'succeeded' && seen.has(d.event_id));
        },
        120_000,
      );

      for (const server of servers) {
        const exit = await server.stop('SIGTERM');
        expect(exit, `${label}: a process stops cleanly`).toMatchObject({ code: 0, signal: null });
      }
      running.length = 0;

      // The outbox of the last primary: every message delivered and received, and each answered
      // (or found) state's event among them.
      const store = await createPostgresStore({ connectionString: pair.primaryUrl() });
      let outbox: readonly OutboxMessage[];
      try {
        outbox = await postgresOracle(store).outbox();
      } finally {
        await store.close();
      }
      expect(
        outbox.filter((message) => message.status !== 'delivered'),
        `${label}: outbox messages not delivered`,
      ).toEqual([]);
      const counts = hooks.counts();
      expect(
        outbox.filter((message) => !counts.has(message.event_id)).map((m) => m.event_id),
        `${label}: events the receiver never saw`,
      ).toEqual([]);
      expect(
        [...counts.keys()].filter((id) => !outbox.some((message) => message.event_id === id)),
        `${label}: deliveries of no outbox message`,
      ).toEqual([]);
      const evented = (id: string, type: string) =>
        outbox.some((message) => message.business_id === id && message.event_type === type);
      for (const payout of payouts.values()) {
        const status = statusOf.get(payout.id) as Stage;
        if (status !== 'pending_review') {
          expect(evented(payout.id, 'payout.review.approved'), `${label}: ${payout.id}`).toBe(true);
        }
        if (status === 'completed' || status === 'failed') {
          expect(evented(payout.id, `payout.execution.${status}`), `${label}: ${payout.id}`).toBe(
            true,
          );
        }
      }

      // At least once: a duplicate is the same delivery again (same id, path and body).
      const duplicates = [...counts].filter(([, count]) => count > 1);
      for (const [id] of duplicates) {
        const copies = hooks.received.filter((delivery) => delivery.webhookId === id);
        expect(
          new Set(copies.map((copy) => `${copy.path} ${copy.body}`)).size,
          `${label}: the copies of ${id}`,
        ).toBe(1);
      }

      // The figures, for the CI log and docs/scaling.md.
      const gaps = figures.map((f) => f.gapMs);
      for (const [index, f] of figures.entries()) {
        console.log(
          `failover ${index + 1}: gap ${seconds(f.gapMs)} s (kill ${seconds(f.killMs)} s, ` +
            `promote ${seconds(f.promoteMs)} s, then ${seconds(f.servedMs)} s to the first create; ` +
            `new standby ${seconds(f.rebuildMs)} s); ` +
            `${f.requests} requests answered in the gap: ${f.succeeded} 200, ` +
            `${f.unavailable} 503`,
        );
      }
      console.log(
        `failover under load (${label}): ${failovers} failovers in ${seconds(Date.now() - began)} s; ` +
          `gap min ${seconds(Math.min(...gaps))} s, max ${seconds(Math.max(...gaps))} s, ` +
          `mean ${seconds(gaps.reduce((a, b) => a + b, 0) / gaps.length)} s; ` +
          `${replies.length} requests (${replies.filter(succeeded).length} 200, ` +
          `${replies.filter(unavailable).length} 503 with Retry-After, ${wrong.length} other); ` +
          `${payouts.size} payouts (${repeatedInLoad} creates answered 200 when repeated after a ` +
          `503, ${repeated} repeated at the end); ` +
          `${outbox.length} events, ${hooks.received.length} deliveries received ` +
          `(${duplicates.length} events received more than once)`,
      );
      expect(figures.length).toBe(failovers);
    },
    timeout,
  );
});
