/**
 * payrail's Prometheus metrics (ADR 0046, every name in docs/observability.md), in a prom-client
 * `Registry` of its own per payrail (never the global one), so that tests and several payrails in
 * one process do not share counters. It is fed through ports: the engine's observer (units of
 * work, transitions, timers), the HTTP app's request observer, and the webhook dispatcher's
 * attempts; the outbox and the pool are read from the store at each scrape.
 *
 * Labels are names from a closed set (route templates, use cases, machine states, timers,
 * outcomes), never an id, an amount or a URL.
 */
import type { Clock, Store } from '@payrail/core';
import type { EngineObserver } from '@payrail/engine';
import type { MetricsExposition, ObservedRequest } from '@payrail/http';
import { isPostgresStore, type OutboxBacklog, type PoolUse } from '@payrail/store-postgres';
import type { ObservedAttempt } from '@payrail/webhooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What the metrics read from the store at a scrape; absent: the store cannot tell. */
interface StoreGauges {
  readonly outboxBacklog?: () => Promise<OutboxBacklog>;
  readonly poolUse?: () => PoolUse | undefined;
  /** The engine's clock: the outbox's `created_at` is in its seconds. */
  readonly clock: Clock;
}

export interface PayrailMetrics {
  readonly registry: Registry;
  readonly engineObserver: EngineObserver;
  readonly requestObserved: (request: ObservedRequest) => void;
  readonly attemptObserved: (attempt: ObservedAttempt) => void;
  /** What `/metrics` answers, only to `Authorization: Bearer <token>` when a token is given. */
  exposition(token: string | undefined): MetricsExposition;
}

/** A PostgreSQL store tells its outbox and its pool; a host's other store tells neither. */
const storeGaugesOf = (store: Store, clock: Clock): StoreGauges =>
  isPostgresStore(store)
    ? { clock, outboxBacklog: () => store.outboxBacklog(), poolUse: () => store.poolUse() }
    : { clock };

const httpBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const unitOfWorkBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** The engine's clock counts whole seconds: a timer fired on time is 0 s late. */
const timerLagBuckets = [0, 1, 2, 5, 10, 30, 60, 300, 900, 3600];
const deliveryBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** One outbox read per scrape, shared by both outbox gauges. */
const sharedBacklog = (read: () => Promise<OutboxBacklog>): (() => Promise<OutboxBacklog>) => {
  let last: { readonly at: number; readonly backlog: Promise<OutboxBacklog> } | undefined;
  return () => {
    const now = Date.now();
    if (last === undefined || now - last.at > 1000) last = { at: now, backlog: read() };
    return last.backlog;
  };
};

/** The outbox gauges: NaN while the store does not answer. */
const outboxGauges = (registry: Registry, gauges: StoreGauges): void => {
  const { outboxBacklog, clock } = gauges;
  if (outboxBacklog === undefined) return;
  const backlog = sharedBacklog(outboxBacklog);
  const read = async (): Promise<OutboxBacklog | undefined> => backlog().catch(() => undefined);
  new Gauge({
    name: 'payrail_outbox_pending_messages',
    help: 'Outbox messages waiting for delivery (NaN while the store does not answer).',
    registers: [registry],
    async collect() {
      this.set((await read())?.pending ?? Number.NaN);
    },
  });
  new Gauge({
    name: 'payrail_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest outbox message waiting for delivery, on the engine clock (0 when none).',
    registers: [registry],
    async collect() {
      const found = await read();
      const oldest = found?.oldestCreatedAt;
      this.set(
        found === undefined
          ? Number.NaN
          : oldest === undefined
            ? 0
            : Math.max(0, clock.now() - oldest),
      );
    },
  });
};

/** The connection pool's gauges, when the store has a pool (a PostgreSQL server). */
const poolGauges = (registry: Registry, gauges: StoreGauges): void => {
  const { poolUse } = gauges;
  if (poolUse === undefined || poolUse() === undefined) return;
  const gauge = (name: string, help: string, read: (use: PoolUse) => number | undefined) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const use = poolUse();
        this.set((use === undefined ? undefined : read(use)) ?? Number.NaN);
      },
    });
  gauge('payrail_db_pool_connections', 'Open connections of the store pool.', (use) => use.total);
  gauge('payrail_db_pool_idle_connections', 'Idle connections of the store pool.', (u) => u.idle);
  gauge(
    'payrail_db_pool_waiting_requests',
    'Units of work waiting for a connection of the store pool.',
    (use) => use.waiting,
  );
  gauge(
    'payrail_db_pool_max_connections',
    'The most connections the store pool opens.',
    (use) => use.max,
  );
};

