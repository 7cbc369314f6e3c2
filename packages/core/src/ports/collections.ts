/**
 * The collections a store keeps, described as data: the id, the merchant scope a caller must
 * match to see a record, the unique keys, and the fields lists filter on (each is indexed).
 * Both the memory and the PostgreSQL store are driven by these specs, and the conformance suite
 * grades every store against them.
 */
import type {
  AccountRecord,
  AcquiringOrderRecord,
  AcquiringPaymentRecord,
  AcquiringRefundRecord,
  ApiKeyRecord,
  AuditRecord,
  BeneficiaryAccountRecord,
  BeneficiaryRecord,
  CryptoBatchRecord,
  DepositAddressRecord,
  FundingRecord,
  MerchantRecord,
  OperatorRecord,
  PayoutMethodRecord,
  PayoutNetworkRecord,
  PayoutRecord,
  PayoutRouteRecord,
  RecordMeta,
  WebhookDeliveryRecord,
  WebhookRecord,
} from './records.js';

/** Fields whose values are scalars a list can filter on or a unique key can hold. */
export type ScalarKeys<R> = {
  [K in keyof R]-?: R[K] extends string | number | boolean | null ? K & string : never;
}[keyof R];

export interface CollectionSpec<R extends RecordMeta> {
  readonly name: string;
  readonly id: ScalarKeys<R>;
  /** The field that scopes visibility (the merchant's account, or merchant); `null`: global. */
  readonly scope: ScalarKeys<R> | null;
  /** Each unique key is a list of fields; a `null` in any of them exempts the record. */
  readonly unique: readonly (readonly ScalarKeys<R>[])[];
  /** Equality filters of the list endpoints. `created_at` ranges and sorting always exist. */
  readonly filters: readonly ScalarKeys<R>[];
  /**
   * Records are never changed once written (the audit trail): every store refuses `update`
   * with `AppendOnlyCollection`, and the conformance suite holds them to it.
   */
  readonly appendOnly?: true;
}

/** What a store throws for an `update` of an append-only collection: a programming error. */
export class AppendOnlyCollection extends Error {
  constructor(readonly collection: string) {
    super(`${collection} is append-only: its records are never updated`);
    this.name = 'AppendOnlyCollection';
  }
}

const spec =
  <R extends RecordMeta>() =>
  <const S extends CollectionSpec<R>>(s: S): S & { readonly __record?: R } =>
    s;

