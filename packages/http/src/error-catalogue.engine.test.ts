/**
 * Every message of the error catalogue, reached through HTTP on the real engine, on every store
 * the HTTP suites use (memory, the embedded PostgreSQL, and a PostgreSQL server when one answers).
 *
 * The test is driven from the catalogue: each key has either a scenario (set up what it needs
 * through the admin and merchant APIs, then make one request) whose answer must be exactly the
 * key's message, with its catalogue HTTP status and code and `data: null`, or an entry in the
 * exemption table saying why this service cannot answer it yet. A key with neither, or with
 * both, fails the meta-test, so a message added to the catalogue must be reached or exempted.
 */
import {
  Decimal,
  type ErrorKey,
  errorCatalogue,
  errorPolicies,
  type PayrailError,
  payrailError,
  StoreUnavailable,
  toTronAddress,
} from '@payrail/core';
import { type Engine, permissions } from '@payrail/engine';
import {
  generateSandboxUpstreamSecret,
  sandboxAcquiringProvider,
  signSandboxUpstream,
} from '@payrail/sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './create-app.js';
import {
  type Answer,
  type EngineApp,
  engineApp,
  operatorToken,
  quickPayout,
  refusalOf,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

// ---------------------------------------------------------------------------------------------
// The world every scenario starts from

interface Merchant {
  readonly merchantId: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly token: string;
}

type Client = ReturnType<EngineApp['as']>;

interface World {
  readonly h: EngineApp;
  /** A merchant with every permission, a second key (four eyes) and an acquiring webhook. */
  readonly acme: Merchant;
  readonly as: Client;
  readonly secondKey: Client;
  readonly webhookId: string;
  /** A new merchant with every permission; `extra` goes into `POST /admin/merchants`. */
  merchant(extra?: Record<string, unknown>): Promise<Merchant>;
  /** The operator's call, answered as it is (errors included). */
  operator(method: string, path: string, body?: unknown): Promise<Answer>;
  /**
   * A provider's signed call of `POST /upstream/acquiring/{provider}` (default the `sandbox`
   * provider, which allows loopback), from `from` (default 127.0.0.1).
   */
  upstream(body: unknown, options?: { provider?: string; from?: string }): Promise<Answer>;
  /** A name no other scenario uses. */
  unique(prefix: string): string;
}

/** The sandbox provider's signing secret: its chain watcher signs every report. */
const upstreamSecret = generateSandboxUpstreamSecret();

/** A valid quick payout with a reference (and payee) of its own. */
const payoutBody = (w: World, overrides: Record<string, unknown> = {}) => ({
  ...quickPayout(w.unique('R')),
  ...overrides,
});

/** Creates a payout and answers `data.payout`; the scenario's setup must succeed. */
const createPayout = async (w: World, client: Client, overrides: Record<string, unknown> = {}) => {
  const answer = await client.post('/payment/quickpayout', payoutBody(w, overrides));
  expect(answer.body, 'setup payout').toMatchObject({ code: 0 });
  return answer.body.data.payout as { payout_id: string; beneficiary_account_id: string };
};

const orderBody = (w: World, overrides: Record<string, unknown> = {}) => ({
  out_trade_no: w.unique('O'),
  order_currency: 'USD',
  order_amount: '10.00',
  expire_seconds: 600,
  underpay_tolerance: '0',
  notify_webhook_id: w.webhookId,
  ...overrides,
});

const createOrder = async (w: World, overrides: Record<string, unknown> = {}) => {
  const answer = await w.as.post('/payment/acquiring/orders', orderBody(w, overrides));
  expect(answer.body, 'setup order').toMatchObject({ code: 0 });
  return answer.body.data.order as { order_id: string };
};

/** A well-formed TRON address no order handed out (distinct per `fill`). */
const tronAddress = (fill: number) =>
  toTronAddress(Uint8Array.from([0x41, ...Array(20).fill(fill)]));

/** One sandbox provider event: `amount` of TRON_USDT confirmed at `address`. */
const chainPayment = (address: string) => ({
  network: 'TRON',
  address,
  token_id: 'TRON_USDT',
  tx_hash: 'tx-catalogue',
  amount: '10',
  status: 'confirmed',
});

/** A distinct, well-formed EVM address per call. */
const evmAddress = (w: World) => `0x${Number(w.unique('')).toString(16).padStart(40, 'a')}`;

const batchItem = (w: World, overrides: Record<string, unknown> = {}) => ({
  order_no: w.unique('B'),
  amount: '5',
  beneficiary_account: { address: evmAddress(w) },
  ...overrides,
});

const createBatch = async (w: World, body: Record<string, unknown>) => {
  const answer = await w.as.post('/payment/crypto-payouts/batches', {
    currency: 'USDT',
    method_id: 2,
    ...body,
  });
  expect(answer.body, 'setup batch').toMatchObject({ code: 0 });
  return answer.body.data.batch as { batch_id: string };
};

/** `beneficiary` with these profile fields (a payee of its own). */
const withProfile = (w: World, fields: Record<string, unknown>) =>
  payoutBody(w, {
    beneficiary: { name: 'Jane Doe', fields: { payee_id: w.unique('P'), ...fields } },
  });

const withAccount = (w: World, beneficiary_account: unknown) =>
  payoutBody(w, { beneficiary_account });

/** An account-specific route (the account's own route wins over the global one). */
const accountRoute = (w: World, accountId: string, route: Record<string, unknown>) =>
  w.operator('POST', '/admin/routes', {
    account_id: accountId,
    currency: 'USD',
    method_id: 1,
    min_amount: '1.00',
    max_amount: '1000.00',
    ...route,
  });

// ---------------------------------------------------------------------------------------------
// Scenarios

interface Scenario {
  /** The placeholders of a templated message, as this scenario fills them. */
  readonly params?: Readonly<Record<string, string | number>>;
  readonly run: (w: World) => Promise<Answer>;
}

const scenarios: Partial<Record<ErrorKey, Scenario>> = {
  // -- Authentication and permission ----------------------------------------------------------
  unauthorized: { run: (w) => w.h.call('GET', '/payment/account', {}) },
  api_key_not_found: {
    run: async (w) => {
      const m = await w.merchant();
      await w.operator('DELETE', `/admin/api-keys/${m.keyId}`);
      return w.h.as(m.token).get('/payment/account');
    },
  },
  api_key_disabled: {
    run: async (w) => {
      const m = await w.merchant();
      await w.operator('PATCH', `/admin/api-keys/${m.keyId}`, { status: 'disabled' });
      return w.h.as(m.token).get('/payment/account');
    },
  },
  api_key_expired: {
    run: async (w) => {
      const m = await w.merchant();
      const { token } = await w.h.issueKey(m.accountId, {
        permissions: ['payment.account.read'],
        expires_in_seconds: 60,
      });
      await w.h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 60 });
      return w.h.as(token).get('/payment/account');
    },
  },
  api_key_version_mismatch: {
    run: async (w) => {
      const m = await w.merchant();
      await w.operator('POST', `/admin/api-keys/${m.keyId}/rotate`);
      return w.h.as(m.token).get('/payment/account');
    },
  },
  invalid_api_key_token: {
    run: (w) => {
      const [header, payload, signature = ''] = w.acme.token.split('.');
      const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
      return w.h.as(`${header}.${payload}.${flipped}`).get('/payment/account');
    },
  },
  ip_not_allowed: {
    run: async (w) => {
      const m = await w.merchant();
      const { token } = await w.h.issueKey(m.accountId, {
        permissions: ['payment.account.read'],
        ip_whitelist: ['198.51.100.0/24'],
      });
      // A socket address that is no IP address (nothing to show).
      return w.h
        .as(token)
        .get('/payment/account', { incoming: { socket: { remoteAddress: 'x' } } });
    },
  },
  ip_not_allowed_seen: {
    params: { ip: '203.0.113.5' },
    run: async (w) => {
      const m = await w.merchant();
      const { token } = await w.h.issueKey(m.accountId, {
        permissions: ['payment.account.read'],
        ip_whitelist: ['198.51.100.0/24'],
      });
      return w.h
        .as(token)
        .get('/payment/account', { incoming: { socket: { remoteAddress: '203.0.113.5' } } });
    },
  },
  forbidden: {
    run: async (w) => {
      const m = await w.merchant();
      const { token } = await w.h.issueKey(m.accountId, { permissions: ['payment.account.read'] });
      return w.h.as(token).get('/payment/payouts');
    },
  },

  // -- General request ------------------------------------------------------------------------
  validation_failed: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { client_request_id: 7 })),
  },
  request_required: {
    run: (w) =>
      w.h.call('POST', '/payment/quickpayout', { Authorization: `Bearer ${w.acme.token}` }),
  },
  field_required: {
    params: { field: 'amount' },
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { amount: undefined })),
  },
  invalid_notify_url: {
    run: (w) =>
      w.as.post('/payment/quickpayout', payoutBody(w, { notify_url: 'http://merchant.example' })),
  },
  invalid_status: { run: (w) => w.as.get('/payment/payouts?status=paid') },
  invalid_review_status: { run: (w) => w.as.get('/payment/payouts?review_status=done') },
  invalid_execution_status: { run: (w) => w.as.get('/payment/payouts?execution_status=done') },
  no_changes: {
    run: async (w) => {
      const { payout_id } = await createPayout(w, w.as, { submit: false });
      return w.as.patch(`/payment/payouts/${payout_id}`, { amount: '25.00' });
    },
  },
  account_not_found: {
    run: async (w) => {
      // No API removes an account: the row is moved to another merchant in the store (as a
      // restore of an older backup could leave it), so the key's account is gone.
      const m = await w.merchant();
      await w.h.store.transaction(async (tx) => {
        const account = await tx.accounts.get(m.accountId);
        if (account === undefined) throw new Error('setup: no account');
        await tx.accounts.update({ ...account, merchant_id: 'mch_elsewhere' });
      });
      return w.h.as(m.token).get('/payment/account');
    },
  },
  account_frozen: {
    run: async (w) => {
      const m = await w.merchant();
      await w.operator('PATCH', `/admin/accounts/${m.accountId}`, { status: 'frozen' });
      return w.h.as(m.token).get('/payment/account');
    },
  },
  internal_error: {
    run: async (w) => {
      // An engine whose use case fails unexpectedly, e.g. a store that lost its connection.
      const failing: Engine = {
        ...w.h.engine,
        accounts: {
          ...w.h.engine.accounts,
          current: () => Promise.reject(new Error('connection lost: SELECT * FROM accounts')),
        },
      };
      const app = createApp({
        engine: failing,
        adminToken: operatorToken,
        rateLimit: { requestsPerSecond: 0 },
        logInternalError: () => undefined,
      });
      const res = await app.request('/payment/account', {
        headers: { Authorization: `Bearer ${w.acme.token}` },
      });
      return { status: res.status, body: await res.json(), headers: res.headers } as Answer;
    },
  },
  service_unavailable: {
    run: async (w) => {
      // A store that cannot reach its database (a failover under way, ADR 0051).
      const unreachable: Engine = {
        ...w.h.engine,
        accounts: {
          ...w.h.engine.accounts,
          current: () =>
            Promise.reject(new StoreUnavailable('the database cannot be reached: ECONNREFUSED')),
        },
      };
      const app = createApp({
        engine: unreachable,
        adminToken: operatorToken,
        rateLimit: { requestsPerSecond: 0 },
        logInternalError: () => undefined,
      });
      const res = await app.request('/payment/account', {
        headers: { Authorization: `Bearer ${w.acme.token}` },
      });
      expect(res.headers.get('Retry-After')).toBe('1');
      return { status: res.status, body: await res.json(), headers: res.headers } as Answer;
    },
  },
  route_not_found: { run: (w) => w.as.get('/payment/payout') },
  // Ids in the path (unknown-ids.engine.test.ts covers every route that has one).
  account_id_not_found: {
    run: (w) => w.operator('PATCH', '/admin/accounts/acc_999', { status: 'frozen' }),
  },
  key_id_not_found: { run: (w) => w.operator('POST', '/admin/api-keys/key_999/rotate') },
  beneficiary_id_not_found: { run: (w) => w.as.get('/payment/beneficiaries/ben_999') },
  beneficiary_account_id_not_found: {
    run: (w) => w.as.get('/payment/beneficiary-accounts/bacc_999'),
  },
  method_id_not_found: {
    run: (w) => w.operator('PATCH', '/admin/payout-methods/999', { name: 'Renamed' }),
  },
  network_code_not_found: { run: (w) => w.as.get('/payment/payout-networks/NOPE/schema') },
  route_id_not_found: {
    run: (w) => w.operator('PATCH', '/admin/routes/rt_999', { status: 'disabled' }),
  },
  operator_id_not_found: {
    run: (w) => w.operator('PATCH', '/admin/operators/opr_nope', { role: 'viewer' }),
  },
  rate_limit_exceeded: {
    run: async (w) => {
      const app = createApp({
        engine: w.h.engine,
        adminToken: operatorToken,
        rateLimit: { requestsPerSecond: 1, burst: 1, now: () => 0 },
      });
      const send = () =>
        app.request('/payment/account', { headers: { Authorization: `Bearer ${w.acme.token}` } });
      expect((await send()).status).toBe(200);
      const res = await send();
      expect(res.headers.get('Retry-After')).toBe('1');
      return { status: res.status, body: await res.json(), headers: res.headers } as Answer;
    },
  },
  invalid_query_param: {
    params: { param: 'limit' },
    run: (w) => w.as.get('/payment/payouts?limit=101'),
  },
  clock_advance_out_of_range: {
    params: { max: '2592000' },
    run: (w) => w.operator('POST', '/admin/sandbox/clock/advance', { seconds: 2_592_001 }),
  },
  invalid_decimal: {
    params: { field: 'amount', scale: 2 },
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { amount: '10.001' })),
  },
  decimal_too_large: {
    params: { field: 'amount' },
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { amount: '1'.repeat(25) })),
  },

  // -- Fiat payout ----------------------------------------------------------------------------
  currency_required: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { currency: '' })),
  },
  currency_not_supported: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { currency: 'USDT' })),
  },
  amount_must_be_positive: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { amount: '0' })),
  },
  amount_must_exceed_fee: {
    run: async (w) => {
      const m = await w.merchant();
      await accountRoute(w, m.accountId, { fixed_fee: '5.00', channel_account_id: 'ch_fee' });
      return w.h
        .as(m.token)
        .post('/payment/quickpayout', payoutBody(w, { amount: '4.00', fee_bearer: 'user' }));
    },
  },
  fee_bearer_invalid: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { fee_bearer: 'nobody' })),
  },
  reference_required: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { reference: undefined })),
  },
  reference_already_exists: {
    run: async (w) => {
      const body = payoutBody(w);
      await createPayout(w, w.as, body);
      return w.as.post('/payment/quickpayout', { ...body, client_request_id: w.unique('cr') });
    },
  },
  client_request_id_already_used: {
    run: async (w) => {
      const body = payoutBody(w);
      await createPayout(w, w.as, body);
      return w.as.post('/payment/quickpayout', { ...body, amount: '26.00' });
    },
  },
  beneficiary_account_id_required: {
    run: (w) =>
      w.as.post(
        '/payment/quickpayout',
        payoutBody(w, { beneficiary: undefined, beneficiary_account: undefined }),
      ),
  },
  beneficiary_pair_required: {
    run: (w) =>
      w.as.post('/payment/quickpayout', payoutBody(w, { beneficiary_account: undefined })),
  },
  method_id_required_inline: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { method_id: undefined })),
  },
  channel_id_requires_method_id: {
    run: (w) =>
      w.as.post(
        '/payment/quickpayout',
        payoutBody(w, { method_id: undefined, channel_id: 'ch_fast' }),
      ),
  },
  method_id_required_with_channel: {
    run: async (w) => {
      const { payout_id } = await createPayout(w, w.as, { submit: false });
      return w.as.patch(`/payment/payouts/${payout_id}`, { channel_id: 'ch_fast' });
    },
  },
  payout_method_not_found: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { method_id: 99 })),
  },
  payout_channel_not_found: {
    run: (w) =>
      w.as.post('/payment/quickpayout', payoutBody(w, { method_id: 3, channel_id: 'ch_none' })),
  },
  payout_route_not_configured: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { amount: '0.50' })),
  },
  channel_account_not_configured: {
    run: async (w) => {
      // The operator opened the merchant's own route before naming its channel account.
      const m = await w.merchant();
      await accountRoute(w, m.accountId, {});
      return w.h.as(m.token).post('/payment/quickpayout', payoutBody(w));
    },
  },
  payout_method_not_supported_for_currency_type: {
    run: (w) => w.as.post('/payment/quickpayout', payoutBody(w, { method_id: 2 })),
  },
  beneficiary_account_not_found: {
    run: (w) =>
      w.as.post(
        '/payment/quickpayout',
        payoutBody(w, {
          beneficiary: undefined,
          beneficiary_account: undefined,
          beneficiary_account_id: 'bacc_999',
        }),
      ),
  },
  beneficiary_account_not_active: {
    run: async (w) => {
      // The account lives on WALLETZ, which the operator then disables.
      const { beneficiary_account_id } = await createPayout(w, w.as, {
        method_id: 3,
        beneficiary_account: { network_code: 'WALLETZ', fields: { walletz_id: 'jane-77' } },
      });
      await w.operator('PATCH', '/admin/payout-networks/WALLETZ', { status: 'disabled' });
      return w.as.post('/payment/quickpayout', byAccountId(w, beneficiary_account_id));
    },
  },
  beneficiary_account_disabled: {
    run: async (w) => {
      const { beneficiary_account_id } = await createPayout(w, w.as);
      await w.as.patch(`/payment/beneficiary-accounts/${beneficiary_account_id}`, {
        status: 'disabled',
      });
      return w.as.post('/payment/quickpayout', byAccountId(w, beneficiary_account_id));
    },
  },
  beneficiary_account_suspended: {
    run: async (w) => {
      const { beneficiary_account_id } = await createPayout(w, w.as);
      await w.as.patch(`/payment/beneficiary-accounts/${beneficiary_account_id}`, {
        status: 'suspended',
      });
      return w.as.post('/payment/quickpayout', byAccountId(w, beneficiary_account_id));
    },
  },
  beneficiary_account_type_mismatch: {
    run: async (w) => {
      const { beneficiary_account_id } = await createPayout(w, w.as, {
        beneficiary_account: {
          network_code: 'WALLETA',
          account_type: 'personal',
          fields: { walleta_email: 'jane@example.com' },
        },
      });
      return w.as.post(
        '/payment/quickpayout',
        byAccountId(w, beneficiary_account_id, { account_type: 'business' }),
      );
    },
  },
  account_type_mismatch: {
    run: async (w) => {
      const payee = w.unique('P');
      const pair = (account_type: string) => ({
        beneficiary: { name: 'Jane Doe', fields: { payee_id: payee } },
        beneficiary_account: {
          network_code: 'WALLETA',
          account_type,
          fields: { walleta_email: 'jane@example.com' },
        },
      });
      await createPayout(w, w.as, pair('personal'));
      return w.as.post('/payment/quickpayout', payoutBody(w, pair('business')));
    },
  },
  beneficiary_not_found: {
    run: (w) =>
      w.as.post('/payment/beneficiary-accounts', {
        beneficiary_id: 'ben_999',
        network_code: 'WALLETA',
        fields: { walleta_email: 'jane@example.com' },
      }),
  },
  beneficiary_disabled: {
    run: async (w) => {
      const payee = w.unique('P');
      const beneficiary = { name: 'Jane Doe', fields: { payee_id: payee } };
      const created = await w.as.post('/payment/beneficiaries', { method_id: 1, ...beneficiary });
      const { beneficiary_id } = created.body.data.beneficiary;
      await w.as.patch(`/payment/beneficiaries/${beneficiary_id}`, { status: 'disabled' });
      return w.as.post('/payment/quickpayout', payoutBody(w, { beneficiary }));
    },
  },
  beneficiary_method_mismatch: {
    run: async (w) => {
      const { beneficiary_account_id } = await createPayout(w, w.as);
      return w.as.post(
        '/payment/quickpayout',
        byAccountId(w, beneficiary_account_id, { method_id: 3 }),
      );
    },
  },
  beneficiary_channel_mismatch: {
    run: async (w) => {
      // The beneficiary is first linked through channel ch_fast of method 3.
      const beneficiary = { name: 'Jane Doe', fields: { payee_id: w.unique('P') } };
      await createPayout(w, w.as, { method_id: 3, channel_id: 'ch_fast', beneficiary });
      return w.as.post(
        '/payment/quickpayout',
        payoutBody(w, { method_id: 3, channel_id: 'ch_slow', beneficiary }),
      );
    },
  },
  beneficiary_account_mismatch: {
    run: async (w) => {
      const beneficiary = { name: 'Jane Doe', fields: { payee_id: w.unique('P') } };
      await createPayout(w, w.as, { beneficiary });
      return w.as.post(
        '/payment/quickpayout',
        payoutBody(w, {
          beneficiary,
          beneficiary_account: {
            network_code: 'WALLETA',
            fields: { walleta_email: 'other@example.com' },
          },
        }),
      );
    },
  },
  beneficiary_profile_incomplete: {
    params: { fields: 'country, city' },
    run: async (w) => {
      const m = await w.merchant();
      await accountRoute(w, m.accountId, {
        channel_account_id: 'ch_kyc',
        required_beneficiary_fields: ['country', 'city'],
      });
      return w.h.as(m.token).post('/payment/quickpayout', payoutBody(w));
    },
  },
  wallet_not_found: {
    run: async (w) => {
      // An account created with crypto wallets only.
      const m = await w.merchant({ currencies: ['USDT', 'USDC'] });
      return w.h.as(m.token).post('/payment/quickpayout', payoutBody(w));
    },
  },
  // An account id in a route's body; the same id in a path is `account_id not found` (404).
  merchant_account_not_found: { run: (w) => accountRoute(w, 'acc_999', {}) },
  payout_not_found: { run: (w) => w.as.get('/payment/payouts/po_999') },
  payout_not_editable: {
    run: async (w) => {
      const { payout_id } = await createPayout(w, w.as);
      return w.as.patch(`/payment/payouts/${payout_id}`, { amount: '30.00' });
    },
  },
  payout_already_approved: {
    run: async (w) => {
      const { payout_id } = await createPayout(w, w.as);
      await w.h.admin('POST', `/admin/payouts/${payout_id}/review`, { action: 'approve' });
      return w.as.post(`/payment/payouts/${payout_id}/cancel`);
    },
  },
  payout_already_processing: {
    run: async (w) => {
      // Funded, so execution holds the money and stays processing.
      await w.h.admin('POST', `/admin/accounts/${w.acme.accountId}/credit`, {
        currency: 'USD',
        amount: '100.00',
      });
      const { payout_id } = await createPayout(w, w.as);
      await w.h.admin('POST', `/admin/payouts/${payout_id}/review`, { action: 'approve' });
      await w.h.admin('POST', `/admin/sandbox/payouts/${payout_id}/execution`, {
        outcome: 'processing',
      });
      return w.as.post(`/payment/payouts/${payout_id}/cancel`);
    },
  },
  payout_rejected: {
    run: async (w) => {
      const { payout_id } = await createPayout(w, w.as);
      await w.h.admin('POST', `/admin/payouts/${payout_id}/review`, { action: 'reject' });
      return w.as.post(`/payment/payouts/${payout_id}/cancel`);
    },
  },
  invalid_payout_status: {
    run: async (w) => {
      const { payout_id } = await createPayout(w, w.as, { submit: false });
      await w.as.post(`/payment/payouts/${payout_id}/cancel`);
      return w.as.post(`/payment/payouts/${payout_id}/cancel`);
    },
  },

  // -- Beneficiary fields ---------------------------------------------------------------------
  beneficiary_fields_required: {
    run: (w) =>
      w.as.post('/payment/quickpayout', payoutBody(w, { beneficiary: { name: 'Jane Doe' } })),
  },
  fields_required: {
    run: (w) => w.as.post('/payment/beneficiaries', { method_id: 1, name: 'Jane Doe' }),
  },
  fields_missing_required: {
    params: { fields: 'country' },
    run: async (w) => {
      const m = await w.merchant();
      await accountRoute(w, m.accountId, {
        channel_account_id: 'ch_kyc',
        required_beneficiary_fields: ['country'],
      });
      return w.h.as(m.token).post('/payment/beneficiaries', {
        method_id: 1,
        name: 'Jane Doe',
        fields: { payee_id: w.unique('P') },
      });
    },
  },
  payee_id_invalid: {
    run: (w) =>
      w.as.post('/payment/quickpayout', {
        ...payoutBody(w),
        beneficiary: { name: 'Jane Doe', fields: { payee_id: 'a!' } },
      }),
  },
  language_invalid: { run: (w) => profileOf(w, { language: 'eng' }) },
  country_invalid: { run: (w) => profileOf(w, { country: 'us' }) },
  phone_invalid: { run: (w) => profileOf(w, { phone: '+1-12' }) },
  birthdate_invalid: { run: (w) => profileOf(w, { birthdate: '1990/01/31' }) },
  email_invalid: { run: (w) => profileOf(w, { email: 'jane.example.com' }) },
  first_name_invalid: { run: (w) => profileOf(w, { first_name: 'J4ne' }) },
  last_name_invalid: { run: (w) => profileOf(w, { last_name: 'D0' }) },
  zip_invalid_length: { run: (w) => profileOf(w, { zip: '12' }) },
  zip_invalid_for_country: {
    params: { country: 'US' },
    run: (w) => profileOf(w, { country: 'US', zip: 'ABCDE' }),
  },
  city_invalid: { run: (w) => profileOf(w, { city: 'X' }) },
  state_invalid: { run: (w) => profileOf(w, { state: 'X' }) },
  address_invalid: { run: (w) => profileOf(w, { address: 'ab' }) },

  // -- Beneficiary account fields -------------------------------------------------------------
  network_code_required: {
    run: (w) => accountOf(w, { fields: { walleta_email: 'jane@example.com' } }),
  },
  network_not_found: {
    run: (w) => accountOf(w, { network_code: 'NOPE', fields: { walleta_email: 'j@example.com' } }),
  },
  schema_required: {
    run: (w) => w.operator('POST', '/admin/payout-networks', { code: 'EMPTYNET', fields: [] }),
  },
  account_field_required: {
    params: { name: 'walleta_email' },
    run: (w) => accountOf(w, { network_code: 'WALLETA', fields: {} }),
  },
  account_field_invalid: {
    params: { name: 'walleta_email' },
    run: (w) => accountOf(w, { network_code: 'WALLETA', fields: { walleta_email: 42 } }),
  },
  account_field_invalid_hint: {
    params: { name: 'walleta_email', hint: 'expect an e-mail address' },
    run: (w) => accountOf(w, { network_code: 'WALLETA', fields: { walleta_email: 'jane' } }),
  },
  account_field_unknown: {
    params: { name: 'iban' },
    run: (w) =>
      accountOf(w, {
        network_code: 'WALLETA',
        fields: { walleta_email: 'jane@example.com', iban: 'DE89370400440532013000' },
      }),
  },
  walletb_account_prefix: {
    run: (w) => accountOf(w, { network_code: 'WALLETB', fields: { walletb_account: 'jane' } }),
  },
  beneficiary_account_already_exists: {
    run: async (w) => {
      const created = await w.as.post('/payment/beneficiaries', {
        method_id: 1,
        name: 'Jane Doe',
        fields: { payee_id: w.unique('P') },
      });
      const account = {
        beneficiary_id: created.body.data.beneficiary.beneficiary_id,
        network_code: 'WALLETA',
        fields: { walleta_email: 'jane@example.com' },
      };
      expect((await w.as.post('/payment/beneficiary-accounts', account)).body.code).toBe(0);
      return w.as.post('/payment/beneficiary-accounts', {
        ...account,
        fields: { walleta_email: 'other@example.com' },
      });
    },
  },

  // -- Crypto mass payout ---------------------------------------------------------------------
  items_required: {
    run: async (w) => {
      const { batch_id } = await createBatch(w, {});
      return w.as.post(`/payment/crypto-payouts/batches/${batch_id}/items`, {});
    },
  },
  items_length: { run: (w) => batchOf(w, { items: [] }) },
  only_crypto_currency: { run: (w) => batchOf(w, { currency: 'USD' }) },
  method_id_required: { run: (w) => batchOf(w, { method_id: undefined }) },
  method_not_crypto: { run: (w) => batchOf(w, { method_id: 1 }) },
  order_no_required: { run: (w) => batchOf(w, { items: [batchItem(w, { order_no: '' })] }) },
  duplicate_order_no_in_request: {
    run: (w) =>
      batchOf(w, { items: [batchItem(w, { order_no: 'DUP' }), batchItem(w, { order_no: 'DUP' })] }),
  },
  duplicate_order_no_in_batch: {
    run: async (w) => {
      const item = batchItem(w);
      const { batch_id } = await createBatch(w, { items: [item] });
      return w.as.post(`/payment/crypto-payouts/batches/${batch_id}/items`, {
        items: [batchItem(w, { order_no: item.order_no })],
      });
    },
  },
  duplicate_order_no_in_payouts: {
    run: async (w) => {
      const body = payoutBody(w);
      await createPayout(w, w.as, body);
      return batchOf(w, { items: [batchItem(w, { order_no: body.reference })] });
    },
  },
  address_key_required: {
    run: (w) => batchOf(w, { items: [batchItem(w, { beneficiary_account: {} })] }),
  },
  receiving_address_required: {
    run: (w) => batchOf(w, { items: [batchItem(w, { beneficiary_account: { address: ' ' } })] }),
  },
  invalid_evm_address: {
    run: (w) => batchOf(w, { items: [batchItem(w, { beneficiary_account: { address: '0x12' } })] }),
  },
  invalid_tron_address: {
    run: (w) =>
      batchOf(w, { items: [batchItem(w, { beneficiary_account: { address: 'T1234567' } })] }),
  },
  duplicate_receiving_address: {
    run: (w) => {
      const beneficiary_account = { address: evmAddress(w) };
      return batchOf(w, {
        items: [batchItem(w, { beneficiary_account }), batchItem(w, { beneficiary_account })],
      });
    },
  },
  batch_not_found: { run: (w) => w.as.get('/payment/crypto-payouts/batches/bat_999') },
  batch_not_editable: {
    run: async (w) => {
      const { batch_id } = await createBatch(w, { items: [batchItem(w)], submit: false });
      await w.secondKey.post(`/payment/crypto-payouts/batches/${batch_id}/approve`, { version: 0 });
      return w.as.post(`/payment/crypto-payouts/batches/${batch_id}/items`, {
        items: [batchItem(w)],
      });
    },
  },
  batch_not_ready_for_submit: {
    run: async (w) => {
      const { batch_id } = await createBatch(w, { items: [batchItem(w)] });
      await w.secondKey.post(`/payment/crypto-payouts/batches/${batch_id}/approve`, { version: 0 });
      return w.as.post(`/payment/crypto-payouts/batches/${batch_id}/submit`);
    },
  },
  batch_has_no_items: {
    run: async (w) => {
      // Created without items, to be filled later, then approved empty.
      const { batch_id } = await createBatch(w, {});
      return w.secondKey.post(`/payment/crypto-payouts/batches/${batch_id}/approve`, {
        version: 0,
      });
    },
  },
  batch_not_approved: {
    run: async (w) => {
      const { batch_id } = await createBatch(w, { items: [batchItem(w)], submit: false });
      return w.as.post(`/payment/crypto-payouts/batches/${batch_id}/submit`);
    },
  },
  batch_multiple_channel_accounts: {
    run: (w) => splitBatch(w, ['chacc_small', 'chacc_big']),
  },
  split_batch_by_route: { run: (w) => splitBatch(w, ['chacc_one', 'chacc_one']) },
  batch_approver_is_creator: {
    run: async (w) => {
      const { batch_id } = await createBatch(w, { items: [batchItem(w)] });
      return w.as.post(`/payment/crypto-payouts/batches/${batch_id}/approve`, { version: 0 });
    },
  },
  // Issue 19, M1: the second key chose a recipient, so it cannot be the second pair of eyes.
  batch_approver_added_items: {
    run: async (w) => {
      const { batch_id } = await createBatch(w, {});
      const added = await w.secondKey.post(`/payment/crypto-payouts/batches/${batch_id}/items`, {
        items: [batchItem(w)],
      });
      expect(added.body, 'setup items').toMatchObject({ code: 0 });
      return w.secondKey.post(`/payment/crypto-payouts/batches/${batch_id}/approve`, {
        version: 1,
      });
    },
  },
  // Issue 35, M3: the checker read version 0; the maker added an item; the approval is refused.
  batch_changed: {
    run: async (w) => {
      const { batch_id } = await createBatch(w, { items: [batchItem(w)], submit: false });
      const added = await w.as.post(`/payment/crypto-payouts/batches/${batch_id}/items`, {
        items: [batchItem(w)],
      });
      expect(added.body, 'setup items').toMatchObject({ code: 0 });
      return w.secondKey.post(`/payment/crypto-payouts/batches/${batch_id}/approve`, {
        version: 0,
      });
    },
  },

  // -- Acquiring ------------------------------------------------------------------------------
  order_currency_only_usd: { run: (w) => orderOf(w, { order_currency: 'EUR' }) },
  order_amount_positive: { run: (w) => orderOf(w, { order_amount: '0' }) },
  expire_seconds_range: { run: (w) => orderOf(w, { expire_seconds: 59 }) },
  underpay_tolerance_non_negative: { run: (w) => orderOf(w, { underpay_tolerance: '-1' }) },
  underpay_tolerance_below_amount: {
    run: (w) => orderOf(w, { order_amount: '500.00', underpay_tolerance: '500.00' }),
  },
  allowed_pay_currencies_required: {
    run: async (w) => {
      const m = await w.merchant();
      await w.operator('PATCH', `/admin/accounts/${m.accountId}`, { default_pay_tokens: [] });
      const as = w.h.as(m.token);
      const webhook = await as.post('/payment/webhooks', {
        url: 'https://shop.example/wh',
        events: ['acquiring.*'],
      });
      return as.post(
        '/payment/acquiring/orders',
        orderBody(w, { notify_webhook_id: webhook.body.data.webhook.webhook_id }),
      );
    },
  },
  notify_webhook_id_required: { run: (w) => orderOf(w, { notify_webhook_id: undefined }) },
  notify_webhook_id_invalid: { run: (w) => orderOf(w, { notify_webhook_id: 'wh_999' }) },
  notify_webhook_id_not_subscribed: {
    run: async (w) => {
      const webhook = await w.as.post('/payment/webhooks', {
        url: 'https://acme.example/payout-hooks',
        events: ['payout.*'],
      });
      return orderOf(w, { notify_webhook_id: webhook.body.data.webhook.webhook_id });
    },
  },
  redirect_url_invalid: { run: (w) => orderOf(w, { redirect_url: 'http://acme.example/done' }) },
  logo_url_invalid: { run: (w) => orderOf(w, { logo_url: 'http://acme.example/logo.png' }) },
  mode_invalid: { run: (w) => orderOf(w, { mode: 'push' }) },
  checkout_type_unsupported: { run: (w) => orderOf(w, { checkout_type: 'embedded' }) },
  network_currency_required: { run: (w) => orderOf(w, { network: 'TRON' }) },
  network_currency_not_allowed: {
    run: (w) =>
      orderOf(w, { allowed_pay_currencies: ['TRON_USDT'], network: 'ETH', currency: 'USDC' }),
  },
  network_currency_unsupported: {
    params: { network: 'TRON', currency: 'USDC' },
    run: (w) => orderOf(w, { network: 'TRON', currency: 'USDC' }),
  },
  no_available_pay_tokens: {
    run: async (w) => {
      const m = await w.merchant();
      await w.operator('PATCH', `/admin/accounts/${m.accountId}`, {
        enabled_pay_tokens: [],
        default_pay_tokens: [],
      });
      const as = w.h.as(m.token);
      const webhook = await as.post('/payment/webhooks', {
        url: 'https://shop.example/wh',
        events: ['acquiring.*'],
      });
      return as.post(
        '/payment/acquiring/orders',
        orderBody(w, { notify_webhook_id: webhook.body.data.webhook.webhook_id }),
      );
    },
  },
  order_not_found: { run: (w) => w.as.get('/payment/acquiring/orders/ord_999') },
  completed_order_cannot_be_closed: {
    run: async (w) => {
      const { order_id } = await createOrder(w);
      await w.h.admin('POST', `/admin/sandbox/acquiring/orders/${order_id}/payments`, {
        token_id: 'TRON_USDT',
        amount: '10.000000',
        status: 'confirmed',
      });
      return w.as.post(`/payment/acquiring/orders/${order_id}/close`, { reason: 'too late' });
    },
  },
  checkout_url_not_found: {
    run: async (w) => {
      // A direct order has its payment address at once and no hosted checkout page.
      const { order_id } = await createOrder(w, {
        mode: 'direct',
        network: 'TRON',
        currency: 'USDT',
      });
      return w.h.call('GET', `/checkout/api/orders/${order_id}`, {});
    },
  },
  invalid_pay_currency: {
    params: { id: 'USDT' },
    run: (w) => orderOf(w, { allowed_pay_currencies: ['USDT'] }),
  },
  order_already_final: {
    run: async (w) => {
      const { order_id } = await createOrder(w);
      await w.as.post(`/payment/acquiring/orders/${order_id}/close`, { reason: 'cancelled' });
      return w.as.post(`/payment/acquiring/orders/${order_id}/close`, { reason: 'again' });
    },
  },
  out_trade_no_already_exists: {
    run: async (w) => {
      const body = orderBody(w);
      expect((await w.as.post('/payment/acquiring/orders', body)).body.code).toBe(0);
      return w.as.post('/payment/acquiring/orders', body);
    },
  },

  // -- Refunds and resolutions of orders (ADR 0044) -------------------------------------------
  refund_not_found: { run: (w) => w.as.get('/payment/acquiring/refunds/rfd_999') },
  refund_type_invalid: {
    run: async (w) => refundOf(w, await paidOrder(w), { refund_type: 'all' }),
  },
  invalid_refund_address: {
    params: { network: 'TRON' },
    run: async (w) => refundOf(w, await paidOrder(w), { address: evmAddress(w) }),
  },
  order_not_refundable: {
    run: async (w) => refundOf(w, (await createOrder(w)).order_id, {}),
  },
  refund_token_not_paid: {
    params: { token_id: 'ETH_USDC' },
    run: async (w) =>
      refundOf(w, await paidOrder(w), { token_id: 'ETH_USDC', address: evmAddress(w) }),
  },
  nothing_to_refund: {
    run: async (w) => refundOf(w, await paidOrder(w), { refund_type: 'overpaid' }),
  },
  refund_exceeds_refundable: {
    params: { refundable: '10.000000' },
    run: async (w) => refundOf(w, await paidOrder(w), { refund_type: 'partial', amount: '10.5' }),
  },
  insufficient_balance: {
    run: async (w) => {
      const orderId = await paidOrder(w);
      // A crypto payout holds all but 5 USDT of the balance (and its fee): 10 no longer fits.
      const balances = await w.as.get('/payment/balances?currency=USDT');
      const available = new Decimal(balances.body.data.items[0].available as string);
      const amount = available.minus(5).toFixed(6);
      const { batch_id } = await createBatch(w, { items: [batchItem(w, { amount })] });
      await w.secondKey.post(`/payment/crypto-payouts/batches/${batch_id}/approve`, { version: 0 });
      const items = await w.as.get(`/payment/crypto-payouts/batches/${batch_id}/items`);
      const payoutId = items.body.data.items[0].payout_id as string;
      await w.h.admin('POST', `/admin/payouts/${payoutId}/review`, { action: 'approve' });
      await w.h.admin('POST', `/admin/sandbox/payouts/${payoutId}/execution`, {
        outcome: 'processing',
      });
      return refundOf(w, orderId, {});
    },
  },
  invalid_refund_status: {
    run: async (w) => {
      const answer = await refundOf(w, await paidOrder(w), {});
      const refundId = answer.body.data.refund.refund_id as string;
      await w.operator('POST', `/admin/acquiring/refunds/${refundId}/review`, { action: 'reject' });
      return w.operator('POST', `/admin/acquiring/refunds/${refundId}/review`, {
        action: 'approve',
      });
    },
  },
  refund_approved_by_requester: {
    run: async (w) => {
      const { order_id } = await createOrder(w, { expire_seconds: 60 });
      await w.h.admin('POST', `/admin/sandbox/acquiring/orders/${order_id}/payments`, {
        token_id: 'TRON_USDT',
        amount: '4.000000',
        status: 'confirmed',
      });
      await w.h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 61 });
      const resolved = await w.operator('POST', `/admin/acquiring/orders/${order_id}/resolve`, {
        action: 'refuse',
        reason: 'cancelled',
        refund_address: tronAddress(7),
      });
      const refundId = resolved.body.data.refunds[0].refund_id as string;
      return w.operator('POST', `/admin/acquiring/refunds/${refundId}/review`, {
        action: 'approve',
      });
    },
  },
  client_refund_id_already_used: {
    run: async (w) => {
      const orderId = await paidOrder(w);
      const key = { refund_type: 'partial', client_refund_id: w.unique('crf') };
      await refundOf(w, orderId, { ...key, amount: '1' });
      return refundOf(w, orderId, { ...key, amount: '2' });
    },
  },
  order_not_resolvable: {
    run: async (w) =>
      w.operator('POST', `/admin/acquiring/orders/${await paidOrder(w)}/resolve`, {
        action: 'accept',
        reason: 'r',
      }),
  },
  order_already_resolved: {
    run: async (w) => {
      const { order_id } = await createOrder(w, { expire_seconds: 60 });
      await w.h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 61 });
      const refuse = { action: 'refuse', reason: 'never paid' };
      await w.operator('POST', `/admin/acquiring/orders/${order_id}/resolve`, refuse);
      return w.operator('POST', `/admin/acquiring/orders/${order_id}/resolve`, refuse);
    },
  },
  nothing_to_accept: {
    run: async (w) => {
      const { order_id } = await createOrder(w, { expire_seconds: 60 });
      await w.h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 61 });
      return w.operator('POST', `/admin/acquiring/orders/${order_id}/resolve`, {
        action: 'accept',
        reason: 'r',
      });
    },
  },

  // -- Webhook management ---------------------------------------------------------------------
  invalid_webhook_url: {
    run: (w) =>
      w.as.post('/payment/webhooks', { url: 'ftp://acme.example', events: ['acquiring.*'] }),
  },
  invalid_webhook_event: {
    params: { event: 'acquiring.refund' },
    run: (w) =>
      w.as.post('/payment/webhooks', {
        url: 'https://acme.example/wh',
        events: ['acquiring.refund'],
      }),
  },
  webhook_not_found: { run: (w) => w.as.get('/payment/webhooks/wh_999') },

  // -- Platform-side webhook receiving --------------------------------------------------------
  webhook_ip_not_allowed: {
    run: (w) => w.upstream({ events: [chainPayment(tronAddress(3))] }, { from: '203.0.113.5' }),
  },
  unsupported_acquiring_provider: {
    params: { provider: 'acme' },
    run: (w) => w.upstream({ events: [chainPayment(tronAddress(3))] }, { provider: 'acme' }),
  },
  empty_upstream_event: { run: (w) => w.upstream({ events: [] }) },
  merchant_deposit_address_not_found: {
    run: (w) => w.upstream({ events: [chainPayment(tronAddress(3))] }),
  },
  acquiring_order_not_found: {
    run: async (w) => {
      // No API removes an order: a deposit address row whose order is gone (as a partial
      // restore could leave it) is put in the store directly.
      const address = tronAddress(4);
      await w.h.store.transaction((tx) =>
        tx.depositAddresses.insert({
          address_id: w.unique('dep_orphan_'),
          account_id: w.acme.accountId,
          network: 'TRON',
          address,
          order_id: 'ord_gone',
          created_at: 0,
          updated_at: 0,
        }),
      );
      return w.upstream({ events: [chainPayment(address)] });
    },
  },
  invalid_upstream_deposit_payload: {
    run: async (w) => {
      // Two observations of one chain payment that disagree on the amount.
      const { order_id } = await createOrder(w);
      const path = `/admin/sandbox/acquiring/orders/${order_id}/payments`;
      const seen = { token_id: 'TRON_USDT', status: 'processing', payment_id: 'pay_chain_1' };
      await w.h.admin('POST', path, { ...seen, amount: '4.000000' });
      return w.operator('POST', path, { ...seen, amount: '5.000000' });
    },
  },
};

