/**
 * Crashes under load: a real server process is started on a store, a few clients drive quick
 * payouts, operator approvals, sandbox executions, orders, their payments and credits at it,
 * and the process is killed with SIGKILL at a random moment while requests and webhook
 * deliveries are in flight. The next process, on the same store, is checked against what the
 * clients were told:
 *
 * - every request answered with code 0 is there, in a state its answers explain; a create left
 *   without an answer, repeated with its client_request_id and body, answers one payout, never
 *   `client_request_id already used`; nothing is there that no client asked for;
 * - the ledger adds up: each record's balance_after is the running sum of its bucket, the
 *   balances are the sums, no bucket is ever negative, each answered credit and payment is one
 *   record, each payout is held, settled and charged at most once and as its status says;
 * - no timer is lost: every unpaid order of an earlier process is expired by its timer (the
 *   stored status, which a read does not settle) once the sandbox clock passes its expire_time,
 *   and every approved payout still takes its execution;
 * - at the end every event of the deliveries lists reached the receiver and every delivery
 *   `succeeded`, and the receiver saw no event those lists do not name.
 */
import type { OutboxMessage, TimerRecord } from '@payrail/core';
import { expect } from 'vitest';
import {
  allPages,
  attempt,
  type Random,
  type Receiver,
  until,
} from './process-load.test-support.js';
import { adminToken, ok, type ServerProcess } from './server-process.test-support.js';

type Stage = 'pending_review' | 'approved' | 'completed' | 'failed';
type Outcome = 'completed' | 'failed';

interface PayoutModel {
  readonly id: string;
  readonly body: Record<string, unknown>;
  readonly cents: number;
  /** The furthest state a client was told of. */
  answered: Stage;
  /** The furthest state a client asked for, answered or not. */
  attempted: Stage;
}

interface OrderModel {
  readonly id: string;
  readonly cents: number;
  /** The process (cycle) it was created in: later ones find it expired unless paid. */
  readonly cycle: number;
  payment: 'none' | 'unanswered' | 'answered';
  paymentId?: string;
}

export interface CrashFigures {
  kills: number;
  requests: number;
  answered: number;
  unanswered: number;
  payouts: number;
  orders: number;
  credits: number;
  events: number;
  /** Requests the receiver got for an event it had already seen (at least once delivery). */
  redeliveries: number;
  ms: number;
}

export interface CrashRun {
  readonly kills: number;
  readonly random: Random;
  readonly receiver: Receiver;
  /** Starts a server process on the run's store (the same store every time). */
  readonly start: () => Promise<ServerProcess>;
  /** Concurrent clients during a load phase. */
  readonly clients?: number;
  /** What a failure names first (the store and the seed), so it can be run again. */
  readonly label: string;
  /** Reads the store itself (an oracle of raw SQL) once the last process has stopped. */
  readonly readStore: () => Promise<StoreContents>;
  /** Right after each SIGKILL of the server: kill what else a machine crash takes with it. */
  readonly afterKill?: () => void;
}

export interface StoreContents {
  readonly outbox: readonly Pick<OutboxMessage, 'event_id' | 'status'>[];
  readonly timers: readonly Pick<TimerRecord, 'name' | 'business_type' | 'business_id'>[];
}

