/**
 * `verifyWebhook`: checks a delivery of payrail (docs/webhooks.md) as Standard Webhooks defines
 * it, with the web platform's crypto only, so it runs in Node 20, in browsers, in workers:
 * `webhook-signature` holds `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`
 * keyed with the base64 after `whsec_`; `crypto.subtle.verify` compares in constant time, and a
 * `webhook-timestamp` more than the tolerance (5 minutes) away from now is refused, against
 * replays. Then the body is read as the event it is.
 */
import type { paths } from './payrail-api.generated.js';

type WebhookPattern =
  paths['/payment/webhooks']['post']['requestBody']['content']['application/json']['events'][number];

/** Every event type a webhook may subscribe to (the patterns `payout.*`, ... left out). */
export type PayrailEventType = Exclude<WebhookPattern, `${string}*`>;

/** Every event type, once: the type checker refuses a missing or an unknown one. */
const eventTypes = {
  'acquiring.order.updated': true,
  'acquiring.payment.updated': true,
  'acquiring.refund.requested': true,
  'acquiring.refund.approved': true,
  'acquiring.refund.rejected': true,
  'acquiring.refund.processing': true,
  'acquiring.refund.completed': true,
  'acquiring.refund.failed': true,
  'payout.verify.request': true,
  'payout.review.approved': true,
  'payout.review.returned': true,
  'payout.review.rejected': true,
  'payout.execution.processing': true,
  'payout.execution.completed': true,
  'payout.execution.failed': true,
  'payout.execution.returned': true,
} as const satisfies Record<PayrailEventType, true>;

const businessTypes: readonly PayrailWebhookEvent['business_type'][] = [
  'payout',
  'acquiring',
  'acquiring_refund',
  'crypto_batch',
];

const isEventType = (value: unknown): value is PayrailEventType =>
  typeof value === 'string' && Object.hasOwn(eventTypes, value);

/** A result event, in the envelope every event but the verification request comes in. */
export interface PayrailWebhookEvent {
  /** The `webhook-id`: the same on every attempt; process each once. */
  readonly event_id: string;
  readonly event_type: Exclude<PayrailEventType, 'payout.verify.request'>;
  /** `acquiring` for order and payment events, `acquiring_refund` for refund events. */
  readonly business_type: 'payout' | 'acquiring' | 'acquiring_refund' | 'crypto_batch';
  /** The payout_id, order_id or refund_id. */
  readonly business_id: string;
  /** Unix seconds. */
  readonly occurred_at: number;
  readonly version: 'v1';
  /** The object's state: `payout_id`, `status`, ... for a payout; the order or refund's fields. */
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * `payout.verify.request`, sent bare (no envelope) to a payout's notify_url when the account has
 * `verification_enabled`: answer `{"verified": true}` or `{"verified": false}` (docs/webhooks.md).
 */
export interface PayoutVerificationRequest {
  readonly type: 'payout.verification';
  readonly payout_id: string;
  readonly account_id: string;
  readonly reference: string;
  readonly currency: string;
  readonly amount: string;
  readonly status: 'pending_review';
  readonly review_status: 'pending_review';
  readonly execution_status: 'init';
  readonly beneficiary_id: string;
  readonly beneficiary_account_id: string;
  readonly beneficiary_name: string;
  readonly network_code: string;
  readonly account_type: string;
  /** The receiving account's fields, masked. */
  readonly beneficiary_account: Readonly<Record<string, unknown>>;
  readonly submitted_at: number;
  readonly created_at: number;
  /** The payout's review round the answer counts for (ADR 0038). */
  readonly verification_round?: number;
}

/** What a verified delivery holds: a result event, or a payout's verification request. */
export type PayrailWebhook = PayrailWebhookEvent | PayoutVerificationRequest;

export type WebhookFailure = 'headers' | 'timestamp' | 'signature' | 'payload';

/** A delivery that is not payrail's, not this secret's, too old or too new, or not an event. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  /** What failed: a header missing, the timestamp, the signature, or the body's shape. */
  readonly failure: WebhookFailure;

