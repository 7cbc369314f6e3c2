/**
 * What the simulation remembers of its history: the merchants and keys it made, every object a
 * create answered (so each must stay findable), and every final state it saw (so none moves).
 */
import type { Caller } from '@payrail/engine';

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

/** A create the engine answered with code 0, and what it answered. */
export interface AnsweredCreate {
  readonly kind: 'merchant' | 'payout' | 'order' | 'batch' | 'webhook' | 'deposit';
  readonly id: string;
  readonly merchant: SimMerchant | undefined;
}

export interface Model {
  readonly merchants: SimMerchant[];
  readonly payouts: Map<string, SimPayout>;
  readonly orders: Map<string, SimOrder>;
  readonly batches: Map<string, SimBatch>;
  readonly creates: AnsweredCreate[];
  /** `payout:<id>` / `order:<id>` / `batch:<id>` -> the final state first seen. */
  readonly finals: Map<string, string>;
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
  merchants: [],
  payouts: new Map(),
  orders: new Map(),
  batches: new Map(),
  creates: [],
  finals: new Map(),
  clientRequests: new Map(),
  upstreamQueue: [],
});
