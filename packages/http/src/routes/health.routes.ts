/**
 * The operator's routes (docs/observability.md), outside the merchant API: no API key, no per-key
 * rate limit, not in `/openapi.json`, and answers of their own rather than the envelope, as
 * probes and scrapers read them.
 *
 * - `GET /healthz`: the process lives and answers: always 200 `{"status":"live"}`.
 * - `GET /readyz`: 200 `{"status":"ready","checks":{...}}` when every check is `ok`, else 503
 *   `{"status":"unready","checks":{...}}`. A check is a name and `ok` or `failing`, nothing more:
 *   no SQL, no host, no message. A readiness that throws answers 503, never 500.
 * - `GET /metrics`: the Prometheus text; with a token, only to `Authorization: Bearer <token>`
 *   (compared in constant time), else 401.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Env, Hono } from 'hono';

export type CheckState = 'ok' | 'failing';

/** What `/readyz` answers: ready when every check is `ok`. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckState>>;
}

/** The Prometheus exposition `/metrics` answers. */
export interface MetricsExposition {
  /** `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  render(): Promise<string>;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  readonly token?: string;
}

/** What the operator's routes answer from; the server builds it (`createPayrail`). */
export interface HealthRoutes {
  readonly readiness: () => Promise<Readiness>;
  readonly metrics: MetricsExposition;
}

const noStore = (c: Context): void => {
  c.header('Cache-Control', 'no-store');
};

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries the bearer token; the time taken does not depend on the token. */
const carriesToken = (c: Context, token: string): boolean => {
  const sent = /^Bearer (\S+)$/.exec(c.req.header('Authorization') ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(sent), digest(token));
};

const readinessOf = async (health: HealthRoutes): Promise<Readiness> => {
  try {
    return await health.readiness();
  } catch {
    return { ready: false, checks: {} };
  }
};

/** `/healthz`, `/readyz` and `/metrics`. */
export const mountHealthRoutes = <E extends Env>(app: Hono<E>, health: HealthRoutes): void => {
  app.get('/healthz', (c) => {
    noStore(c);
    return c.json({ status: 'live' }, 200);
  });
  app.get('/readyz', async (c) => {
    const { ready, checks } = await readinessOf(health);
    noStore(c);
    return c.json({ status: ready ? 'ready' : 'unready', checks }, ready ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    noStore(c);
    const { token } = health.metrics;
    if (token !== undefined && !carriesToken(c, token)) {
      c.header('WWW-Authenticate', 'Bearer realm="payrail metrics"');
      return c.text('unauthorized\n', 401);
    }
    c.header('Content-Type', health.metrics.contentType);
    return c.body(await health.metrics.render(), 200);
  });
};
