/**
 * `verifyWebhook` against signatures made by the `standardwebhooks` package (what payrail's
 * dispatcher signs with): a delivery verifies and answers its typed event, from a string or the
 * raw bytes, with fetch's Headers or Node's header record; a changed body, id or timestamp, another
 * secret, a stale or future timestamp, a missing header and a signed body that is no event are
 * refused, each with its reason.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  type PayrailWebhook,
  verifyWebhook,
  type WebhookFailure,
  WebhookVerificationError,
} from './webhook-verification.js';

const secret = `whsec_${btoa('a webhook secret of thirty-two b')}`;
const otherSecret = `whsec_${btoa('another secret of thirty-two byt')}`;
const now = 1_800_000_000;

const envelope = {
  event_id: 'evt_0123456789abcdef0123456789abcdef',
  event_type: 'acquiring.order.updated',
  business_type: 'acquiring',
  business_id: 'ord_1',
  occurred_at: now - 1,
  version: 'v1',
  data: { order_id: 'ord_1', status: 'completed' },
};

/** A delivery as payrail's dispatcher makes it: the body, and its three headers. */
const delivery = (body: unknown, options: { secret?: string; at?: number; id?: string } = {}) => {
  const text = JSON.stringify(body);
  const id = options.id ?? 'evt_0123456789abcdef0123456789abcdef';
  const at = options.at ?? now;
  const signature = new Webhook(options.secret ?? secret).sign(id, new Date(at * 1000), text);
  return {
    text,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(at),
      'webhook-signature': signature,
    },
  };
};

const failureOf = async (run: () => Promise<unknown>): Promise<WebhookFailure | 'none'> => {
  try {
    await run();
    return 'none';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.failure;
    throw error;
  }
};

