/** The caller's webhooks and their deliveries as the webhook use cases read them. */
import {
  type ListQuery,
  type PageQuery,
  payrailError,
  type StoreTransaction,
  type WebhookDeliveryRecord,
} from '@payrail/core';
import { refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import { deliveryView } from './access.views.js';
import { pageView } from './list-pages.views.js';

/** A deleted webhook is `webhook not found`, like a missing one or another merchant's. */
export const callerWebhook = async (tx: StoreTransaction, caller: Caller, webhookId: string) => {
  const webhook = await tx.webhooks.get(webhookId, caller.account_id);
  return webhook === undefined || webhook.status === 'deleted'
    ? refuse(payrailError('webhook_not_found'))
    : webhook;
};

/** A page of the caller's deliveries that `where` matches, as the answer shows them. */
export const callerDeliveryPage = async (
  tx: StoreTransaction,
  caller: Caller,
  where: NonNullable<ListQuery<WebhookDeliveryRecord>['where']>,
  query: PageQuery,
) => {
  const page = await tx.webhookDeliveries.list({
    scope: caller.account_id,
    where,
    limit: query.limit,
    offset: query.offset,
  });
  return pageView(page, deliveryView);
};
