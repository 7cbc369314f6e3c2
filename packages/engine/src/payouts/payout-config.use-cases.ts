/**
 * The payout configuration: the operator's CRUD of methods, network schemas and routes
 * (docs/spec/decisions.md §8, `/admin/payout-methods`, `/admin/payout-networks`, `/admin/routes`) and the
 * merchant's setup lookups (interface "Payout setup lookups"), which show only what the merchant
 * can use: active methods with an active route for its account (or for every account).
 */
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import {
  availablePayoutMethods,
  networkSchema,
  receivingNetworks,
} from './payout-config-lookups.use-cases.js';
import {
  createPayoutMethod,
  listPayoutMethods,
  updatePayoutMethod,
} from './payout-method.use-cases.js';
import {
  createPayoutNetwork,
  listPayoutNetworks,
  updatePayoutNetwork,
} from './payout-network.use-cases.js';
import { createRoute, listRoutes, updateRoute } from './payout-route.use-cases.js';

export const payoutConfigUseCases = (deps: EngineDeps, catalogue: PayoutCatalogue) => ({
  admin: {
    listPayoutMethods: (query: Query) => listPayoutMethods(deps, query),
    createPayoutMethod: (body: unknown) => createPayoutMethod(deps, catalogue, body),
    updatePayoutMethod: (methodId: string, body: unknown) =>
      updatePayoutMethod(deps, catalogue, methodId, body),
    listPayoutNetworks: (query: Query) => listPayoutNetworks(deps, query),
    createPayoutNetwork: (body: unknown) => createPayoutNetwork(deps, catalogue, body),
    updatePayoutNetwork: (code: string, body: unknown) =>
      updatePayoutNetwork(deps, catalogue, code, body),
    listRoutes: (query: Query) => listRoutes(deps, query),
    createRoute: (body: unknown) => createRoute(deps, catalogue, body),
    updateRoute: (routeId: string, body: unknown) => updateRoute(deps, catalogue, routeId, body),
  },
  payoutSetup: {
    methods: (caller: Caller, query: Query) => availablePayoutMethods(deps, caller, query),
    networks: (caller: Caller, query: Query) => receivingNetworks(deps, caller, query),
    networkSchema: (caller: Caller, code: string) => networkSchema(deps, caller, code),
  },
});
