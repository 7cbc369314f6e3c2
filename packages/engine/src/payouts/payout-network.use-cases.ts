/** The operator's receiving networks and their field schemas (docs/spec/decisions.md §8, `/admin/payout-networks`). */
import { decodePayoutNetworkCreate, decodePayoutNetworkUpdate, payrailError } from '@payrail/core';
import { orRefuse, refuse } from '../command/command.handler.js';
import type { Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { payoutNetworkView } from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import { adminPage, catalogueChange, insertUnlessTaken } from './payout-config.store.js';

export const listPayoutNetworks = (deps: EngineDeps, query: Query) =>
  adminPage(deps, query, (tx) => tx.payoutNetworks, payoutNetworkView);

export const createPayoutNetwork = (deps: EngineDeps, catalogue: PayoutCatalogue, body: unknown) =>
  catalogueChange(deps, catalogue, async (tx, at) => {
    const draft = orRefuse(decodePayoutNetworkCreate(body));
    const network = await insertUnlessTaken('code', () =>
      tx.payoutNetworks.insert({ ...draft, created_at: at, updated_at: at }),
    );
    return { payout_network: payoutNetworkView(network) };
  });

export const updatePayoutNetwork = (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  code: string,
  body: unknown,
) =>
  catalogueChange(deps, catalogue, async (tx, at) => {
    const current =
      (await tx.payoutNetworks.get(code)) ?? refuse(payrailError('network_code_not_found'));
    const draft = orRefuse(decodePayoutNetworkUpdate(body, current));
    const network = await tx.payoutNetworks.update({ ...current, ...draft, updated_at: at });
    return { payout_network: payoutNetworkView(network) };
  });
