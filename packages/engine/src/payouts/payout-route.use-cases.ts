/** The operator's payout routes (docs/spec/decisions.md §8, `/admin/routes`). */
import {
  decodePayoutRouteCreate,
  decodePayoutRouteUpdate,
  type PayoutRouteDraft,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { orRefuse, refuse } from '../command/command.handler.js';
import type { Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { payoutRouteView, routeDraftOf } from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import { adminPage, catalogueChange } from './payout-config.store.js';
import { methodServesCurrency } from './payout-routing.policy.js';

/** A route's method must exist and serve its currency and channel; its account must exist. */
const checkRouteTargets = async (tx: StoreTransaction, draft: PayoutRouteDraft) => {
  const method = await tx.payoutMethods.get(draft.method_id);
  if (method === undefined) refuse(payrailError('payout_method_not_found'));
  else if (!methodServesCurrency(method, draft.currency)) {
    refuse(payrailError('payout_method_not_supported_for_currency_type'));
  } else if (draft.channel_id !== null && !method.channel_ids.includes(draft.channel_id)) {
    refuse(payrailError('payout_channel_not_found'));
  }
  if (draft.account_id !== null && (await tx.accounts.get(draft.account_id)) === undefined) {
    refuse(payrailError('merchant_account_not_found'));
  }
};

export const listRoutes = (deps: EngineDeps, query: Query) =>
  adminPage(deps, query, (tx) => tx.payoutRoutes, payoutRouteView);

export const createRoute = (deps: EngineDeps, catalogue: PayoutCatalogue, body: unknown) =>
  catalogueChange(deps, catalogue, async (tx, at) => {
    const draft = orRefuse(decodePayoutRouteCreate(body));
    await checkRouteTargets(tx, draft);
    const route = await tx.payoutRoutes.insert({
      ...draft,
      route_id: deps.ids.next('rt'),
      created_at: at,
      updated_at: at,
    });
    return { route: payoutRouteView(route) };
  });

export const updateRoute = (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  routeId: string,
  body: unknown,
) =>
  catalogueChange(deps, catalogue, async (tx, at) => {
    const current =
      (await tx.payoutRoutes.get(routeId)) ?? refuse(payrailError('route_id_not_found'));
    const draft = orRefuse(decodePayoutRouteUpdate(body, routeDraftOf(current)));
    await checkRouteTargets(tx, draft);
    const route = await tx.payoutRoutes.update({ ...current, ...draft, updated_at: at });
    return { route: payoutRouteView(route) };
  });
