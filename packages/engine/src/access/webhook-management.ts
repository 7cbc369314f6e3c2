/**
 * Merchant webhooks (decisions §5): create, list, get, update, remove, rotate the secret, list
 * deliveries, redeliver. Permissions `payment.webhook.read` and `payment.webhook.write`.
 *
 * - The `secret` is shown when it is made (create, rotate-secret) and never on reads; it is
 *   stored sealed under the key secret (`secrets-at-rest.ts`, ADR 0041).
 * - Remove is soft: the record stays with status `deleted` (orders naming it then answer
 *   `notify_webhook_id invalid or inactive`, and no event is routed to it), and from then on it
 *   is `webhook not found` like a missing one or another merchant's.
 * - Redelivery enqueues the delivered message's payload again, to the same destination, as a new
 *   outbox message; see `redeliveryEventId` for how it passes the outbox's deduplication.
 */
import {
  decodeWebhookCreate,
  decodeWebhookUpdate,
  decodeWith,
  PageQuery,
  payrailError,
  type StoreTransaction,
  type WebhookDeliveryRecord,
  type WebhookRecord,
} from '@payrail/core';
import { requirePermission } from '../access-control.js';
import { unitOfWorkRetryingConflicts } from '../conflict-retry.js';
import type { Caller, Query } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { outboundUrlRefusal } from '../outbound-url-refusal.js';
import { listAll } from '../store-reads.js';
import { type Outcome, orRefuse, refuse } from '../unit-of-work.js';
import { deliveryView, webhookView } from './access.views.js';
import { sealSecret } from './secrets-at-rest.js';
import { newSigningSecret } from './signing-secrets.js';

/**
 * The outbox keeps one message per (event_id, destination), so a redelivery cannot reuse the
 * event id: its message carries `<event_id>:<outbox_id>`. The payload (the envelope, whose
 * `event_id` is the original) is unchanged; the dispatcher signs with `deliveredEventIdOf`, so the
 * merchant sees the same `webhook-id` and deduplicates as for any repeat.
 */
export const redeliveryEventId = (eventId: string, outboxId: string): string =>
  `${eventId}:${outboxId}`;

/** The event id a message delivers: its own, or the original one of a redelivery. */
export const deliveredEventIdOf = (messageEventId: string): string =>
  messageEventId.split(':')[0] ?? messageEventId;

const loadWebhook = async (
  tx: StoreTransaction,
  caller: Caller,
  webhookId: string,
): Promise<WebhookRecord> => {
  const webhook = await tx.webhooks.get(webhookId, caller.account_id);
  return webhook === undefined || webhook.status === 'deleted'
    ? refuse(payrailError('webhook_not_found'))
    : webhook;
};

const sameEvents = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((event) => b.includes(event));

