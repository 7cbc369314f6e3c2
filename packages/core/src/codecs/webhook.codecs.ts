/**
 * Webhook management bodies (decisions §5): create `{url, events, status?}` and PATCH
 * `{url?, events?, status?}`. Only what needs no I/O is checked here; where the url resolves to
 * (the SSRF guard) is checked at delivery time.
 *
 * Precedence, when several rules break at once (the first broken rule is the answer):
 *  1. body not a JSON object -> `request required`;
 *  2. url: absent, `null` or blank -> `url required` (create only); anything but an absolute https
 *     URL -> `invalid webhook url`;
 *  3. events: absent (create only) or `[]` -> `events required`; not an array of strings ->
 *     `Validation Failed`; the first unknown pattern -> `invalid webhook event: <event>`;
 *  4. status: not `active` or `inactive` -> `invalid status`.
 * Keys the request does not define are ignored; `null` is read as absent.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { codecFromCheck, isBlank, isJsonObject, presentValue } from './beneficiary.codecs.js';
import { decodeWith, requestBody } from './decode.js';
import { isNotifyUrl } from './payout.codecs.js';

/** Patterns that qualify a webhook as an order's `notify_webhook_id` (the interface's list). */
export const acquiringSubscriptionPatterns = [
  'acquiring.*',
  'acquiring.order.updated',
  'acquiring.payment.updated',
] as const;

/**
 * Every pattern a webhook may subscribe to: the acquiring ones, `payout.*` and the payout event
 * names of the interface. A closed list, so a typo is answered at once instead of never firing.
 */
export const webhookEventPatterns = [
  ...acquiringSubscriptionPatterns,
  'payout.*',
  'payout.verify.request',
  'payout.review.approved',
  'payout.review.returned',
  'payout.review.rejected',
  'payout.execution.processing',
  'payout.execution.completed',
  'payout.execution.failed',
] as const;
export type WebhookEventPattern = (typeof webhookEventPatterns)[number];

export const isWebhookEventPattern = (value: unknown): value is WebhookEventPattern =>
  (webhookEventPatterns as readonly unknown[]).includes(value);

export const webhookStatuses = ['active', 'inactive'] as const;
export type WebhookStatus = (typeof webhookStatuses)[number];

const isWebhookStatus = (value: unknown): value is WebhookStatus =>
  (webhookStatuses as readonly unknown[]).includes(value);

/**
 * An absolute https URL (DNS name or IP literal, optional port, no credentials, no whitespace):
 * the rule of every outbound or browser-facing URL we store (webhook url, logo_url, redirect_url).
 */
export const isAbsoluteHttpsUrl = (value: unknown): value is string => isNotifyUrl(value);

export interface WebhookCodecOptions {
  /** Sandbox with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1: an `http` url is accepted too (decisions §5). */
  readonly allowInsecureUrl?: boolean;
}

const isMissing = (u: unknown): boolean => u === undefined || (typeof u === 'string' && isBlank(u));

const checkUrlValue = (u: unknown, options: WebhookCodecOptions): E.Either<PayrailError, string> =>
  isNotifyUrl(u, { allowHttp: options.allowInsecureUrl === true })
    ? E.right(u)
    : E.left(payrailError('invalid_webhook_url'));

/** A non-empty list of known patterns, duplicates dropped (first occurrence kept). */
const checkEventsValue = (u: unknown): E.Either<PayrailError, readonly WebhookEventPattern[]> => {
  if (Array.isArray(u) && u.length === 0) {
    return E.left(payrailError('field_required', { field: 'events' }));
  }
  if (!Array.isArray(u) || !u.every((event) => typeof event === 'string')) {
    return E.left(payrailError('validation_failed'));
  }
  const unknown = u.find((event) => !isWebhookEventPattern(event));
  if (unknown !== undefined) {
    return E.left(payrailError('invalid_webhook_event', { event: unknown }));
  }
  return E.right([...new Set(u as WebhookEventPattern[])]);
};

