/**
 * One POST of a delivery attempt, over Node's `http`/`https` with the SSRF guard on the address
 * actually connected to: the URL is judged first (`checkOutboundUrl`: scheme, literal addresses,
 * odd encodings), then `guardedLookup` resolves the name for the socket and refuses a forbidden
 * address. Redirects are never followed (Node's client does not; a 3xx is answered as it is),
 * and the whole exchange, answer body included, must finish within the attempt's timeout.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import {
  type GuardedLookupOptions,
  guardedLookup,
  outboundRefusalOf,
} from '../ssrf/guarded-lookup.js';
import { checkOutboundUrl } from '../ssrf/outbound-url.js';

export interface OutboundRequest {
  readonly url: string;
  /** Signature headers and the like; `Content-Type` and `Content-Length` are set here. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  /** Cuts the attempt short (the dispatcher is stopping); it then ends as a failure. */
  readonly signal?: AbortSignal;
}

export interface OutboundResponse {
  /** The answer's HTTP status; `null` when none came in time (refused, unreachable, timeout). */
  readonly statusCode: number | null;
  /** The answer's body as text, cut at the transport's limit. */
  readonly body: string;
  /** Why no answer came; `null` when one did, whatever its status. */
  readonly error: string | null;
  readonly latencyMs: number;
}

/** Sends one attempt; never rejects: every failure is an answer with `error` set. */
export type Transport = (request: OutboundRequest) => Promise<OutboundResponse>;

export interface HttpTransportOptions extends GuardedLookupOptions {
  /** Answer bytes kept (enough for a verification answer); the rest is not read. Default 64 KiB. */
  readonly maxResponseBytes?: number;
}

const userAgent = 'payrail-webhooks/1';

/** A failure in words for the delivery log: the guard's reason, an errno code, or the message. */
const describeFailure = (error: unknown): string => {
  const refusal = outboundRefusalOf(error);
  if (refusal !== undefined) return `target refused: ${refusal.detail}`;
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `connection failed: ${code}` : `connection failed: ${message}`;
};

export const httpTransport = (options: HttpTransportOptions): Transport => {
  const maxBytes = options.maxResponseBytes ?? 64 * 1024;
  const lookup = guardedLookup(options);
  return (request) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const verdict = checkOutboundUrl(request.url, options);
    if (!verdict.ok) {
      return Promise.resolve({
        statusCode: null,
        body: '',
        error: `target refused: ${verdict.detail}`,
        latencyMs: 0,
      });
    }
    const client = verdict.url.protocol === 'https:' ? https : http;
    return new Promise<OutboundResponse>((resolve) => {
      let settled = false;
      const chunks: Buffer[] = [];
      let kept = 0;
      let statusCode: number | null = null;
      const abort = (): void => finish('aborted: the dispatcher stopped');
      const finish = (error: string | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        request.signal?.removeEventListener('abort', abort);
        outgoing.destroy();
        resolve({
          statusCode: error === null ? statusCode : null,
          body: Buffer.concat(chunks).toString('utf8'),
          error,
          latencyMs: elapsed(),
        });
      };
      const deadline = setTimeout(
        () => finish(`timeout: no complete answer within ${request.timeoutMs} ms`),
        request.timeoutMs,
      );
      const outgoing = client.request(verdict.url, {
        method: 'POST',
        agent: false,
        lookup,
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(request.body)),
          'user-agent': userAgent,
        },
      });
      outgoing.on('error', (error) => finish(describeFailure(error)));
      outgoing.on('response', (incoming) => {
        statusCode = incoming.statusCode ?? null;
        incoming.on('data', (chunk: Buffer) => {
          if (kept >= maxBytes) return;
          const part = chunk.subarray(0, maxBytes - kept);
          chunks.push(part);
          kept += part.length;
          if (kept >= maxBytes) finish(null);
        });
        incoming.on('end', () => finish(null));
        incoming.on('error', (error) => finish(describeFailure(error)));
        incoming.on('close', () => {
          if (!incoming.complete) finish('connection failed: the answer was cut off');
        });
      });
      if (request.signal?.aborted === true) {
        abort();
        return;
      }
      request.signal?.addEventListener('abort', abort);
      outgoing.end(request.body);
    });
  };
};
