/**
 * `createPayrail`: payrail in one call, for a host that embeds it. It checks its options before
 * anything runs (a short key secret is refused here, not at the first key issue), seeds the
 * sandbox catalogue, builds the engine over the host's store, and answers a typed facade
 * (`payrail.admin`, `payrail.merchant(caller)`, `payrail.executions`), the HTTP app for hosts
 * that want the API, and `start()` / `stop()` for the timer loop and the webhook dispatcher.
 * `startPayrail` (the server behind `pnpm start`) is this plus a listening socket.
 */
import { hostname } from 'node:os';
import { checkoutPages } from '@payrail/checkout';
import type {
  AcquiringProvider,
  Clock,
  DepositAddressProvider,
  Environment,
  IdGenerator,
  Store,
} from '@payrail/core';
import {
  adjustableClock,
  bootstrapOperator,
  createEngine,
  type Engine,
  type EngineDeps,
  type EngineInspector,
  minKeySecretBytes,
  type Operator,
  type PayoutExecutor,
  randomIds,
  seedSandboxCatalogue,
  systemClock,
} from '@payrail/engine';
import { type AppDeps, createApp, type RateLimitOptions, type Readiness } from '@payrail/http';
import {
  generateSandboxUpstreamSecret,
  isSandboxUpstreamSecret,
  sandboxAcquiringProvider,
} from '@payrail/sandbox';
import { createDispatcher, createOutboundUrlGuard, type Dispatcher } from '@payrail/webhooks';
import type { Registry } from 'prom-client';
import { defaultUpstreamSandboxSources } from './config.js';
import { generateAdminToken } from './credentials.js';
import { type AdminFacade, adminFacade, type MerchantFacade, merchantFacade } from './facade.js';
import {
  type Logging,
  loggingOf,
  logInternalError,
  loopLog,
  type PayrailLog,
} from './payrail-logger.js';
import { type PayrailMetrics, payrailMetrics } from './payrail-metrics.js';
import { readinessOf } from './readiness.js';
import { errorSummary, startTimerLoop, type TimerLoop } from './timer-loop.js';
import { bothObservers, unitOfWorkSpans } from './unit-of-work-spans.js';

