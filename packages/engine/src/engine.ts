/**
 * Assembles the engine from its parts. Each part is a factory over the same dependencies; the
 * timer handlers of the parts are gathered here so one worker fires every kind of timer.
 *
 * Here too every door that changes state is declared as an act (ADR 0040): the merchant's with
 * the API key as actor (its permissions are the use case's to check), the operator's behind the
 * role check of the matrix (ADR 0039). The audit trail records each act in its own unit of work.
 */

import { accessUseCases } from './access/access.use-cases.js';
import { acquiringUseCases } from './acquiring/acquiring.use-cases.js';
import { requireDepositAddressesForProviders } from './acquiring/deposit-addresses.js';
import { auditingStore } from './audit/audit-trail.js';
import { bodyWord, keyAct, operatorDoors } from './audit/engine-acts.js';
import { batchUseCases } from './batches/batch.use-cases.js';
import type { Engine } from './engine-api.js';
import type { EngineDeps } from './engine-deps.js';
import { inspectingStore } from './inspection.js';
import { operatorUseCases } from './operators/operators.use-cases.js';
import { payoutUseCases } from './payouts/payout.use-cases.js';
import { upstreamUseCases } from './upstream/upstream.use-cases.js';
import { timerWorker } from './workers/timer-worker.js';

export const createEngine = (given: EngineDeps): Engine => {
  requireDepositAddressesForProviders(given);
  const audited = auditingStore(given.store, given.clock);
  // Only a watched engine pays for noting its decisions.
  const deps: EngineDeps = {
    ...given,
    store: given.inspect === undefined ? audited : inspectingStore(audited, given.inspect),
  };
  const access = accessUseCases(deps);
  const payouts = payoutUseCases(deps);
  const acquiring = acquiringUseCases(deps);
  const batches = batchUseCases(deps);
  const operators = operatorUseCases(deps);
  const workers = timerWorker(deps, { ...payouts.timerHandlers, ...acquiring.timerHandlers });
  const { read, act, actAs } = operatorDoors(deps);
  const admin = { ...access.admin, ...payouts.admin, ...acquiring.admin };
  const status = bodyWord('status');
  return {
    auth: { ...access.auth, authenticateOperator: operators.authenticate },
    accounts: { ...access.accounts, audit: operators.accountAudit },
    webhooks: {
      ...access.webhooks,
      create: keyAct({ action: 'webhook.create', objectType: 'webhook' }, access.webhooks.create),
      update: keyAct(
        { action: 'webhook.update', objectType: 'webhook', detail: status },
        access.webhooks.update,
      ),
      remove: keyAct({ action: 'webhook.delete', objectType: 'webhook' }, access.webhooks.remove),
      rotateSecret: keyAct(
        { action: 'webhook.rotate_secret', objectType: 'webhook' },
        access.webhooks.rotateSecret,
      ),
      redeliver: keyAct(
        { action: 'webhook_delivery.redeliver', objectType: 'webhook_delivery' },
        access.webhooks.redeliver,
      ),
    },
    payoutSetup: payouts.payoutSetup,
    payouts: {
      ...payouts.payouts,
      create: keyAct({ action: 'payout.create', objectType: 'payout' }, payouts.payouts.create),
      update: keyAct({ action: 'payout.update', objectType: 'payout' }, payouts.payouts.update),
      submit: keyAct({ action: 'payout.submit', objectType: 'payout' }, payouts.payouts.submit),
      cancel: keyAct({ action: 'payout.cancel', objectType: 'payout' }, payouts.payouts.cancel),
    },
    beneficiaries: {
      ...payouts.beneficiaries,
      create: keyAct(
        { action: 'beneficiary.create', objectType: 'beneficiary' },
        payouts.beneficiaries.create,
      ),
      update: keyAct(
        { action: 'beneficiary.update', objectType: 'beneficiary' },
        payouts.beneficiaries.update,
      ),
    },
    beneficiaryAccounts: {
      ...payouts.beneficiaryAccounts,
      create: keyAct(
        { action: 'beneficiary_account.create', objectType: 'beneficiary_account' },
        payouts.beneficiaryAccounts.create,
      ),
      update: keyAct(
        { action: 'beneficiary_account.update', objectType: 'beneficiary_account' },
        payouts.beneficiaryAccounts.update,
      ),
    },
    acquiring: {
      ...acquiring.acquiring,
      create: keyAct(
        { action: 'acquiring_order.create', objectType: 'acquiring_order' },
        acquiring.acquiring.create,
      ),
      close: keyAct(
        { action: 'acquiring_order.close', objectType: 'acquiring_order' },
        acquiring.acquiring.close,
      ),
    },
    batches: {
      ...batches,
      create: keyAct({ action: 'crypto_batch.create', objectType: 'crypto_batch' }, batches.create),
      addItems: keyAct(
        { action: 'crypto_batch.add_items', objectType: 'crypto_batch' },
        batches.addItems,
      ),
      approve: keyAct(
        { action: 'crypto_batch.approve', objectType: 'crypto_batch' },
        batches.approve,
      ),
      submit: keyAct({ action: 'crypto_batch.submit', objectType: 'crypto_batch' }, batches.submit),
    },
    checkout: acquiring.checkout,
    admin: {
      createOperator: actAs(
        'createOperator',
        { action: 'operator.create', objectType: 'operator' },
        operators.create,
      ),
      listOperators: read('listOperators', operators.list),
      updateOperator: actAs(
        'updateOperator',
        { action: 'operator.update', objectType: 'operator', detail: status },
        operators.update,
      ),
      rotateOperator: act(
        'rotateOperator',
        { action: 'operator.rotate', objectType: 'operator' },
        operators.rotate,
      ),
      audit: read('audit', operators.audit),
      createMerchant: act(
        'createMerchant',
        { action: 'merchant.create', objectType: 'merchant' },
        admin.createMerchant,
      ),
      updateAccount: act(
        'updateAccount',
        { action: 'account.update', objectType: 'account', detail: status },
        admin.updateAccount,
      ),
      rotateNotifySecret: act(
        'rotateNotifySecret',
        { action: 'account.rotate_notify_secret', objectType: 'account' },
        admin.rotateNotifySecret,
      ),
      issueApiKey: act(
        'issueApiKey',
        { action: 'api_key.issue', objectType: 'api_key' },
        admin.issueApiKey,
      ),
      listApiKeys: read('listApiKeys', admin.listApiKeys),
      rotateApiKey: act(
        'rotateApiKey',
        { action: 'api_key.rotate', objectType: 'api_key' },
        admin.rotateApiKey,
      ),
      updateApiKey: act(
        'updateApiKey',
        { action: 'api_key.update', objectType: 'api_key', detail: status },
        admin.updateApiKey,
      ),
      deleteApiKey: act(
        'deleteApiKey',
        { action: 'api_key.delete', objectType: 'api_key' },
        admin.deleteApiKey,
      ),
      reviewPayout: act(
        'reviewPayout',
        { action: 'payout.review', objectType: 'payout', detail: bodyWord('action') },
        admin.reviewPayout,
      ),
      listPayoutMethods: read('listPayoutMethods', admin.listPayoutMethods),
      createPayoutMethod: act(
        'createPayoutMethod',
        { action: 'payout_method.create', objectType: 'payout_method' },
        admin.createPayoutMethod,
      ),
      updatePayoutMethod: act(
        'updatePayoutMethod',
        { action: 'payout_method.update', objectType: 'payout_method', detail: status },
        admin.updatePayoutMethod,
      ),
      listPayoutNetworks: read('listPayoutNetworks', admin.listPayoutNetworks),
      createPayoutNetwork: act(
        'createPayoutNetwork',
        { action: 'payout_network.create', objectType: 'payout_network' },
        admin.createPayoutNetwork,
      ),
      updatePayoutNetwork: act(
        'updatePayoutNetwork',
        { action: 'payout_network.update', objectType: 'payout_network', detail: status },
        admin.updatePayoutNetwork,
      ),
      listRoutes: read('listRoutes', admin.listRoutes),
      createRoute: act(
        'createRoute',
        { action: 'route.create', objectType: 'route' },
        admin.createRoute,
      ),
      updateRoute: act(
        'updateRoute',
        { action: 'route.update', objectType: 'route', detail: status },
        admin.updateRoute,
      ),
      credit: act('credit', { action: 'account.credit', objectType: 'deposit' }, admin.credit),
      sandboxExecution: act(
        'sandboxExecution',
        { action: 'sandbox.payout_execution', objectType: 'payout', detail: bodyWord('outcome') },
        admin.sandboxExecution,
      ),
      sandboxPayment: act(
        'sandboxPayment',
        { action: 'sandbox.order_payment', objectType: 'acquiring_order' },
        admin.sandboxPayment,
      ),
      advanceClock: act(
        'advanceClock',
        { action: 'sandbox.clock_advance', objectType: 'payout' },
        workers.advanceClock,
      ),
    },
    upstream: upstreamUseCases(deps),
    executions: payouts.executions,
    callbacks: {
      verificationAnswered: payouts.answerVerification,
      verificationRequestOpen: payouts.verificationRequestOpen,
    },
    workers: { runDueTimers: workers.runDueTimers },
  };
};
