/**
 * The server: opens the store the configuration names (the embedded PostgreSQL or PGlite in the
 * data directory, or a PostgreSQL pool; each migrates on open), embeds payrail in it with `createPayrail`, listens,
 * and starts payrail's timer loop and webhook dispatcher; `stop()` undoes it in order.
 */
import { createServer } from 'node:net';
import type { Store } from '@payrail/core';
import { type RunningServer, serve } from '@payrail/http';
import { generateSandboxUpstreamSecret } from '@payrail/sandbox';
import { type DataDirLock, lockDataDir } from '@payrail/store-postgres';
import { defaultPublicUrl, type ServerConfig } from './config.js';
import {
  createPayrail,
  type Payrail,
  StoreEnvironmentError,
  sandboxProviders,
} from './create-payrail.js';
import { openConfiguredStore } from './embedded-store.js';
import { createInspectorSender, type InspectorSender } from './inspector-sender.js';
import { loggingOf, loopLog, type PayrailLog } from './payrail-logger.js';

export interface PayrailServerOptions {
  readonly config: ServerConfig;
  readonly adminToken: string;
  readonly keySecret: Uint8Array;
  /**
   * Sandbox: what the sandbox chain watcher signs its reports with (`main` passes
   * PAYRAIL_UPSTREAM_SANDBOX_SECRET or the one it generated and printed); default a random one
   * nobody is told, so nothing reports upstream.
   */
  readonly upstreamSandboxSecret?: string;
  /**
   * Where it logs: lines, or a leveled logger (`main`: pino's JSON records, with an access record
   * per request); never given a secret.
   */
  readonly log: PayrailLog;
  /**
   * A store the host built and keeps (tests: the memory store): the config's database is then
   * unused, and `stop()` leaves the store open.
   */
  readonly store?: Store;
  /** The timer loop's longest sleep (a safety net, ADR 0030); default 60,000 ms. */
  readonly timerIntervalMs?: number;
  /** The webhook dispatcher's longest sleep (a safety net, ADR 0030); default 60,000 ms. */
  readonly dispatchIntervalMs?: number;
  /** How long `stop()` waits for requests in flight before closing their connections. */
  readonly shutdownGraceMs?: number;
  /**
   * How long `stop()` goes on serving after `/readyz` turned 503, so that a load balancer stops
   * sending requests before the socket closes (`main`: PAYRAIL_SHUTDOWN_DRAIN_MS); default 0.
   */
  readonly shutdownDrainMs?: number;
  /** Adds Node's process metrics to `/metrics` (`main`: a process that is payrail alone). */
  readonly processMetrics?: boolean;
}

export interface PayrailServer {
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The base of checkout_url. */
  readonly publicUrl: string;
  /**
   * Turns `/readyz` to 503 and goes on serving for `shutdownDrainMs`, then stops accepting,
   * finishes requests in flight, stops the timer loop and the dispatcher (its attempts in flight
   * get 5 s), closes its store.
   */
  stop(): Promise<void>;
}

type Inspector = InspectorSender;

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

/** The data directory (its key secret, its embedded database) belongs to one server at a time. */
const lockOwnDataDir = (options: PayrailServerOptions): Promise<DataDirLock> | undefined =>
  options.store === undefined && options.config.database.kind === 'embedded'
    ? lockDataDir(options.config.dataDir, {
        display: options.config.dataDirDisplay,
        remedy: 'or set PAYRAIL_DATA_DIR to another directory',
      })
    : undefined;

