/**
 * The typed face of an embedded payrail: each use case of the engine with its input typed as
 * the core's codec type (fields the codec defaults may be left out) and its answer as the
 * engine's view, or a `PayrailError` (an `Outcome`, fp-ts's Either). The input is still decoded
 * at run time, so a JavaScript host gets the catalogue's messages for a wrong body too.
 */
import type {
  AccountCreditRequest,
  AccountListQuery,
  AccountUpdateRequest,
  AcquiringOrderCloseRequest,
  AcquiringOrderCreateRequest,
  AcquiringOrderListQuery,
  ApiKeyIssueRequest,
  ApiKeyUpdateRequest,
  AuditListQuery,
  BalanceListQuery,
  BatchApproveRequest,
  BeneficiaryAccountCreateRequest,
  BeneficiaryAccountPatchRequest,
  BeneficiaryCreateRequest,
  BeneficiaryPatchRequest,
  CryptoBatchCreateRequest,
  CryptoBatchItemsRequest,
  DepositListQuery,
  LedgerListQuery,
  MerchantCreateRequest,
  OperatorCreateRequest,
  OperatorUpdateRequest,
  PageQuery,
  PayoutCreateRequest,
  PayoutListQuery,
  PayoutMethodDraft,
  PayoutMethodListQuery,
  PayoutNetworkDraft,
  PayoutNetworkListQuery,
  PayoutReviewRequest,
  PayoutRouteDraft,
  PayoutUpdateRequest,
  PayrailError,
  SandboxExecutionRequest,
  SandboxPaymentRequest,
  SettlementReportQuery,
  StatementExportQuery,
  StatementQuery,
  WebhookCreateRequest,
  WebhookUpdateRequest,
  WithdrawalListQuery,
} from '@payrail/core';
import type { Caller, Engine, Operator, Outcome, Query } from '@payrail/engine';

/** A refusal `orThrow` raised: the catalogue's error as data, under `error`. */
export class PayrailFailure extends Error {
  constructor(readonly error: PayrailError) {
    super(error.message);
    this.name = 'PayrailFailure';
  }
}

/**
 * The answer of a use case, or a `PayrailFailure` thrown with its error: for a host that
 * prefers exceptions to matching `outcome._tag` (`'Right'` with `right`, `'Left'` with `left`).
 */
export const orThrow = <A>(outcome: Outcome<A>): A => {
  if (outcome._tag === 'Left') throw new PayrailFailure(outcome.left);
  return outcome.right;
};

/** `T` as a host writes it: the keys `K`, which the codec fills in when absent, may be left out. */
export type InputOf<T, K extends keyof T = never> = Omit<T, K> & Partial<Pick<T, K>>;

/** A list query as a host writes it: every parameter optional, numbers as numbers. */
export type QueryOf<T> = { readonly [P in keyof T]?: T[P] };

export type MerchantCreateInput = InputOf<MerchantCreateRequest, 'currencies'>;
export type OperatorCreateInput = InputOf<OperatorCreateRequest, 'expires_in_seconds'>;
export type ApiKeyIssueInput = InputOf<
  ApiKeyIssueRequest,
  'ip_whitelist' | 'expires_in_seconds' | 'name'
>;
export type PayoutCreateInput = InputOf<PayoutCreateRequest, 'fee_bearer' | 'submit'>;
export type PayoutUpdateInput = Partial<PayoutUpdateRequest>;
export type OrderCreateInput = InputOf<
  AcquiringOrderCreateRequest,
  'mode' | 'checkout_type' | 'redirect_automatically'
>;
export type WebhookCreateInput = InputOf<WebhookCreateRequest, 'status'>;

/** The query string the engine reads, from typed parameters; absent ones are left out. */
const queryOf = (params: object | undefined): Query => {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    if (value !== undefined) query[name] = String(value);
  }
  return query;
};