  constructor(failure: WebhookFailure, message: string) {
    super(message);
    this.failure = failure;
  }
}

/** Fetch's `Headers`, or Node's `IncomingHttpHeaders` (`req.headers`). */
export type WebhookHeaders =
  | Headers
  | { readonly [name: string]: string | readonly string[] | undefined };

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  readonly toleranceSeconds?: number;
  /** Now, in Unix seconds (default the clock's). */
  readonly now?: number;
}

const headerOf = (headers: WebhookHeaders, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return typeof entry === 'string' ? entry : entry?.join(' ');
};

const bytesOfBase64 = (text: string): Uint8Array<ArrayBuffer> | undefined => {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
};

/** An HMAC key of Web Crypto (named so, as Node's types have no global `CryptoKey`). */
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const keyOf = (secret: string): Promise<HmacKey> => {
  const bytes = bytesOfBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  if (bytes === undefined || bytes.length === 0) {
    throw new TypeError('the webhook secret is not `whsec_` and base64');
  }
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
};

/** `{id}.{timestamp}.` and the body's bytes, as signed. */
const signedContent = (
  id: string,
  timestamp: string,
  body: Uint8Array,
): Uint8Array<ArrayBuffer> => {
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);
  return content;
};

/** Whether one of the header's `v1,` signatures is the body's, each compared in constant time. */
const anySignatureMatches = async (
  key: HmacKey,
  header: string,
  content: Uint8Array<ArrayBuffer>,
): Promise<boolean> => {
  for (const versioned of header.split(' ')) {
    const [version, signature] = versioned.split(',');
    if (version !== 'v1' || signature === undefined) continue;
    const bytes = bytesOfBase64(signature);
    if (bytes !== undefined && (await crypto.subtle.verify('HMAC', key, bytes, content))) {
      return true;
    }
  }
  return false;
};

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Json = Readonly<Record<string, unknown>>;

const isEnvelope = (body: Json): body is Json & PayrailWebhookEvent =>
  typeof body.event_id === 'string' &&
  isEventType(body.event_type) &&
  body.event_type !== 'payout.verify.request' &&
  businessTypes.some((type) => type === body.business_type) &&
  typeof body.business_id === 'string' &&
  typeof body.occurred_at === 'number' &&
  body.version === 'v1' &&
  isRecord(body.data);

const isVerificationRequest = (body: Json): body is Json & PayoutVerificationRequest =>
  body.type === 'payout.verification' &&
  typeof body.payout_id === 'string' &&
  typeof body.reference === 'string' &&
  typeof body.amount === 'string' &&
  isRecord(body.beneficiary_account);

/** The delivery's JSON as the event it is, or a `payload` failure. */
const eventOf = (text: string): PayrailWebhook => {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('payload', 'the body is not JSON');
  }
  if (isRecord(body) && (isEnvelope(body) || isVerificationRequest(body))) return body;
  throw new WebhookVerificationError(
    'payload',
    'the body is not an event this client knows (a newer payrail? update @payrail/client)',
  );
};

/**
 * Verifies a delivery of payrail and answers its event. `payload` is the raw body, exactly as
 * received (verify before any JSON parsing); `secret` is the webhook's `secret` for acquiring
 * events, the account's `notify_secret` for payout events. Throws `WebhookVerificationError`.
 */
export const verifyWebhook = async (
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<PayrailWebhook> => {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'headers',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  }
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  // Asked as "within", never as "beyond": a NaN `now` or tolerance then refuses, not accepts.
  if (!/^\d{1,15}$/.test(timestamp) || !(Math.abs(now - Number(timestamp)) <= tolerance)) {
    throw new WebhookVerificationError(
      'timestamp',
      `webhook-timestamp is not within ${tolerance} s of now`,
    );
  }
  const body = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  const key = await keyOf(secret);
  if (!(await anySignatureMatches(key, signatures, signedContent(id, timestamp, body)))) {
    throw new WebhookVerificationError('signature', 'no webhook-signature matches the body');
  }
  return eventOf(typeof payload === 'string' ? payload : new TextDecoder().decode(payload));
};