/** A quick payout naming an earlier account by id (method_id from its beneficiary). */
const byAccountId = (w: World, id: string, overrides: Record<string, unknown> = {}) =>
  payoutBody(w, {
    method_id: undefined,
    beneficiary: undefined,
    beneficiary_account: undefined,
    beneficiary_account_id: id,
    ...overrides,
  });

const profileOf = (w: World, fields: Record<string, unknown>) =>
  w.as.post('/payment/quickpayout', withProfile(w, fields));

const accountOf = (w: World, account: unknown) =>
  w.as.post('/payment/quickpayout', withAccount(w, account));

const batchOf = (w: World, overrides: Record<string, unknown>) =>
  w.as.post('/payment/crypto-payouts/batches', {
    currency: 'USDT',
    method_id: 2,
    items: [batchItem(w)],
    ...overrides,
  });

/** An order of 10.00 paid in full with 10 TRON_USDT, confirmed: its id. */
const paidOrder = async (w: World): Promise<string> => {
  const { order_id } = await createOrder(w);
  await w.h.admin('POST', `/admin/sandbox/acquiring/orders/${order_id}/payments`, {
    token_id: 'TRON_USDT',
    amount: '10.000000',
    status: 'confirmed',
  });
  return order_id;
};

/** A full refund of the order to a TRON address, with `overrides`. */
const refundOf = (w: World, orderId: string, overrides: Record<string, unknown>) =>
  w.as.post(`/payment/acquiring/orders/${orderId}/refunds`, {
    refund_type: 'full',
    address: tronAddress(7),
    ...overrides,
  });

