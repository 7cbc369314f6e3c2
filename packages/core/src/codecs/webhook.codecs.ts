/**
 * Webhook management bodies (docs/spec/decisions.md §5): create `{url, events, status?}` and PATCH
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
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  decodeWith,
  isOneOf,
  leaf,
  leafFrom,
  oneOfLeaf,
  request,
  requiredField,
  withDefault,
} from './codec-toolkit.js';
import { isNotifyUrl } from './payout.codecs.js';

/** Patterns that qualify a webhook as an order's `notify_webhook_id` (the interface's list). */
const acquiringSubscriptionPatterns = [
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
  'payout.execution.returned',
  'acquiring.refund.*',
  'acquiring.refund.requested',
  'acquiring.refund.approved',
  'acquiring.refund.rejected',
  'acquiring.refund.processing',
  'acquiring.refund.completed',
  'acquiring.refund.failed',
] as const;
export type WebhookEventPattern = (typeof webhookEventPatterns)[number];

export const isWebhookEventPattern = isOneOf(webhookEventPatterns);

export const webhookStatuses = ['active', 'inactive'] as const;
export type WebhookStatus = (typeof webhookStatuses)[number];

/**
 * An absolute https URL (DNS name or IP literal, optional port, no credentials, no whitespace):
 * the rule of every outbound or browser-facing URL we store (webhook url, logo_url, redirect_url).
 */
export const isAbsoluteHttpsUrl = (value: unknown): value is string => isNotifyUrl(value);

export interface WebhookCodecOptions {
  /** Sandbox with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1: an `http` url is accepted too (docs/spec/decisions.md §5). */
  readonly allowInsecureUrl?: boolean;
}

const webhookUrl = (options: WebhookCodecOptions) =>
  leaf<string>(
    'WebhookUrl',
    (u): u is string => isNotifyUrl(u, { allowHttp: options.allowInsecureUrl === true }),
    'invalid_webhook_url',
    { type: 'string', format: 'uri', maxLength: 2048, description: 'an absolute https URL' },
  );

const isEventList = (u: unknown): u is readonly WebhookEventPattern[] =>
  Array.isArray(u) &&
  u.length > 0 &&
  u.every(isWebhookEventPattern) &&
  new Set(u).size === u.length;

/** A non-empty list of known patterns, duplicates dropped (first occurrence kept). */
const WebhookEvents = leafFrom<readonly WebhookEventPattern[]>(
  'WebhookEvents',
  isEventList,
  (u) => {
    if (Array.isArray(u) && u.length === 0) {
      return E.left(payrailError('field_required', { field: 'events' }));
    }
    if (!Array.isArray(u) || !u.every((event) => typeof event === 'string')) {
      return E.left(payrailError('validation_failed'));
    }
    const unknown = u.find((event) => !isWebhookEventPattern(event));
    return unknown === undefined
      ? E.right([...new Set(u.filter(isWebhookEventPattern))])
      : E.left(payrailError('invalid_webhook_event', { event: unknown }));
  },
  { type: 'array', minItems: 1, items: { type: 'string', enum: [...webhookEventPatterns] } },
);

const WebhookStatus = oneOfLeaf('WebhookStatus', webhookStatuses, 'invalid_status');

const webhookCreateRequest = (options: WebhookCodecOptions) =>
  request('WebhookCreateRequest', {
    format: t.type({
      url: requiredField(webhookUrl(options), payrailError('field_required', { field: 'url' })),
      events: requiredField(
        WebhookEvents,
        payrailError('field_required', { field: 'events' }),
        (u) => u === undefined,
      ),
      /** `active` unless sent. */
      status: withDefault(WebhookStatus, 'active'),
    }),
  });

const webhookUpdateRequest = (options: WebhookCodecOptions) =>
  request('WebhookUpdateRequest', {
    format: t.partial({ url: webhookUrl(options), events: WebhookEvents, status: WebhookStatus }),
  });

/** `POST /payment/webhooks`: https url, a non-empty list of known event patterns, status. */
export const WebhookCreateRequest = webhookCreateRequest({});
export type WebhookCreateRequest = t.TypeOf<typeof WebhookCreateRequest>;
const InsecureWebhookCreateRequest = webhookCreateRequest({ allowInsecureUrl: true });

/** A body's decoder: `strict`, or `insecure` when the options allow an `http` url. */
const webhookDecoder =
  <A>(strict: t.Type<A, A, unknown>, insecure: t.Type<A, A, unknown>) =>
  (input: unknown, options: WebhookCodecOptions = {}): E.Either<PayrailError, A> =>
    decodeWith(options.allowInsecureUrl === true ? insecure : strict)(input);

/** Decodes a create body; the sandbox passes `allowInsecureUrl` to accept http urls. */
export const decodeWebhookCreate = webhookDecoder(
  WebhookCreateRequest,
  InsecureWebhookCreateRequest,
);

/**
 * `PATCH /payment/webhooks/{webhook_id}`: each sent field follows the create rules. A body that
 * sends none of them decodes to `{}`; whether anything changes is the engine's `no changes`.
 */
export const WebhookUpdateRequest = webhookUpdateRequest({});
export type WebhookUpdateRequest = t.TypeOf<typeof WebhookUpdateRequest>;
const InsecureWebhookUpdateRequest = webhookUpdateRequest({ allowInsecureUrl: true });

export const decodeWebhookUpdate = webhookDecoder(
  WebhookUpdateRequest,
  InsecureWebhookUpdateRequest,
);
