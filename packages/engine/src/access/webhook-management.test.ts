import type { WebhookDeliveryRecord } from '@payrail/core';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../engine.api.js';
import {
  type AccessHarness,
  accessHarness,
  callerOf,
  failureOf,
  merchantWithKey,
  rightOf,
  testKeySecret,
  testNow,
} from './access.test-support.js';
import { openSecret } from './secrets-at-rest.crypto.js';
import { deliveredEventIdOf, redeliveryEventId } from './webhook-redelivery.policy.js';

const whsec = /^whsec_[A-Za-z0-9+/]{32}$/;
const readWrite = ['payment.webhook.read', 'payment.webhook.write'];
const notFound = { message: 'webhook not found', httpStatus: 404, code: 65 };
const forbidden = { message: 'forbidden', httpStatus: 403, code: 61 };
const hook = { url: 'https://merchant.example/hooks', events: ['acquiring.*'] };

let h: AccessHarness;
let m: Awaited<ReturnType<typeof merchantWithKey>>;
let caller: Caller;

beforeEach(async () => {
  h = accessHarness();
  m = await merchantWithKey(h, { permissions: readWrite });
  caller = m.caller;
});

const create = async (body: Record<string, unknown> = hook, as: Caller = caller) =>
  rightOf(await h.access.webhooks.create(as, body));

describe('create', () => {
  it('answers the webhook with its secret', async () => {
    const { webhook } = await create({ ...hook, events: ['acquiring.order.updated', 'payout.*'] });
    expect(webhook).toEqual({
      webhook_id: 'wh_0001',
      url: 'https://merchant.example/hooks',
      events: ['acquiring.order.updated', 'payout.*'],
      status: 'active',
      created_at: testNow,
      updated_at: testNow,
      secret: expect.stringMatching(whsec),
    });
    const stored = (await h.oracle.record('webhooks', 'wh_0001')) as { secret: string };
    expect(stored).toMatchObject({ account_id: m.accountId });
    expect(openSecret(testKeySecret, stored.secret)).toBe(webhook.secret);
  });

  it('answers the codec errors', async () => {
    expect(failureOf(await h.access.webhooks.create(caller, { events: ['acquiring.*'] }))).toEqual({
      message: 'url required',
      httpStatus: 400,
      code: 51,
    });
    expect(
      failureOf(await h.access.webhooks.create(caller, { ...hook, events: ['payment.*'] })).message,
    ).toBe('invalid webhook event: payment.*');
    expect(failureOf(await h.access.webhooks.create(caller, undefined)).message).toBe(
      'request required',
    );
  });

  it('accepts http only where the sandbox allows insecure webhooks', async () => {
    const local = { ...hook, url: 'http://127.0.0.1:9000/hooks' };
    expect(failureOf(await h.access.webhooks.create(caller, local)).message).toBe(
      'invalid webhook url',
    );
    h = accessHarness({ allowInsecureWebhooks: true });
    m = await merchantWithKey(h, { permissions: readWrite });
    expect((await create(local, m.caller)).webhook.url).toBe(local.url);
  });

  it('needs payment.webhook.write', async () => {
    expect(
      failureOf(await h.access.webhooks.create(callerOf(m, ['payment.webhook.read']), hook)),
    ).toEqual(forbidden);
    expect(await h.oracle.count('webhooks')).toBe(0);
  });
});

describe('reads', () => {
  it('get shows the webhook without its secret', async () => {
    const { webhook } = await create();
    const { secret: _, ...shown } = webhook;
    expect(rightOf(await h.access.webhooks.get(caller, webhook.webhook_id))).toEqual({
      webhook: shown,
    });
  });

  it('lists newest first without secrets, pages, and hides deleted webhooks', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await create()).webhook.webhook_id);
      h.clock.advance(1);
    }
    rightOf(await h.access.webhooks.remove(caller, ids[1] ?? ''));
    const page = rightOf(await h.access.webhooks.list(caller, {}));
    expect(page.items.map((w) => w.webhook_id)).toEqual([ids[3], ids[2], ids[0]]);
    expect(page).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(JSON.stringify(page)).not.toContain('whsec_');
    const second = rightOf(await h.access.webhooks.list(caller, { limit: '2', offset: '2' }));
    expect(second).toMatchObject({ total: 3, limit: 2, offset: 2 });
    expect(second.items.map((w) => w.webhook_id)).toEqual([ids[0]]);
    expect(failureOf(await h.access.webhooks.list(caller, { offset: '-1' })).message).toBe(
      'invalid offset',
    );
  });

  it('need payment.webhook.read', async () => {
    const { webhook } = await create();
    const writer = callerOf(m, ['payment.webhook.write']);
    expect(failureOf(await h.access.webhooks.get(writer, webhook.webhook_id))).toEqual(forbidden);
    expect(failureOf(await h.access.webhooks.list(writer, {}))).toEqual(forbidden);
    expect(failureOf(await h.access.webhooks.deliveries(writer, webhook.webhook_id, {}))).toEqual(
      forbidden,
    );
  });
});