const orderOf = (w: World, overrides: Record<string, unknown>) =>
  w.as.post('/payment/acquiring/orders', orderBody(w, overrides));

/**
 * A merchant whose own USDC routes split by amount: up to 10 on the first channel account, above
 * 10 on the second. One item on each side of 10.
 */
const splitBatch = async (w: World, [small, big]: readonly [string, string]) => {
  const m = await w.merchant();
  const route = (min_amount: string, max_amount: string, channel_account_id: string) =>
    w.operator('POST', '/admin/routes', {
      account_id: m.accountId,
      currency: 'USDC',
      method_id: 2,
      min_amount,
      max_amount,
      channel_account_id,
    });
  await route('1.000000', '10.000000', small);
  await route('10.000001', '100.000000', big);
  return w.h.as(m.token).post('/payment/crypto-payouts/batches', {
    currency: 'USDC',
    method_id: 2,
    items: [batchItem(w, { amount: '5' }), batchItem(w, { amount: '50' })],
  });
};

// ---------------------------------------------------------------------------------------------
// Exemptions: messages this service cannot answer yet, and why

/** None: every message of the catalogue is reached through HTTP above. */
const exemptions: Partial<Record<ErrorKey, string>> = {};

// ---------------------------------------------------------------------------------------------
// The tests

