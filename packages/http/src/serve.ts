/** Puts the app on a Node socket (`@hono/node-server`); the server package calls this. */

import type { AddressInfo } from 'node:net';
import { type ServerType, serve as serveNode } from '@hono/node-server';
import type { PayrailApp } from './create-app.js';

export interface ServeOptions {
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly hostname: string;
}

export interface RunningServer {
  readonly server: ServerType;
  /** Where it listens, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** Stops accepting connections and resolves when the ones in flight have finished. */
  close(): Promise<void>;
}

export const serve = (app: PayrailApp, options: ServeOptions): Promise<RunningServer> =>
  new Promise((resolve, reject) => {
    const server = serveNode(
      { fetch: app.fetch, port: options.port, hostname: options.hostname },
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
    server.once('error', reject);
  });
