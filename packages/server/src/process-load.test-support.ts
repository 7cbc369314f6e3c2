/**
 * What the load tests against real server processes share: a webhook receiver on 127.0.0.1 that
 * records every delivery, calls that tell "no answer" (the process died) from an answer, a page
 * reader, a PostgreSQL schema of the test's own, and the environment such a process runs with.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import pg from 'pg';
import type { Envelope } from './server-process.test-support.js';

export interface Delivery {
  readonly path: string;
  readonly webhookId: string;
  readonly webhookTimestamp: string;
  readonly body: string;
}

/**
 * A receiver answering 200 after `delayMs()` (so attempts are in flight when a process dies);
 * it records each request it received in full, before answering.
 */
export const startReceiver = async (delayMs: () => number = () => 0) => {
  const received: Delivery[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        webhookId: String(req.headers['webhook-id'] ?? ''),
        webhookTimestamp: String(req.headers['webhook-timestamp'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      setTimeout(() => res.writeHead(200).end('{"ok":true}'), delayMs());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    /** How many requests carried each webhook-id. */
    counts: (): Map<string, number> => {
      const counts = new Map<string, number>();
      for (const delivery of received) {
        counts.set(delivery.webhookId, (counts.get(delivery.webhookId) ?? 0) + 1);
      }
      return counts;
    },
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * One call; `undefined` when no answer came (the connection was refused or broke: the process
 * died before or while answering). An answer that is not the envelope throws.
 */
export const attempt = async (
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Envelope | undefined> => {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    text = await res.text();
  } catch {
    return undefined;
  }
  try {
    return { status: res.status, ...(JSON.parse(text) as Omit<Envelope, 'status'>) };
  } catch {
    throw new Error(`${method} ${path} answered ${res.status} without the envelope: ${text}`);
  }
};

/** Every item of a paged list (`limit`/`offset`/`total`), read in pages of 100. */
export const allPages = async <T>(
  read: (offset: number) => Promise<{ items: T[]; total: number }>,
): Promise<T[]> => {
  const items: T[] = [];
  for (;;) {
    const page = await read(items.length);
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= page.total) return items;
  }
};

export const until = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 60_000,
): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** A small seeded generator (mulberry32), so a run's choices can be told and repeated. */
export const seededRandom = (seed: number) => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** A whole number from `min` to `max`, both included. */
    int: (min: number, max: number): number => min + Math.floor(next() * (max - min + 1)),
  };
};
export type Random = ReturnType<typeof seededRandom>;

/**
 * The environment of a sandbox server process under load: no rate limits (every client shares
 * 127.0.0.1), loopback webhooks.
 */
export const loadEnv = (adminToken: string): Record<string, string> => ({
  PORT: '0',
  PAYRAIL_ADMIN_TOKEN: adminToken,
  PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
  PAYRAIL_RATE_LIMIT: '0',
  PAYRAIL_RATE_LIMIT_PER_ADDRESS: '0',
  PAYRAIL_AUTH_FAILURES_PER_ADDRESS: '0',
  PAYRAIL_UPSTREAM_SANDBOX_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
});

export const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const inCI = process.env.CI === 'true';

const probe = async (): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
};

/**
 * Whether the PostgreSQL suites run: wherever a server answers, and always in CI (a missing
 * server fails there); elsewhere they are skipped with a message.
 */
export const postgresSkipped = async (what: string): Promise<boolean> => {
  const unavailable = await probe();
  if (unavailable === undefined || inCI) return false;
  console.warn(
    `PostgreSQL does not answer at ${databaseUrl} (${unavailable}): ${what} is skipped. ` +
      'Start PostgreSQL or set DATABASE_URL to run it.',
  );
  return true;
};

/** A fresh schema name; `dropSchema` removes it and everything in it. */
export const freshSchema = (prefix: string): string =>
  `${prefix}_${randomBytes(6).toString('hex')}`;

export const sqlQuery = async <R extends pg.QueryResultRow>(
  text: string,
  params: unknown[] = [],
): Promise<R[]> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
};

export const dropSchema = async (schema: string): Promise<void> => {
  await sqlQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
};
