/**
 * The wiring: the one place that knows every package. Opens the store (PGlite in the data
 * directory, or a PostgreSQL pool; both migrate on open), seeds the sandbox catalogue, builds
 * the engine and the HTTP app, listens, and runs the timer loop and the webhook dispatcher;
 * `stop()` undoes it in order.
 */
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { checkoutPages } from '@payrail/checkout';
import type { Store } from '@payrail/core';
import {
  adjustableClock,
  createEngine,
  type EngineSettings,
  randomIds,
  seedSandboxCatalogue,
  systemClock,
} from '@payrail/engine';
import { createApp, type RunningServer, serve } from '@payrail/http';
import { sandboxAcquiringProvider } from '@payrail/sandbox';
import { createPGliteStore, createPostgresStore } from '@payrail/store-postgres';
import { createDispatcher, createOutboundUrlGuard, type Dispatcher } from '@payrail/webhooks';
import { defaultPublicUrl, type ServerConfig } from './config.js';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import { errorSummary, startTimerLoop, type TimerLoop } from './timer-loop.js';

export interface PayrailServerOptions {
  readonly config: ServerConfig;
  readonly adminToken: string;
  readonly keySecret: Uint8Array;
  /** Operator-facing lines (stderr in `main`); never given a secret. */
  readonly log: (line: string) => void;
  /**
   * A store the host built and keeps (tests: the memory store): the config's database is then
   * unused, and `stop()` leaves the store open.
   */
  readonly store?: Store;
  /** Default 1000 ms. */
  readonly timerIntervalMs?: number;
  /** Pause between webhook dispatcher passes; default 500 ms. */
  readonly dispatchIntervalMs?: number;
  /** How long `stop()` waits for requests in flight before closing their connections. */
  readonly shutdownGraceMs?: number;
}

export interface PayrailServer {
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The base of checkout_url. */
  readonly publicUrl: string;
  /**
   * Stops accepting, finishes requests in flight, stops the timer loop and the dispatcher (its
   * attempts in flight get 5 s), closes its store.
   */
  stop(): Promise<void>;
}

const openStore = async (config: ServerConfig): Promise<Store> =>
  config.database.kind === 'embedded'
    ? createPGliteStore({ dataDir: config.database.directory, schema: config.databaseSchema })
    : createPostgresStore({
        connectionString: config.database.connectionString,
        schema: config.databaseSchema,
      });

/**
 * Stops accepting and resolves once every connection is gone. A keep-alive connection whose
 * request finishes after the close would otherwise idle until its timeout, so idle ones are
 * closed as they appear; connections still busy after `graceMs` are cut.
 */
const closeHttp = async (running: RunningServer, graceMs: number): Promise<void> => {
  const server = running.server;
  const http = 'closeIdleConnections' in server ? server : undefined;
  const sweep = setInterval(() => http?.closeIdleConnections(), 50);
  const force = setTimeout(() => http?.closeAllConnections(), graceMs);
  try {
    await running.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(force);
  }
};

/** A port free on `host` right now (PORT=0), so checkout_url can name it before listening. */
const pickFreePort = (host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });

export const startPayrail = async (options: PayrailServerOptions): Promise<PayrailServer> => {
  const { config, log } = options;
  const lock: DataDirLock | undefined =
    options.store === undefined && config.database.kind === 'embedded'
      ? await lockDataDir(config.dataDir, config.dataDirDisplay)
      : undefined;
  let store: Store | undefined;
  let running: RunningServer | undefined;
  try {
    store = options.store ?? (await openStore(config));
    const ids = randomIds;
    // The sandbox's test clock (`/admin/sandbox/clock/advance`) moves this one; it starts at
    // the wall clock on every start.
    const clock = config.environment === 'sandbox' ? adjustableClock() : systemClock;
    if (config.environment === 'sandbox') await seedSandboxCatalogue(store, ids, clock);

    // The engine reads checkout_url's base once, when built: with PORT=0 and no public URL the
    // port is chosen first, so the default public URL can name it.
    const port =
      config.port === 0 && config.publicUrl === undefined
        ? await pickFreePort(config.host)
        : config.port;
    const publicUrl = config.publicUrl ?? defaultPublicUrl(config.host, port);
    const settings: EngineSettings = {
      environment: config.environment,
      checkoutBaseUrl: `${publicUrl}/checkout`,
      allowInsecureWebhooks: config.allowInsecureWebhooks,
      keySecret: options.keySecret,
    };
    // The SSRF guard at create time; the dispatcher runs it again on the address it connects to.
    const outboundUrlGuard = createOutboundUrlGuard({
      allowInsecure: config.allowInsecureWebhooks,
    });
    // The dispatcher reads the engine's clock, so the sandbox's clock advance makes retries due:
    // the engine runs it after firing the timers (it is built below, with the engine's callbacks).
    let dispatcher: Dispatcher | undefined;
    const afterClockAdvance = async (): Promise<void> => {
      await dispatcher?.runOnce().catch((error: unknown) => {
        log(`webhook dispatcher failed: ${errorSummary(error)}`);
      });
    };
    const engine = createEngine({
      store,
      clock,
      ids,
      settings,
      outboundUrlGuard,
      afterClockAdvance,
      // The built-in provider of POST /upstream/acquiring/sandbox; live has no sandbox payments.
      acquiringProviders:
        config.environment === 'sandbox'
          ? [sandboxAcquiringProvider({ allowedSources: config.upstreamSandboxSources })]
          : [],
    });
    const app = createApp({
      engine,
      adminToken: options.adminToken,
      rateLimit: { requestsPerSecond: config.rateLimit },
      trustedProxies: config.trustedProxies,
      logInternalError: ({ method, path, error }) => {
        log(`${method} ${path} failed: ${errorSummary(error)}`);
      },
    });
    // The hosted checkout page at checkout_url; it calls the app's `/checkout/api/...` itself.
    app.route(
      '/checkout',
      checkoutPages({
        order: (orderId) => engine.checkout.order(orderId),
        now: () => clock.now(),
        logError: (error) => log(`checkout page failed: ${errorSummary(error)}`),
      }),
    );
    running = await serve(app, { port, hostname: config.host });
    const listening = running;

    const worker = `${hostname()}:${process.pid}`;
    const loop: TimerLoop = startTimerLoop({
      run: () => engine.workers.runDueTimers(worker),
      intervalMs: options.timerIntervalMs ?? 1000,
      log,
    });
    const webhooks = createDispatcher({
      store,
      clock,
      ids,
      callbacks: engine.callbacks,
      allowInsecure: config.allowInsecureWebhooks,
      worker,
      log,
    });
    dispatcher = webhooks;
    webhooks.start({ intervalMs: options.dispatchIntervalMs ?? 500 });

    const openStoreRef = store;
    let stopping: Promise<void> | undefined;
    return {
      url: listening.url,
      publicUrl,
      stop: () => {
        stopping ??= (async () => {
          await Promise.all([
            closeHttp(listening, options.shutdownGraceMs ?? 10_000),
            loop.stop(),
            webhooks.stop(),
          ]);
          if (options.store === undefined) await openStoreRef.close();
          await lock?.release();
        })();
        return stopping;
      },
    };
  } catch (error) {
    if (running !== undefined) await running.close().catch(() => undefined);
    if (options.store === undefined) await store?.close().catch(() => undefined);
    await lock?.release().catch(() => undefined);
    throw error;
  }
};
