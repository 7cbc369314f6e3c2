/**
 * @payrail/core: the pure domain of payrail. Money, the error catalogue, the request codecs,
 * the state machines with their effects as data, the ledger, webhook envelopes, and the ports
 * that stores and other adapters implement. No I/O.
 */
export * from './codecs/access-answers.codecs.js';
export * from './codecs/acquiring.codecs.js';
export * from './codecs/acquiring-answers.codecs.js';
export * from './codecs/acquiring-refund.codecs.js';
export * from './codecs/addresses.js';
export * from './codecs/admin.codecs.js';
export * from './codecs/batch-answers.codecs.js';
export * from './codecs/beneficiary.codecs.js';
export * from './codecs/beneficiary-account.codecs.js';
export * from './codecs/codec-toolkit.js';
export * from './codecs/common-answers.codecs.js';
export * from './codecs/crypto-batch.codecs.js';
export * from './codecs/execution-report.codecs.js';
export * from './codecs/ip-ranges.js';
export * from './codecs/list-query.codecs.js';
export * from './codecs/operator.codecs.js';
export * from './codecs/payout.codecs.js';
export * from './codecs/payout-answers.codecs.js';
export * from './codecs/payout-config.codecs.js';
export * from './codecs/sandbox-payment.codecs.js';
export * from './codecs/statement-answers.codecs.js';
export * from './codecs/webhook.codecs.js';
export * from './codecs/zip-formats.js';
export * from './errors/error-catalogue.js';
export * from './ledger/ledger.js';
export * from './ledger/statement.js';
export * from './machines/acquiring-order.machine.js';
export * from './machines/acquiring-order.persistence.js';
export * from './machines/acquiring-refund.machine.js';
export * from './machines/acquiring-refund.persistence.js';
export * from './machines/crypto-batch.machine.js';
export * from './machines/crypto-batch.persistence.js';
export * from './machines/effects.js';
export * from './machines/machine-actor.js';
export * from './machines/machine-definition.js';
export * from './machines/machine-diagram.js';
export * from './machines/order-refunds.js';
export * from './machines/order-status.js';
export * from './machines/payout.machine.js';
export * from './machines/payout.view.js';
export { CorruptSnapshotError } from './machines/snapshot-persistence.js';
export * from './money/fees.js';
export * from './money/money.js';
export * from './money/pay-tokens.js';
export type * from './ports/acquiring-provider.js';
export type * from './ports/clock.js';
export * from './ports/collections.js';
export type * from './ports/deposit-address-provider.js';
export type * from './ports/outbound-url-guard.js';
export type * from './ports/payout-executor.js';
export type * from './ports/records.js';
export * from './ports/store.js';
export type * from './ports/store-oracle.js';
export * from './webhooks/webhook-envelope.js';
