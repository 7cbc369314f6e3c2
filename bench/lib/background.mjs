/**
 * The work payrail does after the answer: the outbox drain and the timers. Each runs on a server
 * of its own (a fresh schema or data directory, PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1) whose payouts
 * and order webhook notify a receiver in this process (receiver.mjs), so a delivery succeeds at
 * once and what is measured is payrail, not a merchant or DNS.
 */
import { percentile } from './measure.mjs';
import { startPayrail } from './payrail.mjs';
import { startReceiver } from './receiver.mjs';
import { log, sleep } from './run-context.mjs';

const approved = 'payout.review.approved';

/**
 * Outbox: a round of creates by an auto-approved merchant (each create enqueues
 * `payout.review.approved` to notify_url), then the time until the backlog is zero: no pending
 * row left in the outbox on a PostgreSQL server (DATABASE_URL's or the embedded one), every 2xx
 * create's approval received on PGlite (its data directory belongs to the server process), and
 * nothing more for a second. The drain ends at the last delivery.
 */
export const measureOutbox = async (store, options, cannon) => {
  const receiver = await startReceiver();
  const server = await startPayrail({
    store,
    databaseUrl: options.databaseUrl,
    notifyUrl: `${receiver.url}/payrail/payouts`,
    insecureWebhooks: true,
  });
  try {
    const request = await server.autoApproved();
    const received0 = receiver.count();
    const creates = await cannon(
      server,
      `${store} outbox round (auto-approved payouts, ${options.outboxDuration} s)`,
      request(),
      { ...options, duration: options.outboxDuration },
    );
    const createdEnd = Date.now();
    const deliveredAt = (at) =>
      receiver.arrivals().filter((a) => a.type === approved && a.at <= at).length;
    const distinctAtEnd = receiver.distinctOf(approved);
    const receivedDuring = deliveredAt(createdEnd);
    const created = creates.ok2xx;
    const createRate = created / creates.seconds;
    // Done when no message is pending (a PostgreSQL server) or every 2xx create was delivered
    // (PGlite), and nothing arrived for a second: requests still in flight when autocannon
    // stopped are created after it, and their messages count too.
    const pendingLeft = async () => {
      if (server.readsTables) return (await server.outbox()).pending;
      return Math.max(0, created - receiver.distinctOf(approved));
    };
    const lastArrival = () => receiver.arrivals().at(-1)?.at ?? createdEnd;
    let left = await pendingLeft();
    while (Date.now() - createdEnd < options.drainLimitSeconds * 1000) {
      if (left === 0 && Date.now() - lastArrival() >= 1000) break;
      await sleep(100);
      left = await pendingLeft();
    }
    const enqueued = receiver.distinctOf(approved) + left;
    const backlog = enqueued - distinctAtEnd;
    const drainSeconds = Math.max(0.001, (lastArrival() - createdEnd) / 1000);
    const receivedAfter = receiver.count() - received0 - receivedDuring;
    const deliveredRate = (receiver.count() - received0) / (creates.seconds + drainSeconds);
    const result = {
      creates: { rps: creates.rps, p50: creates.p50, p99: creates.p99, non2xx: creates.non2xx },
      created,
      enqueued,
      createRate,
      receivedDuring,
      receivedAfter,
      received_by_type: receiver.types(),
      distinct_approved: receiver.distinctOf(approved),
      deliveredRate,
      backlog,
      left,
      drained: left === 0,
      drainSeconds,
    };
    log(
      `${store} outbox: ${created} creates (${createRate.toFixed(1)}/s), ${receivedDuring} ` +
        `delivered during them, backlog ${backlog} ${left === 0 ? 'emptied' : `down to ${left}`} ` +
        `${drainSeconds.toFixed(1)} s after; delivered ${deliveredRate.toFixed(1)} req/s overall`,
    );
    if (created === 0) return { ...result, note: 'no payout created: nothing to drain' };
    // A backlog under a tenth of a second of creates: the dispatcher kept pace, its capacity
    // is not reached; the ratio is then what it delivered during the creates over what they made.
    if (backlog <= Math.max(1, createRate * 0.1)) {
      return {
        ...result,
        keptPace: true,
        drainRate: receivedDuring / creates.seconds,
        ratio: receivedDuring / creates.seconds / createRate,
      };
    }
    // The backlog's drain once the creates stop: messages delivered after them per second.
    const drainRate = receivedAfter / drainSeconds;
    return { ...result, keptPace: false, drainRate, ratio: drainRate / createRate };
  } finally {
    await server.stop();
    await receiver.stop();
  }
};