/** What the answer of `useCase` is once it resolved: `Outcome<Answer>`. */
type Answer<F> = F extends (...args: never[]) => infer R ? R : never;

/** A merchant's records of one kind (`useCases`): created, read, listed a page at a time, patched. */
export interface RecordFacade<
  UseCases extends Record<'create' | 'get' | 'list' | 'update', unknown>,
  CreateInput,
  PatchInput,
> {
  create(input: CreateInput): Answer<UseCases['create']>;
  get(id: string): Answer<UseCases['get']>;
  list(query?: QueryOf<PageQuery>): Answer<UseCases['list']>;
  update(id: string, input: PatchInput): Answer<UseCases['update']>;
}

export interface MerchantFacade {
  readonly caller: Caller;
  readonly accounts: {
    current(): Answer<Engine['accounts']['current']>;
    list(query?: QueryOf<AccountListQuery>): Answer<Engine['accounts']['list']>;
    balances(query?: QueryOf<BalanceListQuery>): Answer<Engine['accounts']['balances']>;
    deposits(query?: QueryOf<DepositListQuery>): Answer<Engine['accounts']['deposits']>;
    withdrawals(query?: QueryOf<WithdrawalListQuery>): Answer<Engine['accounts']['withdrawals']>;
    ledger(query?: QueryOf<LedgerListQuery>): Answer<Engine['accounts']['ledger']>;
    /** The account's audit trail, newest first (ADR 0040). */
    audit(query?: QueryOf<AuditListQuery>): Answer<Engine['accounts']['audit']>;
  };
  /** Statements that tie out (ADR 0045); `currency`, `start_at` and `end_at` are required. */
  readonly statements: {
    statement(query: QueryOf<StatementQuery>): Answer<Engine['statements']['statement']>;
    /** The CSV: its `chunks` are read from the store, a page at a time, as they are consumed. */
    statementCsv(
      query: QueryOf<StatementExportQuery>,
    ): Answer<Engine['statements']['statementCsv']>;
  };
  readonly payoutSetup: {
    methods(query?: QueryOf<PayoutMethodListQuery>): Answer<Engine['payoutSetup']['methods']>;
    networks(query?: QueryOf<PayoutNetworkListQuery>): Answer<Engine['payoutSetup']['networks']>;
    networkSchema(networkCode: string): Answer<Engine['payoutSetup']['networkSchema']>;
  };
  readonly payouts: {
    create(input: PayoutCreateInput): Answer<Engine['payouts']['create']>;
    get(payoutId: string): Answer<Engine['payouts']['get']>;
    list(query?: QueryOf<PayoutListQuery>): Answer<Engine['payouts']['list']>;
    update(payoutId: string, input: PayoutUpdateInput): Answer<Engine['payouts']['update']>;
    submit(payoutId: string): Answer<Engine['payouts']['submit']>;
    cancel(payoutId: string): Answer<Engine['payouts']['cancel']>;
    deliveries(
      payoutId: string,
      query?: QueryOf<PageQuery>,
    ): Answer<Engine['payouts']['deliveries']>;
  };
  readonly beneficiaries: RecordFacade<
    Engine['beneficiaries'],
    BeneficiaryCreateRequest,
    BeneficiaryPatchRequest
  >;
  readonly beneficiaryAccounts: RecordFacade<
    Engine['beneficiaryAccounts'],
    BeneficiaryAccountCreateRequest,
    BeneficiaryAccountPatchRequest
  >;
  readonly orders: {
    create(input: OrderCreateInput): Answer<Engine['acquiring']['create']>;
    get(orderId: string): Answer<Engine['acquiring']['get']>;
    list(query?: QueryOf<AcquiringOrderListQuery>): Answer<Engine['acquiring']['list']>;
    payments(orderId: string): Answer<Engine['acquiring']['payments']>;
    close(orderId: string, input: AcquiringOrderCloseRequest): Answer<Engine['acquiring']['close']>;
  };
  readonly batches: {
    create(input: CryptoBatchCreateRequest): Answer<Engine['batches']['create']>;
    get(batchId: string): Answer<Engine['batches']['get']>;
    items(batchId: string, query?: QueryOf<PageQuery>): Answer<Engine['batches']['items']>;
    addItems(
      batchId: string,
      input: CryptoBatchItemsRequest,
    ): Answer<Engine['batches']['addItems']>;
    approve(batchId: string, input: BatchApproveRequest): Answer<Engine['batches']['approve']>;
    submit(batchId: string): Answer<Engine['batches']['submit']>;
  };
  readonly webhooks: {
    create(input: WebhookCreateInput): Answer<Engine['webhooks']['create']>;
    list(query?: QueryOf<PageQuery>): Answer<Engine['webhooks']['list']>;
    get(webhookId: string): Answer<Engine['webhooks']['get']>;
    update(webhookId: string, input: WebhookUpdateRequest): Answer<Engine['webhooks']['update']>;
    remove(webhookId: string): Answer<Engine['webhooks']['remove']>;
    rotateSecret(webhookId: string): Answer<Engine['webhooks']['rotateSecret']>;
    deliveries(
      webhookId: string,
      query?: QueryOf<PageQuery>,
    ): Answer<Engine['webhooks']['deliveries']>;
    redeliver(deliveryId: string): Answer<Engine['webhooks']['redeliver']>;
  };
}