const usd = (cents: number): string =>
  `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const centsOf = (amount: string): number => {
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
  return amount.startsWith('-') ? -cents : cents;
};
/** The sandbox USD route: 0.50 fixed + 1 %, half up. */
const feeCents = (cents: number): number => 50 + Math.floor((cents + 50) / 100);
/** Amounts in micro-units (6 decimals), for the stablecoin buckets. */
const microsOf = (amount: string): bigint => {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  const micros = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
  return negative ? -micros : micros;
};

const stageRank: Readonly<Record<Stage, number>> = {
  pending_review: 0,
  approved: 1,
  completed: 2,
  failed: 2,
};

interface LedgerRecord {
  transaction_id: string;
  record_type: string;
  currency: string;
  bucket: 'available' | 'held';
  amount: string;
  balance_after: string;
  business_type: string;
  business_id: string;
}

export const runCrashesUnderLoad = async (run: CrashRun): Promise<CrashFigures> => {
  const { random, receiver, label } = run;
  const clients = run.clients ?? 4;
  const began = Date.now();
  const figures: CrashFigures = {
    kills: 0,
    requests: 0,
    answered: 0,
    unanswered: 0,
    payouts: 0,
    orders: 0,
    credits: 0,
    events: 0,
    redeliveries: 0,
    ms: 0,
  };

  const payouts = new Map<string, PayoutModel>();
  const orders = new Map<string, OrderModel>();
  /** Answered credits by deposit record_id, and the amounts of those left without an answer. */
  const credits = new Map<string, number>();
  let unansweredCredits: number[] = [];
  /** Creates left without an answer: repeated after the restart. */
  let unansweredCreates: Record<string, unknown>[] = [];
  let unansweredOrders = new Set<string>();
  const pendingPool: string[] = [];
  const approvedPool: string[] = [];
  let payablePool: string[] = [];
  /** Objects whose create was answered since the last restart: each read back by its id. */
  let answeredLately: string[] = [];
  let serial = 0;
  let cycle = 0;
  let answeredInCycle = 0;

  let server = await run.start();
  const first = server.url;
  const { merchant } = await ok(first, 'POST', '/admin/merchants', adminToken, {
    name: 'Crash Co',
  });
  const accountId = merchant.account_id as string;
  const { api_key } = await ok(first, 'POST', `/admin/accounts/${accountId}/api-keys`, adminToken, {
    permissions: [
      'payment.payout.create',
      'payment.payout.submit',
      'payment.payout.read',
      'payment.acquiring.create',
      'payment.acquiring.read',
      'payment.wallet.read',
      'payment.ledger.read',
      'payment.webhook.read',
      'payment.webhook.write',
    ],
  });
  const key = api_key.token as string;
  const opening = await ok(first, 'POST', `/admin/accounts/${accountId}/credit`, adminToken, {
    currency: 'USD',
    amount: '1000000.00',
  });
  credits.set(opening.deposit.record_id, 100_000_000);
  const { webhook } = await ok(first, 'POST', '/payment/webhooks', key, {
    url: receiver.url('/hooks'),
    events: ['acquiring.*'],
  });
  const webhookId = webhook.webhook_id as string;

  const where = (what: string) => `${label}, process ${cycle}: ${what}`;

  /** One request of the load: `undefined` when the process died before answering. */
  const send = async (method: string, path: string, token: string, body?: unknown) => {
    figures.requests += 1;
    const answer = await attempt(server.url, method, path, token, body);
    if (answer === undefined) {
      figures.unanswered += 1;
      return undefined;
    }
    figures.answered += 1;
    answeredInCycle += 1;
    expect(answer, where(`${method} ${path} ${JSON.stringify(body)}`)).toMatchObject({
      status: 200,
      code: 0,
    });
    return answer.data;
  };

  const take = (pool: string[]): string | undefined =>
    pool.length === 0 ? undefined : pool.splice(random.int(0, pool.length - 1), 1)[0];

  // Each act answers false once the process stopped answering.
  const createPayout = async (): Promise<boolean> => {
    serial += 1;
    const payee = random.int(1, 3);
    const cents = random.int(100, 5000);
    const body = {
      client_request_id: `crash-${serial}`,
      currency: 'USD',
      amount: usd(cents),
      method_id: 1,
      reference: `CRASH-${serial}`,
      notify_url: receiver.url('/payouts'),
      beneficiary: { name: `Payee ${payee}`, fields: { payee_id: `payee${payee}` } },
      beneficiary_account: {
        network_code: 'WALLETA',
        fields: { walleta_email: `payee${payee}@example.com` },
      },
    };
    const data = await send('POST', '/payment/quickpayout', key, body);
    if (data === undefined) {
      unansweredCreates.push(body);
      return false;
    }
    expect(data.payout, where('a created payout')).toMatchObject({ status: 'pending_review' });
    const id = data.payout.payout_id as string;
    payouts.set(id, { id, body, cents, answered: 'pending_review', attempted: 'pending_review' });
    pendingPool.push(id);
    answeredLately.push(`/payment/payouts/${id}`);
    return true;
  };

  const approve = async (): Promise<boolean> => {
    const id = take(pendingPool);
    if (id === undefined) return createPayout();
    const payout = payouts.get(id) as PayoutModel;
    payout.attempted = 'approved';
    const data = await send('POST', `/admin/payouts/${id}/review`, adminToken, {
      action: 'approve',
    });
    if (data === undefined) return false;
    expect(data.payout, where(`approving ${id}`)).toMatchObject({ status: 'approved' });
    payout.answered = 'approved';
    approvedPool.push(id);
    return true;
  };

  const execute = async (): Promise<boolean> => {
    const id = take(approvedPool);
    if (id === undefined) return approve();
    const payout = payouts.get(id) as PayoutModel;
    const outcome: Outcome = random.next() < 0.8 ? 'completed' : 'failed';
    payout.attempted = outcome;
    const data = await send('POST', `/admin/sandbox/payouts/${id}/execution`, adminToken, {
      outcome,
      ...(outcome === 'failed' ? { reason: 'recipient wallet closed' } : {}),
    });
    if (data === undefined) return false;
    expect(data.payout, where(`executing ${id}`)).toMatchObject({ status: outcome });
    payout.answered = outcome;
    return true;
  };

  const createOrder = async (): Promise<boolean> => {
    serial += 1;
    const outTradeNo = `CRASH-ORDER-${serial}`;
    const cents = random.int(100, 5000);
    const data = await send('POST', '/payment/acquiring/orders', key, {
      out_trade_no: outTradeNo,
      order_currency: 'USD',
      order_amount: usd(cents),
      mode: 'direct',
      network: 'TRON',
      currency: 'USDT',
      expire_seconds: 60,
      underpay_tolerance: '0',
      notify_webhook_id: webhookId,
    });
    if (data === undefined) {
      unansweredOrders.add(outTradeNo);
      return false;
    }
    expect(data.order, where('a created order')).toMatchObject({ status: 'pending' });
    const id = data.order.order_id as string;
    orders.set(id, { id, cents, cycle, payment: 'none' });
    payablePool.push(id);
    answeredLately.push(`/payment/acquiring/orders/${id}`);
    return true;
  };

  const pay = async (): Promise<boolean> => {
    const id = take(payablePool);
    if (id === undefined) return createOrder();
    const order = orders.get(id) as OrderModel;
    order.payment = 'unanswered';
    const data = await send('POST', `/admin/sandbox/acquiring/orders/${id}/payments`, adminToken, {
      token_id: 'TRON_USDT',
      amount: `${usd(order.cents)}0000`,
      status: 'confirmed',
      tx_hash: `0xcrash${id}`,
    });
    if (data === undefined) return false;
    expect(data.payment, where(`paying ${id}`)).toMatchObject({
      order_id: id,
      status: 'completed',
    });
    order.payment = 'answered';
    order.paymentId = data.payment.payment_id as string;
    return true;
  };

  const credit = async (): Promise<boolean> => {
    const cents = random.int(1, 100_000);
    const data = await send('POST', `/admin/accounts/${accountId}/credit`, adminToken, {
      currency: 'USD',
      amount: usd(cents),
    });
    if (data === undefined) {
      unansweredCredits.push(cents);
      return false;
    }
    credits.set(data.deposit.record_id as string, cents);
    return true;
  };

  const acts: readonly (readonly [number, () => Promise<boolean>])[] = [
    [0.3, createPayout],
    [0.2, approve],
    [0.2, execute],
    [0.12, createOrder],
    [0.12, pay],
    [0.06, credit],
  ];
  const act = (): Promise<boolean> => {
    let roll = random.next();
    for (const [weight, chosen] of acts) {
      if (roll < weight) return chosen();
      roll -= weight;
    }
    return createPayout();
  };

  /**
   * Load from `clients` clients until a SIGKILL after a random number of answers (so a slow
   * machine sees as much load before a kill as a fast one) and a random few milliseconds more;
   * answers when every client has stopped.
   */
  const loadAndKill = async (): Promise<void> => {
    answeredInCycle = 0;
    const loops = Array.from({ length: clients }, async () => {
      while (await act()) {
        // The next act at once: the process is under as much load as the clients make.
      }
    });
    const answers = random.int(5, 80);
    // A client that found a violation ends the run at once.
    await Promise.race([
      until(where(`${answers} answers`), () => answeredInCycle >= answers, 120_000),
      Promise.all(loops),
    ]);
    await new Promise((resolve) => setTimeout(resolve, random.int(0, 60)));
    const exit = await server.stop('SIGKILL');
    run.afterKill?.();
    expect(exit.signal, where('the kill')).toBe('SIGKILL');
    figures.kills += 1;
    await Promise.all(loops);
  };

  const payoutPages = async () =>
    allPages<{ payout_id: string; status: string; client_request_id?: string }>((offset) =>
      ok(server.url, 'GET', `/payment/payouts?limit=100&offset=${offset}`, key),
    );
  const orderPages = async () =>
    allPages<{ order_id: string; out_trade_no: string; status: string }>((offset) =>
      ok(server.url, 'GET', `/payment/acquiring/orders?limit=100&offset=${offset}`, key),
    );

  /** What a restarted process must show of everything the clients were told. */
  const verify = async (): Promise<void> => {
    // Creates left without an answer, repeated as a merchant would: one payout each.
    for (const body of unansweredCreates) {
      const answer = await attempt(server.url, 'POST', '/payment/quickpayout', key, body);
      expect(answer, where(`repeating ${body.client_request_id}`)).toMatchObject({
        status: 200,
        code: 0,
      });
      const payout = answer?.data.payout;
      const id = payout.payout_id as string;
      const cents = centsOf(body.amount as string);
      payouts.set(id, { id, body, cents, answered: 'pending_review', attempted: 'pending_review' });
      pendingPool.push(id);
      const same = await ok(
        server.url,
        'GET',
        `/payment/payouts?client_request_id=${body.client_request_id}`,
        key,
      );
      expect(same.total, where(`payouts of ${body.client_request_id}`)).toBe(1);
    }
    unansweredCreates = [];
    // An answered create repeated answers the same payout.
    const answeredIds = [...payouts.keys()];
    const sample = payouts.get(answeredIds[random.int(0, answeredIds.length - 1)] ?? '');
    if (sample !== undefined) {
      const again = await ok(server.url, 'POST', '/payment/quickpayout', key, sample.body);
      expect(again.payout.payout_id, where('an answered create repeated')).toBe(sample.id);
    }

    // Every payout there, in a state between what was answered and what was asked; nothing else.
    const listed = await payoutPages();
    expect(listed.length, where('payouts listed')).toBe(payouts.size);
    const statusOf = new Map(listed.map((item) => [item.payout_id, item.status]));
    for (const payout of payouts.values()) {
      const status = statusOf.get(payout.id);
      const allowed = (['pending_review', 'approved', payout.attempted] as Stage[]).filter(
        (stage) =>
          stageRank[stage] >= stageRank[payout.answered] &&
          stageRank[stage] <= stageRank[payout.attempted],
      );
      expect(allowed, where(`payout ${payout.id} (${JSON.stringify(payout)})`)).toContain(status);
      if (payout.attempted !== payout.answered) {
        payout.answered = status as Stage;
        payout.attempted = status as Stage;
        if (status === 'pending_review') pendingPool.push(payout.id);
        // An approved payout whose execution went unanswered is executed again.
        if (status === 'approved') approvedPool.push(payout.id);
      }
    }

    // Orders: no timer lost. The stored status (a list does not settle expiry) of every unpaid
    // order of an earlier process turns expired once the clock is past its expire_time.
    const allowedOf = (order: OrderModel): string[] =>
      order.payment === 'answered'
        ? ['completed']
        : order.payment === 'none'
          ? ['expired']
          : ['completed', 'expired'];
    const checkOrders = async () => {
      const listed = await orderPages();
      for (const item of listed) {
        const order = orders.get(item.order_id);
        if (order === undefined) {
          // Created by a request left without an answer: it committed before the kill.
          expect(
            [...unansweredOrders],
            where(`an order nobody asked for: ${item.out_trade_no}`),
          ).toContain(item.out_trade_no);
          expect(item.status, where(`the unanswered order ${item.order_id}`)).toBe('expired');
          continue;
        }
        expect(allowedOf(order), where(`order ${order.id} (${JSON.stringify(order)})`)).toContain(
          item.status,
        );
      }
      const ids = new Set(listed.map((item) => item.order_id));
      expect(
        [...orders.keys()].filter((id) => !ids.has(id)),
        where('orders missing'),
      ).toEqual([]);
      return listed;
    };
    await until(
      where('the expiry timers'),
      () =>
        checkOrders().then(
          () => true,
          () => false,
        ),
      30_000,
    ).catch(() => undefined);
    const listedOrders = await checkOrders();
    for (const item of listedOrders) {
      const order = orders.get(item.order_id);
      if (order === undefined) {
        orders.set(item.order_id, { id: item.order_id, cents: 0, cycle: -1, payment: 'none' });
        figures.orders += 1;
      } else if (order.payment === 'unanswered') {
        // The payment left without an answer either committed (the order completed) or not.
        if (item.status === 'expired') {
          order.payment = 'none';
        } else {
          const paid = await ok(
            server.url,
            'GET',
            `/payment/acquiring/orders/${order.id}/payments`,
            key,
          );
          expect(paid.items.length, where(`payments of ${order.id}`)).toBe(1);
          order.payment = 'answered';
          order.paymentId = paid.items[0].payment_id as string;
        }
      }
    }
    unansweredOrders = new Set();

    // Each create answered before the kill, read back by its id, as its merchant would.
    const statuses = new Map<string, string>([
      ...listed.map(
        (item) => [`/payment/payouts/${item.payout_id}`, item.status] as [string, string],
      ),
      ...listedOrders.map(
        (item) => [`/payment/acquiring/orders/${item.order_id}`, item.status] as [string, string],
      ),
    ]);
    for (const path of answeredLately) {
      const read = await ok(server.url, 'GET', path, key);
      expect((read.payout ?? read.order).status, where(`GET ${path}`)).toBe(statuses.get(path));
    }
    answeredLately = [];

    await verifyLedger();
  };

  const verifyLedger = async (): Promise<void> => {
    const records = await allPages<LedgerRecord>((offset) =>
      ok(server.url, 'GET', `/payment/ledger?sort_order=asc&limit=100&offset=${offset}`, key),
    );
    const running = new Map<string, bigint>();
    for (const record of records) {
      const bucket = `${record.currency}/${record.bucket}`;
      const after = (running.get(bucket) ?? 0n) + microsOf(record.amount);
      running.set(bucket, after);
      expect(
        microsOf(record.balance_after),
        where(`balance_after of ${JSON.stringify(record)}`),
      ).toBe(after);
      expect(after >= 0n, where(`${bucket} negative at ${record.transaction_id}`)).toBe(true);
    }
    const balances = await ok(server.url, 'GET', '/payment/balances', key);
    for (const item of balances.items as { currency: string; available: string; held: string }[]) {
      for (const bucket of ['available', 'held'] as const) {
        expect(microsOf(item[bucket]), where(`${item.currency} ${bucket} = its ledger`)).toBe(
          running.get(`${item.currency}/${bucket}`) ?? 0n,
        );
      }
    }

    const byBusiness = new Map<string, LedgerRecord[]>();
    for (const record of records) {
      byBusiness.set(record.business_id, [...(byBusiness.get(record.business_id) ?? []), record]);
    }
    const ofType = (id: string, type: string) =>
      (byBusiness.get(id) ?? []).filter((record) => record.record_type === type);

    // Credits: each answered one once; the others only for requests left without an answer.
    const deposits = records.filter((record) => record.record_type === 'deposit');
    for (const [recordId, cents] of credits) {
      expect(
        ofType(recordId, 'deposit').map((r) => r.amount),
        where(`deposit ${recordId}`),
      ).toEqual([usd(cents)]);
    }
    const unknown = deposits.filter((record) => !credits.has(record.business_id));
    for (const record of unknown) {
      const index = unansweredCredits.indexOf(centsOf(record.amount));
      expect(index, where(`a deposit nobody asked for: ${JSON.stringify(record)}`)).not.toBe(-1);
      unansweredCredits.splice(index, 1);
      credits.set(record.business_id, centsOf(record.amount));
    }
    unansweredCredits = [];

    // Payments: each confirmed one a single pay_in of the order's amount.
    const payIns = records.filter((record) => record.record_type === 'pay_in');
    const paymentIds = new Set<string>();
    for (const order of orders.values()) {
      if (order.payment === 'answered') {
        expect(
          ofType(order.paymentId ?? '', 'pay_in').map((r) => r.amount),
          where(`the pay_in of ${order.id}`),
        ).toEqual([`${usd(order.cents)}0000`]);
        paymentIds.add(order.paymentId ?? '');
      }
    }
    expect(
      payIns.filter((record) => !paymentIds.has(record.business_id)),
      where('pay_ins of no payment'),
    ).toEqual([]);

    // Payouts: held, settled and charged at most once, and as the status says.
    for (const payout of payouts.values()) {
      const holds = ofType(payout.id, 'payout_hold');
      const releases = ofType(payout.id, 'payout_release');
      const settled = ofType(payout.id, 'payout').map((r) => r.amount);
      const fees = ofType(payout.id, 'payout_fee').map((r) => r.amount);
      const hold = usd(payout.cents + feeCents(payout.cents));
      const story = where(`the ledger of ${payout.id} (${payout.answered})`);
      if (payout.answered === 'completed') {
        expect(
          holds.map((r) => `${r.bucket} ${r.amount}`),
          story,
        ).toEqual([`available -${hold}`, `held ${hold}`]);
        expect(releases, story).toEqual([]);
        expect(settled, story).toEqual([`-${usd(payout.cents)}`]);
        expect(fees, story).toEqual([`-${usd(feeCents(payout.cents))}`]);
      } else if (payout.answered === 'failed') {
        expect([0, 2], story).toContain(holds.length);
        expect(releases.length, story).toBe(holds.length);
        expect([...settled, ...fees], story).toEqual([]);
      } else {
        expect([...holds, ...releases, ...settled, ...fees], story).toEqual([]);
      }
    }
    const payoutRecords = records.filter((record) => record.business_type === 'payout');
    for (const record of payoutRecords) {
      expect(payouts.has(record.business_id), where(`a record of ${record.business_id}`)).toBe(
        true,
      );
    }
  };

  // Process 0 set up the merchant; now load, kill, and check each restart.
  for (;;) {
    await loadAndKill();
    cycle += 1;
    payablePool = [];
    server = await run.start();
    // Past the crashed process's delivery claims (60 s) and past every order it created (60 s):
    // each process's test clock starts at the wall clock, so each advances further.
    await ok(server.url, 'POST', '/admin/sandbox/clock/advance', adminToken, {
      seconds: 60 + 70 * cycle,
    });
    await verify();
    if (figures.kills >= run.kills) break;
  }

  // Every payout approved before some crash still takes its execution.
  for (const id of approvedPool.splice(0)) {
    const { payout } = await ok(
      server.url,
      'POST',
      `/admin/sandbox/payouts/${id}/execution`,
      adminToken,
      {
        outcome: 'completed',
      },
    );
    expect(payout.status, where(`executing ${id} at the end`)).toBe('completed');
    (payouts.get(id) as PayoutModel).answered = 'completed';
  }
  await verifyLedger();

  // The last process delivers everything; every delivery succeeded and reached the receiver.
  const deliveries = async () => {
    const hook = await allPages<{ event_id: string; status: string }>((offset) =>
      ok(
        server.url,
        'GET',
        `/payment/webhooks/${webhookId}/deliveries?limit=100&offset=${offset}`,
        key,
      ),
    );
    const callbacks = [];
    for (const id of payouts.keys()) {
      callbacks.push(
        ...(await allPages<{ event_id: string; status: string }>((offset) =>
          ok(
            server.url,
            'GET',
            `/payment/payouts/${id}/deliveries?limit=100&offset=${offset}`,
            key,
          ),
        )),
      );
    }
    return [...hook, ...callbacks];
  };
  let all: { event_id: string; status: string }[] = [];
  await until(
    where('every delivery succeeded'),
    async () => {
      all = await deliveries();
      const listed = new Set(all.map((delivery) => delivery.event_id));
      // A delivery is logged at its first attempt: every event received must be listed too.
      return (
        all.every((delivery) => delivery.status === 'succeeded') &&
        receiver.received.every((delivery) => listed.has(delivery.webhookId))
      );
    },
    120_000,
  );
  const counts = receiver.counts();
  const listedEvents = new Set(all.map((delivery) => delivery.event_id));
  expect(listedEvents.size, where('one delivery per event')).toBe(all.length);
  const missing = [...listedEvents].filter((id) => !counts.has(id));
  expect(missing, where('events the receiver never saw')).toEqual([]);

  // Each payout's final word and each order's end reached the receiver.
  const events = receiver.received.map(
    (delivery) =>
      JSON.parse(delivery.body) as { event_type?: string; business_id?: string; data?: unknown },
  );
  const told = (businessId: string, type: string) =>
    events.some((event) => event.business_id === businessId && event.event_type === type);
  for (const payout of payouts.values()) {
    if (payout.answered === 'completed' || payout.answered === 'failed') {
      expect(told(payout.id, `payout.execution.${payout.answered}`), where(payout.id)).toBe(true);
    }
    if (payout.answered !== 'pending_review') {
      expect(told(payout.id, 'payout.review.approved'), where(payout.id)).toBe(true);
    }
  }
  figures.events = listedEvents.size;
  figures.redeliveries = receiver.received.length - counts.size;
  figures.payouts = payouts.size;
  figures.orders += [...orders.values()].filter((order) => order.cycle >= 0).length;
  figures.credits = credits.size;

  const exit = await server.stop('SIGTERM');
  expect(exit, where('the last process stops cleanly')).toMatchObject({ code: 0, signal: null });

  // The store itself: every outbox message delivered, each one a listed event the receiver saw;
  // no order has a timer left (each is final), nothing has a timer twice.
  const stored = await run.readStore();
  expect(
    stored.outbox.filter((message) => message.status !== 'delivered'),
    where('outbox messages not delivered'),
  ).toEqual([]);
  expect(stored.outbox.map((message) => message.event_id).sort(), where('the outbox')).toEqual(
    [...listedEvents].sort(),
  );
  expect(
    stored.timers.filter((timer) => orders.has(timer.business_id)),
    where('timers of final orders'),
  ).toEqual([]);
  const timerKeys = stored.timers.map((timer) => `${timer.name}/${timer.business_id}`);
  expect(new Set(timerKeys).size, where('a timer set twice')).toBe(timerKeys.length);
  figures.ms = Date.now() - began;
  return figures;
};