const timerOrders = 50;
const expireSeconds = 60;

/**
 * Timers: `timerOrders` orders with the minimum expire_seconds (60) created at once, then, with
 * no read of them through the API (a read past expire_time expires the order itself, timer or
 * not: acquiring.use-cases.ts), the moment each is seen expired: its `acquiring.order.updated`
 * reaching the receiver (every store; the timer plus one delivery) and, on a PostgreSQL server
 * (DATABASE_URL's or the embedded one), its row's status polled every 100 ms. Lateness is that moment minus expire_time (whole seconds, when the
 * timer is due).
 */
export const measureTimers = async (store, options) => {
  const receiver = await startReceiver();
  const server = await startPayrail({
    store,
    databaseUrl: options.databaseUrl,
    webhookUrl: `${receiver.url}/hooks`,
    insecureWebhooks: true,
  });
  try {
    const expireAt = new Map();
    const prefix = `${Date.now().toString(36)}-${process.pid}`;
    const create = async (i) => {
      const { order } = await server.call('POST', '/payment/acquiring/orders', {
        out_trade_no: `TIMER-${prefix}-${i}`,
        order_currency: 'USD',
        order_amount: '10.00',
        expire_seconds: expireSeconds,
        underpay_tolerance: '0',
        notify_webhook_id: server.webhookId,
      });
      expireAt.set(order.order_id, order.expire_time * 1000);
    };
    for (let i = 0; i < timerOrders; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, timerOrders - i) }, (_, j) => create(i + j)),
      );
    }
    const lastDue = Math.max(...expireAt.values());
    log(
      `${store} timers: ${expireAt.size} orders created, due in ` +
        `${((Math.min(...expireAt.values()) - Date.now()) / 1000).toFixed(1)}-` +
        `${((lastDue - Date.now()) / 1000).toFixed(1)} s; waiting`,
    );
    const seenInTable = new Map();
    const seenByWebhook = () => {
      const seen = new Map();
      for (const a of receiver.arrivals()) {
        if (a.status === 'expired' && expireAt.has(a.businessId) && !seen.has(a.businessId)) {
          seen.set(a.businessId, a.at);
        }
      }
      return seen;
    };
    const deadline = lastDue + options.timerGraceSeconds * 1000;
    while (Date.now() < deadline) {
      if (server.readsTables) {
        const rows = await server.query(
          `SELECT id FROM acquiring_orders WHERE status = 'expired' AND account_id = $1`,
          [server.account],
        );
        const now = Date.now();
        for (const { id } of rows) if (!seenInTable.has(id)) seenInTable.set(id, now);
      }
      const tableDone = !server.readsTables || seenInTable.size >= expireAt.size;
      if (tableDone && seenByWebhook().size >= expireAt.size) break;
      await sleep(100);
    }
    const lateness = (seen) => {
      const values = [...seen].map(([id, at]) => at - expireAt.get(id));
      return {
        seen: seen.size,
        missing: expireAt.size - seen.size,
        p50: percentile(values, 50),
        p99: percentile(values, 99),
        max: values.length === 0 ? Number.NaN : Math.max(...values),
      };
    };
    const webhook = lateness(seenByWebhook());
    const table = server.readsTables ? lateness(seenInTable) : undefined;
    log(
      `${store} timers: webhook p99 ${webhook.p99} ms (${webhook.missing} missing)` +
        (table === undefined ? '' : `, table p99 ${table.p99} ms (${table.missing} missing)`),
    );
    return { orders: expireAt.size, expireSeconds, webhook, table };
  } finally {
    await server.stop();
    await receiver.stop();
  }
};