export interface PayrailOptions {
  /**
   * Where payrail keeps everything: `createMemoryStore()` (@payrail/store-memory),
   * `createEmbeddedPostgresStore({ dataDir })` (durable, one machine), `createPGliteStore()` or
   * `createPostgresStore({ connectionString })` (@payrail/store-postgres). The host opened it and closes it; `stop()` leaves it open. The
   * store records the environment it is first used for, and a payrail of the other environment
   * refuses it (`StoreEnvironmentError`, ADR 0035).
   */
  readonly store: Store;
  /** `sandbox` (test money, sandbox endpoints, the test clock) or `live`. */
  readonly environment: Environment;
  /**
   * Signs API key tokens (HS256): at least 32 bytes (a string counts its UTF-8 bytes). Keep it:
   * changing it invalidates every key issued with it.
   */
  readonly keySecret: Uint8Array | string;
  /** The base URL payers reach; an order's checkout_url is `<publicUrl>/checkout/<order_id>`. */
  readonly publicUrl?: string;
  /**
   * Receives approved payouts, in the sandbox as in live; their outcomes come back through
   * `payrail.executions.report`. Absent: approved payouts wait for a report through that door
   * (or, in the sandbox, for `admin.sandboxExecution`). docs/embedding.md, section 4.
   */
  readonly executor?: PayoutExecutor;
  /** Live acquiring: allocates deposit addresses. The sandbox derives its own. */
  readonly depositAddresses?: DepositAddressProvider;
  /**
   * Upstream acquiring providers (`POST /upstream/acquiring/{provider}`). Default: the sandbox
   * provider in the sandbox (signed with `upstreamSandboxSecret`, loopback callers only), none
   * in live.
   */
  readonly acquiringProviders?: readonly AcquiringProvider[];
  /**
   * Sandbox only: the `whsec_` secret the default sandbox provider's reports are signed with
   * (`signSandboxUpstream` of @payrail/sandbox); default: a random one (see
   * `upstreamSandboxSecret`).
   */
  readonly upstreamSandboxSecret?: string;
  /** Unix seconds. Default: the wall clock (in the sandbox one the test clock can advance). */
  readonly clock?: Clock;
  /** Default: `<prefix>_` + 96 random bits. */
  readonly ids?: IdGenerator;
  /**
   * Receives XState inspection events for every committed decision (actor id = the payout,
   * order or batch id): pass `createInspectorSender({ url }).inspect`, which reconnects to its
   * relay (ADR 0049).
   */
  readonly inspect?: EngineInspector;
  /** Sandbox only: add the sandbox payout catalogue (methods, networks, routes). Default true. */
  readonly seedSandboxCatalogue?: boolean;
  /** Sandbox only: accept http and loopback webhook and notify URLs. Default false. */
  readonly allowInsecureWebhooks?: boolean;
  /** The operator token of `payrail.app`'s `/admin` routes; default: a random one (see `adminToken`). */
  readonly adminToken?: string;
  /** `payrail.app`'s per-key rate limit. */
  readonly rateLimit?: RateLimitOptions;
  /**
   * `payrail.app`'s limits per client address, before authentication: failed authentications per
   * 10 s (default 50) and requests per second on checkout and upstream routes (default 100).
   */
  readonly addressLimit?: AppDeps['addressLimit'];
  /** Proxies whose `X-Forwarded-For` `payrail.app` believes (addresses or CIDR ranges). */
  readonly trustedProxies?: readonly string[];
  /**
   * Where payrail logs (failures by message, never a secret or a stack): a function of a line,
   * or a leveled logger (a pino logger fits, `PayrailLogger`), which also gets every request's
   * access record (`request`, at info; a 5xx at error). Default: lines on stderr.
   */
  readonly log?: PayrailLog;
  /**
   * The timer loop's longest sleep; default 60 000 ms. The loop sleeps until the next timer is
   * due or the store tells of a new one (`Store.onWork`, ADR 0030): this is only the safety net
   * for a lost notification (or the polling interval of a store without `onWork`).
   */
  readonly timerIntervalMs?: number;
  /** The webhook dispatcher's longest sleep, likewise; default 60 000 ms. */
  readonly dispatchIntervalMs?: number;
  /**
   * How long the API key check may use a key's records read earlier (ADR 0029); default
   * 1000 ms, 0 reads the store on every request. Several processes on one database see each
   * other's key and account changes within this time.
   */
  readonly keyCheckCacheMs?: number;
  /** How long payouts may use the payout catalogue read earlier (ADR 0031); default 1000 ms. */
  readonly catalogueCacheMs?: number;
  /**
   * `payrail.app`'s `/metrics` answers only `Authorization: Bearer <metricsToken>` (at least 16
   * characters). Default: anyone who reaches it (docs/observability.md).
   */
  readonly metricsToken?: string;
  /**
   * `/readyz` answers 503 while this many outbox messages or more wait for delivery; default
   * 10 000, 0: no bound.
   */
  readonly readyMaxOutboxBacklog?: number;
  /** Adds Node's process metrics (`payrail_process_*`, `payrail_nodejs_*`); default false. */
  readonly processMetrics?: boolean;
}

