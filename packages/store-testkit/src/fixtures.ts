/**
 * Valid sample records of every collection, one builder each, and for every list filter two
 * values a record can hold (a `null` first where the field is nullable). The generic collection
 * tests are driven by these and by `collectionSpecs`, so a new collection needs only an entry
 * here.
 */
import type {
  CollectionName,
  CollectionSpecs,
  Currency,
  NewRecord,
  PayoutRecord,
  RecordOf,
} from '@payrail/core';

/** What varies between sample records: `n` makes every id and unique key distinct. */
export interface FixtureSeed {
  readonly n: number;
  /** The value of the collection's scope field (for global collections, a field it owns). */
  readonly scope: string;
  readonly createdAt: number;
}

type FilterOf<N extends CollectionName> = CollectionSpecs[N]['filters'][number] & keyof RecordOf<N>;

export interface CollectionFixture<N extends CollectionName> {
  readonly build: (seed: FixtureSeed) => NewRecord<RecordOf<N>>;
  /** Two different values of each filter field. */
  readonly filterValues: {
    readonly [F in FilterOf<N>]: readonly [RecordOf<N>[F], RecordOf<N>[F]];
  };
}

export type RecordFixtures = { readonly [N in CollectionName]: CollectionFixture<N> };

/** Fixed width, so ids sort the same by any collation. */
const pad = (n: number): string => String(n).padStart(6, '0');

const times = (seed: FixtureSeed) => ({ created_at: seed.createdAt, updated_at: seed.createdAt });

const payoutSnapshot = {
  status: 'active',
  value: 'pendingReview',
  context: { payoutId: 'po', amount: '10.00', notes: ['first', 'second'] },
  historyValue: {},
};

const funding = (prefix: string) => (seed: FixtureSeed) => ({
  record_id: `${prefix}_${pad(seed.n)}`,
  account_id: seed.scope,
  currency: 'USDT' as Currency,
  network: 'TRON',
  amount: '5.000001',
  status: 'pending' as const,
  tx_hash: null,
  ...times(seed),
});

const fundingFilters = {
  currency: ['USDT', 'USDC'],
  network: ['TRON', 'ETH'],
  status: ['pending', 'completed'],
} as const;