const catalogueKeys = Object.keys(errorCatalogue) as ErrorKey[];

describe('the error catalogue through HTTP: coverage', () => {
  it('every catalogue key has a scenario or an exemption, never both', () => {
    const neither = catalogueKeys.filter((k) => !(k in scenarios) && !(k in exemptions));
    const both = catalogueKeys.filter((k) => k in scenarios && k in exemptions);
    expect({ neither, both }).toEqual({ neither: [], both: [] });
  });

  it('names only catalogue keys, and gives every exemption a reason', () => {
    const named = [...Object.keys(scenarios), ...Object.keys(exemptions)];
    expect(named.filter((k) => !(k in errorCatalogue))).toEqual([]);
    for (const reason of Object.values(exemptions)) expect(reason?.length).toBeGreaterThan(20);
  });

  it('fills every placeholder of a templated message, and only those', () => {
    for (const [key, scenario] of Object.entries(scenarios) as [ErrorKey, Scenario][]) {
      const template = errorCatalogue[key].message;
      const placeholders = Array.from(template.matchAll(/<([a-z_]+)>/g), (m) => m[1]).sort();
      expect(Object.keys(scenario.params ?? {}).sort(), key).toEqual(placeholders);
    }
  });
});

/** The message a key answers with, its placeholders filled by the scenario's params. */
const expectedMessage = (key: ErrorKey, scenario: Scenario): string =>
  (payrailError as (key: ErrorKey, params?: object) => PayrailError)(key, scenario.params).message;

