/**
 * `POST /upstream/acquiring/{provider}` through HTTP on the real engine with the built-in
 * `sandbox` provider (allowed from loopback, signing with its secret): every message of the
 * interface's "Platform-side webhook receiving" list with its status and code, the client address
 * as merchant routes read it, forged events (issue 12, finding 1), an order paid through upstream
 * events with its outbox, a late payment, and duplicates and reordering. On every store of the
 * http package's list.
 */
import { toTronAddress } from '@payrail/core';
import {
  generateSandboxUpstreamSecret,
  sandboxAcquiringProvider,
  signSandboxUpstream,
} from '@payrail/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  directTronOrder,
  type EngineApp,
  engineApp,
  refusalOf,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const refusal = (status: number, code: number, message: string) => ({
  status,
  code,
  message,
  data: null,
});

/** A well-formed TRON address that no order handed out. */
const strangerAddress = toTronAddress(Uint8Array.from([0x41, ...Array(20).fill(1)]));

const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

describe.each(storesUnderTest)('upstream acquiring events (real engine, $name)', (under) => {
  let h: EngineApp;
  let proxied: EngineApp;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let orders = 0;
  const secret = generateSandboxUpstreamSecret();
  /** The chain watcher's signature of what the harness sends for `body` (its JSON). */
  const signed = (body: unknown, signing: { timestamp?: number } = {}) =>
    signSandboxUpstream(secret, body === undefined ? '' : JSON.stringify(body), signing);

  beforeAll(async () => {
    store = await under.open();
    const acquiringProviders = [
      sandboxAcquiringProvider({ allowedSources: ['127.0.0.1/32', '::1/128'], secret }),
    ];
    h = engineApp({ store, acquiringProviders });
    // The same store behind a proxy at 10.0.0.1 that the operator trusts.
    proxied = engineApp({ store, acquiringProviders, trustedProxies: ['10.0.0.1'] });
  });

  afterAll(async () => {
    await store.close?.();
  });

  /** A signed call to the endpoint, from loopback unless `bindings` say otherwise. */
  const upstream = (
    body: unknown,
    options: { provider?: string; bindings?: object; headers?: Record<string, string> } = {},
  ): Promise<Answer> =>
    h.call(
      'POST',
      `/upstream/acquiring/${options.provider ?? 'sandbox'}`,
      { ...signed(body), ...options.headers },
      body,
      options.bindings,
    );

  const ok = (answer: Answer) => {
    expect(answer.body.message).toBe('success');
    expect(answer.status).toBe(200);
    return answer.body.data;
  };

  /** A merchant of its own with an acquiring webhook and a direct TRON_USDT order. */
  const directOrder = async (overrides: Record<string, unknown> = {}) => {
    orders += 1;
    const m = await h.merchant(`Upstream ${orders}`);
    const as = h.as(m.token);
    const { webhook } = ok(
      await as.post('/payment/webhooks', {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      }),
    );
    const data = ok(
      await as.post('/payment/acquiring/orders', {
        ...directTronOrder(`UP-${orders}`, webhook.webhook_id),
        ...overrides,
      }),
    );
    return {
      as,
      webhookId: webhook.webhook_id as string,
      orderId: data.order.order_id as string,
      address: data.payment_address.address as string,
    };
  };

  const tronPayment = (address: string, status: string, extra: Record<string, unknown> = {}) => ({
    network: 'TRON',
    address,
    token_id: 'TRON_USDT',
    tx_hash: `tx${orders}`,
    amount: '30',
    status,
    ...extra,
  });

  /** The outbox rows of one order, in the order they were written. */
  const outboxOf = (businessId: string) =>
    h.store.transaction(async (tx) => {
      const rows = [];
      // Counting ids: obx_1, obx_2, ...; a rolled-back unit of work may leave a gap.
      for (let n = 1, misses = 0; misses < 30; n += 1) {
        const row = await tx.outbox.get(`obx_${n}`);
        if (row === undefined) misses += 1;
        else {
          misses = 0;
          if (row.business_id === businessId) rows.push(row);
        }
      }
      return rows;
    });

  describe('the Platform-side webhook receiving messages', () => {
    it('unsupported acquiring webhook provider: <provider> is 404/65, naming the path segment', async () => {
      expect(refusalOf(await upstream({ events: [] }, { provider: 'acme' }))).toEqual(
        refusal(404, 65, 'unsupported acquiring webhook provider: acme'),
      );
      expect(refusalOf(await upstream({}, { provider: 'Sandbox' }))).toEqual(
        refusal(404, 65, 'unsupported acquiring webhook provider: Sandbox'),
      );
    });

    it('webhook ip not allowed is 403/61 for a caller outside the sources', async () => {
      for (const ip of ['10.0.0.9', '203.0.113.5', '::ffff:10.0.0.9', 'fe80::1']) {
        expect(refusalOf(await upstream({ events: [] }, { bindings: from(ip) })), ip).toEqual(
          refusal(403, 61, 'webhook ip not allowed'),
        );
      }
    });

    it('empty upstream webhook event is 400/51: no body, unparsable, no events, none in the list', async () => {
      for (const body of [undefined, {}, { events: [] }, { events: null }]) {
        expect(refusalOf(await upstream(body)), JSON.stringify(body)).toEqual(
          refusal(400, 51, 'empty upstream webhook event'),
        );
      }
      const raw = await h.app.request('/upstream/acquiring/sandbox', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...signSandboxUpstream(secret, '{"events": ['),
        },
        body: '{"events": [',
      });
      expect({ status: raw.status, body: await raw.json() }).toEqual({
        status: 400,
        body: { code: 51, message: 'empty upstream webhook event', data: null },
      });
    });

    it('invalid upstream merchant deposit payload is 400/51 for a malformed event', async () => {
      const { address } = await directOrder();
      for (const body of [
        [tronPayment(address, 'confirmed')],
        { events: 'all of them' },
        { events: [tronPayment(address, 'seen')] },
        { events: [tronPayment(address, 'confirmed', { amount: '-30' })] },
        { events: [tronPayment(address, 'confirmed', { token_id: 'ETH_USDT' })] },
        { events: [tronPayment('T-not-an-address', 'confirmed')] },
      ]) {
        expect(refusalOf(await upstream(body)), JSON.stringify(body)).toEqual(
          refusal(400, 51, 'invalid upstream merchant deposit payload'),
        );
      }
    });

    it('merchant deposit address not found is 400/53 for an address no order handed out', async () => {
      expect(
        refusalOf(await upstream({ events: [tronPayment(strangerAddress, 'confirmed')] })),
      ).toEqual(refusal(400, 53, 'merchant deposit address not found'));
    });

    it('acquiring order not found is 400/53 for an address whose order is gone', async () => {
      const address = toTronAddress(Uint8Array.from([0x41, ...Array(20).fill(2)]));
      await h.store.transaction((tx) =>
        tx.depositAddresses.insert({
          address_id: `dep_orphan_${orders}`,
          account_id: 'acc_gone',
          network: 'TRON',
          address,
          order_id: 'ord_gone',
          created_at: 0,
          updated_at: 0,
        }),
      );
      expect(refusalOf(await upstream({ events: [tronPayment(address, 'confirmed')] }))).toEqual(
        refusal(400, 53, 'acquiring order not found'),
      );
    });
  });

  describe('the client address', () => {
    it('reads an IPv4-mapped IPv6 peer as IPv4, and IPv6 loopback as itself', async () => {
      for (const ip of ['::ffff:127.0.0.1', '::1', '127.0.0.1']) {
        expect(refusalOf(await upstream({}, { bindings: from(ip) })), ip).toEqual(
          refusal(400, 51, 'empty upstream webhook event'),
        );
      }
    });

    it('believes X-Forwarded-For from a trusted proxy only, as for merchant routes', async () => {
      const send = (peer: string) =>
        proxied.call(
          'POST',
          '/upstream/acquiring/sandbox',
          { 'X-Forwarded-For': '127.0.0.1', ...signed({}) },
          {},
          from(peer),
        );
      expect(refusalOf(await send('10.0.0.1'))).toEqual(
        refusal(400, 51, 'empty upstream webhook event'),
      );
      // Anybody else claiming to forward for loopback is refused.
      expect(refusalOf(await send('10.0.0.2'))).toEqual(refusal(403, 61, 'webhook ip not allowed'));
      // Without trusted proxies the header is not read at all.
      expect(
        refusalOf(
          await upstream(
            {},
            { bindings: from('10.0.0.1'), headers: { 'X-Forwarded-For': '127.0.0.1' } },
          ),
        ),
      ).toEqual(refusal(403, 61, 'webhook ip not allowed'));
    });

    it('needs no API key, and ignores one', async () => {
      expect(
        refusalOf(await upstream({}, { headers: { Authorization: 'Bearer not-a-key' } })),
      ).toEqual(refusal(400, 51, 'empty upstream webhook event'));
    });
  });

  describe('forged provider events (issue 12, finding 1)', () => {
    /** What a forger would want to move: the order, its payments, the balance, its webhooks. */
    const stateOf = async (order: Awaited<ReturnType<typeof directOrder>>) => ({
      order: ok(await order.as.get(`/payment/acquiring/orders/${order.orderId}`)).order.status,
      payments: ok(await order.as.get(`/payment/acquiring/orders/${order.orderId}/payments`)).items,
      balances: ok(await order.as.get('/payment/balances?currency=USDT')).items,
      outbox: (await outboxOf(order.orderId)).length,
    });

    /** A raw POST as a browser or a local process would send it, from loopback by default. */
    const post = async (
      body: string,
      headers: Record<string, string>,
      bindings?: object,
    ): Promise<{ status: number; body: unknown }> => {
      const res = await h.app.request(
        '/upstream/acquiring/sandbox',
        { method: 'POST', headers, body },
        bindings,
      );
      return { status: res.status, body: await res.json() };
    };
    const envelope = (code: number, message: string) => ({ code, message, data: null });
    const unauthorized = { status: 401, body: envelope(61, 'unauthorized') };
    const invalidPayload = {
      status: 400,
      body: envelope(51, 'invalid upstream merchant deposit payload'),
    };

    it('a forged event from a local address (no signature, a bad one, another secret) leaves the order pending and the balance unchanged', async () => {
      const order = await directOrder();
      const before = await stateOf(order);
      expect(before.order).toBe('pending');
      const paid = JSON.stringify({ events: [tronPayment(order.address, 'confirmed')] });
      const json = { 'Content-Type': 'application/json' };
      const good = signSandboxUpstream(secret, paid);
      for (const [label, headers] of [
        ['unsigned', json],
        ['a signature of another body', { ...json, ...signSandboxUpstream(secret, '{}') }],
        [
          'another secret',
          { ...json, ...signSandboxUpstream(generateSandboxUpstreamSecret(), paid) },
        ],
        ['a mangled signature', { ...json, ...good, 'webhook-signature': 'v1,AAAA' }],
        ['an API key instead', { ...json, Authorization: 'Bearer anything' }],
      ] as const) {
        for (const ip of ['127.0.0.1', '::1']) {
          expect(await post(paid, headers, from(ip)), `${label} from ${ip}`).toEqual(unauthorized);
        }
      }
      expect(await stateOf(order)).toEqual(before);
    });

    it('a forged event through a same-host proxy (X-Forwarded-For from 127.0.0.1, no trusted proxies) leaves the order pending and the balance unchanged', async () => {
      const order = await directOrder();
      const before = await stateOf(order);
      const paid = JSON.stringify({ events: [tronPayment(order.address, 'confirmed')] });
      for (const forwarded of [
        { 'X-Forwarded-For': '203.0.113.7' },
        { Forwarded: 'for=203.0.113.7;proto=https' },
        { 'X-Forwarded-For': '127.0.0.1' },
      ]) {
        expect(
          await post(paid, { 'Content-Type': 'application/json', ...forwarded }, from('127.0.0.1')),
          JSON.stringify(forwarded),
        ).toEqual(unauthorized);
      }
      expect(await stateOf(order)).toEqual(before);
    });

    it('a forged event as a browser form post (form-urlencoded, text/plain, multipart) leaves the order pending and the balance unchanged, signed or not', async () => {
      const order = await directOrder();
      const before = await stateOf(order);
      const paid = JSON.stringify({ events: [tronPayment(order.address, 'confirmed')] });
      for (const type of [
        'application/x-www-form-urlencoded',
        'text/plain',
        'text/plain;charset=UTF-8',
        'multipart/form-data; boundary=x',
      ]) {
        // What a page on any origin can post without asking: refused for want of a signature.
        expect(await post(paid, { 'Content-Type': type }), type).toEqual(unauthorized);
        // Even signed, a body that is not JSON by its type is never read.
        const signedForm = { 'Content-Type': type, ...signSandboxUpstream(secret, paid) };
        expect(await post(paid, signedForm), `signed ${type}`).toEqual(invalidPayload);
      }
      expect(await post(paid, signSandboxUpstream(secret, paid)), 'no type').toEqual(
        invalidPayload,
      );
      expect(await stateOf(order)).toEqual(before);
    });

    it('a replayed event, signed more than 5 minutes ago (or ahead), is refused', async () => {
      const order = await directOrder();
      const before = await stateOf(order);
      const body = { events: [tronPayment(order.address, 'confirmed')] };
      const now = Math.floor(Date.now() / 1000);
      for (const timestamp of [now - 6 * 60, now - 24 * 3600, now + 6 * 60]) {
        expect(
          refusalOf(
            await h.call('POST', '/upstream/acquiring/sandbox', signed(body, { timestamp }), body),
          ),
          String(timestamp),
        ).toEqual(refusal(401, 61, 'unauthorized'));
      }
      expect(await stateOf(order)).toEqual(before);
      // The same event signed now completes the order.
      ok(await upstream(body));
      expect((await stateOf(order)).order).toBe('completed');
    });
  });

  describe('payments', () => {
    it('processing, confirming, confirmed: the order completes and the outbox holds its acquiring events', async () => {
      const order = await directOrder();
      const expectedStatuses = [
        ['processing', 'processing', 'processing'],
        ['confirming', 'confirming', 'confirming'],
        ['confirmed', 'completed', 'completed'],
      ];
      for (const [status, paymentStatus, orderStatus] of expectedStatuses) {
        const data = ok(await upstream({ events: [tronPayment(order.address, status ?? '')] }));
        expect(data.events).toEqual([
          {
            payment_id: expect.stringMatching(/^sbx_[0-9a-f]{24}$/),
            order_id: order.orderId,
            payment_status: paymentStatus,
            order_status: orderStatus,
            changed: true,
          },
        ]);
      }
      expect(
        ok(await order.as.get(`/payment/acquiring/orders/${order.orderId}`)).order,
      ).toMatchObject({
        status: 'completed',
        paid_amount_total: '30.000000',
        remaining_amount: '0.000000',
      });
      const payments = ok(
        await order.as.get(`/payment/acquiring/orders/${order.orderId}/payments`),
      );
      expect(payments.items).toEqual([
        expect.objectContaining({
          order_id: order.orderId,
          network: 'TRON',
          currency: 'USDT',
          token_id: 'TRON_USDT',
          address: order.address,
          amount: '30.000000',
          confirmations: 19,
          required_confirmations: 19,
          tx_hash: `tx${orders}`,
          status: 'completed',
        }),
      ]);
      const usdt = ok(await order.as.get('/payment/balances?currency=USDT')).items;
      expect(usdt).toEqual([
        { currency: 'USDT', available: '30.000000', held: '0.000000', total: '30.000000' },
      ]);

      const outbox = await outboxOf(order.orderId);
      expect(
        outbox.map((row) => [row.event_type, (row.payload.data as { status: string }).status]),
      ).toEqual([
        ['acquiring.payment.updated', 'processing'],
        ['acquiring.order.updated', 'processing'],
        ['acquiring.payment.updated', 'confirming'],
        ['acquiring.order.updated', 'confirming'],
        ['acquiring.payment.updated', 'completed'],
        ['acquiring.order.updated', 'completed'],
      ]);
      for (const row of outbox) {
        expect(row).toMatchObject({
          business_type: 'acquiring',
          business_id: order.orderId,
          destination: { kind: 'webhook', webhookId: order.webhookId },
          status: 'pending',
        });
      }
      expect(outbox.at(-1)?.payload.data).toMatchObject({
        provider_event: 'transaction_confirmed',
        previous_status: 'confirming',
        status: 'completed',
        status_changed: true,
        amount_changed: true,
        anomaly_tag: '',
      });
    });

    it('a payment after expiry is late and tags the order expired_paid', async () => {
      const order = await directOrder();
      await h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 600 });
      const data = ok(await upstream({ events: [tronPayment(order.address, 'confirmed')] }));
      expect(data.events).toEqual([
        expect.objectContaining({ payment_status: 'late', order_status: 'expired', changed: true }),
      ]);
      expect(
        ok(await order.as.get(`/payment/acquiring/orders/${order.orderId}`)).order,
      ).toMatchObject({
        status: 'expired',
        paid_amount_total: '0.000000',
      });
      const outbox = await outboxOf(order.orderId);
      const updates = outbox.filter((row) => row.event_type === 'acquiring.order.updated');
      expect(updates.map((row) => row.payload.data)).toEqual([
        expect.objectContaining({
          status: 'expired',
          provider_event: 'order_expired',
          anomaly_tag: '',
        }),
        expect.objectContaining({
          status: 'expired',
          provider_event: 'transaction_confirmed',
          anomaly_tag: 'expired_paid',
          previous_status: 'expired',
          status_changed: false,
        }),
      ]);
      expect(
        outbox
          .filter((row) => row.event_type === 'acquiring.payment.updated')
          .map((row) => row.payload.data),
      ).toEqual([expect.objectContaining({ status: 'late', previous_status: 'pending' })]);
    });

    it('duplicates and reordering change nothing: the order ends as if each event came once, in order', async () => {
      const inOrder = await directOrder();
      const shuffled = await directOrder();
      // The first payment is named by its transaction (a derived id), the second by the
      // provider's own id; a provider's ids are its own, so each order's differ.
      const events = (address: string, id: string) => ({
        processing: tronPayment(address, 'processing', { amount: '10' }),
        confirming: tronPayment(address, 'confirming', { amount: '10' }),
        confirmed: tronPayment(address, 'confirmed', { amount: '10' }),
        second: tronPayment(address, 'confirmed', { payment_id: id, amount: '20', tx_hash: 'tx2' }),
      });
      const a = events(inOrder.address, 'in-order-2');
      for (const event of [a.processing, a.confirming, a.confirmed, a.second]) {
        ok(await upstream({ events: [event] }));
      }
      const b = events(shuffled.address, 'shuffled-2');
      ok(await upstream({ events: [b.confirmed, b.second, b.processing] }));
      ok(await upstream({ events: [b.second] }));
      ok(await upstream({ events: [b.confirming, b.processing, b.confirmed] }));

      const stateOf = async (order: Awaited<ReturnType<typeof directOrder>>) => {
        const { order: view } = ok(
          await order.as.get(`/payment/acquiring/orders/${order.orderId}`),
        );
        const { items } = ok(
          await order.as.get(`/payment/acquiring/orders/${order.orderId}/payments`),
        );
        const ledger = ok(await order.as.get('/payment/ledger?currency=USDT&sort_order=asc')).items;
        return {
          status: view.status,
          amounts: [view.paid_amount_total, view.remaining_amount, view.overpaid_amount],
          payments: items
            .map(
              ({ order_id: _, address: __, payment_id: ___, ...record }: Record<string, unknown>) =>
                record,
            )
            .sort((x: { amount: string }, y: { amount: string }) =>
              x.amount.localeCompare(y.amount),
            ),
          ledger: ledger.map((r: Record<string, unknown>) => [r.record_type, r.amount]),
        };
      };
      const expected = await stateOf(inOrder);
      expect(expected).toMatchObject({
        status: 'completed',
        amounts: ['30.000000', '0.000000', '0.000000'],
        ledger: [
          ['pay_in', '10.000000'],
          ['pay_in', '20.000000'],
        ],
      });
      expect(await stateOf(shuffled)).toEqual(expected);
    });
  });

  it('is in /openapi.json with no security, the six messages, unauthorized and the address limit', async () => {
    const res = await h.app.request('/openapi.json');
    const document = (await res.json()) as {
      paths: Record<
        string,
        Record<string, { security: unknown; responses: Record<string, { description: string }> }>
      >;
    };
    const operation = document.paths['/upstream/acquiring/{provider}']?.post;
    expect(operation?.security).toEqual([]);
    const described = Object.values(operation?.responses ?? {})
      .map((r) => r.description)
      .join(', ');
    for (const message of [
      'webhook ip not allowed',
      'unsupported acquiring webhook provider: <provider>',
      'empty upstream webhook event',
      'invalid upstream merchant deposit payload',
      'acquiring order not found',
      'merchant deposit address not found',
      'unauthorized',
    ]) {
      expect(described).toContain(`\`${message}\``);
    }
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
  });
});