describe("another merchant's webhook is not found, like a missing one", () => {
  it('on every path', async () => {
    const { webhook } = await create();
    const other = await merchantWithKey(h, { permissions: readWrite }, 'Other');
    const id = webhook.webhook_id;
    const w = h.access.webhooks;
    for (const outcome of [
      await w.get(other.caller, id),
      await w.update(other.caller, id, { status: 'inactive' }),
      await w.rotateSecret(other.caller, id),
      await w.deliveries(other.caller, id, {}),
      await w.remove(other.caller, id),
      await w.get(caller, 'wh_missing'),
    ]) {
      expect(failureOf<unknown>(outcome)).toEqual(notFound);
    }
    expect(await h.oracle.record('webhooks', id)).toMatchObject({ status: 'active', version: 1 });
  });
});

describe('update', () => {
  it('changes what is sent', async () => {
    const { webhook } = await create();
    h.clock.advance(3);
    expect(
      rightOf(
        await h.access.webhooks.update(caller, webhook.webhook_id, {
          url: 'https://merchant.example/v2',
          events: ['acquiring.payment.updated'],
          status: 'inactive',
        }),
      ),
    ).toEqual({
      webhook: {
        webhook_id: webhook.webhook_id,
        url: 'https://merchant.example/v2',
        events: ['acquiring.payment.updated'],
        status: 'inactive',
        created_at: testNow,
        updated_at: testNow + 3,
      },
    });
  });

  it('no changes when nothing sent differs; events compare as sets', async () => {
    const { webhook } = await create({ ...hook, events: ['acquiring.*', 'payout.*'] });
    for (const body of [
      {},
      { url: hook.url },
      { events: ['payout.*', 'acquiring.*'] },
      { status: 'active', url: hook.url },
    ]) {
      expect(failureOf(await h.access.webhooks.update(caller, webhook.webhook_id, body))).toEqual({
        message: 'no changes',
        httpStatus: 400,
        code: 53,
      });
    }
    expect(
      failureOf(await h.access.webhooks.update(caller, webhook.webhook_id, { url: 'ftp://x' }))
        .message,
    ).toBe('invalid webhook url');
  });
});

describe('remove', () => {
  it('marks the webhook deleted; afterwards it is not found', async () => {
    const { webhook } = await create();
    const removed = rightOf(await h.access.webhooks.remove(caller, webhook.webhook_id));
    expect(removed.webhook).toMatchObject({ webhook_id: webhook.webhook_id, status: 'deleted' });
    expect(removed.webhook).not.toHaveProperty('secret');
    expect(failureOf(await h.access.webhooks.get(caller, webhook.webhook_id))).toEqual(notFound);
    expect(failureOf(await h.access.webhooks.remove(caller, webhook.webhook_id))).toEqual(notFound);
    expect(
      failureOf(await h.access.webhooks.update(caller, webhook.webhook_id, { status: 'active' })),
    ).toEqual(notFound);
  });
});

describe('rotateSecret', () => {
  it('replaces the secret and shows the new one', async () => {
    const { webhook } = await create();
    const rotated = rightOf(await h.access.webhooks.rotateSecret(caller, webhook.webhook_id));
    expect(rotated.webhook.secret).toMatch(whsec);
    expect(rotated.webhook.secret).not.toBe(webhook.secret);
    const stored = (await h.oracle.record('webhooks', webhook.webhook_id)) as { secret: string };
    expect(openSecret(testKeySecret, stored.secret)).toBe(rotated.webhook.secret);
  });
});

