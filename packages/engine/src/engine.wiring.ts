/**
 * The engine's face: it assembles the parts (each a factory over the same dependencies, their
 * timer handlers gathered so one worker fires every kind of timer) and declares every door.
 *
 * Every door that changes state is an act (ADR 0040): the merchant's with the API key as actor
 * (its permissions are the use case's to check), the operator's behind the role check of the
 * matrix (ADR 0039), before anything runs. The act travels with the use case (`withinAct`), and
 * the audit trail writes its record as the last write of the act's unit of work. Reads pass
 * through without a record.
 */
import type { OperatorPermission, Store } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { accessUseCases } from './access/access.use-cases.js';
import { acquiringUseCases } from './acquiring/acquiring.use-cases.js';
import { requireDepositAddressesForProviders } from './acquiring/deposit-addresses.store.js';
import {
  type Actor,
  auditingStore,
  currentAction,
  type ObjectType,
  withinAct,
} from './audit/audit-trail.store.js';
import { batchUseCases } from './batches/batch.use-cases.js';
import { isConflict, isRefusal, type Outcome, unitOfWork } from './command/command.handler.js';
import type { Caller, Engine, Operator } from './engine.api.js';
import type { EngineDeps } from './engine.deps.js';
import { observingStore } from './engine.observer.js';
import { inspectingStore } from './inspection.observer.js';
import { type AdminUseCaseName, adminPermissions } from './operators/admin-permissions.policy.js';
import { operatorUseCases, requireOperatorPermission } from './operators/operators.use-cases.js';
import { payoutUseCases } from './payouts/payout.use-cases.js';
import { settlementReport } from './statements/settlement-report.use-case.js';
import { statementUseCases } from './statements/statement.use-cases.js';
import { upstreamUseCases } from './upstream/upstream.use-cases.js';
import { timerWorker } from './workers/timer.worker.js';

/** What the trail records of an act besides its actor. */
interface ActSpec<A extends readonly unknown[]> {
  readonly action: string;
  readonly objectType: ObjectType;
  /** A word on the act from its arguments (a review's action, a status set). */
  readonly detail?: (...args: A) => string | undefined;
}

type Run<A extends readonly unknown[], T> = (...args: A) => Promise<Outcome<T>>;

const keyActor = (caller: Caller): Actor => ({
  actor_type: 'api_key',
  actor_id: caller.key_id,
  actor_name: null,
  request_id: caller.request_id,
  client_ip: caller.client_ip,
});

const operatorActor = (operator: Operator): Actor => ({
  actor_type: 'operator',
  actor_id: operator.operator_id,
  actor_name: operator.name,
  request_id: operator.request_id,
  client_ip: operator.client_ip,
});

/** A short word from the body's `field`, when it is one (`approve`, `disabled`). */
const bodyWord =
  (field: string) =>
  (...args: readonly unknown[]): string | undefined => {
    const body = args.at(-1);
    if (typeof body !== 'object' || body === null) return undefined;
    const value: unknown = Reflect.get(body, field);
    return typeof value === 'string' && /^[a-z_]{1,32}$/.test(value) ? value : undefined;
  };

/** A merchant's use case as an act of the calling API key. */
const keyAct =
  <A extends readonly unknown[], T>(spec: ActSpec<A>, run: Run<[Caller, ...A], T>) =>
  (caller: Caller, ...args: A): Promise<Outcome<T>> =>
    withinAct(
      {
        actor: keyActor(caller),
        action: spec.action,
        objectType: spec.objectType,
        detail: spec.detail?.(...args),
      },
      () => run(caller, ...args),
    );

/** The operator-facing doors, over the engine's store. */
const operatorDoors = (deps: EngineDeps) => {
  const permitted = (operator: Operator, permission: OperatorPermission) =>
    unitOfWork(deps.store, (tx) => requireOperatorPermission(tx, operator, permission));

  /** An admin read: the role check, then `run` (which does not need the operator). */
  const read =
    <A extends readonly unknown[], T>(name: AdminUseCaseName, run: Run<A, T>) =>
    async (operator: Operator, ...args: A): Promise<Outcome<T>> => {
      const allowed = await permitted(operator, adminPermissions[name]);
      return E.isLeft(allowed) ? allowed : run(...args);
    };

  /** An admin act: the role check, then `run` as the operator's act. */
  const act =
    <A extends readonly unknown[], T>(name: AdminUseCaseName, spec: ActSpec<A>, run: Run<A, T>) =>
    (operator: Operator, ...args: A): Promise<Outcome<T>> =>
      actAs(name, spec, (_: Operator, ...rest: A) => run(...rest))(operator, ...args);

  /** An admin act whose use case needs to know the operator too. */
  const actAs =
    <A extends readonly unknown[], T>(
      name: AdminUseCaseName,
      spec: ActSpec<A>,
      run: Run<[Operator, ...A], T>,
    ) =>
    async (operator: Operator, ...args: A): Promise<Outcome<T>> => {
      const allowed = await permitted(operator, adminPermissions[name]);
      if (E.isLeft(allowed)) return allowed;
      return withinAct(
        {
          actor: operatorActor(operator),
          action: spec.action,
          objectType: spec.objectType,
          detail: spec.detail?.(...args),
        },
        () => run(operator, ...args),
      );
    };

  return { read, act, actAs };
};

