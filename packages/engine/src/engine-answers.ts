/**
 * What the engine's use cases answer, by name: the views that `Engine` (engine-api.ts) puts
 * under each answer's keys, so a host can name the type of what it reads. Where the core already
 * has the wire's view (a payout, an order, a payment record, a batch item) it is that type.
 */
export type {
  AcquiringOrderView,
  CryptoBatchItemView as BatchItemView,
  CryptoBatchView,
  DeliveryAttempt,
  NetworkSchemaField,
  PaymentRecordView,
  PayoutResource,
} from '@payrail/core';
export type {
  AccountNotifySecretView,
  AccountView,
  ApiKeyView,
  BalanceView,
  FundingView,
  IssuedApiKeyView,
  LedgerEntryView,
  MerchantView,
  WebhookDeliveryView,
  WebhookView,
  WebhookWithSecretView,
} from './access/access.views.js';
export type {
  CheckoutOrderView,
  CheckoutPayToken,
  OrderAnswer,
  PaymentAddressView,
} from './acquiring/acquiring-views.js';
export type { BatchView } from './batches/batch-views.js';
export type {
  AvailablePayoutMethodView,
  BeneficiaryAccountView,
  BeneficiaryView,
  CreatedPayoutView,
  NetworkSchemaView,
  PayoutMethodView,
  PayoutNetworkView,
  PayoutRouteView,
  PayoutView,
  ReceivingNetworkView,
  RiskStatus,
} from './payouts/payout-views.js';
export type { UpstreamEventResult } from './upstream/upstream-use-cases.js';
export type { ClockView } from './workers/timer-worker.js';