describe('deliveries and redelivery', () => {
  let webhookId: string;
  const eventId = 'evt_0123456789abcdef0123456789abcdef';
  const payload = { event_id: eventId, event_type: 'acquiring.order.updated', data: { a: 1 } };

  const delivery = (
    n: number,
    overrides: Partial<WebhookDeliveryRecord> = {},
  ): Omit<WebhookDeliveryRecord, 'version'> => ({
    delivery_id: `dlv_${n}`,
    account_id: m.accountId,
    event_id: `${eventId.slice(0, -1)}${n}`,
    event_type: 'acquiring.order.updated',
    business_type: 'acquiring',
    business_id: 'ord_1',
    webhook_id: webhookId,
    url: hook.url,
    status: 'failed',
    attempts: [
      {
        attempt: 1,
        at: testNow,
        status_code: 500,
        latency_ms: 40,
        error: null,
        response_body: 'oops',
      },
    ],
    outbox_id: 'obx_sent',
    created_at: testNow + n,
    updated_at: testNow + n,
    ...overrides,
  });

  beforeEach(async () => {
    webhookId = (await create()).webhook.webhook_id;
    await h.store.transaction(async (tx) => {
      await tx.outbox.enqueue([
        {
          outbox_id: 'obx_sent',
          event_id: eventId,
          account_id: m.accountId,
          business_type: 'acquiring',
          business_id: 'ord_1',
          event_type: 'acquiring.order.updated',
          destination: { kind: 'webhook', webhookId },
          payload,
          available_at: testNow,
          created_at: testNow,
        },
      ]);
      await tx.webhookDeliveries.insert({ ...delivery(1), event_id: eventId });
      await tx.webhookDeliveries.insert(delivery(2, { status: 'succeeded' }));
      await tx.webhookDeliveries.insert(delivery(3, { webhook_id: 'wh_elsewhere' }));
    });
  });

  it("lists the webhook's deliveries with their attempts", async () => {
    const page = rightOf(await h.access.webhooks.deliveries(caller, webhookId, {}));
    expect(page.items.map((d) => d.delivery_id)).toEqual(['dlv_2', 'dlv_1']);
    expect(page.items[1]).toEqual({
      delivery_id: 'dlv_1',
      webhook_id: webhookId,
      event_id: eventId,
      event_type: 'acquiring.order.updated',
      url: hook.url,
      status: 'failed',
      attempts: [
        {
          attempt: 1,
          at: testNow,
          status_code: 500,
          latency_ms: 40,
          error: null,
          response_body: 'oops',
        },
      ],
      created_at: testNow + 1,
      updated_at: testNow + 1,
    });
    const paged = rightOf(
      await h.access.webhooks.deliveries(caller, webhookId, { limit: '1', offset: '1' }),
    );
    expect(paged).toMatchObject({ total: 2, limit: 1, offset: 1 });
  });

  it('redelivers: a new outbox message with the same payload and destination', async () => {
    h.clock.advance(30);
    const answer = rightOf(await h.access.webhooks.redeliver(caller, 'dlv_1'));
    expect(answer.delivery).toMatchObject({
      delivery_id: 'dlv_1',
      status: 'pending',
      updated_at: testNow + 30,
    });
    expect(answer.delivery).not.toHaveProperty('outbox_id');
    const outbox = await h.oracle.outbox();
    expect(outbox).toHaveLength(2);
    const again = outbox.find((message) => message.outbox_id !== 'obx_sent');
    expect(again).toEqual({
      outbox_id: 'obx_0001',
      event_id: `${eventId}:obx_0001`,
      account_id: m.accountId,
      business_type: 'acquiring',
      business_id: 'ord_1',
      event_type: 'acquiring.order.updated',
      destination: { kind: 'webhook', webhookId },
      payload,
      status: 'pending',
      attempts: 0,
      available_at: testNow + 30,
      created_at: testNow + 30,
    });
    expect(await h.oracle.record('webhookDeliveries', 'dlv_1')).toMatchObject({
      status: 'pending',
      outbox_id: 'obx_0001',
    });
  });

  it('a pending delivery is on its way: answered as it is, nothing enqueued', async () => {
    rightOf(await h.access.webhooks.redeliver(caller, 'dlv_1'));
    const answer = rightOf(await h.access.webhooks.redeliver(caller, 'dlv_1'));
    expect(answer.delivery.status).toBe('pending');
    expect(await h.oracle.outbox()).toHaveLength(2);
  });

  it('a redelivered message can be redelivered again, still naming the original event', async () => {
    rightOf(await h.access.webhooks.redeliver(caller, 'dlv_1'));
    await h.store.transaction(async (tx) => {
      const stored = await tx.webhookDeliveries.get('dlv_1');
      if (stored) await tx.webhookDeliveries.update({ ...stored, status: 'failed' });
    });
    rightOf(await h.access.webhooks.redeliver(caller, 'dlv_1'));
    const eventIds = (await h.oracle.outbox()).map((message) => message.event_id);
    expect(eventIds).toEqual([eventId, `${eventId}:obx_0001`, `${eventId}:obx_0002`]);
    expect(eventIds.map(deliveredEventIdOf)).toEqual([eventId, eventId, eventId]);
  });

  it('webhook not found for an unknown delivery, another merchant, a deleted webhook or a lost message', async () => {
    const other = await merchantWithKey(h, { permissions: readWrite }, 'Other');
    expect(failureOf(await h.access.webhooks.redeliver(other.caller, 'dlv_1'))).toEqual(notFound);
    expect(failureOf(await h.access.webhooks.redeliver(caller, 'dlv_9'))).toEqual(notFound);
    expect(failureOf(await h.access.webhooks.redeliver(caller, 'dlv_3'))).toEqual(notFound);
    await h.store.transaction((tx) =>
      tx.webhookDeliveries.insert(delivery(4, { outbox_id: 'obx_gone' })),
    );
    expect(failureOf(await h.access.webhooks.redeliver(caller, 'dlv_4'))).toEqual(notFound);
    rightOf(await h.access.webhooks.remove(caller, webhookId));
    expect(failureOf(await h.access.webhooks.redeliver(caller, 'dlv_1'))).toEqual(notFound);
    expect(await h.oracle.outbox()).toHaveLength(1);
  });

  it('needs payment.webhook.write', async () => {
    expect(
      failureOf(await h.access.webhooks.redeliver(callerOf(m, ['payment.webhook.read']), 'dlv_1')),
    ).toEqual(forbidden);
  });
});

describe('redelivery event ids', () => {
  it('carry the original event id, recoverable', () => {
    expect(redeliveryEventId('evt_1', 'obx_2')).toBe('evt_1:obx_2');
    expect(deliveredEventIdOf('evt_1:obx_2')).toBe('evt_1');
    expect(deliveredEventIdOf('evt_1')).toBe('evt_1');
  });
});