export const webhookUseCases = (deps: EngineDeps) => {
  const codecOptions = { allowInsecureUrl: deps.settings.allowInsecureWebhooks };
  const work = <T>(run: (tx: StoreTransaction, now: number) => Promise<T>): Promise<Outcome<T>> => {
    const now = deps.clock.now();
    return unitOfWorkRetryingConflicts(deps.store, (tx) => run(tx, now));
  };

  const create = async (caller: Caller, body: unknown) => {
    const urlRefusal = await outboundUrlRefusal(deps.outboundUrlGuard, body, 'url', 'webhook', {
      caller,
      permissions: ['payment.webhook.write'],
    });
    return work(async (tx, now) => {
      requirePermission(caller, 'payment.webhook.write');
      const request = orRefuse(decodeWebhookCreate(body, codecOptions));
      if (urlRefusal !== undefined) refuse(urlRefusal);
      const secret = newSigningSecret();
      const webhook = await tx.webhooks.insert({
        webhook_id: deps.ids.next('wh'),
        account_id: caller.account_id,
        url: request.url,
        events: request.events,
        status: request.status,
        secret: sealSecret(deps.settings.keySecret, secret),
        created_at: now,
        updated_at: now,
      });
      return { webhook: { ...webhookView(webhook), secret } };
    });
  };

  /** Newest first; deleted webhooks are not listed. */
  const list = (caller: Caller, raw: Query) =>
    work(async (tx) => {
      requirePermission(caller, 'payment.webhook.read');
      const query = orRefuse(decodeWith(PageQuery)(raw));
      const visible = (await listAll(tx.webhooks, { scope: caller.account_id })).filter(
        (webhook) => webhook.status !== 'deleted',
      );
      return {
        items: visible.slice(query.offset, query.offset + query.limit).map(webhookView),
        total: visible.length,
        limit: query.limit,
        offset: query.offset,
      };
    });

  const get = (caller: Caller, webhookId: string) =>
    work(async (tx) => {
      requirePermission(caller, 'payment.webhook.read');
      return { webhook: webhookView(await loadWebhook(tx, caller, webhookId)) };
    });

  /** `no changes` when nothing sent differs (events compare as sets). */
  const update = async (caller: Caller, webhookId: string, body: unknown) => {
    const urlRefusal = await outboundUrlRefusal(deps.outboundUrlGuard, body, 'url', 'webhook', {
      caller,
      permissions: ['payment.webhook.write'],
    });
    return work(async (tx, now) => {
      requirePermission(caller, 'payment.webhook.write');
      const patch = orRefuse(decodeWebhookUpdate(body, codecOptions));
      if (urlRefusal !== undefined) refuse(urlRefusal);
      const webhook = await loadWebhook(tx, caller, webhookId);
      const changed =
        (patch.url !== undefined && patch.url !== webhook.url) ||
        (patch.events !== undefined && !sameEvents(patch.events, webhook.events)) ||
        (patch.status !== undefined && patch.status !== webhook.status);
      if (!changed) return refuse(payrailError('no_changes'));
      const saved = await tx.webhooks.update({ ...webhook, ...patch, updated_at: now });
      return { webhook: webhookView(saved) };
    });
  };

  const remove = (caller: Caller, webhookId: string) =>
    work(async (tx, now) => {
      requirePermission(caller, 'payment.webhook.write');
      const webhook = await loadWebhook(tx, caller, webhookId);
      const saved = await tx.webhooks.update({ ...webhook, status: 'deleted', updated_at: now });
      return { webhook: webhookView(saved) };
    });

  /** The old secret stops signing at once; deliveries after this use the new one. */
  const rotateSecret = (caller: Caller, webhookId: string) =>
    work(async (tx, now) => {
      requirePermission(caller, 'payment.webhook.write');
      const webhook = await loadWebhook(tx, caller, webhookId);
      const secret = newSigningSecret();
      const saved = await tx.webhooks.update({
        ...webhook,
        secret: sealSecret(deps.settings.keySecret, secret),
        updated_at: now,
      });
      return { webhook: { ...webhookView(saved), secret } };
    });

  const deliveries = (caller: Caller, webhookId: string, raw: Query) =>
    work(async (tx) => {
      requirePermission(caller, 'payment.webhook.read');
      const query = orRefuse(decodeWith(PageQuery)(raw));
      const webhook = await loadWebhook(tx, caller, webhookId);
      const page = await tx.webhookDeliveries.list({
        scope: caller.account_id,
        where: { webhook_id: webhook.webhook_id },
        limit: query.limit,
        offset: query.offset,
      });
      return { ...page, items: page.items.map(deliveryView) };
    });

  /**
   * A delivery of one of the caller's webhooks (or of a payout's notify_url, which also takes
   * `payment.payout.create`) is sent again: a
   * new outbox message with the same payload and destination, and the delivery goes back to
   * `pending`. A delivery still pending is already on its way and is answered as it is. A
   * delivery that is unknown, another merchant's, of a deleted webhook, or whose message is no
   * longer kept answers `webhook not found`.
   */
  const redeliver = (caller: Caller, deliveryId: string) =>
    work(async (tx, now) => {
      requirePermission(caller, 'payment.webhook.write');
      const delivery: WebhookDeliveryRecord =
        (await tx.webhookDeliveries.get(deliveryId, caller.account_id)) ??
        refuse(payrailError('webhook_not_found'));
      if (delivery.webhook_id !== null) await loadWebhook(tx, caller, delivery.webhook_id);
      if (delivery.status === 'pending') return { delivery: deliveryView(delivery) };
      const sent =
        delivery.outbox_id === undefined ? undefined : await tx.outbox.get(delivery.outbox_id);
      if (sent === undefined || sent.account_id !== caller.account_id) {
        return refuse(payrailError('webhook_not_found'));
      }
      // A payout's callback (its verification request above all) speaks for the payout: sending
      // it again takes the payout permission too, not only the webhook one (issue 19, M2).
      if (sent.business_type === 'payout') requirePermission(caller, 'payment.payout.create');
      const outboxId = deps.ids.next('obx');
      await tx.outbox.enqueue([
        {
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
        },
      ]);
      const saved = await tx.webhookDeliveries.update({
        ...delivery,
        status: 'pending',
        outbox_id: outboxId,
        updated_at: now,
      });
      return { delivery: deliveryView(saved) };
    });

  return { create, list, get, update, remove, rotateSecret, deliveries, redeliver };
};