/** An option that cannot work; every problem found is listed, before anything ran. */
export class PayrailOptionsError extends TypeError {
  constructor(readonly problems: readonly string[]) {
    super(`payrail options are not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PayrailOptionsError';
  }
}

/**
 * The store holds the other environment's data (ADR 0035): a live payrail never serves sandbox
 * balances, orders and payouts as live, and a sandbox one never credits or clocks live data.
 */
export class StoreEnvironmentError extends Error {
  constructor(
    /** What the store recorded when it was first used. */
    readonly recorded: Environment,
    /** What this payrail was asked to run as. */
    readonly wanted: Environment,
    /** How to start on a store of the wanted environment. */
    remedy = `Open ${wanted} on a new store (another data directory, database or schema)`,
  ) {
    super(`this store was created for ${recorded}; payrail ${wanted} will not use it. ${remedy}`);
    this.name = 'StoreEnvironmentError';
  }
}

export interface Payrail {
  readonly environment: Environment;
  /** The engine itself: every use case over raw input, as the HTTP adapter drives it. */
  readonly engine: Engine;
  /**
   * The admin use cases (docs/spec/decisions.md §8), typed, acting as the bootstrap operator (the configured
   * admin token; what it may do once an admin operator exists is ADR 0039's).
   */
  readonly admin: AdminFacade;
  /** The admin use cases acting as a named operator that `authenticateOperator` answered. */
  operator(operator: Operator): AdminFacade;
  /** Checks an operator's credential as the HTTP API does (`unauthorized` otherwise). */
  authenticateOperator(
    token: string,
    ip?: string,
  ): ReturnType<Engine['auth']['authenticateOperator']>;
  /** A merchant's use cases for a caller that `authenticate` answered, typed. */
  merchant(caller: Caller): MerchantFacade;
  /** Checks an API key token as the HTTP API does (every Authentication message). */
  authenticate(token: string, ip?: string): ReturnType<Engine['auth']['authenticate']>;
  /**
   * The executor door, in the sandbox as in live: `report(payoutId, { status: 'completed' })`,
   * idempotent by payout and status; `reportRefund` for refunds.
   */
  readonly executions: Engine['executions'];
  /** The merchant API, admin API, checkout calls and page, upstream events and /openapi.json. */
  readonly app: ReturnType<typeof createApp>;
  /** The operator token `app`'s `/admin` routes take. */
  readonly adminToken: string;
  /**
   * What the default sandbox provider's reports must be signed with; undefined in live or when
   * the host registered its own `acquiringProviders`.
   */
  readonly upstreamSandboxSecret: string | undefined;
  /** Runs the timer loop and the webhook dispatcher in this process. Idempotent; may follow stop(). */
  start(): void;
  /** Stops both, letting a pass in progress finish (deliveries in flight get 5 s). */
  stop(): Promise<void>;
  /** payrail's own prom-client registry, what `/metrics` answers (docs/observability.md). */
  readonly metrics: Registry;
  /** What `/readyz` answers: each check `ok` or `failing`. */
  readiness(): Promise<Readiness>;
  /**
   * From now on `/readyz` answers 503 (`serving: failing`) while requests are still served, so
   * a load balancer stops sending them before the server closes; until the next `start()`.
   */
  drain(): void;
}

type Caller = Parameters<Engine['accounts']['current']>[0];

const utf8 = new TextEncoder();

const secretBytesOf = (secret: Uint8Array | string): Uint8Array =>
  typeof secret === 'string' ? utf8.encode(secret) : secret;

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.search === '';
  } catch {
    return false;
  }
};

/** The options that must be there: the store, the environment, the key secret. */
const requiredOptionProblems = (given: Partial<PayrailOptions>): string[] => {
  const problems: string[] = [];
  if (given.store === undefined || typeof given.store?.transaction !== 'function') {
    problems.push('store is required: a payrail Store (memory, PGlite or PostgreSQL)');
  }
  if (given.environment !== 'sandbox' && given.environment !== 'live') {
    problems.push(`environment must be 'sandbox' or 'live'`);
  }
  const secret = given.keySecret;
  if (typeof secret !== 'string' && !(secret instanceof Uint8Array)) {
    problems.push(`keySecret is required: at least ${minKeySecretBytes} bytes`);
  } else if (secretBytesOf(secret).length < minKeySecretBytes) {
    problems.push(
      `keySecret has ${secretBytesOf(secret).length} bytes; at least ${minKeySecretBytes} are needed`,
    );
  }
  if (given.publicUrl !== undefined && !isHttpUrl(given.publicUrl)) {
    problems.push('publicUrl must be an absolute http(s) URL without a query');
  }
  return problems;
};

/** The sandbox's own options, refused in live; live acquiring's custody port. */
const environmentOptionProblems = (given: Partial<PayrailOptions>): string[] => {
  const problems: string[] = [];
  if (given.environment === 'live') {
    if (given.seedSandboxCatalogue === true) {
      problems.push('seedSandboxCatalogue is for the sandbox only');
    }
    if (given.allowInsecureWebhooks === true) {
      problems.push('allowInsecureWebhooks is for the sandbox only');
    }
    if (given.upstreamSandboxSecret !== undefined) {
      problems.push('upstreamSandboxSecret is for the sandbox only');
    }
    if ((given.acquiringProviders?.length ?? 0) > 0 && given.depositAddresses === undefined) {
      problems.push(
        'live acquiring needs depositAddresses (a custody port) when acquiringProviders are given',
      );
    }
  }
  if (
    given.environment !== 'live' &&
    given.upstreamSandboxSecret !== undefined &&
    !isSandboxUpstreamSecret(given.upstreamSandboxSecret)
  ) {
    problems.push('upstreamSandboxSecret must be whsec_ followed by the base64 of 24 to 64 bytes');
  }
  return problems;
};

/** The admin token's length, and the caches' and loops' durations. */
const tuningOptionProblems = (given: Partial<PayrailOptions>): string[] => {
  const problems: string[] = [];
  if (given.adminToken !== undefined && given.adminToken.length < 16) {
    problems.push('adminToken must have at least 16 characters');
  }
  if (given.metricsToken !== undefined && given.metricsToken.length < 16) {
    problems.push('metricsToken must have at least 16 characters');
  }
  const backlog = given.readyMaxOutboxBacklog;
  if (backlog !== undefined && !(Number.isInteger(backlog) && backlog >= 0)) {
    problems.push('readyMaxOutboxBacklog must be a whole number of messages, 0 or more');
  }
  for (const name of ['keyCheckCacheMs', 'catalogueCacheMs'] as const) {
    const value = given[name];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
      problems.push(`${name} must be a whole number of milliseconds, 0 or more`);
    }
  }
  for (const name of ['timerIntervalMs', 'dispatchIntervalMs'] as const) {
    const value = given[name];
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      problems.push(`${name} must be a positive whole number of milliseconds`);
    }
  }
  return problems;
};

/**
 * Every problem with `options`, in the order the options are documented. Typed loosely: a
 * JavaScript host may pass anything, nothing included.
 */
const payrailOptionProblems = (
  given: Partial<PayrailOptions> | null | undefined,
): readonly string[] => {
  if (given === undefined || given === null || typeof given !== 'object') {
    return ['options must be an object'];
  }
  return [
    ...requiredOptionProblems(given),
    ...environmentOptionProblems(given),
    ...tuningOptionProblems(given),
  ];
};

/** The loops' safety net: how long they sleep at most when no work is told of (ADR 0030). */
const defaultMaxSleepMs = 60_000;

/** What the options settle once checked: each default filled in. */
interface Settled {
  readonly isSandbox: boolean;
  readonly logging: Logging;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly keySecret: Uint8Array;
  readonly allowInsecureWebhooks: boolean;
  /** Without a trailing slash. */
  readonly publicUrl: string;
}

const settledOptions = (options: PayrailOptions): Settled => {
  const isSandbox = options.environment === 'sandbox';
  return {
    isSandbox,
    logging: loggingOf(options.log),
    ids: options.ids ?? randomIds,
    clock: options.clock ?? (isSandbox ? adjustableClock() : systemClock),
    keySecret: secretBytesOf(options.keySecret),
    allowInsecureWebhooks: isSandbox && options.allowInsecureWebhooks === true,
    publicUrl: (options.publicUrl ?? 'http://127.0.0.1:8080').replace(/\/+$/, ''),
  };
};

/** The built-in provider of `POST /upstream/acquiring/sandbox`, its reports signed with `secret`. */
export const sandboxProviders = (
  allowedSources: readonly string[],
  secret: string,
): AcquiringProvider[] => [sandboxAcquiringProvider({ allowedSources, secret })];

const engineDepsOf = (
  options: PayrailOptions,
  settled: Settled,
  upstreamSandboxSecret: string | undefined,
  afterClockAdvance: () => Promise<void>,
  metrics: PayrailMetrics,
): EngineDeps => ({
  store: options.store,
  observer: bothObservers(metrics.engineObserver, unitOfWorkSpans),
  clock: settled.clock,
  ids: settled.ids,
  settings: {
    environment: options.environment,
    checkoutBaseUrl: `${settled.publicUrl}/checkout`,
    allowInsecureWebhooks: settled.allowInsecureWebhooks,
    keySecret: settled.keySecret,
    ...(options.keyCheckCacheMs === undefined ? {} : { keyCheckCacheMs: options.keyCheckCacheMs }),
    ...(options.catalogueCacheMs === undefined
      ? {}
      : { catalogueCacheMs: options.catalogueCacheMs }),
  },
  // The SSRF guard at create time; the dispatcher runs it again on the address it connects to.
  outboundUrlGuard: createOutboundUrlGuard({ allowInsecure: settled.allowInsecureWebhooks }),
  acquiringProviders:
    options.acquiringProviders ??
    (upstreamSandboxSecret === undefined
      ? []
      : sandboxProviders(defaultUpstreamSandboxSources, upstreamSandboxSecret)),
  afterClockAdvance,
  ...(options.executor === undefined ? {} : { payoutExecutor: options.executor }),
  ...(options.depositAddresses === undefined ? {} : { depositAddresses: options.depositAddresses }),
  ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
});

/** The HTTP app over `engine`, with the hosted checkout page at checkout_url. */
const payrailApp = (
  engine: Engine,
  options: PayrailOptions,
  settled: Settled,
  adminToken: string,
  observability: NonNullable<AppDeps['observability']>,
): ReturnType<typeof createApp> => {
  const { logger, logRequest } = settled.logging;
  const app = createApp({
    engine,
    adminToken,
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.addressLimit === undefined ? {} : { addressLimit: options.addressLimit }),
    ...(options.trustedProxies === undefined ? {} : { trustedProxies: options.trustedProxies }),
    // `/openapi.json`'s `servers`: only a URL the host gave (else the document's own origin).
    ...(options.publicUrl === undefined ? {} : { publicUrl: settled.publicUrl }),
    logInternalError: logInternalError(logger),
    observability,
    ...(logRequest === undefined ? {} : { logRequest }),
    // Once per process: a proxy in front that is not trusted hides every client's address.
    warnUntrustedForwarding: (peer) => {
      logger.warn(
        { peer },
        `a request from ${peer} carried X-Forwarded-For or Forwarded, but ${peer} is not a ` +
          'trusted proxy (PAYRAIL_TRUSTED_PROXIES), so the header is ignored: every client ' +
          `behind it has the address ${peer}, which API keys' ip_whitelist and the upstream ` +
          "providers' sources then allow or refuse for all of them alike. If a reverse proxy " +
          'runs in front, list its address in PAYRAIL_TRUSTED_PROXIES (warned once)',
      );
    },
  });
  // The hosted checkout page at checkout_url; it calls the app's `/checkout/api/...` itself.
  app.route(
    '/checkout',
    checkoutPages({
      order: (orderId) => engine.checkout.order(orderId),
      now: () => settled.clock.now(),
      logError: (error) =>
        logger.error({ err: errorSummary(error) }, `checkout page failed: ${errorSummary(error)}`),
    }),
  );
  return app;
};

