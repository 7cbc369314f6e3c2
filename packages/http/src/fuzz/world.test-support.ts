/**
 * The world each fuzzed route runs in: the real engine on a store, made through the admin and
 * merchant APIs as an operator and a merchant would (the sandbox catalogue, a funded merchant
 * with an all-permission key, payouts in each state, beneficiaries, orders, batches, webhooks, a
 * failed delivery), and for every mutating route of the table the ids it may name and a
 * generator of the bodies it must accept. A route of the table without an entry here fails the
 * fuzz suite, so a new route is fuzzed from the day it is added.
 */
import {
  collectionSpecs,
  operatorLimits,
  operatorRoles,
  type Store,
  type StoreTransaction,
} from '@payrail/core';
import {
  acquiringOrderInputArb,
  cryptoAmount,
  personName,
  refundCreateInputArb,
  usdAmount,
  validBeneficiaryAccount,
  validBeneficiaryFields,
  validCryptoBatchCreate,
  validItems,
  validPayoutCreate,
  webhookCreateInputArb,
  webhookUpdateInputArb,
} from '@payrail/core/testing';
import { permissions } from '@payrail/engine';
import {
  generateSandboxUpstreamSecret,
  sandboxAcquiringProvider,
  signSandboxUpstream,
} from '@payrail/sandbox';
import { createMemoryStore, type MemoryStore } from '@payrail/store-memory';
import { memoryOracle } from '@payrail/store-memory/testing';
import fc from 'fast-check';
import {
  type Answer,
  engineApp,
  operatorToken,
  quickPayout,
  testNow,
} from '../engine-app.test-support.js';
import type { FuzzTarget, Json } from './mutations.test-support.js';

// ---------------------------------------------------------------------------------------------
// What a refused request must not do: write anything

/** Port methods that only read; any other call in a committed unit of work is a write. */
const reads = new Set([
  'get',
  'findUnique',
  'list',
  'balances',
  'entries',
  'nextAvailableAt',
  'nextDueAt',
]);

const watchPort = (port: object, wrote: (what: string) => void): object =>
  new Proxy(port, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!reads.has(String(name))) wrote(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });

/**
 * `inner`, telling every committed unit of work that called a port method other than a read
 * (an insert, an update, a posting, an outbox message, a timer, an idempotency record). A unit
 * of work that throws rolled back: it counts for nothing, nor does an attempt a store retried.
 */
export const writeWatchedStore = (inner: Store) => {
  const committed: string[] = [];
  const store: Store = {
    transaction: async (work) => {
      let wrote: string[] = [];
      const result = await inner.transaction((tx) => {
        wrote = [];
        const watched = new Proxy(tx, {
          get(target, name, receiver) {
            const port = Reflect.get(target, name, receiver) as unknown;
            return typeof port === 'object' && port !== null
              ? watchPort(port, (method) => wrote.push(`${String(name)}.${method}`))
              : port;
          },
        }) as StoreTransaction;
        return work(watched);
      });
      committed.push(...wrote);
      return result;
    },
    ...(inner.onWork === undefined
      ? {}
      : { onWork: (listener: () => void) => inner.onWork?.(listener) ?? (() => {}) }),
    claimEnvironment: (environment) => inner.claimEnvironment(environment),
    close: () => inner.close(),
  };
  return {
    store,
    /** The writes committed since the last call, and forgets them. */
    takeWrites: (): string[] => committed.splice(0, committed.length),
  };
};

const collections = Object.keys(collectionSpecs) as (keyof typeof collectionSpecs)[];

/**
 * What a memory store holds, counted through its oracle (not its ports): records of every
 * collection and idempotency records. A refused request must leave it as it was.
 */
export const memoryCounts = (store: MemoryStore) => {
  const oracle = memoryOracle(store);
  return async (): Promise<string> => {
    const counts = await Promise.all(collections.map((name) => oracle.count(name)));
    return `${counts.join(',')};${await oracle.idempotencyCount()}`;
  };
};