/** A merchant's use cases, each bound to `caller` (its permissions are checked by each one). */
export const merchantFacade = (engine: Engine, caller: Caller): MerchantFacade => ({
  caller,
  accounts: {
    current: () => engine.accounts.current(caller),
    list: (query) => engine.accounts.list(caller, queryOf(query)),
    balances: (query) => engine.accounts.balances(caller, queryOf(query)),
    deposits: (query) => engine.accounts.deposits(caller, queryOf(query)),
    withdrawals: (query) => engine.accounts.withdrawals(caller, queryOf(query)),
    ledger: (query) => engine.accounts.ledger(caller, queryOf(query)),
    audit: (query) => engine.accounts.audit(caller, queryOf(query)),
  },
  statements: {
    statement: (query) => engine.statements.statement(caller, queryOf(query)),
    statementCsv: (query) => engine.statements.statementCsv(caller, queryOf(query)),
  },
  payoutSetup: {
    methods: (query) => engine.payoutSetup.methods(caller, queryOf(query)),
    networks: (query) => engine.payoutSetup.networks(caller, queryOf(query)),
    networkSchema: (networkCode) => engine.payoutSetup.networkSchema(caller, networkCode),
  },
  payouts: {
    create: (input) => engine.payouts.create(caller, input),
    get: (payoutId) => engine.payouts.get(caller, payoutId),
    list: (query) => engine.payouts.list(caller, queryOf(query)),
    update: (payoutId, input) => engine.payouts.update(caller, payoutId, input),
    submit: (payoutId) => engine.payouts.submit(caller, payoutId),
    cancel: (payoutId) => engine.payouts.cancel(caller, payoutId),
    deliveries: (payoutId, query) => engine.payouts.deliveries(caller, payoutId, queryOf(query)),
  },
  beneficiaries: {
    create: (input) => engine.beneficiaries.create(caller, input),
    get: (id) => engine.beneficiaries.get(caller, id),
    list: (query) => engine.beneficiaries.list(caller, queryOf(query)),
    update: (id, input) => engine.beneficiaries.update(caller, id, input),
  },
  beneficiaryAccounts: {
    create: (input) => engine.beneficiaryAccounts.create(caller, input),
    get: (id) => engine.beneficiaryAccounts.get(caller, id),
    list: (query) => engine.beneficiaryAccounts.list(caller, queryOf(query)),
    update: (id, input) => engine.beneficiaryAccounts.update(caller, id, input),
  },
  orders: {
    create: (input) => engine.acquiring.create(caller, input),
    get: (orderId) => engine.acquiring.get(caller, orderId),
    list: (query) => engine.acquiring.list(caller, queryOf(query)),
    payments: (orderId) => engine.acquiring.payments(caller, orderId),
    close: (orderId, input) => engine.acquiring.close(caller, orderId, input),
  },
  batches: {
    create: (input) => engine.batches.create(caller, input),
    get: (batchId) => engine.batches.get(caller, batchId),
    items: (batchId, query) => engine.batches.items(caller, batchId, queryOf(query)),
    addItems: (batchId, input) => engine.batches.addItems(caller, batchId, input),
    approve: (batchId, input) => engine.batches.approve(caller, batchId, input),
    submit: (batchId) => engine.batches.submit(caller, batchId),
  },
  webhooks: {
    create: (input) => engine.webhooks.create(caller, input),
    list: (query) => engine.webhooks.list(caller, queryOf(query)),
    get: (webhookId) => engine.webhooks.get(caller, webhookId),
    update: (webhookId, input) => engine.webhooks.update(caller, webhookId, input),
    remove: (webhookId) => engine.webhooks.remove(caller, webhookId),
    rotateSecret: (webhookId) => engine.webhooks.rotateSecret(caller, webhookId),
    deliveries: (webhookId, query) => engine.webhooks.deliveries(caller, webhookId, queryOf(query)),
    redeliver: (deliveryId) => engine.webhooks.redeliver(caller, deliveryId),
  },
});

