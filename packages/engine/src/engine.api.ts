/**
 * The engine's face: every use case of the merchant interface, decisions.md and the admin API.
 * The HTTP adapter only translates: it authenticates, hands the raw body (`unknown`) or query
 * (`Query`) to a use case, and renders the `Outcome` as `{code, message, data}`. Bodies are
 * decoded here, with the core's codecs, so every transport gets the catalogue's messages.
 *
 * Each `data` is the envelope's `data` as the wire shows it: objects under a key named after
 * them (`{ payout }`, `{ order }`), lists as `{ items, total, limit, offset }` (`PageView`). The
 * objects are the views (`engine-answers.ts`): each entry below names what it answers, and the
 * compiler holds every implementation to it, so a host reads a typed answer, not a bag of keys.
 */
import type { AccountRecord, Environment, ExecutionReport, OperatorRole } from '@payrail/core';
import type { Outcome } from './command/command.handler.js';
import type * as Answers from './engine-answers.views.js';

/** Query parameters as they arrive (`URLSearchParams` flattened). */
export type Query = Readonly<Record<string, string | undefined>>;

/**
 * Any JSON object answer: what a transport renders without knowing which use case answered.
 * Every answer below is assignable to it, which is why they are type aliases or object types at
 * the top (an interface has no index signature), with interfaces inside.
 */
export type Data = Readonly<Record<string, unknown>>;

