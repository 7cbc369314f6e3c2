/** `webhooks.redeliver`: a delivery sent again as a new outbox message (docs/spec/decisions.md §5). */
import { payrailError, type StoreTransaction } from '@payrail/core';
import { clockedUnitOfWork, refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { deliveryView } from './access.views.js';
import { requirePermission } from './access-control.policy.js';
import { callerWebhook } from './webhook.store.js';
import { redeliveryOf } from './webhook-redelivery.policy.js';

/** The caller's delivery; one of a deleted webhook is not found either. */
const callerDelivery = async (tx: StoreTransaction, caller: Caller, deliveryId: string) => {
  const delivery =
    (await tx.webhookDeliveries.get(deliveryId, caller.account_id)) ??
    refuse(payrailError('webhook_not_found'));
  if (delivery.webhook_id !== null) await callerWebhook(tx, caller, delivery.webhook_id);
  return delivery;
};

/** The outbox message a delivery sent, while the outbox keeps it. */
const sentMessage = async (tx: StoreTransaction, caller: Caller, outboxId: string | undefined) => {
  const sent = outboxId === undefined ? undefined : await tx.outbox.get(outboxId);
  return sent === undefined || sent.account_id !== caller.account_id
    ? refuse(payrailError('webhook_not_found'))
    : sent;
};

/**
 * A delivery of one of the caller's webhooks (or of a payout's notify_url, which also takes
 * `payment.payout.create`) is sent again: a
 * new outbox message with the same payload and destination, and the delivery goes back to
 * `pending`. A delivery still pending is already on its way and is answered as it is. A
 * delivery that is unknown, another merchant's, of a deleted webhook, or whose message is no
 * longer kept answers `webhook not found`.
 */
export const redeliver = (deps: EngineDeps, caller: Caller, deliveryId: string) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    requirePermission(caller, 'payment.webhook.write');
    const delivery = await callerDelivery(tx, caller, deliveryId);
    if (delivery.status === 'pending') return { delivery: deliveryView(delivery) };
    const sent = await sentMessage(tx, caller, delivery.outbox_id);
    // A payout's callback (its verification request above all) speaks for the payout: sending
    // it again takes the payout permission too, not only the webhook one (issue 19, M2).
    if (sent.business_type === 'payout') requirePermission(caller, 'payment.payout.create');
    const outboxId = deps.ids.next('obx');
    await tx.outbox.enqueue([redeliveryOf(sent, outboxId, now)]);
    const saved = await tx.webhookDeliveries.update({
      ...delivery,
      status: 'pending',
      outbox_id: outboxId,
      updated_at: now,
    });
    return { delivery: deliveryView(saved) };
  });
