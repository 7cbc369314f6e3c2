/**
 * What the engine's use cases answer, by name: the views that `Engine` (engine.api.ts) puts
 * under each answer's keys, so a host can name the type of what it reads. Each is the type of
 * the core's answer codec of that shape (`*-answers.codecs.ts`), the codec `/openapi.json`
 * documents the answer with, so the engine's types and the document cannot drift apart.
 */
export type {
  AccountNotifySecretView,
  AccountView,
  AdminOrderAnswer,
  ApiKeyView,
  AuditRecordView,
  AvailablePayoutMethodView,
  BalanceView,
  BatchItemView,
  BatchView,
  BeneficiaryAccountView,
  BeneficiaryView,
  CheckoutOrderView,
  ClockView,
  CreatedPayoutView,
  FundingView,
  IssuedApiKeyView,
  IssuedOperatorView,
  LedgerEntryView,
  MerchantView,
  NetworkSchemaView,
  OperatorView,
  OrderAnswer,
  OrderView as AcquiringOrderView,
  PaymentView as PaymentRecordView,
  PayoutMethodView,
  PayoutNetworkView,
  PayoutRouteView,
  PayoutView,
  ReceivingNetworkView,
  RefundView,
  SettlementReportAnswer,
  StatementAnswer,
  UpstreamEventResult,
  WebhookDeliveryView,
  WebhookView,
  WebhookWithSecretView,
} from '@payrail/core';