/** A list answer: one page of `items`, `total` of every page together. */
export type PageView<V> = {
  readonly items: readonly V[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
};

/** Who is calling, once the API key checked out (docs/spec/decisions.md §7). */
export interface Caller {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly key_id: string;
  readonly permissions: readonly string[];
  readonly env: Environment;
  /** The request's id, for the audit trail (the HTTP adapter's `X-Request-Id`). */
  readonly request_id?: string | undefined;
  /** The client address the key was checked against, for the audit trail. */
  readonly client_ip?: string | undefined;
  /**
   * The key's account as the key check read it on the primary (or its cache, ADR 0029): a read
   * a replica answers checks this one, since the replica's copy lags (ADR 0054); a caller is one
   * request's, so it is as fresh as that request's key check. A caller made without the key check
   * has none, and its reads check the account on the primary.
   */
  readonly account?: AccountRecord | undefined;
}

/**
 * Who is calling the admin API (ADR 0039): a named operator, once its credential checked out,
 * or `bootstrapOperator` for the configured admin token. Its role decides what it may do.
 */
export interface Operator {
  /** `bootstrap` for the configured admin token. */
  readonly operator_id: string;
  readonly name: string;
  readonly role: OperatorRole | 'bootstrap';
  /** The request's id, for the audit trail. */
  readonly request_id?: string | undefined;
  readonly client_ip?: string | undefined;
}

export interface AuthenticationRequest {
  /** The token from `Authorization: Bearer` or `X-API-Key`; undefined when neither was sent. */
  readonly token: string | undefined;
  /** The client address (the socket's, unless trusted proxies are configured). */
  readonly ip: string;
}

/**
 * A text answer written as it is read (a CSV statement, ADR 0045): its media type, a file name
 * for a download, and its text in chunks, each read from the store when the transport asks for
 * the next, so a long answer never sits in memory whole. A refusal comes before the first chunk,
 * as the use case's `Outcome`; a failure while reading ends the chunks with an error.
 */
export type TextExport = {
  readonly media_type: 'text/csv';
  readonly filename: string;
  readonly chunks: AsyncIterable<string>;
};

/** A use case taking `A` and answering `T` (the envelope's `data`) or a catalogue error. */
export type UseCase<A extends unknown[], T> = (...args: A) => Promise<Outcome<T>>;

/** A provider's call to `POST /upstream/acquiring/{provider}`, as the transport read it. */
export interface UpstreamRequest {
  /** The client address (the socket's, unless trusted proxies are configured). */
  readonly ip: string;
  /** The body exactly as received (`''` when none): the provider verifies its signature. */
  readonly body: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface Engine {
  readonly auth: {
    /** Checks a token against its key record; every Authentication message of the interface. */
    authenticate(request: AuthenticationRequest): Promise<Outcome<Caller>>;
    /**
     * Checks an operator's credential (`<operator_id>.<secret>`); anything else, an unknown,
     * disabled or expired operator is `unauthorized`.
     */
    authenticateOperator(request: AuthenticationRequest): Promise<Outcome<Operator>>;
  };
  readonly accounts: {
    current: UseCase<[Caller], { readonly account: Answers.AccountView }>;
    list: UseCase<[Caller, Query], PageView<Answers.AccountView>>;
    /** Every currency at once: no paging. */
    balances: UseCase<[Caller, Query], { readonly items: readonly Answers.BalanceView[] }>;
    deposits: UseCase<[Caller, Query], PageView<Answers.FundingView>>;
    withdrawals: UseCase<[Caller, Query], PageView<Answers.FundingView>>;
    ledger: UseCase<[Caller, Query], PageView<Answers.LedgerEntryView>>;
    /** The audit trail of the caller's account, newest first (ADR 0040). */
    audit: UseCase<[Caller, Query], PageView<Answers.AuditRecordView>>;
  };
  /** Statements of the caller's account that tie out (ADR 0045). */
  readonly statements: {
    /** One currency over `[start_at, end_at)`: per bucket opening, totals, closing; records paged. */
    statement: UseCase<[Caller, Query], Answers.StatementAnswer>;
    /** The same statement as CSV, every record, read page by page as the transport pulls it. */
    statementCsv: UseCase<[Caller, Query], TextExport>;
  };
  readonly payoutSetup: {
    methods: UseCase<[Caller, Query], PageView<Answers.AvailablePayoutMethodView>>;
    networks: UseCase<[Caller, Query], PageView<Answers.ReceivingNetworkView>>;
    networkSchema: UseCase<
      [Caller, string],
      { readonly payout_network: Answers.NetworkSchemaView }
    >;
  };
  readonly payouts: {
    create: UseCase<[Caller, unknown], { readonly payout: Answers.CreatedPayoutView }>;
    get: UseCase<[Caller, string], { readonly payout: Answers.PayoutView }>;
    list: UseCase<[Caller, Query], PageView<Answers.PayoutView>>;
    update: UseCase<[Caller, string, unknown], { readonly payout: Answers.PayoutView }>;
    submit: UseCase<[Caller, string], { readonly payout: Answers.PayoutView }>;
    cancel: UseCase<[Caller, string], { readonly payout: Answers.PayoutView }>;
    /** The payout's callbacks to its notify_url, as `webhooks.deliveries` shows them. */
    deliveries: UseCase<[Caller, string, Query], PageView<Answers.WebhookDeliveryView>>;
  };
  readonly beneficiaries: {
    create: UseCase<[Caller, unknown], { readonly beneficiary: Answers.BeneficiaryView }>;
    get: UseCase<[Caller, string], { readonly beneficiary: Answers.BeneficiaryView }>;
    list: UseCase<[Caller, Query], PageView<Answers.BeneficiaryView>>;
    update: UseCase<[Caller, string, unknown], { readonly beneficiary: Answers.BeneficiaryView }>;
  };
  readonly beneficiaryAccounts: {
    create: UseCase<
      [Caller, unknown],
      { readonly beneficiary_account: Answers.BeneficiaryAccountView }
    >;
    get: UseCase<
      [Caller, string],
      { readonly beneficiary_account: Answers.BeneficiaryAccountView }
    >;
    list: UseCase<[Caller, Query], PageView<Answers.BeneficiaryAccountView>>;
    update: UseCase<
      [Caller, string, unknown],
      { readonly beneficiary_account: Answers.BeneficiaryAccountView }
    >;
  };
  readonly acquiring: {
    create: UseCase<[Caller, unknown], Answers.OrderAnswer>;
    get: UseCase<[Caller, string], Answers.OrderAnswer>;
    list: UseCase<[Caller, Query], PageView<Answers.AcquiringOrderView>>;
    /** All of the order's payments, oldest first: one page. */
    payments: UseCase<[Caller, string], PageView<Answers.PaymentRecordView>>;
    close: UseCase<[Caller, string, unknown], Answers.OrderAnswer>;
    /** A refund of the order's pay-in (ADR 0044): all, part, or the overpaid part. */
    refund: UseCase<[Caller, string, unknown], { readonly refund: Answers.RefundView }>;
    /** All of the order's refunds, oldest first: one page. */
    refunds: UseCase<[Caller, string], PageView<Answers.RefundView>>;
    getRefund: UseCase<[Caller, string], { readonly refund: Answers.RefundView }>;
  };
  readonly batches: {
    create: UseCase<[Caller, unknown], { readonly batch: Answers.BatchView }>;
    get: UseCase<[Caller, string], { readonly batch: Answers.BatchView }>;
    items: UseCase<[Caller, string, Query], PageView<Answers.BatchItemView>>;
    addItems: UseCase<[Caller, string, unknown], { readonly batch: Answers.BatchView }>;
    /** The body names the batch `version` approved (`{version}`, issue 35 M3). */
    approve: UseCase<[Caller, string, unknown], { readonly batch: Answers.BatchView }>;
    submit: UseCase<[Caller, string], { readonly batch: Answers.BatchView }>;
  };
  readonly webhooks: {
    /** The only answers with the secret: this one and `rotateSecret`'s. */
    create: UseCase<[Caller, unknown], { readonly webhook: Answers.WebhookWithSecretView }>;
    list: UseCase<[Caller, Query], PageView<Answers.WebhookView>>;
    get: UseCase<[Caller, string], { readonly webhook: Answers.WebhookView }>;
    update: UseCase<[Caller, string, unknown], { readonly webhook: Answers.WebhookView }>;
    remove: UseCase<[Caller, string], { readonly webhook: Answers.WebhookView }>;
    rotateSecret: UseCase<[Caller, string], { readonly webhook: Answers.WebhookWithSecretView }>;
    deliveries: UseCase<[Caller, string, Query], PageView<Answers.WebhookDeliveryView>>;
    redeliver: UseCase<[Caller, string], { readonly delivery: Answers.WebhookDeliveryView }>;
  };
  /** docs/spec/decisions.md §8: what the portal and the operators do. */
  readonly admin: {
    /**
     * Every admin use case takes the `Operator` first: the role matrix (`operatorRoleMatrix`)
     * decides whether it may, and the audit trail records it as the actor.
     */
    createOperator: UseCase<[Operator, unknown], { readonly operator: Answers.IssuedOperatorView }>;
    listOperators: UseCase<[Operator, Query], PageView<Answers.OperatorView>>;
    updateOperator: UseCase<
      [Operator, string, unknown],
      { readonly operator: Answers.OperatorView }
    >;
    /** A new credential; the old one stops working. */
    rotateOperator: UseCase<[Operator, string], { readonly operator: Answers.IssuedOperatorView }>;
    /** The audit trail, newest first (ADR 0040). */
    audit: UseCase<[Operator, Query], PageView<Answers.AuditRecordView>>;
    /** One UTC day across merchants: per account and currency, and the platform's totals. */
    settlementReport: UseCase<[Operator, Query], Answers.SettlementReportAnswer>;
    /** The only answer with the account's notify_secret besides `rotateNotifySecret`'s. */
    createMerchant: UseCase<
      [Operator, unknown],
      { readonly merchant: Answers.MerchantView; readonly account: Answers.AccountView }
    >;
    updateAccount: UseCase<[Operator, string, unknown], { readonly account: Answers.AccountView }>;
    rotateNotifySecret: UseCase<
      [Operator, string],
      { readonly account: Answers.AccountNotifySecretView }
    >;
    /** The only answers with the token: this one and `rotateApiKey`'s. */
    issueApiKey: UseCase<
      [Operator, string, unknown],
      { readonly api_key: Answers.IssuedApiKeyView }
    >;
    listApiKeys: UseCase<[Operator, string], PageView<Answers.ApiKeyView>>;
    rotateApiKey: UseCase<[Operator, string], { readonly api_key: Answers.IssuedApiKeyView }>;
    updateApiKey: UseCase<[Operator, string, unknown], { readonly api_key: Answers.ApiKeyView }>;
    deleteApiKey: UseCase<[Operator, string], { readonly api_key: Answers.ApiKeyView }>;
    reviewPayout: UseCase<[Operator, string, unknown], { readonly payout: Answers.PayoutView }>;
    /** Any merchant's order with every payment record and refund (ADR 0044). */
    getOrder: UseCase<[Operator, string], Answers.AdminOrderAnswer>;
    /** Accept an exception as paid, or refuse it and refund what came in (ADR 0044). */
    resolveOrder: UseCase<[Operator, string, unknown], Answers.OrderAnswer>;
    reviewRefund: UseCase<[Operator, string, unknown], { readonly refund: Answers.RefundView }>;
    listPayoutMethods: UseCase<[Operator, Query], PageView<Answers.PayoutMethodView>>;
    createPayoutMethod: UseCase<
      [Operator, unknown],
      { readonly payout_method: Answers.PayoutMethodView }
    >;
    updatePayoutMethod: UseCase<
      [Operator, string, unknown],
      { readonly payout_method: Answers.PayoutMethodView }
    >;
    listPayoutNetworks: UseCase<[Operator, Query], PageView<Answers.PayoutNetworkView>>;
    createPayoutNetwork: UseCase<
      [Operator, unknown],
      { readonly payout_network: Answers.PayoutNetworkView }
    >;
    updatePayoutNetwork: UseCase<
      [Operator, string, unknown],
      { readonly payout_network: Answers.PayoutNetworkView }
    >;
    listRoutes: UseCase<[Operator, Query], PageView<Answers.PayoutRouteView>>;
    createRoute: UseCase<[Operator, unknown], { readonly route: Answers.PayoutRouteView }>;
    updateRoute: UseCase<[Operator, string, unknown], { readonly route: Answers.PayoutRouteView }>;
    /** Sandbox only. The deposit made and the currency's balance after it. */
    credit: UseCase<
      [Operator, string, unknown],
      { readonly deposit: Answers.FundingView; readonly balance: Answers.BalanceView }
    >;
    sandboxExecution: UseCase<[Operator, string, unknown], { readonly payout: Answers.PayoutView }>;
    sandboxRefundExecution: UseCase<
      [Operator, string, unknown],
      { readonly refund: Answers.RefundView }
    >;
    sandboxPayment: UseCase<
      [Operator, string, unknown],
      { readonly payment: Answers.PaymentRecordView }
    >;
    advanceClock: UseCase<[Operator, unknown], { readonly clock: Answers.ClockView }>;
  };
  /** The hosted checkout's calls (no API key: the order id is the capability). */
  readonly checkout: {
    order: UseCase<[string], { readonly order: Answers.CheckoutOrderView }>;
    /** The order with the chosen token's address under `selected_token`. */
    selectToken: UseCase<[string, unknown], { readonly order: Answers.CheckoutOrderView }>;
  };
  /** Upstream providers' payment events (no API key: each provider's source IP allow-list). */
  readonly upstream: {
    /** What each event of the request did, in the request's order. */
    receive: UseCase<
      [provider: string, request: UpstreamRequest],
      { readonly events: readonly Answers.UpstreamEventResult[] }
    >;
  };
  /** The payout executor's door (live and sandbox): see `PayoutExecutor`. */
  readonly executions: {
    /**
     * What happened to a payout the executor received: `{ status: 'processing' }`,
     * `{ status: 'completed' }` or `{ status: 'failed', reason }`; the answer is `{ payout }`.
     * Idempotent: a report the payout already reflects answers it as it is. Checked at run time
     * too, with the catalogue's messages, for JavaScript hosts.
     */
    report(
      payoutId: string,
      report: ExecutionReport,
    ): Promise<Outcome<{ readonly payout: Answers.PayoutView }>>;
    /**
     * What happened to a refund the executor received (`executeRefund`, ADR 0044), on the same
     * terms: `processing`, `completed` or `failed` with a reason (a refund is never `returned`:
     * `invalid refund status`); the answer is `{ refund }`.
     */
    reportRefund(
      refundId: string,
      report: ExecutionReport,
    ): Promise<Outcome<{ readonly refund: Answers.RefundView }>>;
  };
  /** The merchant's answers to payout callbacks, for the webhook dispatcher that delivers them. */
  readonly callbacks: {
    /**
     * The answer to verification request `attempt` (1-based, the delivery attempt): `true`
     * approves, `false` rejects, `null` (non-2xx, timeout, unparsable, undecided) records the
     * attempt, and an undecided last attempt returns the payout (docs/spec/decisions.md §2). `round` is the
     * request's `verification_round`: an answer about another review round is refused
     * (`invalid payout status`) and changes nothing (issue 19, M2).
     */
    verificationAnswered(
      payoutId: string,
      verified: boolean | null,
      attempt: number,
      round?: number,
    ): Promise<Outcome<{ readonly payout: Answers.PayoutView }>>;
    /**
     * Whether the verification request of review `round` may still be sent: the payout still
     * awaits verification in that round (a return, a cancel or a decision ends it).
     */
    verificationRequestOpen(payoutId: string, accountId: string, round: number): Promise<boolean>;
  };
  /** Background work, run by the server's loop and by the sandbox clock. */
  readonly workers: {
    /** Fires due timers (order expiry, payout execution hand-off); answers how many fired. */
    runDueTimers(worker: string): Promise<number>;
  };
}

/** An admin use case as its part implements it: the door (`engine.wiring.ts`) takes the operator. */
export type BehindDoor<U> = U extends (operator: Operator, ...args: infer A) => infer R
  ? (...args: A) => R
  : never;

/** The admin use cases as the engine's parts implement them, behind the operator's door. */
export type AdminUseCases = {
  readonly [K in keyof Engine['admin']]: BehindDoor<Engine['admin'][K]>;
};