describe.each(storesUnderTest)('the error catalogue through HTTP (real engine, $name)', (under) => {
  let world: World;

  beforeAll(async () => {
    const h = engineApp({
      store: await under.open(),
      acquiringProviders: [
        sandboxAcquiringProvider({
          allowedSources: ['127.0.0.1/32', '::1/128'],
          secret: upstreamSecret,
        }),
      ],
    });
    await h.seedCatalogue();
    // A regional wallet network and a fiat method with two channels, for the scenarios that
    // disable a network or move a beneficiary between channels.
    await h.admin('POST', '/admin/payout-networks', {
      code: 'WALLETZ',
      fields: [{ field_key: 'walletz_id', required: true, validation_rule: 'length:3-40' }],
    });
    await h.admin('POST', '/admin/payout-methods', {
      method_id: 3,
      name: 'Regional wallets',
      currency_type: 'fiat',
      currencies: ['USD'],
      network_codes: ['WALLETA', 'WALLETZ'],
      channel_ids: ['ch_fast', 'ch_slow'],
    });
    await h.admin('POST', '/admin/routes', {
      currency: 'USD',
      method_id: 3,
      min_amount: '1.00',
      max_amount: '1000.00',
      fixed_fee: '0.50',
      channel_account_id: 'regional_usd',
    });
    const acme = await h.merchant('Acme');
    const second = await h.issueKey(acme.accountId, { permissions: [...permissions] });
    const as = h.as(acme.token);
    const webhook = await as.post('/payment/webhooks', {
      url: 'https://acme.example/wh',
      events: ['acquiring.*'],
    });
    let n = 0;
    world = {
      h,
      acme,
      as,
      secondKey: h.as(second.token),
      webhookId: webhook.body.data.webhook.webhook_id,
      merchant: async (extra = {}) => {
        n += 1;
        const created = await h.admin('POST', '/admin/merchants', { name: `M${n}`, ...extra });
        const { account_id, merchant_id } = created.merchant;
        const key = await h.issueKey(account_id, { permissions: [...permissions] });
        return { merchantId: merchant_id, accountId: account_id, ...key };
      },
      operator: (method, path, body) =>
        h.call(method, path, { Authorization: `Bearer ${operatorToken}` }, body),
      upstream: (body, { provider = 'sandbox', from = '127.0.0.1' } = {}) =>
        h.call(
          'POST',
          `/upstream/acquiring/${provider}`,
          signSandboxUpstream(upstreamSecret, body === undefined ? '' : JSON.stringify(body)),
          body,
          {
            incoming: { socket: { remoteAddress: from } },
          },
        ),
      unique: (prefix) => {
        n += 1;
        return `${prefix}${n}`;
      },
    };
  });

  const reachable = Object.entries(scenarios) as [ErrorKey, Scenario][];

  it.each(reachable)('%s', async (key, scenario) => {
    const policy = errorPolicies[errorCatalogue[key].kind];
    expect(refusalOf(await scenario.run(world))).toEqual({
      status: policy.httpStatus,
      code: policy.code,
      message: expectedMessage(key, scenario),
      data: null,
    });
  });
});