/** payrail as the configuration describes it, over `store`, reached at `publicUrl`. */
const configuredPayrail = (
  options: PayrailServerOptions,
  store: Store,
  publicUrl: string,
  inspector: Inspector | undefined,
): Promise<Payrail> => {
  const { config } = options;
  return createPayrail({
    store,
    environment: config.environment,
    keySecret: options.keySecret,
    publicUrl,
    adminToken: options.adminToken,
    allowInsecureWebhooks: config.allowInsecureWebhooks,
    rateLimit: { requestsPerSecond: config.rateLimit },
    addressLimit: config.addressLimit,
    trustedProxies: config.trustedProxies,
    ...(config.metricsToken === undefined ? {} : { metricsToken: config.metricsToken }),
    readyMaxOutboxBacklog: config.readyMaxOutboxBacklog,
    processMetrics: options.processMetrics === true,
    // The built-in provider of POST /upstream/acquiring/sandbox; live has no sandbox payments.
    acquiringProviders:
      config.environment === 'sandbox'
        ? sandboxProviders(
            config.upstreamSandboxSources,
            options.upstreamSandboxSecret ?? generateSandboxUpstreamSecret(),
          )
        : [],
    log: options.log,
    ...(options.timerIntervalMs === undefined ? {} : { timerIntervalMs: options.timerIntervalMs }),
    ...(options.dispatchIntervalMs === undefined
      ? {}
      : { dispatchIntervalMs: options.dispatchIntervalMs }),
    ...(inspector === undefined ? {} : { inspect: inspector.inspect }),
  });
};

/** What a started server holds, released in order by `stop()`. */
interface Started {
  readonly listening: RunningServer;
  readonly payrail: Payrail;
  readonly inspector: Inspector | undefined;
  readonly store: Store;
  readonly lock: DataDirLock | undefined;
}

/** Stops once however often it is called: HTTP and payrail together, then the rest. */
const stopperOf = (options: PayrailServerOptions, started: Started): (() => Promise<void>) => {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      // Unready first, still serving: a load balancer sees 503 and stops sending requests.
      started.payrail.drain();
      const drainMs = options.shutdownDrainMs ?? 0;
      if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
      await Promise.all([
        closeHttp(started.listening, options.shutdownGraceMs ?? 10_000),
        started.payrail.stop(),
      ]);
      started.inspector?.stop();
      if (options.store === undefined) await started.store.close();
      await started.lock?.release();
    })();
    return stopping;
  };
};

export const startPayrail = async (options: PayrailServerOptions): Promise<PayrailServer> => {
  const { config } = options;
  const { logger } = loggingOf(options.log);
  const lock = await lockOwnDataDir(options);
  let store: Store | undefined;
  let running: RunningServer | undefined;
  let inspector: Inspector | undefined;
  try {
    store = options.store ?? (await openConfiguredStore(config, loopLog(logger, 'database')));
    // checkout_url names the public URL: with PORT=0 and none configured the port is chosen
    // first, so the default public URL can name it.
    const port =
      config.port === 0 && config.publicUrl === undefined
        ? await pickFreePort(config.host)
        : config.port;
    const publicUrl = config.publicUrl ?? defaultPublicUrl(config.host, port);
    // PAYRAIL_INSPECT: every committed decision goes to the inspector relay; while the relay
    // is away the last 200 events wait, and it is connected again once it is back (ADR 0049).
    inspector =
      config.inspectUrl === undefined
        ? undefined
        : createInspectorSender({ url: config.inspectUrl, log: loopLog(logger, 'inspector') });
    const payrail = await configuredPayrail(options, store, publicUrl, inspector);
    running = await serve(payrail.app, { port, hostname: config.host, ...config.httpTimeouts });
    const listening = running;
    payrail.start();
    const stop = stopperOf(options, { listening, payrail, inspector, store, lock });
    return { url: listening.url, publicUrl, stop };
  } catch (error) {
    inspector?.stop();
    if (running !== undefined) await running.close().catch(() => undefined);
    if (options.store === undefined) await store?.close().catch(() => undefined);
    await lock?.release().catch(() => undefined);
    throw options.store === undefined ? withStoreRemedy(error, config) : error;
  }
};

/** A store of the other environment (ADR 0035), with the setting that starts a fresh one. */
const withStoreRemedy = (error: unknown, config: ServerConfig): unknown =>
  error instanceof StoreEnvironmentError
    ? new StoreEnvironmentError(
        error.recorded,
        error.wanted,
        config.database.kind === 'embedded'
          ? `Start ${error.wanted} on a new PAYRAIL_DATA_DIR (this one is ${config.dataDirDisplay})`
          : `Start ${error.wanted} on another DATABASE_URL database or a new ` +
              `PAYRAIL_DATABASE_SCHEMA (this one is schema ${config.databaseSchema})`,
      )
    : error;