export const freshMemoryStore = (): MemoryStore => createMemoryStore();

// ---------------------------------------------------------------------------------------------
// The world

const upstreamSecret = generateSandboxUpstreamSecret();

/** A TRON address refunds are sent to. */
const refundAddress = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

const times = <A>(n: number, make: (i: number) => Promise<A>): Promise<A[]> =>
  Array.from({ length: n }, (_, i) => i).reduce<Promise<A[]>>(
    async (done, i) => [...(await done), await make(i)],
    Promise.resolve([]),
  );

const optionalFields = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) =>
  fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Json>;

/** A valid quick payout body, mostly on the world's method 1 (else method not found). */
const payoutBody = fc
  .tuple(validPayoutCreate, fc.nat(9))
  .map(([body, n]) => (n < 8 ? { ...body, method_id: 1 } : body) as unknown as Json);

export const buildWorld = async (store: Store) => {
  const h = engineApp({
    store,
    // The body is judged here, not the caller's pace: the per-key limit is off in engineApp,
    // and the per-address ones are off too.
    addressLimit: { failedAuthentications: 0, requestsPerSecond: 0 },
    acquiringProviders: [
      sandboxAcquiringProvider({ allowedSources: ['127.0.0.1/32'], secret: upstreamSecret }),
    ],
  });
  await h.seedCatalogue();
  const m = await h.merchant('Fuzz');
  const creator = await h.issueKey(m.accountId, { permissions: [...permissions] });
  const spareKeys = await times(3, (i) =>
    h.issueKey(m.accountId, { permissions: ['payment.account.read'], name: `spare ${i}` }),
  );
  await h.admin('PATCH', `/admin/accounts/${m.accountId}`, { default_pay_tokens: ['TRON_USDT'] });
  await h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
    currency: 'USD',
    amount: '1000000.00',
  });
  await h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
    currency: 'USDT',
    amount: '1000000.000000',
  });
  const merchant = h.as(m.token);
  const ok = async (answer: Promise<Answer>) => {
    const { body } = await answer;
    if (body.code !== 0) throw new Error(`world setup refused: ${body.message}`);
    return body.data;
  };

  const webhooks = await times(
    4,
    async (i) =>
      (
        await ok(
          merchant.post('/payment/webhooks', {
            url: `https://merchant.example/hooks/${i}`,
            events: ['acquiring.*', 'payout.*'],
          }),
        )
      ).webhook.webhook_id as string,
  );
  const payout = async (reference: string, extra: object = {}) =>
    (await ok(merchant.post('/payment/quickpayout', { ...quickPayout(reference), ...extra })))
      .payout.payout_id as string;
  const drafts = await times(4, (i) => payout(`D${i}`, { submit: false }));
  const pending = await times(4, (i) => payout(`P${i}`));
  const approved = await times(4, async (i) => {
    const id = await payout(`A${i}`);
    await h.admin('POST', `/admin/payouts/${id}/review`, { action: 'approve' });
    return id;
  });
  const beneficiaries = await times(
    2,
    async (i) =>
      (
        await ok(
          merchant.post('/payment/beneficiaries', {
            method_id: 1,
            name: `Fuzz Payee ${i}`,
            fields: { payee_id: `fuzz${i}` },
          }),
        )
      ).beneficiary.beneficiary_id as string,
  );
  const beneficiaryAccounts = await times(
    2,
    async (i) =>
      (
        await ok(
          merchant.post('/payment/beneficiary-accounts', {
            beneficiary_id: beneficiaries[i],
            network_code: 'WALLETB',
            fields: { walletb_account: `$fuzz${i}` },
          }),
        )
      ).beneficiary_account.beneficiary_account_id as string,
  );
  const order = async (i: number, extra: object = {}) =>
    ok(
      merchant.post('/payment/acquiring/orders', {
        out_trade_no: `O${i}`,
        order_currency: 'USD',
        order_amount: '10.00',
        expire_seconds: 3600,
        underpay_tolerance: '0',
        notify_webhook_id: webhooks[0],
        ...extra,
      }),
    );
  const pendingOrders = await times(4, async (i) => (await order(i)).order.order_id as string);
  const selectedOrders = await times(3, async (i) => {
    const id = (await order(10 + i)).order.order_id as string;
    await ok(
      h.call(
        'POST',
        `/checkout/api/orders/${id}/select`,
        {},
        { network: 'TRON', currency: 'USDT' },
      ),
    );
    return id;
  });
  const directOrders = await times(3, async (i) => {
    const data = await order(20 + i, {
      allowed_pay_currencies: ['TRON_USDT'],
      mode: 'direct',
      network: 'TRON',
      currency: 'USDT',
    });
    return { id: data.order.order_id as string, address: data.payment_address.address as string };
  });
  // Orders paid in full to refund, refunds waiting for review, and orders that will end
  // underpaid once the clock moves past their expiry, to resolve (ADR 0044).
  const directTron = {
    allowed_pay_currencies: ['TRON_USDT'],
    mode: 'direct',
    network: 'TRON',
    currency: 'USDT',
  };
  const paidWith = async (orderId: string, amount: string) =>
    h.admin('POST', `/admin/sandbox/acquiring/orders/${orderId}/payments`, {
      token_id: 'TRON_USDT',
      amount,
      status: 'confirmed',
    });
  const paidOrders = await times(3, async (i) => {
    const id = (await order(30 + i, directTron)).order.order_id as string;
    await paidWith(id, '10.000000');
    return id;
  });
  const refunds = await times(
    2,
    async (i) =>
      (
        await ok(
          merchant.post(`/payment/acquiring/orders/${paidOrders[i]}/refunds`, {
            refund_type: 'partial',
            amount: '1',
            address: refundAddress,
          }),
        )
      ).refund.refund_id as string,
  );
  const exceptionOrders = await times(2, async (i) => {
    const id = (await order(40 + i, { ...directTron, expire_seconds: 60 })).order
      .order_id as string;
    await paidWith(id, '4.000000');
    return id;
  });
  const batchBody = (n: number) => ({
    currency: 'USDT',
    method_id: 2,
    items: [
      {
        order_no: `B${n}`,
        amount: '5',
        beneficiary_account: {
          network_code: 'TRON',
          address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
        },
      },
    ],
    submit: false,
  });
  const draftBatches = await times(
    3,
    async (i) =>
      (await ok(h.as(creator.token).post('/payment/crypto-payouts/batches', batchBody(i)))).batch
        .batch_id as string,
  );
  const approvedBatches = await times(2, async (i) => {
    const id = (
      await ok(h.as(creator.token).post('/payment/crypto-payouts/batches', batchBody(10 + i)))
    ).batch.batch_id as string;
    await ok(merchant.post(`/payment/crypto-payouts/batches/${id}/approve`, { version: 0 }));
    return id;
  });
  // A failed delivery, as the webhook dispatcher (another package) records one.
  const deliveries = await store.transaction(async (tx) => {
    const claimed = await tx.outbox.claim({
      worker: 'fuzz',
      now: testNow,
      limit: 100,
      leaseSeconds: 60,
    });
    const ids: string[] = [];
    for (const message of claimed.filter((c) => c.destination.kind === 'webhook').slice(0, 3)) {
      if (message.destination.kind !== 'webhook') continue;
      await tx.outbox.fail(message.outbox_id, 'fuzz');
      const id = `dlv_fuzz${ids.length}`;
      await tx.webhookDeliveries.insert({
        delivery_id: id,
        account_id: m.accountId,
        event_id: message.event_id,
        event_type: message.event_type,
        business_type: message.business_type,
        business_id: message.business_id,
        webhook_id: message.destination.webhookId,
        url: 'https://merchant.example/hooks/0',
        status: 'failed',
        attempts: [],
        outbox_id: message.outbox_id,
        created_at: testNow,
        updated_at: testNow,
      });
      ids.push(id);
    }
    return ids;
  });
  // The exception orders expire (underpaid); every other order has an hour.
  await h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 61 });
  const routeIds = ((await h.admin('GET', '/admin/routes')).items as { route_id: string }[]).map(
    (r) => String(r.route_id),
  );
  // Named operators, none of them an admin: with one, the bootstrap operator (the token these
  // targets send) could no longer act on the other routes (ADR 0039).
  const operatorIds = await times(
    3,
    async (i) =>
      (
        await h.admin('POST', '/admin/operators', {
          name: `fuzz operator ${i}`,
          role: ['viewer', 'reviewer', 'treasurer'][i],
        })
      ).operator.operator_id as string,
  );

  const merchantKey = { Authorization: `Bearer ${m.token}` };
  const operator = { Authorization: `Bearer ${operatorToken}` };
  const anyWebhook = fc.constantFrom(...webhooks);

  /** Every mutating route: ids, valid bodies, credential. Keyed `METHOD template`. */
  const targets: Record<string, Omit<FuzzTarget, 'method' | 'template'>> = {
    // Merchant API
    'POST /payment/quickpayout': { ids: {}, body: payoutBody, credential: merchantKey },
    'PATCH /payment/payouts/{payout_id}': {
      ids: { payout_id: drafts },
      body: optionalFields({
        amount: usdAmount,
        currency: fc.constant('USD'),
        method_id: fc.constant(1),
        notify_url: fc.constant('https://merchant.example/payouts/n'),
        beneficiary_account_id: fc.constantFrom(...beneficiaryAccounts),
        fee_bearer: fc.constantFrom('merchant', 'user'),
      }),
      credential: merchantKey,
    },
    'POST /payment/payouts/{payout_id}/submit': {
      ids: { payout_id: drafts },
      body: undefined,
      credential: merchantKey,
    },
    'POST /payment/payouts/{payout_id}/cancel': {
      ids: { payout_id: [...drafts, ...pending] },
      body: undefined,
      credential: merchantKey,
    },
    'POST /payment/beneficiaries': {
      ids: {},
      body: fc.record({
        method_id: fc.constant(1),
        name: personName,
        fields: validBeneficiaryFields,
      }) as fc.Arbitrary<Json>,
      credential: merchantKey,
    },
    'PATCH /payment/beneficiaries/{beneficiary_id}': {
      ids: { beneficiary_id: beneficiaries },
      body: fc.record({ status: fc.constantFrom('enabled', 'disabled') }),
      credential: merchantKey,
    },
    'POST /payment/beneficiary-accounts': {
      ids: {},
      body: fc
        .tuple(fc.constantFrom(...beneficiaries), validBeneficiaryAccount)
        .map(([beneficiary_id, account]) => ({ beneficiary_id, ...account }) as unknown as Json),
      credential: merchantKey,
    },
    'PATCH /payment/beneficiary-accounts/{beneficiary_account_id}': {
      ids: { beneficiary_account_id: beneficiaryAccounts },
      body: fc.record({ status: fc.constantFrom('active', 'disabled', 'suspended') }),
      credential: merchantKey,
    },
    'POST /payment/acquiring/orders': {
      ids: {},
      body: fc
        .tuple(acquiringOrderInputArb, anyWebhook)
        .map(([body, webhook]) => ({ ...body, notify_webhook_id: webhook }) as unknown as Json),
      credential: merchantKey,
    },
    'POST /payment/acquiring/orders/{order_id}/close': {
      ids: { order_id: pendingOrders },
      body: fc.record({ reason: fc.string({ minLength: 1, maxLength: 100 }) }),
      credential: merchantKey,
    },
    'POST /payment/acquiring/orders/{order_id}/refunds': {
      ids: { order_id: paidOrders },
      body: refundCreateInputArb as fc.Arbitrary<Json>,
      credential: merchantKey,
    },
    'POST /payment/crypto-payouts/batches': {
      ids: {},
      body: validCryptoBatchCreate as unknown as fc.Arbitrary<Json>,
      credential: merchantKey,
    },
    'POST /payment/crypto-payouts/batches/{batch_id}/items': {
      ids: { batch_id: draftBatches },
      body: fc.record({ items: validItems(5) }) as unknown as fc.Arbitrary<Json>,
      credential: merchantKey,
    },
    'POST /payment/crypto-payouts/batches/{batch_id}/approve': {
      ids: { batch_id: draftBatches },
      // The version read (0: nothing added since creation), or a stale one (issue 35, M3).
      body: fc.record({ version: fc.constantFrom(0, 0, 1) }) as unknown as fc.Arbitrary<Json>,
      credential: merchantKey,
    },
    'POST /payment/crypto-payouts/batches/{batch_id}/submit': {
      ids: { batch_id: approvedBatches },
      body: undefined,
      credential: merchantKey,
    },
    'POST /payment/webhooks': {
      ids: {},
      body: webhookCreateInputArb as fc.Arbitrary<Json>,
      credential: merchantKey,
    },
    'PATCH /payment/webhooks/{webhook_id}': {
      ids: { webhook_id: webhooks },
      body: webhookUpdateInputArb as fc.Arbitrary<Json>,
      credential: merchantKey,
    },
    'DELETE /payment/webhooks/{webhook_id}': {
      ids: { webhook_id: webhooks },
      body: undefined,
      credential: merchantKey,
    },
    'POST /payment/webhooks/{webhook_id}/rotate-secret': {
      ids: { webhook_id: webhooks },
      body: undefined,
      credential: merchantKey,
    },
    'POST /payment/webhook-deliveries/{delivery_id}/redeliver': {
      ids: { delivery_id: deliveries },
      body: undefined,
      credential: merchantKey,
    },

    // Admin API
    'POST /admin/operators': {
      ids: {},
      body: fc
        .record(
          {
            name: fc
              .string({ minLength: 1, maxLength: operatorLimits.maxNameLength })
              .filter((s) => s.trim() !== ''),
            role: fc.constantFrom(...operatorRoles),
            expires_in_seconds: fc.integer({
              min: operatorLimits.minExpiresInSeconds,
              max: operatorLimits.maxExpiresInSeconds,
            }),
          },
          { requiredKeys: ['name', 'role'] },
        )
        .map((body) => body as Json),
      credential: operator,
    },
    'PATCH /admin/operators/{operator_id}': {
      ids: { operator_id: operatorIds },
      body: optionalFields({
        status: fc.constantFrom('active', 'disabled'),
        role: fc.constantFrom(...operatorRoles),
      }),
      credential: operator,
    },
    'POST /admin/operators/{operator_id}/rotate': {
      ids: { operator_id: operatorIds },
      body: undefined,
      credential: operator,
    },
    'POST /admin/merchants': {
      ids: {},
      body: optionalFields({
        name: fc.string({ minLength: 1, maxLength: 60 }).filter((s) => s.trim() !== ''),
        currencies: fc.subarray(['USD', 'USDT', 'USDC'], { minLength: 1 }),
      }).map((body) => ({ name: 'Merchant', ...(body as object) }) as Json),
      credential: operator,
    },
    'PATCH /admin/accounts/{account_id}': {
      ids: { account_id: [m.accountId] },
      body: optionalFields({
        status: fc.constantFrom('active', 'frozen'),
        verification_enabled: fc.boolean(),
        auto_approve: fc.boolean(),
        products: optionalFields({ payout: fc.boolean(), acquiring: fc.boolean() }),
        enabled_pay_tokens: fc.subarray(['TRON_USDT', 'EVM_USDT', 'EVM_USDC'], { minLength: 1 }),
        default_pay_tokens: fc.constant(['TRON_USDT']),
      }),
      credential: operator,
    },
    'POST /admin/accounts/{account_id}/api-keys': {
      ids: { account_id: [m.accountId] },
      body: fc
        .record(
          {
            permissions: fc.subarray([...permissions], { minLength: 1 }),
            env: fc.constant('sandbox'),
            ip_whitelist: fc.subarray(['127.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32']),
            expires_in_seconds: fc.integer({ min: 60, max: 31_536_000 }),
            name: fc.string({ maxLength: 100 }),
          },
          { requiredKeys: ['permissions'] },
        )
        .map((body) => body as unknown as Json),
      credential: operator,
    },
    'POST /admin/api-keys/{key_id}/rotate': {
      ids: { key_id: spareKeys.map((k) => k.keyId) },
      body: undefined,
      credential: operator,
    },
    'PATCH /admin/api-keys/{key_id}': {
      ids: { key_id: spareKeys.map((k) => k.keyId) },
      body: fc.record({ status: fc.constantFrom('active', 'disabled') }),
      credential: operator,
    },
    'DELETE /admin/api-keys/{key_id}': {
      ids: { key_id: spareKeys.map((k) => k.keyId) },
      body: undefined,
      credential: operator,
    },
    'POST /admin/accounts/{account_id}/notify-secret/rotate': {
      ids: { account_id: [m.accountId] },
      body: undefined,
      credential: operator,
    },
    'POST /admin/payouts/{payout_id}/review': {
      ids: { payout_id: pending },
      body: fc
        .record(
          {
            action: fc.constantFrom('approve', 'return', 'reject'),
            reason: fc.string({ minLength: 1, maxLength: 100 }),
          },
          { requiredKeys: ['action'] },
        )
        .map((body) => body as Json),
      credential: operator,
    },
    'POST /admin/payout-methods': {
      ids: {},
      body: fc.oneof(
        fc.record({
          name: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
          currency_type: fc.constant('fiat'),
          currencies: fc.constant(['USD']),
          network_codes: fc.subarray(['WALLETA', 'WALLETB'], { minLength: 1 }),
        }),
        fc.record({
          name: fc.constant('Crypto'),
          currency_type: fc.constant('crypto'),
          currencies: fc.subarray(['USDT', 'USDC'], { minLength: 1 }),
          network_codes: fc.subarray(['EVM', 'TRON'], { minLength: 1 }),
        }),
      ) as fc.Arbitrary<Json>,
      credential: operator,
    },
    'PATCH /admin/payout-methods/{method_id}': {
      ids: { method_id: ['1', '2'] },
      body: optionalFields({
        name: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
        status: fc.constantFrom('active', 'disabled'),
      }),
      credential: operator,
    },
    'POST /admin/payout-networks': {
      ids: {},
      body: fc.record({
        code: fc.stringMatching(/^[A-Z][A-Z0-9_]{2,15}$/),
        name: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
        fields: fc.constant([
          { field_key: 'wallet_email', required: true, validation_rule: 'email' },
        ]),
      }) as unknown as fc.Arbitrary<Json>,
      credential: operator,
    },
    'PATCH /admin/payout-networks/{code}': {
      ids: { code: ['WALLETA', 'WALLETB', 'EVM', 'TRON'] },
      body: optionalFields({
        name: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ''),
        status: fc.constantFrom('active', 'disabled'),
      }),
      credential: operator,
    },
    'POST /admin/routes': {
      ids: {},
      body: fc.tuple(usdAmount, fc.constantFrom('0.50', '0', '1.25')).map(([max, fee]) => ({
        currency: 'USD',
        method_id: 1,
        min_amount: '1.00',
        max_amount: max,
        fixed_fee: fee,
        percent_fee: '1.0',
        channel_account_id: 'sandbox_usd',
      })),
      credential: operator,
    },
    'PATCH /admin/routes/{route_id}': {
      ids: { route_id: routeIds },
      body: optionalFields({
        max_amount: fc.constantFrom('200000.00', '5000.00', '100000000'),
        fixed_fee: fc.constantFrom('0.50', '0', '1.000000'),
        percent_fee: fc.constantFrom('1.0', '0', '2.5'),
        status: fc.constantFrom('active', 'disabled'),
      }),
      credential: operator,
    },
    'POST /admin/accounts/{account_id}/credit': {
      ids: { account_id: [m.accountId] },
      body: fc.oneof(
        usdAmount.map((amount) => ({ currency: 'USD', amount })),
        cryptoAmount.map((amount) => ({ currency: 'USDT', amount })),
      ),
      credential: operator,
    },
    'POST /admin/sandbox/payouts/{payout_id}/execution': {
      ids: { payout_id: approved },
      body: fc
        .record(
          {
            outcome: fc.constantFrom('processing', 'completed', 'failed', 'returned'),
            reason: fc.string({ minLength: 1, maxLength: 100 }),
          },
          { requiredKeys: ['outcome'] },
        )
        .map((body) => body as Json),
      credential: operator,
    },
    'POST /admin/acquiring/orders/{order_id}/resolve': {
      ids: { order_id: exceptionOrders },
      body: fc
        .record(
          {
            action: fc.constantFrom('accept', 'refuse'),
            reason: fc.string({ minLength: 1, maxLength: 100 }),
            refund_address: fc.constant(refundAddress),
          },
          { requiredKeys: ['action', 'reason'] },
        )
        .map((body) => body as Json),
      credential: operator,
    },
    'POST /admin/acquiring/refunds/{refund_id}/review': {
      ids: { refund_id: refunds },
      body: fc
        .record(
          {
            action: fc.constantFrom('approve', 'reject'),
            reason: fc.string({ minLength: 1, maxLength: 100 }),
          },
          { requiredKeys: ['action'] },
        )
        .map((body) => body as Json),
      credential: operator,
    },
    'POST /admin/sandbox/acquiring/refunds/{refund_id}/execution': {
      ids: { refund_id: refunds },
      body: fc
        .record(
          {
            outcome: fc.constantFrom('processing', 'completed', 'failed', 'returned'),
            reason: fc.string({ minLength: 1, maxLength: 100 }),
          },
          { requiredKeys: ['outcome'] },
        )
        .map((body) => body as Json),
      credential: operator,
    },
    'POST /admin/sandbox/acquiring/orders/{order_id}/payments': {
      ids: { order_id: [...selectedOrders, ...directOrders.map((o) => o.id)] },
      body: fc
        .record(
          {
            token_id: fc.constant('TRON_USDT'),
            amount: cryptoAmount,
            status: fc.constantFrom('processing', 'confirming', 'confirmed'),
            tx_hash: fc.stringMatching(/^0x[0-9a-f]{8,64}$/),
          },
          { requiredKeys: ['token_id', 'amount', 'status'] },
        )
        .map((body) => body as Json),
      credential: operator,
    },
    'POST /admin/sandbox/clock/advance': {
      ids: {},
      body: fc.record({ seconds: fc.integer({ min: 0, max: 86_400 }) }),
      credential: operator,
    },

    // Checkout and upstream
    'POST /checkout/api/orders/{order_id}/select': {
      ids: { order_id: pendingOrders },
      body: fc.record({
        network: fc.constantFrom('TRON', 'EVM'),
        currency: fc.constantFrom('USDT', 'USDC'),
      }),
      credential: {},
    },
    'POST /upstream/acquiring/{provider}': {
      ids: { provider: ['sandbox'] },
      body: fc
        .array(
          fc.record({
            network: fc.constant('TRON'),
            address: fc.constantFrom(...directOrders.map((o) => o.address)),
            token_id: fc.constant('TRON_USDT'),
            tx_hash: fc.stringMatching(/^up-[0-9a-f]{4,16}$/),
            amount: cryptoAmount,
            status: fc.constantFrom('processing', 'confirming', 'confirmed'),
          }),
          { minLength: 1, maxLength: 3 },
        )
        .map((events) => ({ events }) as Json),
      credential: {},
      sign: (body) => signSandboxUpstream(upstreamSecret, body),
    },
  };
  return { h, targets };
};