/** The parts of the engine, each a factory over the same dependencies. */
interface Parts {
  readonly access: ReturnType<typeof accessUseCases>;
  readonly payouts: ReturnType<typeof payoutUseCases>;
  readonly acquiring: ReturnType<typeof acquiringUseCases>;
  readonly batches: ReturnType<typeof batchUseCases>;
  readonly operators: ReturnType<typeof operatorUseCases>;
  readonly workers: ReturnType<typeof timerWorker>;
  readonly settlementReport: ReturnType<typeof settlementReport>;
}

type MerchantActs = Pick<
  Engine,
  'webhooks' | 'payouts' | 'beneficiaries' | 'beneficiaryAccounts' | 'acquiring' | 'batches'
>;

/** The merchant's doors that change state, each an act of the calling API key. */
const merchantActs = ({ access, payouts, acquiring, batches }: Parts): MerchantActs => {
  const status = bodyWord('status');
  return {
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
      refund: keyAct(
        { action: 'acquiring_refund.create', objectType: 'acquiring_refund' },
        acquiring.acquiring.refund,
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
  };
};

type Doors = ReturnType<typeof operatorDoors>;

/** The operators' own doors: operators, merchants and their API keys, and the audit trail. */
const accessAdmin = (
  { access, operators, settlementReport: report }: Parts,
  { read, act, actAs }: Doors,
) => {
  const admin = access.admin;
  const status = bodyWord('status');
  return {
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
    settlementReport: read('settlementReport', report),
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
  };
};

/** The operators' doors on payouts and acquiring: review, catalogue, credit, the sandbox. */
const productAdmin = ({ access, payouts, workers }: Parts, { read, act }: Doors) => {
  const admin = { ...access.admin, ...payouts.admin };
  const status = bodyWord('status');
  return {
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
    advanceClock: act(
      'advanceClock',
      { action: 'sandbox.clock_advance', objectType: 'payout' },
      workers.advanceClock,
    ),
  };
};

/**
 * The operators' doors on acquiring: an order with its payments and refunds, its resolution, a
 * refund's review (ADR 0044), and the sandbox's chain payment and refund outcome.
 */
const acquiringAdmin = ({ acquiring }: Parts, { read, act, actAs }: Doors) => {
  const admin = acquiring.admin;
  return {
    getOrder: read('getOrder', admin.getOrder),
    resolveOrder: actAs(
      'resolveOrder',
      {
        action: 'acquiring_order.resolve',
        objectType: 'acquiring_order',
        detail: bodyWord('action'),
      },
      acquiring.operatorActs.resolveOrder,
    ),
    reviewRefund: actAs(
      'reviewRefund',
      {
        action: 'acquiring_refund.review',
        objectType: 'acquiring_refund',
        detail: bodyWord('action'),
      },
      acquiring.operatorActs.reviewRefund,
    ),
    sandboxRefundExecution: act(
      'sandboxRefundExecution',
      {
        action: 'sandbox.refund_execution',
        objectType: 'acquiring_refund',
        detail: bodyWord('outcome'),
      },
      admin.sandboxRefundExecution,
    ),
    sandboxPayment: act(
      'sandboxPayment',
      { action: 'sandbox.order_payment', objectType: 'acquiring_order' },
      admin.sandboxPayment,
    ),
  };
};

/**
 * The store the use cases write through: audited, and inspected and observed when the host asks
 * (only a watched engine pays for noting its decisions).
 */
const watchedStore = (given: EngineDeps): Store => {
  const audited = auditingStore(given.store, given.clock);
  const inspected = given.inspect === undefined ? audited : inspectingStore(audited, given.inspect);
  return given.observer === undefined
    ? inspected
    : observingStore(inspected, given.observer, currentAction, { isRefusal, isConflict });
};

export const createEngine = (given: EngineDeps): Engine => {
  requireDepositAddressesForProviders(given);
  const deps: EngineDeps = { ...given, store: watchedStore(given) };
  const payouts = payoutUseCases(deps);
  const acquiring = acquiringUseCases(deps);
  const timerHandlers = { ...payouts.timerHandlers, ...acquiring.timerHandlers };
  const parts: Parts = {
    access: accessUseCases(deps),
    payouts,
    acquiring,
    batches: batchUseCases(deps),
    operators: operatorUseCases(deps),
    workers: timerWorker(deps, timerHandlers),
    settlementReport: settlementReport(deps),
  };
  const doors = operatorDoors(deps);
  return {
    auth: { ...parts.access.auth, authenticateOperator: parts.operators.authenticate },
    accounts: { ...parts.access.accounts, audit: parts.operators.accountAudit },
    statements: statementUseCases(deps),
    payoutSetup: payouts.payoutSetup,
    ...merchantActs(parts),
    checkout: acquiring.checkout,
    admin: {
      ...accessAdmin(parts, doors),
      ...productAdmin(parts, doors),
      ...acquiringAdmin(parts, doors),
    },
    upstream: upstreamUseCases(deps),
    executions: { ...payouts.executions, ...acquiring.executions },
    callbacks: {
      verificationAnswered: payouts.answerVerification,
      verificationRequestOpen: payouts.verificationRequestOpen,
    },
    workers: { runDueTimers: parts.workers.runDueTimers },
  };
};
