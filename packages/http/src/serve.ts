/** Puts the app on a Node socket (`@hono/node-server`); the server package calls this. */

import type { AddressInfo } from 'node:net';
import { type ServerType, serve as serveNode } from '@hono/node-server';
import type { PayrailApp } from './create-app.js';

export interface ServeOptions {
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly hostname: string;
  /** The whole request, headers and body, must arrive within this (ms); default 30,000. */
  readonly requestTimeoutMs?: number;
  /** The headers must arrive within this (ms); default 20,000 (at most `requestTimeoutMs`). */
  readonly headersTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this (ms); default 5,000. */
  readonly keepAliveTimeoutMs?: number;
}

/**
 * Node's own defaults let a client dribble a body for 300 s and hold the connection (issue 12,
 * finding 6); a payment API's request is small, so 30 s is plenty.
 */
const serveTimeoutDefaults = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 20_000,
  keepAliveTimeoutMs: 5_000,
} as const;

/** Node checks the request and header timeouts this often (default 30 s): a tenth of the shorter. */
const checkingIntervalOf = (headersTimeoutMs: number, requestTimeoutMs: number): number =>
  Math.max(10, Math.min(1_000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 10)));

const timeoutsOf = (options: ServeOptions) => {
  const requestTimeout = options.requestTimeoutMs ?? serveTimeoutDefaults.requestTimeoutMs;
  const headersTimeout = Math.min(
    options.headersTimeoutMs ?? serveTimeoutDefaults.headersTimeoutMs,
    requestTimeout,
  );
  const keepAliveTimeout = options.keepAliveTimeoutMs ?? serveTimeoutDefaults.keepAliveTimeoutMs;
  for (const [name, value] of Object.entries({
    requestTimeout,
    headersTimeout,
    keepAliveTimeout,
  })) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`invalid ${name}: ${value}`);
  }
  return {
    requestTimeout,
    headersTimeout,
    keepAliveTimeout,
    connectionsCheckingInterval: checkingIntervalOf(headersTimeout, requestTimeout),
  };
};

export interface RunningServer {
  readonly server: ServerType;
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** Stops accepting connections and resolves when the ones in flight have finished. */
  close(): Promise<void>;
}

export const serve = (app: PayrailApp, options: ServeOptions): Promise<RunningServer> =>
  new Promise((resolve, reject) => {
    const serverOptions = timeoutsOf(options);
    const server = serveNode(
      { fetch: app.fetch, port: options.port, hostname: options.hostname, serverOptions },
      (info: AddressInfo) => {
        const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          server,
          url: `http://${host}:${info.port}`,
          close: () =>
            new Promise<void>((done, fail) => {
              server.close((error) => (error ? fail(error) : done()));
            }),
        });
      },
    );
    // An option of `createServer` only in recent Node: set on the server too.
    if ('keepAliveTimeout' in server) server.keepAliveTimeout = serverOptions.keepAliveTimeout;
    server.once('error', reject);
  });
