/**
 * The outbox keeps one message per (event_id, destination), so a redelivery cannot reuse the
 * event id: its message carries `<event_id>:<outbox_id>`. The payload (the envelope, whose
 * `event_id` is the original) is unchanged; the dispatcher signs with `deliveredEventIdOf`, so the
 * merchant sees the same `webhook-id` and deduplicates as for any repeat.
 */
import type { NewOutboxMessage, OutboxMessage } from '@payrail/core';

export const redeliveryEventId = (eventId: string, outboxId: string): string =>
  `${eventId}:${outboxId}`;

/** The event id a message delivers: its own, or the original one of a redelivery. */
export const deliveredEventIdOf = (messageEventId: string): string =>
  messageEventId.split(':')[0] ?? messageEventId;

/** The new outbox message `outboxId` that sends `sent`'s payload to its destination again. */
export const redeliveryOf = (sent: OutboxMessage, outboxId: string, now: number) =>
  ({
    outbox_id: outboxId,
    event_id: redeliveryEventId(deliveredEventIdOf(sent.event_id), outboxId),
    account_id: sent.account_id,
    business_type: sent.business_type,
    business_id: sent.business_id,
    event_type: sent.event_type,
    destination: sent.destination,
    payload: sent.payload,
    available_at: now,
    created_at: now,
  }) satisfies NewOutboxMessage;