/** The engine's metrics, and the observer that feeds them. */
const engineMetrics = (registry: Registry): EngineObserver => {
  const units = new Histogram({
    name: 'payrail_unit_of_work_duration_seconds',
    help: 'Runs of units of work by use case and outcome (committed, refused, conflict, failed).',
    labelNames: ['use_case', 'outcome'],
    buckets: unitOfWorkBuckets,
    registers: [registry],
  });
  const conflicts = new Counter({
    name: 'payrail_unit_of_work_conflicts_total',
    help: 'Runs of units of work that lost a race and ran again (ADR 0025).',
    labelNames: ['use_case'],
    registers: [registry],
  });
  const transitions = new Counter({
    name: 'payrail_transitions_total',
    help: 'Committed transitions of payouts, orders, refunds and batches, by state before and after.',
    labelNames: ['machine', 'from', 'to'],
    registers: [registry],
  });
  const timerLag = new Histogram({
    name: 'payrail_timer_lag_seconds',
    help: 'How late each durable timer fired after it was due, on the engine clock.',
    labelNames: ['timer'],
    buckets: timerLagBuckets,
    registers: [registry],
  });
  return {
    unitOfWorkStarted: (useCase) => (ended) => {
      units.observe({ use_case: useCase, outcome: ended.outcome }, ended.seconds);
      if (ended.outcome === 'conflict') conflicts.inc({ use_case: useCase });
    },
    transitionCommitted: ({ machine, from, to }) => transitions.inc({ machine, from, to }),
    timerFired: ({ timer, lagSeconds }) => timerLag.observe({ timer }, lagSeconds),
  };
};

/** The webhook dispatcher's metrics, and what feeds them. */
const deliveryMetrics = (registry: Registry): ((attempt: ObservedAttempt) => void) => {
  const deliveries = new Counter({
    name: 'payrail_webhook_deliveries_total',
    help: 'Settled delivery attempts by destination kind and outcome (delivered, retry, failed).',
    labelNames: ['destination', 'outcome'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'payrail_webhook_delivery_duration_seconds',
    help: 'Seconds of each delivery POST sent, answer included.',
    labelNames: ['destination'],
    buckets: deliveryBuckets,
    registers: [registry],
  });
  return ({ destination, outcome, seconds }) => {
    deliveries.inc({ destination, outcome });
    if (seconds !== undefined) durations.observe({ destination }, seconds);
  };
};

/**
 * payrail's metrics in a registry of their own; `processMetrics` adds prom-client's default
 * process and Node.js metrics (`payrail_process_*`, `payrail_nodejs_*`), for a process that is
 * payrail alone (`pnpm start`).
 */
export const payrailMetrics = (
  store: Store,
  clock: Clock,
  processMetrics: boolean,
): PayrailMetrics => {
  const registry = new Registry();
  const gauges = storeGaugesOf(store, clock);
  const requests = new Histogram({
    name: 'payrail_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status, and their seconds.',
    labelNames: ['method', 'route', 'status'],
    buckets: httpBuckets,
    registers: [registry],
  });
  const engineObserver = engineMetrics(registry);
  const attemptObserved = deliveryMetrics(registry);
  outboxGauges(registry, gauges);
  poolGauges(registry, gauges);
  if (processMetrics) {
    collectDefaultMetrics({ register: registry, prefix: 'payrail_' });
    // Gauges named like counters fail `promtool check metrics`; each has a twin by `type`.
    for (const twin of ['handles', 'requests', 'resources']) {
      registry.removeSingleMetric(`payrail_nodejs_active_${twin}_total`);
    }
  }
  return {
    registry,
    engineObserver,
    requestObserved: ({ method, route, status, seconds }) =>
      requests.observe({ method, route, status: String(status) }, seconds),
    attemptObserved,
    exposition: (token) => ({
      contentType: registry.contentType,
      render: () => registry.metrics(),
      ...(token === undefined ? {} : { token }),
    }),
  };
};
