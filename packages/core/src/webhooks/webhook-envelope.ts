/**
 * The webhook envelope of result events (event_id, event_type, business_type, business_id,
 * occurred_at, version v1, data), and deterministic event ids: the same transition of the same
 * object always yields the same event_id, so a replayed transition deduplicates downstream.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { DomainEvent } from '../machines/effects.js';

export type WebhookEnvelope = {
  readonly event_id: string;
  readonly event_type: string;
  /** `payout` or `acquiring` on the wire; batches report through their payouts. */
  readonly business_type: string;
  readonly business_id: string;
  readonly occurred_at: number;
  readonly version: 'v1';
  readonly data: Readonly<Record<string, unknown>>;
};

/** `evt_` + 32 hex digits of SHA-256 over business type, id, event type and revision. */
export const eventIdOf = (
  event: Pick<DomainEvent, 'businessType' | 'businessId' | 'eventType' | 'revision'>,
): string => {
  const key = `${event.businessType}\u0000${event.businessId}\u0000${event.eventType}\u0000${event.revision}`;
  return `evt_${bytesToHex(sha256(utf8ToBytes(key))).slice(0, 32)}`;
};

export const toWebhookEnvelope = (event: DomainEvent): WebhookEnvelope => ({
  event_id: eventIdOf(event),
  event_type: event.eventType,
  business_type: event.businessType,
  business_id: event.businessId,
  occurred_at: event.occurredAt,
  version: 'v1',
  data: event.data,
});

/**
 * Events sent without an envelope: the verification request is a bare payload (interface,
 * "Verification request payload (no envelope)").
 */
export const isEnvelopeless = (event: Pick<DomainEvent, 'eventType'>): boolean =>
  event.eventType === 'payout.verify.request';

/** What is POSTed for an event: the envelope, or the bare payload for envelopeless events. */
export const webhookBodyOf = (event: DomainEvent): Readonly<Record<string, unknown>> =>
  isEnvelopeless(event) ? event.data : toWebhookEnvelope(event);

/** Whether a subscription pattern (`acquiring.*`, `acquiring.order.updated`) covers a type. */
export const matchesEventPattern = (pattern: string, eventType: string): boolean =>
  pattern === '*' ||
  pattern === eventType ||
  (pattern.endsWith('.*') && eventType.startsWith(pattern.slice(0, -1)));
