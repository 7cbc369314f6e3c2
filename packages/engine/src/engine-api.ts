/**
 * The engine's face: every use case of the merchant interface, decisions.md and the admin API.
 * The HTTP adapter only translates: it authenticates, hands the raw body (`unknown`) or query
 * (`Query`) to a use case, and renders the `Outcome` as `{code, message, data}`. Bodies are
 * decoded here, with the core's codecs, so every transport gets the catalogue's messages.
 *
 * Each `data` is the envelope's `data` as the wire shows it: objects under a key named after
 * them (`{ payout }`, `{ order }`), lists as `{ items, total, limit, offset }`.
 */
import type { Environment } from '@payrail/core';
import type { ExecutionReport } from './payouts/payout-executor.js';
import type { Outcome } from './unit-of-work.js';

/** Query parameters as they arrive (`URLSearchParams` flattened). */
export type Query = Readonly<Record<string, string | undefined>>;

/** A JSON object answer. */
export type Data = Readonly<Record<string, unknown>>;

/** Who is calling, once the API key checked out (decisions §7). */
export interface Caller {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly key_id: string;
  readonly permissions: readonly string[];
  readonly env: Environment;
}

export interface AuthenticationRequest {
  /** The token from `Authorization: Bearer` or `X-API-Key`; undefined when neither was sent. */
  readonly token: string | undefined;
  /** The client address (the socket's, unless trusted proxies are configured). */
  readonly ip: string;
}

export type UseCase<A extends unknown[] = []> = (...args: A) => Promise<Outcome<Data>>;

/** A provider's call to `POST /upstream/acquiring/{provider}`, as the transport read it. */
export interface UpstreamRequest {
  /** The client address (the socket's, unless trusted proxies are configured). */
  readonly ip: string;
  /** The parsed JSON body; `undefined` when it was empty or not JSON. */
  readonly body: unknown;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface Engine {
  readonly auth: {
    /** Checks a token against its key record; every Authentication message of the interface. */
    authenticate(request: AuthenticationRequest): Promise<Outcome<Caller>>;
  };
  readonly accounts: {
    current: UseCase<[Caller]>;
    list: UseCase<[Caller, Query]>;
    balances: UseCase<[Caller, Query]>;
    deposits: UseCase<[Caller, Query]>;
    withdrawals: UseCase<[Caller, Query]>;
    ledger: UseCase<[Caller, Query]>;
  };
  readonly payoutSetup: {
    methods: UseCase<[Caller, Query]>;
    networks: UseCase<[Caller, Query]>;
    networkSchema: UseCase<[Caller, string]>;
  };
  readonly payouts: {
    create: UseCase<[Caller, unknown]>;
    get: UseCase<[Caller, string]>;
    list: UseCase<[Caller, Query]>;
    update: UseCase<[Caller, string, unknown]>;
    submit: UseCase<[Caller, string]>;
    cancel: UseCase<[Caller, string]>;
    /** The payout's callbacks to its notify_url, as `webhooks.deliveries` shows them. */
    deliveries: UseCase<[Caller, string, Query]>;
  };
  readonly beneficiaries: {
    create: UseCase<[Caller, unknown]>;
    get: UseCase<[Caller, string]>;
    list: UseCase<[Caller, Query]>;
    update: UseCase<[Caller, string, unknown]>;
  };
  readonly beneficiaryAccounts: {
    create: UseCase<[Caller, unknown]>;
    get: UseCase<[Caller, string]>;
    list: UseCase<[Caller, Query]>;
    update: UseCase<[Caller, string, unknown]>;
  };
  readonly acquiring: {
    create: UseCase<[Caller, unknown]>;
    get: UseCase<[Caller, string]>;
    list: UseCase<[Caller, Query]>;
    payments: UseCase<[Caller, string]>;
    close: UseCase<[Caller, string, unknown]>;
  };
  readonly batches: {
    create: UseCase<[Caller, unknown]>;
    get: UseCase<[Caller, string]>;
    items: UseCase<[Caller, string, Query]>;
    addItems: UseCase<[Caller, string, unknown]>;
    approve: UseCase<[Caller, string]>;
    submit: UseCase<[Caller, string]>;
  };
  readonly webhooks: {
    create: UseCase<[Caller, unknown]>;
    list: UseCase<[Caller, Query]>;
    get: UseCase<[Caller, string]>;
    update: UseCase<[Caller, string, unknown]>;
    remove: UseCase<[Caller, string]>;
    rotateSecret: UseCase<[Caller, string]>;
    deliveries: UseCase<[Caller, string, Query]>;
    redeliver: UseCase<[Caller, string]>;
  };
  /** decisions §8: what the portal and the operators do. */
  readonly admin: {
    createMerchant: UseCase<[unknown]>;
    updateAccount: UseCase<[string, unknown]>;
    rotateNotifySecret: UseCase<[string]>;
    issueApiKey: UseCase<[string, unknown]>;
    listApiKeys: UseCase<[string]>;
    rotateApiKey: UseCase<[string]>;
    updateApiKey: UseCase<[string, unknown]>;
    deleteApiKey: UseCase<[string]>;
    reviewPayout: UseCase<[string, unknown]>;
    listPayoutMethods: UseCase<[Query]>;
    createPayoutMethod: UseCase<[unknown]>;
    updatePayoutMethod: UseCase<[string, unknown]>;
    listPayoutNetworks: UseCase<[Query]>;
    createPayoutNetwork: UseCase<[unknown]>;
    updatePayoutNetwork: UseCase<[string, unknown]>;
    listRoutes: UseCase<[Query]>;
    createRoute: UseCase<[unknown]>;
    updateRoute: UseCase<[string, unknown]>;
    /** Sandbox only. */
    credit: UseCase<[string, unknown]>;
    sandboxExecution: UseCase<[string, unknown]>;
    sandboxPayment: UseCase<[string, unknown]>;
    advanceClock: UseCase<[unknown]>;
  };
  /** The hosted checkout's calls (no API key: the order id is the capability). */
  readonly checkout: {
    order: UseCase<[string]>;
    selectToken: UseCase<[string, unknown]>;
  };
  /** Upstream providers' payment events (no API key: each provider's source IP allow-list). */
  readonly upstream: {
    receive: UseCase<[provider: string, request: UpstreamRequest]>;
  };
  /** The payout executor's door (live and sandbox): see `PayoutExecutor`. */
  readonly executions: {
    /**
     * What happened to a payout the executor received: `{ status: 'processing' }`,
     * `{ status: 'completed' }` or `{ status: 'failed', reason }`; the answer is `{ payout }`.
     * Idempotent: a report the payout already reflects answers it as it is. Checked at run time
     * too, with the catalogue's messages, for JavaScript hosts.
     */
    report(payoutId: string, report: ExecutionReport): Promise<Outcome<Data>>;
  };
  /** The merchant's answers to payout callbacks, for the webhook dispatcher that delivers them. */
  readonly callbacks: {
    /**
     * The answer to verification request `attempt` (1-based, the delivery attempt): `true`
     * approves, `false` rejects, `null` (non-2xx, timeout, unparsable, undecided) records the
     * attempt, and an undecided last attempt returns the payout (decisions §2).
     */
    verificationAnswered(
      payoutId: string,
      verified: boolean | null,
      attempt: number,
    ): Promise<Outcome<Data>>;
  };
  /** Background work, run by the server's loop and by the sandbox clock. */
  readonly workers: {
    /** Fires due timers (order expiry, payout execution hand-off); answers how many fired. */
    runDueTimers(worker: string): Promise<number>;
  };
}