type Admin = Engine['admin'];

export interface AdminFacade {
  /** A named operator with a role; its credential is in this answer only (ADR 0039). */
  createOperator(input: OperatorCreateInput): Answer<Admin['createOperator']>;
  listOperators(query?: QueryOf<{ limit: number; offset: number }>): Answer<Admin['listOperators']>;
  updateOperator(operatorId: string, input: OperatorUpdateRequest): Answer<Admin['updateOperator']>;
  rotateOperator(operatorId: string): Answer<Admin['rotateOperator']>;
  /** The audit trail, newest first (ADR 0040). */
  audit(query?: QueryOf<AuditListQuery>): Answer<Admin['audit']>;
  /** One UTC day across merchants (ADR 0045); `date` (YYYY-MM-DD) is required. */
  settlementReport(query: QueryOf<SettlementReportQuery>): Answer<Admin['settlementReport']>;
  createMerchant(input: MerchantCreateInput): Answer<Admin['createMerchant']>;
  updateAccount(accountId: string, input: AccountUpdateRequest): Answer<Admin['updateAccount']>;
  rotateNotifySecret(accountId: string): Answer<Admin['rotateNotifySecret']>;
  issueApiKey(accountId: string, input: ApiKeyIssueInput): Answer<Admin['issueApiKey']>;
  listApiKeys(accountId: string): Answer<Admin['listApiKeys']>;
  rotateApiKey(keyId: string): Answer<Admin['rotateApiKey']>;
  updateApiKey(keyId: string, input: ApiKeyUpdateRequest): Answer<Admin['updateApiKey']>;
  deleteApiKey(keyId: string): Answer<Admin['deleteApiKey']>;
  reviewPayout(payoutId: string, input: PayoutReviewRequest): Answer<Admin['reviewPayout']>;
  listPayoutMethods(query?: QueryOf<PayoutMethodListQuery>): Answer<Admin['listPayoutMethods']>;
  createPayoutMethod(input: PayoutMethodDraft): Answer<Admin['createPayoutMethod']>;
  updatePayoutMethod(
    methodId: string,
    input: Partial<PayoutMethodDraft>,
  ): Answer<Admin['updatePayoutMethod']>;
  listPayoutNetworks(query?: QueryOf<PayoutNetworkListQuery>): Answer<Admin['listPayoutNetworks']>;
  createPayoutNetwork(input: PayoutNetworkDraft): Answer<Admin['createPayoutNetwork']>;
  updatePayoutNetwork(
    code: string,
    input: Partial<PayoutNetworkDraft>,
  ): Answer<Admin['updatePayoutNetwork']>;
  /** Every route, a page at a time. */
  listRoutes(query?: QueryOf<{ limit: number; offset: number }>): Answer<Admin['listRoutes']>;
  createRoute(input: PayoutRouteDraft): Answer<Admin['createRoute']>;
  updateRoute(routeId: string, input: Partial<PayoutRouteDraft>): Answer<Admin['updateRoute']>;
  /** Sandbox only: test money. */
  credit(accountId: string, input: AccountCreditRequest): Answer<Admin['credit']>;
  /** Sandbox only: an execution outcome for an approved payout. */
  sandboxExecution(
    payoutId: string,
    input: SandboxExecutionRequest,
  ): Answer<Admin['sandboxExecution']>;
  /** Sandbox only: a payment record for an order, as the chain would report it. */
  sandboxPayment(orderId: string, input: SandboxPaymentRequest): Answer<Admin['sandboxPayment']>;
  /** Sandbox only: moves the test clock and fires what fell due. */
  advanceClock(input: { readonly seconds: number }): Answer<Admin['advanceClock']>;
}

