/**
 * The payout catalogue as quick payouts and beneficiaries read it: active receiving networks,
 * methods and active routes, kept in memory for at most `ttlMs` (ADR 0031). A payout create read
 * all three on every request: three statements of its nine, while an operator changes them a
 * few times a day. Changes made through this engine's admin use cases are forgotten at once
 * (`forget`); made by another process on the same database, they apply here within `ttlMs`, as
 * the API key check does (ADR 0029). With `ttlMs` 0 every read goes to the store.
 *
 * What is kept is what committed: the lists are read by the payout side's units of work, which
 * never write the catalogue.
 */
import type {
  Currency,
  PayoutMethodRecord,
  PayoutNetworkRecord,
  PayoutRouteRecord,
  StoreTransaction,
} from '@payrail/core';
import { listAll } from '../access/caller-account.store.js';

export interface PayoutCatalogue {
  /** The active receiving networks, oldest first. */
  activeNetworks(tx: StoreTransaction): Promise<readonly PayoutNetworkRecord[]>;
  /** A method whatever its status, or `undefined`. */
  method(tx: StoreTransaction, methodId: number): Promise<PayoutMethodRecord | undefined>;
  /** The active routes of (currency, method), oldest first. */
  activeRoutes(
    tx: StoreTransaction,
    currency: Currency,
    methodId: number,
  ): Promise<readonly PayoutRouteRecord[]>;
  /** The catalogue changed: read it again. */
  forget(): void;
}

export interface PayoutCatalogueOptions {
  readonly ttlMs: number;
  /** A monotonic clock in milliseconds; default `performance.now`. */
  readonly nowMs?: () => number;
}

interface Kept<T> {
  readonly value: T;
  readonly readAt: number;
}

export const payoutCatalogue = (options: PayoutCatalogueOptions): PayoutCatalogue => {
  const { ttlMs, nowMs = () => performance.now() } = options;
  let networks: Kept<readonly PayoutNetworkRecord[]> | undefined;
  let methods: Kept<ReadonlyMap<number, PayoutMethodRecord>> | undefined;
  let routes: Kept<readonly PayoutRouteRecord[]> | undefined;
  const fresh = <T>(kept: Kept<T> | undefined): kept is Kept<T> =>
    kept !== undefined && nowMs() - kept.readAt < ttlMs;
  const keep = <T>(value: T): Kept<T> => ({ value, readAt: nowMs() });

  return {
    activeNetworks: async (tx) => {
      if (fresh(networks)) return networks.value;
      const read = await listAll(tx.payoutNetworks, { sort: 'asc', where: { status: 'active' } });
      if (ttlMs > 0) networks = keep(read);
      return read;
    },
    method: async (tx, methodId) => {
      if (fresh(methods)) return methods.value.get(methodId);
      if (ttlMs <= 0) return tx.payoutMethods.get(methodId);
      const read = await listAll(tx.payoutMethods, { sort: 'asc' });
      methods = keep(new Map(read.map((method) => [method.method_id, method])));
      return methods.value.get(methodId);
    },
    activeRoutes: async (tx, currency, methodId) => {
      const matching = (route: PayoutRouteRecord): boolean =>
        route.currency === currency && route.method_id === methodId;
      if (fresh(routes)) return routes.value.filter(matching);
      if (ttlMs <= 0) {
        return listAll(tx.payoutRoutes, {
          sort: 'asc',
          where: { currency, method_id: methodId, status: 'active' },
        });
      }
      const read = await listAll(tx.payoutRoutes, { sort: 'asc', where: { status: 'active' } });
      routes = keep(read);
      return read.filter(matching);
    },
    forget: () => {
      networks = undefined;
      methods = undefined;
      routes = undefined;
    },
  };
};
