/**
 * How the `sandbox` provider's chain watcher proves it sent a delivery (ADR 0032): Standard
 * Webhooks, as payrail's own webhooks are signed (docs/spec/decisions.md §5), so any Standard Webhooks
 * library can sign for it. Three headers:
 *
 * - `webhook-id`: the message id, any non-empty text;
 * - `webhook-timestamp`: Unix seconds; more than 5 minutes from our clock either way is refused,
 *   so a captured delivery cannot be replayed later;
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the
 *   bytes the secret's base64 (after `whsec_`) spells; several space-separated, any may match.
 *
 * The body is signed exactly as sent. Signatures are compared in constant time.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { UpstreamDelivery, UpstreamHeaders } from '@payrail/core';

const secretPrefix = 'whsec_';
/** Standard Webhooks secrets are 24 to 64 bytes; fewer would be guessable sooner. */
const minSecretBytes = 24;
const maxSecretBytes = 64;
/** Standard Webhooks' tolerance: a delivery more than 5 minutes old or ahead is refused. */
const sandboxUpstreamToleranceSeconds = 5 * 60;

const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key a `whsec_` secret spells, or `undefined` when it is not one of the right size. */
const keyOf = (secret: string): Buffer | undefined => {
  if (!secret.startsWith(secretPrefix)) return undefined;
  const encoded = secret.slice(secretPrefix.length);
  if (!base64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= minSecretBytes && key.length <= maxSecretBytes ? key : undefined;
};

/** Whether `secret` is a `whsec_` secret of 24 to 64 bytes (what the sandbox provider takes). */
export const isSandboxUpstreamSecret = (secret: string): boolean => keyOf(secret) !== undefined;

/** A new secret: `whsec_` + 32 random bytes in base64. */
export const generateSandboxUpstreamSecret = (): string =>
  `${secretPrefix}${randomBytes(32).toString('base64')}`;

const signatureOf = (key: Buffer, id: string, timestamp: string, body: string): Buffer =>
  createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest();

export interface SandboxUpstreamSigning {
  /** Default: a random `msg_` id. */
  readonly id?: string;
  /** Unix seconds; default now. */
  readonly timestamp?: number;
}

/** The three headers that sign `body` for the `sandbox` provider holding `secret`. */
export const signSandboxUpstream = (
  secret: string,
  body: string,
  signing: SandboxUpstreamSigning = {},
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> => {
  const key = keyOf(secret);
  if (key === undefined) throw new TypeError('the sandbox upstream secret must be whsec_ + base64');
  const id = signing.id ?? `msg_${randomUUID().replaceAll('-', '')}`;
  const timestamp = String(signing.timestamp ?? Math.floor(Date.now() / 1000));
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signatureOf(key, id, timestamp, body).toString('base64')}`,
  };
};

const header = (headers: UpstreamHeaders, name: string): string =>
  Object.hasOwn(headers, name) ? (headers[name] ?? '') : '';

/**
 * Whether `delivery` carries a valid signature by `key` made within the tolerance of `nowMs`.
 * Every `v1` signature of the header is compared, in constant time, against the one expected.
 */
const isSignedBy = (key: Buffer, delivery: UpstreamDelivery, nowMs: number): boolean => {
  const id = header(delivery.headers, 'webhook-id');
  const timestamp = header(delivery.headers, 'webhook-timestamp');
  const signatures = header(delivery.headers, 'webhook-signature');
  if (id === '' || signatures === '' || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > sandboxUpstreamToleranceSeconds) {
    return false;
  }
  const expected = signatureOf(key, id, timestamp, delivery.body);
  let matched = false;
  for (const versioned of signatures.split(' ')) {
    const [version, encoded = ''] = versioned.split(',');
    if (version !== 'v1') continue;
    const given = Buffer.from(encoded, 'base64');
    // Not `||=`: every signature is compared, so the time taken tells nothing of which matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
};

/**
 * The check of deliveries signed with `secret` (refused here, when the provider is built, if it
 * is not a `whsec_` secret of 24 to 64 bytes), against the clock `now` (Unix ms).
 */
export const sandboxUpstreamVerifier = (
  secret: string,
  now: () => number,
): ((delivery: UpstreamDelivery) => boolean) => {
  const key = keyOf(secret);
  if (key === undefined) {
    throw new TypeError(
      `the sandbox upstream secret must be whsec_ + base64 of ${minSecretBytes} to ${maxSecretBytes} bytes`,
    );
  }
  return (delivery) => isSignedBy(key, delivery, now());
};