export const recordFixtures: RecordFixtures = {
  merchants: {
    build: (seed) => ({
      merchant_id: `mer_${pad(seed.n)}`,
      name: `Zoë & Søn ${seed.n}`,
      status: 'active',
      ...times(seed),
    }),
    filterValues: { status: ['active', 'disabled'] },
  },
  accounts: {
    build: (seed) => ({
      account_id: `acc_${pad(seed.n)}`,
      merchant_id: seed.scope,
      status: 'active',
      currencies: ['USD', 'USDT'],
      verification_enabled: false,
      auto_approve: true,
      products: { payout: true, acquiring: false },
      enabled_pay_tokens: ['TRON_USDT', 'ETH_USDC'],
      default_pay_tokens: ['TRON_USDT'],
      notify_secret: `whsec_${pad(seed.n)}`,
      ...times(seed),
    }),
    filterValues: { merchant_id: ['mer_a', 'mer_b'], status: ['active', 'frozen'] },
  },
  apiKeys: {
    build: (seed) => ({
      key_id: `key_${pad(seed.n)}`,
      account_id: seed.scope,
      merchant_id: 'mer_000001',
      name: `key ${seed.n}`,
      env: 'sandbox',
      permissions: ['payout.read', 'payout.write'],
      key_version: 1,
      status: 'active',
      ip_whitelist: ['10.0.0.0/8'],
      expires_at: 0,
      ...times(seed),
    }),
    filterValues: {
      account_id: ['acc_a', 'acc_b'],
      status: ['active', 'disabled'],
      env: ['sandbox', 'live'],
    },
  },
  payoutMethods: {
    build: (seed) => ({
      method_id: seed.n + 1,
      name: `method ${seed.n}`,
      currency_type: 'fiat',
      currencies: ['USD'],
      network_codes: ['ACH', 'SWIFT'],
      channel_ids: [],
      status: 'active',
      ...times(seed),
    }),
    filterValues: { currency_type: ['fiat', 'crypto'], status: ['active', 'disabled'] },
  },
  payoutNetworks: {
    build: (seed) => ({
      code: `NET_${pad(seed.n)}`,
      name: `network ${seed.n}`,
      fields: [{ field_key: 'account_number', required: true, validation_rule: '^[0-9]{4,17}$' }],
      status: 'active',
      ...times(seed),
    }),
    filterValues: { status: ['active', 'disabled'] },
  },
  payoutRoutes: {
    build: (seed) => ({
      route_id: `rte_${pad(seed.n)}`,
      account_id: seed.scope,
      currency: 'USD',
      method_id: 1,
      channel_id: null,
      min_amount: '1.00',
      max_amount: '10000.00',
      fixed_fee: '0.50',
      percent_fee: '1.25',
      channel_account_id: null,
      required_beneficiary_fields: ['account_number'],
      status: 'active',
      ...times(seed),
    }),
    filterValues: {
      account_id: [null, 'acc_b'],
      currency: ['USD', 'USDT'],
      method_id: [1, 2],
      channel_id: [null, 'ch_b'],
      status: ['active', 'disabled'],
    },
  },
  beneficiaries: {
    build: (seed) => ({
      beneficiary_id: `ben_${pad(seed.n)}`,
      account_id: seed.scope,
      method_id: 1,
      payee_id: `payee_${pad(seed.n)}`,
      name: `Beneficiary ${seed.n}`,
      fields: { email: `b${seed.n}@example.com` },
      status: 'active',
      ...times(seed),
    }),
    filterValues: {
      method_id: [1, 2],
      payee_id: ['payee_a', 'payee_b'],
      status: ['active', 'disabled'],
    },
  },
  beneficiaryAccounts: {
    build: (seed) => ({
      beneficiary_account_id: `bac_${pad(seed.n)}`,
      account_id: seed.scope,
      beneficiary_id: `ben_${pad(seed.n)}`,
      network_code: 'ACH',
      display_name: null,
      account_type: 'checking',
      fields: { account_number: '000123456789', routing_number: '011000015' },
      status: 'active',
      ...times(seed),
    }),
    filterValues: {
      beneficiary_id: ['ben_a', 'ben_b'],
      network_code: ['ACH', 'SWIFT'],
      status: ['active', 'suspended'],
    },
  },
  payouts: {
    build: (seed) => samplePayout(seed),
    filterValues: {
      reference: ['ref_a', 'ref_b'],
      client_request_id: [null, 'crq_b'],
      status: ['pending', 'completed'],
      review_status: ['pending', 'approved'],
      execution_status: ['not_started', 'processing'],
      batch_id: [null, 'bat_b'],
    },
  },
  acquiringOrders: {
    build: (seed) => ({
      order_id: `ord_${pad(seed.n)}`,
      account_id: seed.scope,
      out_trade_no: `otn_${pad(seed.n)}`,
      status: 'PENDING',
      snapshot: { status: 'active', value: 'awaitingPayment', context: { tokens: ['TRON_USDT'] } },
      ...times(seed),
    }),
    filterValues: { out_trade_no: ['otn_a', 'otn_b'], status: ['PENDING', 'COMPLETED'] },
  },
  acquiringPayments: {
    build: (seed) => ({
      payment_id: `pay_${pad(seed.n)}`,
      account_id: seed.scope,
      order_id: `ord_${pad(seed.n)}`,
      ...times(seed),
    }),
    filterValues: { order_id: ['ord_a', 'ord_b'] },
  },
  acquiringRefunds: {
    build: (seed) => ({
      refund_id: `rfd_${pad(seed.n)}`,
      account_id: seed.scope,
      order_id: `ord_${pad(seed.n)}`,
      status: 'requested',
      client_refund_id: seed.n % 2 === 0 ? null : `crf_${pad(seed.n)}`,
      snapshot: { version: 1, snapshot: { value: 'requested', context: { amount: '1.000000' } } },
      ...times(seed),
    }),
    filterValues: { order_id: ['ord_a', 'ord_b'], status: ['requested', 'completed'] },
  },
  depositAddresses: {
    build: (seed) => ({
      address_id: `dad_${pad(seed.n)}`,
      account_id: seed.scope,
      network: 'TRON',
      address: `TXYZ${pad(seed.n)}`,
      order_id: `ord_${pad(seed.n)}`,
      ...times(seed),
    }),
    filterValues: {
      order_id: ['ord_a', 'ord_b'],
      network: ['TRON', 'ETH'],
      address: ['TADDRa', 'TADDRb'],
    },
  },
  cryptoBatches: {
    build: (seed) => ({
      batch_id: `bat_${pad(seed.n)}`,
      account_id: seed.scope,
      status: 'draft',
      snapshot: { status: 'active', value: 'draft', context: { items: [] } },
      ...times(seed),
    }),
    filterValues: { status: ['draft', 'approved'] },
  },
  webhooks: {
    build: (seed) => ({
      webhook_id: `wh_${pad(seed.n)}`,
      account_id: seed.scope,
      url: `https://merchant.example/hooks/${seed.n}`,
      events: ['payment.*'],
      status: 'active',
      secret: `whsec_${pad(seed.n)}`,
      ...times(seed),
    }),
    filterValues: { status: ['active', 'inactive'] },
  },
  webhookDeliveries: {
    build: (seed) => ({
      delivery_id: `dlv_${pad(seed.n)}`,
      account_id: seed.scope,
      event_id: `evt_${pad(seed.n)}`,
      event_type: 'payment.completed',
      business_type: 'payout',
      business_id: `po_${pad(seed.n)}`,
      webhook_id: `wh_${pad(seed.n)}`,
      url: 'https://merchant.example/hooks',
      status: 'succeeded',
      attempts: [
        {
          attempt: 1,
          at: seed.createdAt,
          status_code: 200,
          latency_ms: 12,
          error: null,
          response_body: 'ok',
        },
      ],
      ...times(seed),
    }),
    filterValues: {
      webhook_id: [null, 'wh_b'],
      event_id: ['evt_a', 'evt_b'],
      status: ['pending', 'succeeded'],
      business_id: [null, 'po_b'],
    },
  },
  deposits: { build: funding('dep'), filterValues: fundingFilters },
  withdrawals: { build: funding('wdr'), filterValues: fundingFilters },
  operators: {
    build: (seed) => ({
      operator_id: `opr_${pad(seed.n)}`,
      name: `Zoë ${seed.n}`,
      role: 'reviewer',
      status: 'active',
      token_hash: 'a3f1c2e4b5d6978899aabbccddeeff00112233445566778899aabbccddeeff00',
      expires_at: seed.createdAt + 86_400,
      created_by: 'bootstrap',
      ...times(seed),
    }),
    filterValues: { status: ['active', 'disabled'], role: ['reviewer', 'admin'] },
  },
  auditRecords: {
    build: (seed) => ({
      audit_id: `aud_${pad(seed.n)}`,
      account_id: seed.scope,
      actor_type: 'api_key',
      actor_id: `key_${pad(seed.n)}`,
      actor_name: null,
      action: 'payout.create',
      object_type: 'payout',
      object_id: `po_${pad(seed.n)}`,
      detail: null,
      request_id: `req-${seed.n}`,
      client_ip: '203.0.113.7',
      ...times(seed),
    }),
    filterValues: {
      actor_type: ['operator', 'api_key'],
      actor_id: ['bootstrap', 'key_b'],
      action: ['payout.review', 'payout.create'],
      object_type: ['payout', 'api_key'],
      object_id: ['po_a', 'key_b'],
    },
  },
};

/** A pending payout of 10.00 USD; the specific tests override references and client ids. */
export const samplePayout = (
  seed: FixtureSeed,
  overrides: Partial<NewRecord<PayoutRecord>> = {},
): NewRecord<PayoutRecord> => ({
  payout_id: `po_${pad(seed.n)}`,
  account_id: seed.scope,
  reference: `ref_${pad(seed.n)}`,
  client_request_id: `crq_${pad(seed.n)}`,
  request_hash: 'a3f1c2e4b5d6978899aabbccddeeff00112233445566778899aabbccddeeff00',
  currency: 'USD',
  amount: '10.00',
  status: 'pending',
  review_status: 'pending',
  execution_status: 'not_started',
  batch_id: null,
  snapshot: payoutSnapshot,
  ...times(seed),
  ...overrides,
});
