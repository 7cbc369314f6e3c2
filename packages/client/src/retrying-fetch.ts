/**
 * Retries (docs/api.md §10, "When to retry"): a 429 is retried for any call, after its
 * `Retry-After` (the rate limit refused it before anything was done); a network failure or a 5xx
 * only for a call that may run twice without effect: a read, or a create that carries its
 * idempotency id (idempotency.middleware.ts), whose repeat the server answers with the original.
 * Attempts are bounded; waits double from `baseDelayMs` with full jitter, up to `maxDelayMs`.
 */
import { retryAfterSeconds } from './payrail-error.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 3); 1 never retries. */
  readonly attempts?: number;
  /** The first wait before a retry, doubled at each further one (default 200 ms). */
  readonly baseDelayMs?: number;
  /**
   * The longest wait (default 30 s): a backoff never waits longer, and a 429 whose
   * `Retry-After` asks for more is not retried but thrown.
   */
  readonly maxDelayMs?: number;
}

export type Fetch = (request: Request) => Promise<Response>;

const defaults = { attempts: 3, baseDelayMs: 200, maxDelayMs: 30_000 } as const;

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** 500, 502, 503, 504: the server or a proxy in front of it failed; the call may be repeated. */
const isServerFailure = (status: number): boolean => status >= 500 && status <= 599;

/**
 * `fetch` with retries. `isRepeatable` says whether a request may be sent twice without effect
 * (network failures and 5xx are retried only then); 429 is always retried.
 */
export const retryingFetch = (
  base: Fetch,
  options: RetryOptions,
  isRepeatable: (request: Request) => boolean,
): Fetch => {
  const attempts = Math.max(1, Math.floor(options.attempts ?? defaults.attempts));
  const baseDelayMs = options.baseDelayMs ?? defaults.baseDelayMs;
  const maxDelayMs = options.maxDelayMs ?? defaults.maxDelayMs;
  const backoff = (attempt: number): number =>
    Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));

  /** How long to wait before repeating a call that got `response`; `undefined`: do not. */
  const waitAfter = (response: Response, attempt: number, repeatable: boolean) => {
    if (response.status === 429 || (repeatable && isServerFailure(response.status))) {
      const asked = retryAfterSeconds(response.headers);
      if (asked === undefined) return backoff(attempt);
      return asked * 1000 <= maxDelayMs ? asked * 1000 : undefined;
    }
    return undefined;
  };

  return async (request) => {
    const repeatable = isRepeatable(request);
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= attempts;
      // Each attempt sends a copy, so the body is still there for the next one.
      let response: Response;
      try {
        response = await base(last ? request : request.clone());
      } catch (error) {
        if (last || !repeatable || request.signal.aborted) throw error;
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      const wait = last ? undefined : waitAfter(response, attempt, repeatable);
      if (wait === undefined) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
};