/** The admin use cases acting as `operator` (the bootstrap operator for `payrail.admin`). */
export const adminFacade = (engine: Engine, operator: Operator): AdminFacade => {
  const admin = engine.admin;
  return {
    createOperator: (input) => admin.createOperator(operator, input),
    listOperators: (query) => admin.listOperators(operator, queryOf(query)),
    updateOperator: (operatorId, input) => admin.updateOperator(operator, operatorId, input),
    rotateOperator: (operatorId) => admin.rotateOperator(operator, operatorId),
    audit: (query) => admin.audit(operator, queryOf(query)),
    settlementReport: (query) => admin.settlementReport(operator, queryOf(query)),
    createMerchant: (input) => admin.createMerchant(operator, input),
    updateAccount: (accountId, input) => admin.updateAccount(operator, accountId, input),
    rotateNotifySecret: (accountId) => admin.rotateNotifySecret(operator, accountId),
    issueApiKey: (accountId, input) => admin.issueApiKey(operator, accountId, input),
    listApiKeys: (accountId) => admin.listApiKeys(operator, accountId),
    rotateApiKey: (keyId) => admin.rotateApiKey(operator, keyId),
    updateApiKey: (keyId, input) => admin.updateApiKey(operator, keyId, input),
    deleteApiKey: (keyId) => admin.deleteApiKey(operator, keyId),
    reviewPayout: (payoutId, input) => admin.reviewPayout(operator, payoutId, input),
    listPayoutMethods: (query) => admin.listPayoutMethods(operator, queryOf(query)),
    createPayoutMethod: (input) => admin.createPayoutMethod(operator, input),
    updatePayoutMethod: (methodId, input) => admin.updatePayoutMethod(operator, methodId, input),
    listPayoutNetworks: (query) => admin.listPayoutNetworks(operator, queryOf(query)),
    createPayoutNetwork: (input) => admin.createPayoutNetwork(operator, input),
    updatePayoutNetwork: (code, input) => admin.updatePayoutNetwork(operator, code, input),
    listRoutes: (query) => admin.listRoutes(operator, queryOf(query)),
    createRoute: (input) => admin.createRoute(operator, input),
    updateRoute: (routeId, input) => admin.updateRoute(operator, routeId, input),
    credit: (accountId, input) => admin.credit(operator, accountId, input),
    sandboxExecution: (payoutId, input) => admin.sandboxExecution(operator, payoutId, input),
    sandboxPayment: (orderId, input) => admin.sandboxPayment(operator, orderId, input),
    advanceClock: (input) => admin.advanceClock(operator, input),
  };
};