/** The timer loop and the webhook dispatcher: `start()` runs them, `stop()` lets them finish. */
interface BackgroundWork {
  /** The dispatcher's pass and both loops' new plans, after the sandbox's clock moved. */
  afterClockAdvance(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
  /** Whether each loop runs (started, not stopped), for readiness. */
  running(): { readonly timerLoop: boolean; readonly dispatcher: boolean };
}

const backgroundWork = (
  engine: Engine,
  options: PayrailOptions,
  settled: Settled,
  metrics: PayrailMetrics,
): BackgroundWork => {
  const { store } = options;
  const { clock } = settled;
  const { logger } = settled.logging;
  const worker = `${hostname()}:${process.pid}`;
  // A stopped dispatcher stays stopped, so each start() gets a fresh one.
  const newDispatcher = (): Dispatcher =>
    createDispatcher({
      store,
      clock,
      ids: settled.ids,
      callbacks: engine.callbacks,
      keySecret: settled.keySecret,
      allowInsecure: settled.allowInsecureWebhooks,
      worker,
      log: loopLog(logger, 'webhooks'),
      onAttempt: metrics.attemptObserved,
    });
  let dispatcher = newDispatcher();
  let dispatcherStopped = false;
  let loop: TimerLoop | undefined;
  let stopping: Promise<void> | undefined;
  return {
    afterClockAdvance: async () => {
      await dispatcher.runOnce().catch((error: unknown) => {
        loopLog(logger, 'webhooks')(`webhook dispatcher failed: ${errorSummary(error)}`);
      });
      // Both loops planned their sleeps on the clock before it moved.
      loop?.wake();
      dispatcher.wake();
    },
    start: () => {
      if (loop !== undefined) return;
      stopping = undefined;
      loop = startTimerLoop({
        run: () => engine.workers.runDueTimers(worker),
        nextDueAt: () => store.transaction((tx) => tx.timers.nextDueAt()),
        clock,
        ...(store.onWork === undefined ? {} : { onWork: store.onWork.bind(store) }),
        intervalMs: options.timerIntervalMs ?? defaultMaxSleepMs,
        log: loopLog(logger, 'timers'),
      });
      if (dispatcherStopped) {
        dispatcher = newDispatcher();
        dispatcherStopped = false;
      }
      dispatcher.start({ intervalMs: options.dispatchIntervalMs ?? defaultMaxSleepMs });
    },
    stop: () => {
      const running = loop;
      if (running === undefined) return stopping ?? Promise.resolve();
      loop = undefined;
      dispatcherStopped = true;
      stopping = Promise.all([running.stop(), dispatcher.stop()]).then(() => undefined);
      return stopping;
    },
    running: () => ({
      timerLoop: loop !== undefined,
      dispatcher: loop !== undefined && !dispatcherStopped,
    }),
  };
};

export const createPayrail = async (options: PayrailOptions): Promise<Payrail> => {
  const problems = payrailOptionProblems(options);
  if (problems.length > 0) throw new PayrailOptionsError(problems);

  const { store, environment } = options;
  const settled = settledOptions(options);
  // Before anything is written: a store of the other environment is refused, untouched.
  const recorded = await store.claimEnvironment(environment);
  if (recorded !== environment) throw new StoreEnvironmentError(recorded, environment);
  if (settled.isSandbox && options.seedSandboxCatalogue !== false) {
    await seedSandboxCatalogue(store, settled.ids, settled.clock);
  }
  const upstreamSandboxSecret =
    settled.isSandbox && options.acquiringProviders === undefined
      ? (options.upstreamSandboxSecret ?? generateSandboxUpstreamSecret())
      : undefined;

  // The dispatcher reads the engine's clock, so the sandbox's clock advance makes retries due:
  // the engine runs it after firing the timers.
  let work: BackgroundWork | undefined;
  const metrics = payrailMetrics(store, settled.clock, options.processMetrics === true);
  const engine = createEngine(
    engineDepsOf(
      options,
      settled,
      upstreamSandboxSecret,
      async () => {
        await work?.afterClockAdvance();
      },
      metrics,
    ),
  );
  let serving = true;
  const readiness = readinessOf({
    store,
    loops: () => work?.running() ?? { timerLoop: false, dispatcher: false },
    serving: () => serving,
    maxOutboxBacklog: options.readyMaxOutboxBacklog ?? 10_000,
  });
  const adminToken = options.adminToken ?? generateAdminToken();
  const app = payrailApp(engine, options, settled, adminToken, {
    readiness,
    metrics: metrics.exposition(options.metricsToken),
    requestObserved: metrics.requestObserved,
  });
  work = backgroundWork(engine, options, settled, metrics);
  const { start } = work;

  return {
    environment,
    engine,
    admin: adminFacade(engine, bootstrapOperator),
    operator: (operator) => adminFacade(engine, operator),
    authenticateOperator: (token, ip = '127.0.0.1') =>
      engine.auth.authenticateOperator({ token, ip }),
    merchant: (caller) => merchantFacade(engine, caller),
    authenticate: (token, ip = '127.0.0.1') => engine.auth.authenticate({ token, ip }),
    executions: engine.executions,
    app,
    adminToken,
    upstreamSandboxSecret,
    start: () => {
      serving = true;
      start();
    },
    stop: work.stop,
    metrics: metrics.registry,
    readiness,
    drain: () => {
      serving = false;
    },
  };
};
