/**
 * Method, route and fee of a payout (docs/spec/decisions.md §2 "Fees and limits come from the route"). A route
 * serves (account or every account, currency, method, optional channel, amount range); the most
 * specific one that takes the amount wins: the account's own before a global one, then an exact
 * channel before a route for any channel, then the oldest.
 */
import {
  type Currency,
  computeFee,
  Decimal,
  type FeeBearer,
  feeExceedsAmount,
  formatAmount,
  isCryptoCurrency,
  money,
  type PayoutMethodRecord,
  type PayoutRouteRecord,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { refuse } from '../command/command.handler.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';

/** An active method, else `payout method not found`. */
export const findMethod = async (
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
  methodId: number,
): Promise<PayoutMethodRecord> => {
  const method = await catalogue.method(tx, methodId);
  return method?.status === 'active' ? method : refuse(payrailError('payout_method_not_found'));
};

/** Whether the method pays out this currency: same type (fiat or crypto) and listed. */
export const methodServesCurrency = (method: PayoutMethodRecord, currency: Currency): boolean =>
  method.currency_type === (isCryptoCurrency(currency) ? 'crypto' : 'fiat') &&
  method.currencies.includes(currency);

/**
 * The method may pay this currency (`payout method not supported for currency type`) through
 * this channel (`payout channel not found`).
 */
export const checkMethod = (
  method: PayoutMethodRecord,
  currency: Currency,
  channelId: string | null,
): void => {
  if (!methodServesCurrency(method, currency)) {
    refuse(payrailError('payout_method_not_supported_for_currency_type'));
  }
  if (channelId !== null && !method.channel_ids.includes(channelId)) {
    refuse(payrailError('payout_channel_not_found'));
  }
};

export interface RouteQuery {
  readonly accountId: string;
  readonly currency: Currency;
  readonly methodId: number;
  readonly channelId: string | null;
  /** At the currency's scale. */
  readonly amount: string;
}

/** Active routes of (account or global, currency, method, channel), in order of preference. */
export const candidateRoutes = async (
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
  query: Omit<RouteQuery, 'amount'>,
): Promise<readonly PayoutRouteRecord[]> => {
  const routes = await catalogue.activeRoutes(tx, query.currency, query.methodId);
  const rank = (route: PayoutRouteRecord): number =>
    (route.account_id === null ? 2 : 0) + (route.channel_id === query.channelId ? 0 : 1);
  return routes
    .filter(
      (route) =>
        (route.account_id === null || route.account_id === query.accountId) &&
        (route.channel_id === null ||
          query.channelId === null ||
          route.channel_id === query.channelId),
    )
    .map((route, order) => ({ route, order }))
    .sort((a, b) => rank(a.route) - rank(b.route) || a.order - b.order)
    .map(({ route }) => route);
};

/**
 * The route of a payout: `payout route not configured` when none takes the amount,
 * `channel account not configured` when the chosen one has no channel account yet.
 */
export const selectRoute = async (
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
  query: RouteQuery,
): Promise<PayoutRouteRecord> => {
  const amount = new Decimal(query.amount);
  const route = (await candidateRoutes(catalogue, tx, query)).find(
    (r) => amount.greaterThanOrEqualTo(r.min_amount) && amount.lessThanOrEqualTo(r.max_amount),
  );
  if (route === undefined) return refuse(payrailError('payout_route_not_configured'));
  if (route.channel_account_id === null) {
    return refuse(payrailError('channel_account_not_configured'));
  }
  return route;
};

/**
 * The route's fee for the amount (ADR 0006); with a user-borne fee the amount must exceed it
 * (`amount must be greater than fee when fee_bearer is user`).
 */
export const feeOf = (
  route: PayoutRouteRecord,
  currency: Currency,
  amount: string,
  feeBearer: FeeBearer,
): string => {
  const gross = money(currency, amount);
  const fee = computeFee(gross, { fixed: route.fixed_fee, percent: route.percent_fee });
  if (feeBearer === 'user' && feeExceedsAmount(gross, fee)) {
    refuse(payrailError('amount_must_exceed_fee'));
  }
  return formatAmount(fee);
};
