/**
 * Creates that may be repeated: a `POST /payment/quickpayout` repeated with the same
 * `client_request_id` and body answers the original payout, and a refund request repeated with
 * the same `client_refund_id` the refund it made (docs/api.md §4). This middleware gives such a
 * create an id when the caller sent none (so a retry cannot make a second payout), and marks the
 * requests the retries may send again: reads, and the creates that carry their id.
 */
import type { Middleware } from 'openapi-fetch';
import type { PathsWithMethod } from 'openapi-typescript-helpers';
import type { paths } from './payrail-api.generated.js';

type PostPath = PathsWithMethod<paths, 'post'>;
type BodyOf<P extends PostPath> = paths[P]['post'] extends {
  readonly requestBody: { readonly content: { readonly 'application/json': infer B } };
}
  ? B
  : never;

/** The creates whose repeat answers the original, and the body field that names them. */
const idempotentCreates = {
  '/payment/quickpayout': 'client_request_id',
  '/payment/acquiring/orders/{order_id}/refunds': 'client_refund_id',
} as const satisfies { readonly [P in PostPath]?: keyof BodyOf<P> & string };

type IdempotentPath = keyof typeof idempotentCreates;

const isIdempotentPath = (path: string): path is IdempotentPath =>
  Object.hasOwn(idempotentCreates, path);

/** A version 4 UUID, from `crypto.getRandomValues` (also where `randomUUID` is not: plain http). */
const newIdempotencyId = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Adds the id a create lacks and puts every request that may be sent twice into `repeatable`,
 * which the retries read.
 */
export const idempotencyMiddleware = (
  repeatable: WeakSet<Request>,
  newId: () => string = newIdempotencyId,
): Middleware => ({
  onRequest: async ({ request, schemaPath }) => {
    if (request.method === 'GET' || request.method === 'HEAD') {
      repeatable.add(request);
      return undefined;
    }
    if (request.method !== 'POST' || !isIdempotentPath(schemaPath)) return undefined;
    const field = idempotentCreates[schemaPath];
    const body: unknown = await request
      .clone()
      .json()
      .catch(() => undefined);
    if (!isObject(body)) return undefined;
    const sent = body[field];
    if (typeof sent === 'string' && sent.trim() !== '') {
      repeatable.add(request);
      return undefined;
    }
    // Sent but blank or not text: the server judges it, and nothing repeats it.
    if (sent !== undefined) return undefined;
    const named = new Request(request, { body: JSON.stringify({ ...body, [field]: newId() }) });
    repeatable.add(named);
    return named;
  },
});