const checkStatusValue = (u: unknown): E.Either<PayrailError, WebhookStatus> =>
  isWebhookStatus(u) ? E.right(u) : E.left(payrailError('invalid_status'));

export interface WebhookCreateRequest {
  readonly url: string;
  readonly events: readonly WebhookEventPattern[];
  /** `active` unless sent. */
  readonly status: WebhookStatus;
}

const checkWebhookCreate =
  (options: WebhookCodecOptions) =>
  (u: unknown): E.Either<PayrailError, WebhookCreateRequest> => {
    if (!isJsonObject(u)) return E.left(payrailError('validation_failed'));
    const url = presentValue(u, 'url');
    const events = presentValue(u, 'events');
    const status = presentValue(u, 'status');
    return pipe(
      E.Do,
      E.bind('url', () =>
        isMissing(url)
          ? E.left(payrailError('field_required', { field: 'url' }))
          : checkUrlValue(url, options),
      ),
      E.bind('events', () =>
        events === undefined
          ? E.left(payrailError('field_required', { field: 'events' }))
          : checkEventsValue(events),
      ),
      E.bind('status', () =>
        status === undefined ? E.right('active' as const) : checkStatusValue(status),
      ),
    );
  };

/** `POST /payment/webhooks`: https url, a non-empty list of known event patterns, status. */
export const WebhookCreateRequest = requestBody(
  codecFromCheck<WebhookCreateRequest>('WebhookCreateRequest', checkWebhookCreate({})),
);

/** Decodes a create body; the sandbox passes `allowInsecureUrl` to accept http urls. */
export const decodeWebhookCreate = (
  input: unknown,
  options: WebhookCodecOptions = {},
): E.Either<PayrailError, WebhookCreateRequest> =>
  decodeWith(
    requestBody(
      codecFromCheck<WebhookCreateRequest>('WebhookCreateRequest', checkWebhookCreate(options)),
    ),
  )(input);

export interface WebhookUpdateRequest {
  readonly url?: string;
  readonly events?: readonly WebhookEventPattern[];
  readonly status?: WebhookStatus;
}

const checkWebhookUpdate =
  (options: WebhookCodecOptions) =>
  (u: unknown): E.Either<PayrailError, WebhookUpdateRequest> => {
    if (!isJsonObject(u)) return E.left(payrailError('validation_failed'));
    const url = presentValue(u, 'url');
    const events = presentValue(u, 'events');
    const status = presentValue(u, 'status');
    return pipe(
      E.Do,
      E.bind('url', () => (url === undefined ? E.right(undefined) : checkUrlValue(url, options))),
      E.bind('events', () =>
        events === undefined ? E.right(undefined) : checkEventsValue(events),
      ),
      E.bind('status', () =>
        status === undefined ? E.right(undefined) : checkStatusValue(status),
      ),
      E.map((patch) => ({
        ...(patch.url === undefined ? {} : { url: patch.url }),
        ...(patch.events === undefined ? {} : { events: patch.events }),
        ...(patch.status === undefined ? {} : { status: patch.status }),
      })),
    );
  };

/**
 * `PATCH /payment/webhooks/{webhook_id}`: each sent field follows the create rules. A body that
 * sends none of them decodes to `{}`; whether anything changes is the engine's `no changes`.
 */
export const WebhookUpdateRequest = requestBody(
  codecFromCheck<WebhookUpdateRequest>('WebhookUpdateRequest', checkWebhookUpdate({})),
);

export const decodeWebhookUpdate = (
  input: unknown,
  options: WebhookCodecOptions = {},
): E.Either<PayrailError, WebhookUpdateRequest> =>
  decodeWith(
    requestBody(
      codecFromCheck<WebhookUpdateRequest>('WebhookUpdateRequest', checkWebhookUpdate(options)),
    ),
  )(input);
