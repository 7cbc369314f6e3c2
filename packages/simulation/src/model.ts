/**
 * What the simulation remembers of its history: the merchants and keys it made, every object a
 * create answered (so each must stay findable), every final state it saw (so none moves), the
 * refunds and resolutions it was answered, and the statements it was given (so each keeps
 * telling the same period the same way).
 */
import type { Caller, Operator } from '@payrail/engine';

export interface SimMerchant {
  readonly merchantId: string;
  readonly accountId: string;
  /** Two keys of the account: a batch is approved by a key other than its creator's. */
  readonly callers: readonly [Caller, Caller];
  /** The acquiring + payout webhook; orders notify it. */
  readonly webhookId: string;
  verification: boolean;
  autoApprove: boolean;
}

export interface SimPayout {
  readonly payoutId: string;
  readonly merchant: SimMerchant;
  readonly currency: string;
  /** `review_status/execution_status` as last read (after the previous step). */
  state: string;
}

export interface SimOrder {
  readonly orderId: string;
  readonly merchant: SimMerchant;
  readonly payAmount: string;
  readonly allowed: readonly string[];
  /** As last read. */
  status: string;
  /** `anomaly_tag` as last read: `expired_paid` once paid after expiry or close. */
  anomaly: string;
  /** An operator's resolution the engine answered (ADR 0044); it decides the status for good. */
  resolution?: 'accept' | 'refuse';
  /** The token the payer chose and its deposit address, once chosen. */
  address?: { readonly network: string; readonly tokenId: string; readonly address: string };
}

export interface SimBatch {
  readonly batchId: string;
  readonly merchant: SimMerchant;
  readonly currency: 'USDT' | 'USDC';
  /** As last read. */
  status: string;
}

/** A refund of an order's pay-in (ADR 0044), as its create answered it. */
export interface SimRefund {
  readonly refundId: string;
  readonly order: SimOrder;
  readonly tokenId: string;
  readonly currency: string;
  /** Tokens, 6 decimals: what the order granted. */
  readonly amount: string;
  /** As last read. */
  status: string;
}

/** A refund request as the simulation sends it (`POST .../orders/{order_id}/refunds`). */
export interface RefundAsk {
  readonly refund_type: 'full' | 'partial' | 'overpaid';
  readonly amount?: string;
  readonly token_id?: string;
  readonly address: string;
  readonly reason?: string;
  readonly client_refund_id?: string;
}

/** A statement the engine answered for a period that had ended: asked again, it must agree. */
export interface SimStatement {
  readonly merchant: SimMerchant;
  /** The query as sent. */
  readonly query: Readonly<Record<string, string>>;
  /** `data.statement` as first answered. */
  readonly answer: unknown;
}

/** A create the engine answered with code 0, and what it answered. */
export interface AnsweredCreate {
  readonly kind: 'merchant' | 'payout' | 'order' | 'batch' | 'webhook' | 'deposit';
  readonly id: string;
  readonly merchant: SimMerchant | undefined;
}

export interface Model {
  /**
   * Who acts for the platform: the bootstrap and a reviewer, so a refund one of them asked for
   * (refusing an order) can be approved by the other (four eyes, ADR 0044).
   */
  readonly operators: Operator[];
  readonly merchants: SimMerchant[];
  readonly payouts: Map<string, SimPayout>;
  readonly orders: Map<string, SimOrder>;
  readonly batches: Map<string, SimBatch>;
  readonly refunds: Map<string, SimRefund>;
  /** The last few statements of ended periods, newest last. */
  readonly statements: SimStatement[];
  readonly creates: AnsweredCreate[];
  /**
   * `payout:<id>` / `order:<id>` / `batch:<id>` / `refund:<id>` -> the final state first seen;
   * `returned:<payout id>` -> its return, `resolved:<order id>` -> its resolution.
   */
  readonly finals: Map<string, string>;
  /** `<account>|<client_refund_id>` -> the refund its first grant answered, and the request. */
  readonly clientRefunds: Map<string, { readonly refund: SimRefund; readonly ask: RefundAsk }>;
  /** `<account>|<client_request_id>` -> the payout its first create answered, and the body. */
  readonly clientRequests: Map<string, { readonly payoutId: string; readonly body: unknown }>;
  /** Provider reports not yet delivered (the chain watcher's queue). */
  readonly upstreamQueue: UpstreamReport[];
}

/** One event of the sandbox provider's payload, for the order it pays. */
export interface UpstreamReport {
  readonly orderId: string;
  readonly event: Readonly<Record<string, unknown>>;
}

export const emptyModel = (): Model => ({
  operators: [],
  merchants: [],
  payouts: new Map(),
  orders: new Map(),
  batches: new Map(),
  refunds: new Map(),
  statements: [],
  creates: [],
  finals: new Map(),
  clientRequests: new Map(),
  clientRefunds: new Map(),
  upstreamQueue: [],
});
