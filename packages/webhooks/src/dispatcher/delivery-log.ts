/**
 * The delivery log (`GET /payment/webhooks/{webhook_id}/deliveries`): one record per (event,
 * destination), every attempt in it, written in the unit of work that settles the attempt's
 * outbox message. A redelivery's message carries `<event_id>:<outbox_id>` but belongs to the
 * original event's record, whose attempts go on counting. The record names the event's business
 * object as the message does, so a payout's callbacks list by its payout_id.
 */
import type {
  DeliveryAttempt,
  IdGenerator,
  OutboxMessage,
  StoreTransaction,
  WebhookDeliveryRecord,
} from '@payrail/core';
import { deliveredEventIdOf } from '@payrail/engine';

/** Characters of an answer kept in the log. */
const loggedBodyLength = 1024;

const truncatedForLog = (body: string): string =>
  body.length <= loggedBodyLength ? body : body.slice(0, loggedBodyLength);

/** Where an attempt went: a webhook (`webhookId`) or a payout's notify_url (`null`). */
export interface DeliveryTarget {
  readonly webhookId: string | null;
  readonly url: string;
}

/** An event's record for a destination: by webhook id, or for a notify_url by the url. */
const findDelivery = async (
  tx: StoreTransaction,
  message: OutboxMessage,
  target: DeliveryTarget,
): Promise<WebhookDeliveryRecord | undefined> => {
  const page = await tx.webhookDeliveries.list({
    scope: message.account_id,
    where: { event_id: deliveredEventIdOf(message.event_id) },
    sort: 'asc',
    limit: 100,
    offset: 0,
  });
  return page.items.find((delivery) =>
    target.webhookId === null
      ? delivery.webhook_id === null && delivery.url === target.url
      : delivery.webhook_id === target.webhookId,
  );
};

export interface AttemptRecord {
  readonly message: OutboxMessage;
  readonly target: DeliveryTarget;
  /** Without a status the record keeps its own (the worker no longer held the message). */
  readonly status: WebhookDeliveryRecord['status'] | undefined;
  readonly attempt: Omit<DeliveryAttempt, 'attempt'>;
  readonly at: number;
}

/** Appends the attempt (numbered after the record's earlier ones) and sets the status. */
export const recordAttempt = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  record: AttemptRecord,
): Promise<WebhookDeliveryRecord> => {
  const { message, target, at } = record;
  const found = await findDelivery(tx, message, target);
  const attempt: DeliveryAttempt = {
    attempt: (found?.attempts.length ?? 0) + 1,
    ...record.attempt,
    response_body: truncatedForLog(record.attempt.response_body),
  };
  if (found === undefined) {
    return tx.webhookDeliveries.insert({
      delivery_id: ids.next('dlv'),
      account_id: message.account_id,
      event_id: deliveredEventIdOf(message.event_id),
      event_type: message.event_type,
      business_type: message.business_type,
      business_id: message.business_id,
      webhook_id: target.webhookId,
      url: target.url,
      status: record.status ?? 'pending',
      attempts: [attempt],
      outbox_id: message.outbox_id,
      created_at: at,
      updated_at: at,
    });
  }
  return tx.webhookDeliveries.update({
    ...found,
    business_type: message.business_type,
    business_id: message.business_id,
    url: target.url,
    status: record.status ?? found.status,
    attempts: [...found.attempts, attempt],
    outbox_id: message.outbox_id,
    updated_at: at,
  });
};
