/**
 * Carries out a machine's decision inside the unit of work that saves its snapshot: journals are
 * posted, events go to the transactional outbox, timers are set or cleared. Nothing here leaves
 * the database, so a crash at any point keeps state, ledger and outbox consistent.
 */
import {
  type DomainEvent,
  type Effect,
  eventIdOf,
  type IdGenerator,
  matchesEventPattern,
  type OutboxDestination,
  type StoreTransaction,
  type TimerName,
  webhookBodyOf,
} from '@payrail/core';

/** Where the events of one business object go. */
export interface EventRouting {
  readonly accountId: string;
  /** Payout events: the payout's notify_url. */
  readonly notifyUrl?: string;
  /** Acquiring events: the order's notify_webhook_id. */
  readonly webhookId?: string;
}

/** Timer name of an approved payout waiting for the executor: due at once, claimed once. */
export const payoutExecutionTimer = 'payout.execute';

const timerBusinessTypes: Readonly<Record<TimerName, string>> = {
  'order.expiry': 'acquiring',
};

const timerIdOf = (name: string, businessId: string): string => `${name}:${businessId}`;

const destinationsOf = async (
  tx: StoreTransaction,
  event: DomainEvent,
  routing: EventRouting,
): Promise<readonly OutboxDestination[]> => {
  if (event.businessType === 'payout' && routing.notifyUrl !== undefined) {
    return [{ kind: 'notify_url', url: routing.notifyUrl }];
  }
  if (event.businessType === 'acquiring' && routing.webhookId !== undefined) {
    const webhook = await tx.webhooks.get(routing.webhookId, routing.accountId);
    const subscribed =
      webhook?.status === 'active' &&
      webhook.events.some((pattern) => matchesEventPattern(pattern, event.eventType));
    return subscribed ? [{ kind: 'webhook', webhookId: routing.webhookId }] : [];
  }
  return [];
};

export const commitEffects = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  effects: readonly Effect[],
  routing: EventRouting,
  at: number,
): Promise<void> => {
  for (const effect of effects) {
    switch (effect.type) {
      case 'post':
        await tx.ledger.post(effect.journal, at);
        break;
      case 'emit': {
        const { event } = effect;
        const destinations = await destinationsOf(tx, event, routing);
        await tx.outbox.enqueue(
          destinations.map((destination) => ({
            outbox_id: ids.next('obx'),
            event_id: eventIdOf(event),
            account_id: routing.accountId,
            business_type: event.businessType,
            business_id: event.businessId,
            event_type: event.eventType,
            destination,
            payload: webhookBodyOf(event),
            available_at: event.occurredAt,
            created_at: at,
          })),
        );
        break;
      }
      case 'setTimer':
        await tx.timers.set({
          timer_id: timerIdOf(effect.timer, effect.businessId),
          name: effect.timer,
          business_type: timerBusinessTypes[effect.timer],
          business_id: effect.businessId,
          account_id: routing.accountId,
          due_at: effect.dueAt,
        });
        break;
      case 'clearTimer':
        await tx.timers.clear(timerIdOf(effect.timer, effect.businessId));
        break;
      case 'requestExecution':
        await tx.timers.set({
          timer_id: timerIdOf(payoutExecutionTimer, effect.payoutId),
          name: payoutExecutionTimer,
          business_type: 'payout',
          business_id: effect.payoutId,
          account_id: routing.accountId,
          due_at: at,
        });
        break;
    }
  }
};
