/**
 * Merchant webhooks (docs/spec/decisions.md §5): create, list, get, update, remove, rotate the secret, list
 * deliveries, redeliver. Permissions `payment.webhook.read` and `payment.webhook.write`.
 *
 * - The `secret` is shown when it is made (create, rotate-secret) and never on reads; it is
 *   stored sealed under the key secret (`secrets-at-rest.crypto.ts`, ADR 0041).
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
  type PayrailError,
  payrailError,
  type WebhookCodecOptions,
} from '@payrail/core';
import type * as E from 'fp-ts/lib/Either.js';
import { clockedUnitOfWork, orRefuse, refuse } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { webhookView } from './access.views.js';
import { requirePermission } from './access-control.policy.js';
import { listAll } from './caller-account.store.js';
import { windowView } from './list-pages.views.js';
import { outboundUrlRefusal } from './outbound-url.policy.js';
import { sealSecret } from './secrets-at-rest.crypto.js';
import { newSigningSecret } from './signing-secrets.crypto.js';
import { callerDeliveryPage, callerWebhook } from './webhook.store.js';
import { redeliver } from './webhook-redelivery.use-case.js';

const codecOptions = (deps: EngineDeps): WebhookCodecOptions => ({
  allowInsecureUrl: deps.settings.allowInsecureWebhooks,
});

/** The guard's word on the body's `url`, asked before the unit of work (`outboundUrlRefusal`). */
const urlRefusalOf = (deps: EngineDeps, caller: Caller, body: unknown) =>
  outboundUrlRefusal(deps.outboundUrlGuard, body, 'url', 'webhook', {
    caller,
    permissions: ['payment.webhook.write'],
  });

/** A write's request, judged in this order: the permission, the codec, the URL guard. */
const writeRequest = <R>(
  caller: Caller,
  decode: () => E.Either<PayrailError, R>,
  urlRefusal: PayrailError | undefined,
): R => {
  requirePermission(caller, 'payment.webhook.write');
  const request = orRefuse(decode());
  if (urlRefusal !== undefined) refuse(urlRefusal);
  return request;
};

const sameEvents = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((event) => b.includes(event));

const create = async (deps: EngineDeps, caller: Caller, body: unknown) => {
  const urlRefusal = await urlRefusalOf(deps, caller, body);
  return clockedUnitOfWork(deps, async (tx, now) => {
    const decode = () => decodeWebhookCreate(body, codecOptions(deps));
    const request = writeRequest(caller, decode, urlRefusal);
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
const list = (deps: EngineDeps, caller: Caller, raw: Query) =>
  clockedUnitOfWork(deps, async (tx) => {
    requirePermission(caller, 'payment.webhook.read');
    const query = orRefuse(decodeWith(PageQuery)(raw));
    const visible = (await listAll(tx.webhooks, { scope: caller.account_id })).filter(
      (webhook) => webhook.status !== 'deleted',
    );
    return windowView(visible, query, webhookView);
  });

const get = (deps: EngineDeps, caller: Caller, webhookId: string) =>
  clockedUnitOfWork(deps, async (tx) => {
    requirePermission(caller, 'payment.webhook.read');
    return { webhook: webhookView(await callerWebhook(tx, caller, webhookId)) };
  });

/** `no changes` when nothing sent differs (events compare as sets). */
const update = async (deps: EngineDeps, caller: Caller, webhookId: string, body: unknown) => {
  const urlRefusal = await urlRefusalOf(deps, caller, body);
  return clockedUnitOfWork(deps, async (tx, now) => {
    const decode = () => decodeWebhookUpdate(body, codecOptions(deps));
    const patch = writeRequest(caller, decode, urlRefusal);
    const webhook = await callerWebhook(tx, caller, webhookId);
    const changed =
      (patch.url !== undefined && patch.url !== webhook.url) ||
      (patch.events !== undefined && !sameEvents(patch.events, webhook.events)) ||
      (patch.status !== undefined && patch.status !== webhook.status);
    if (!changed) return refuse(payrailError('no_changes'));
    const saved = await tx.webhooks.update({ ...webhook, ...patch, updated_at: now });
    return { webhook: webhookView(saved) };
  });
};

const remove = (deps: EngineDeps, caller: Caller, webhookId: string) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    requirePermission(caller, 'payment.webhook.write');
    const webhook = await callerWebhook(tx, caller, webhookId);
    const saved = await tx.webhooks.update({ ...webhook, status: 'deleted', updated_at: now });
    return { webhook: webhookView(saved) };
  });

/** The old secret stops signing at once; deliveries after this use the new one. */
const rotateSecret = (deps: EngineDeps, caller: Caller, webhookId: string) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    requirePermission(caller, 'payment.webhook.write');
    const webhook = await callerWebhook(tx, caller, webhookId);
    const secret = newSigningSecret();
    const saved = await tx.webhooks.update({
      ...webhook,
      secret: sealSecret(deps.settings.keySecret, secret),
      updated_at: now,
    });
    return { webhook: { ...webhookView(saved), secret } };
  });

const deliveries = (deps: EngineDeps, caller: Caller, webhookId: string, raw: Query) =>
  clockedUnitOfWork(deps, async (tx) => {
    requirePermission(caller, 'payment.webhook.read');
    const query = orRefuse(decodeWith(PageQuery)(raw));
    const webhook = await callerWebhook(tx, caller, webhookId);
    return callerDeliveryPage(tx, caller, { webhook_id: webhook.webhook_id }, query);
  });

export const webhookUseCases = (deps: EngineDeps) => ({
  create: (caller: Caller, body: unknown) => create(deps, caller, body),
  list: (caller: Caller, raw: Query) => list(deps, caller, raw),
  get: (caller: Caller, webhookId: string) => get(deps, caller, webhookId),
  update: (caller: Caller, webhookId: string, body: unknown) =>
    update(deps, caller, webhookId, body),
  remove: (caller: Caller, webhookId: string) => remove(deps, caller, webhookId),
  rotateSecret: (caller: Caller, webhookId: string) => rotateSecret(deps, caller, webhookId),
  deliveries: (caller: Caller, webhookId: string, raw: Query) =>
    deliveries(deps, caller, webhookId, raw),
  redeliver: (caller: Caller, deliveryId: string) => redeliver(deps, caller, deliveryId),
});