describe('verifyWebhook', () => {
  it('answers the event of a good delivery, typed by event_type', async () => {
    const { text, headers } = delivery(envelope);
    const event: PayrailWebhook = await verifyWebhook(text, headers, secret, { now });
    expect(event).toEqual(envelope);
    if ('type' in event) throw new Error('not a verification request');
    const type: string = event.event_type;
    expect(type).toBe('acquiring.order.updated');
  });

  it('reads raw bytes, fetch Headers, Node header arrays and upper-case names alike', async () => {
    const { text, headers } = delivery(envelope);
    const bytes = new TextEncoder().encode(text);
    await expect(verifyWebhook(bytes, new Headers(headers), secret, { now })).resolves.toEqual(
      envelope,
    );
    const shouting = {
      'Webhook-Id': headers['webhook-id'],
      'Webhook-Timestamp': [headers['webhook-timestamp']],
      'Webhook-Signature': headers['webhook-signature'],
    };
    await expect(verifyWebhook(text, shouting, secret, { now })).resolves.toEqual(envelope);
  });

  it('accepts any one of several signatures (a secret being rotated) and skips other versions', async () => {
    const { text, headers } = delivery(envelope);
    const stale = delivery(envelope, { secret: otherSecret }).headers['webhook-signature'];
    const several = {
      ...headers,
      'webhook-signature': `v2,abc ${stale} ${headers['webhook-signature']}`,
    };
    await expect(verifyWebhook(text, several, secret, { now })).resolves.toEqual(envelope);
  });

  it('refuses a changed body, id or timestamp, and another secret: signature', async () => {
    const { text, headers } = delivery(envelope);
    const tampered = text.replace('"completed"', '"closed"');
    expect(await failureOf(() => verifyWebhook(tampered, headers, secret, { now }))).toBe(
      'signature',
    );
    const otherId = { ...headers, 'webhook-id': 'evt_other' };
    expect(await failureOf(() => verifyWebhook(text, otherId, secret, { now }))).toBe('signature');
    const otherTime = { ...headers, 'webhook-timestamp': String(now + 1) };
    expect(await failureOf(() => verifyWebhook(text, otherTime, secret, { now }))).toBe(
      'signature',
    );
    expect(await failureOf(() => verifyWebhook(text, headers, otherSecret, { now }))).toBe(
      'signature',
    );
    const garbled = { ...headers, 'webhook-signature': 'v1,not base64!' };
    expect(await failureOf(() => verifyWebhook(text, garbled, secret, { now }))).toBe('signature');
  });

  it('refuses a timestamp more than the tolerance from now, either way: timestamp', async () => {
    const old = delivery(envelope, { at: now - 301 });
    expect(await failureOf(() => verifyWebhook(old.text, old.headers, secret, { now }))).toBe(
      'timestamp',
    );
    const future = delivery(envelope, { at: now + 301 });
    expect(await failureOf(() => verifyWebhook(future.text, future.headers, secret, { now }))).toBe(
      'timestamp',
    );
    // A tolerance or a clock that is no number never turns the check off.
    expect(
      await failureOf(() =>
        verifyWebhook(old.text, old.headers, secret, { now, toleranceSeconds: Number.NaN }),
      ),
    ).toBe('timestamp');
    expect(
      await failureOf(() => verifyWebhook(old.text, old.headers, secret, { now: Number.NaN })),
    ).toBe('timestamp');
    const edge = delivery(envelope, { at: now - 300 });
    await expect(verifyWebhook(edge.text, edge.headers, secret, { now })).resolves.toEqual(
      envelope,
    );
    expect(
      await failureOf(() =>
        verifyWebhook(edge.text, edge.headers, secret, { now, toleranceSeconds: 60 }),
      ),
    ).toBe('timestamp');
    // The real clock by default: a delivery made now passes, one from 2027 does not.
    const live = delivery(envelope, { at: Math.floor(Date.now() / 1000) });
    await expect(verifyWebhook(live.text, live.headers, secret)).resolves.toEqual(envelope);
    expect(await failureOf(() => verifyWebhook(old.text, old.headers, secret))).toBe('timestamp');
  });

  it('refuses a delivery without its headers: headers', async () => {
    const { text, headers } = delivery(envelope);
    const { 'webhook-signature': _, ...unsigned } = headers;
    expect(await failureOf(() => verifyWebhook(text, unsigned, secret, { now }))).toBe('headers');
  });

  it('answers a payout’s verification request, bare, as its own type', async () => {
    const request = {
      payout_id: 'po_1',
      type: 'payout.verification',
      account_id: 'acc_1',
      reference: 'INV-1',
      currency: 'USD',
      amount: '25.00',
      status: 'pending_review',
      review_status: 'pending_review',
      execution_status: 'init',
      beneficiary_id: 'ben_1',
      beneficiary_account_id: 'ba_1',
      beneficiary_name: 'Jane Doe',
      network_code: 'WALLETA',
      account_type: 'wallet',
      beneficiary_account: { walleta_email: 'j***@example.com' },
      submitted_at: now - 5,
      created_at: now - 5,
      verification_round: 1,
    };
    const { text, headers } = delivery(request);
    const verified = await verifyWebhook(text, headers, secret, { now });
    if (!('type' in verified)) throw new Error('not a verification request');
    const round: number | undefined = verified.verification_round;
    expect(round).toBe(1);
    expect(verified).toEqual(request);
  });

  it('refuses a signed body that is not an event it knows: payload', async () => {
    const unknown = delivery({ ...envelope, event_type: 'payout.teleported' });
    expect(
      await failureOf(() => verifyWebhook(unknown.text, unknown.headers, secret, { now })),
    ).toBe('payload');
    const notJson = { text: 'ok', headers: delivery(envelope).headers };
    notJson.headers['webhook-signature'] = new Webhook(secret).sign(
      notJson.headers['webhook-id'],
      new Date(now * 1000),
      'ok',
    );
    expect(await failureOf(() => verifyWebhook('ok', notJson.headers, secret, { now }))).toBe(
      'payload',
    );
  });

  it('refuses a secret that is not whsec_ base64 as a programming error', async () => {
    const { text, headers } = delivery(envelope);
    await expect(verifyWebhook(text, headers, 'whsec_', { now })).rejects.toBeInstanceOf(TypeError);
  });
});