export const collectionSpecs = {
  merchants: spec<MerchantRecord>()({
    name: 'merchants',
    id: 'merchant_id',
    scope: null,
    unique: [],
    filters: ['status'],
  }),
  accounts: spec<AccountRecord>()({
    name: 'accounts',
    id: 'account_id',
    scope: 'merchant_id',
    unique: [],
    filters: ['merchant_id', 'status'],
  }),
  apiKeys: spec<ApiKeyRecord>()({
    name: 'api_keys',
    id: 'key_id',
    scope: 'account_id',
    unique: [],
    filters: ['account_id', 'status', 'env'],
  }),
  payoutMethods: spec<PayoutMethodRecord>()({
    name: 'payout_methods',
    id: 'method_id',
    scope: null,
    unique: [],
    filters: ['currency_type', 'status'],
  }),
  payoutNetworks: spec<PayoutNetworkRecord>()({
    name: 'payout_networks',
    id: 'code',
    scope: null,
    unique: [],
    filters: ['status'],
  }),
  payoutRoutes: spec<PayoutRouteRecord>()({
    name: 'payout_routes',
    id: 'route_id',
    scope: null,
    unique: [],
    filters: ['account_id', 'currency', 'method_id', 'channel_id', 'status'],
  }),
  beneficiaries: spec<BeneficiaryRecord>()({
    name: 'beneficiaries',
    id: 'beneficiary_id',
    scope: 'account_id',
    unique: [['account_id', 'method_id', 'payee_id']],
    filters: ['method_id', 'payee_id', 'status'],
  }),
  beneficiaryAccounts: spec<BeneficiaryAccountRecord>()({
    name: 'beneficiary_accounts',
    id: 'beneficiary_account_id',
    scope: 'account_id',
    unique: [['beneficiary_id', 'network_code']],
    filters: ['beneficiary_id', 'network_code', 'status'],
  }),
  payouts: spec<PayoutRecord>()({
    name: 'payouts',
    id: 'payout_id',
    scope: 'account_id',
    unique: [
      ['account_id', 'reference'],
      ['account_id', 'client_request_id'],
    ],
    filters: [
      'reference',
      'client_request_id',
      'status',
      'review_status',
      'execution_status',
      'batch_id',
    ],
  }),
  acquiringOrders: spec<AcquiringOrderRecord>()({
    name: 'acquiring_orders',
    id: 'order_id',
    scope: 'account_id',
    unique: [['account_id', 'out_trade_no']],
    filters: ['out_trade_no', 'status'],
  }),
  depositAddresses: spec<DepositAddressRecord>()({
    name: 'deposit_addresses',
    id: 'address_id',
    scope: 'account_id',
    unique: [['network', 'address']],
    filters: ['order_id', 'network', 'address'],
  }),
  acquiringPayments: spec<AcquiringPaymentRecord>()({
    name: 'acquiring_payments',
    id: 'payment_id',
    scope: 'account_id',
    unique: [],
    filters: ['order_id'],
    appendOnly: true,
  }),
  acquiringRefunds: spec<AcquiringRefundRecord>()({
    name: 'acquiring_refunds',
    id: 'refund_id',
    scope: 'account_id',
    unique: [['account_id', 'client_refund_id']],
    filters: ['order_id', 'status'],
  }),
  cryptoBatches: spec<CryptoBatchRecord>()({
    name: 'crypto_batches',
    id: 'batch_id',
    scope: 'account_id',
    unique: [],
    filters: ['status'],
  }),
  webhooks: spec<WebhookRecord>()({
    name: 'webhooks',
    id: 'webhook_id',
    scope: 'account_id',
    unique: [],
    filters: ['status'],
  }),
  webhookDeliveries: spec<WebhookDeliveryRecord>()({
    name: 'webhook_deliveries',
    id: 'delivery_id',
    scope: 'account_id',
    unique: [['event_id', 'webhook_id', 'url']],
    filters: ['webhook_id', 'event_id', 'status', 'business_id'],
  }),
  deposits: spec<FundingRecord>()({
    name: 'deposits',
    id: 'record_id',
    scope: 'account_id',
    unique: [],
    filters: ['currency', 'network', 'status'],
  }),
  withdrawals: spec<FundingRecord>()({
    name: 'withdrawals',
    id: 'record_id',
    scope: 'account_id',
    unique: [],
    filters: ['currency', 'network', 'status'],
  }),
  operators: spec<OperatorRecord>()({
    name: 'operators',
    id: 'operator_id',
    scope: null,
    unique: [['name']],
    filters: ['status', 'role'],
  }),
  auditRecords: spec<AuditRecord>()({
    name: 'audit_records',
    id: 'audit_id',
    scope: 'account_id',
    unique: [],
    filters: ['actor_type', 'actor_id', 'action', 'object_type', 'object_id'],
    appendOnly: true,
  }),
} as const;

export type CollectionSpecs = typeof collectionSpecs;
export type CollectionName = keyof CollectionSpecs;

/**
 * A spec with its field names as plain strings: how a store sees every collection alike when it
 * treats a record as a bag of fields. Every spec above is one.
 */
export interface LooseCollectionSpec {
  readonly name: string;
  readonly id: string;
  readonly scope: string | null;
  readonly unique: readonly (readonly string[])[];
  readonly filters: readonly string[];
  readonly appendOnly?: true;
}
/** The record type a collection holds. */
export type RecordOf<N extends CollectionName> = NonNullable<CollectionSpecs[N]['__record']>;
