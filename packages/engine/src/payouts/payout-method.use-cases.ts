/** The operator's payout methods (docs/spec/decisions.md §8, `/admin/payout-methods`). */
import {
  decodePayoutMethodCreate,
  decodePayoutMethodUpdate,
  type PayoutMethodDraft,
  type PayoutMethodRecord,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { listAll } from '../access/caller-account.store.js';
import { orRefuse, refuse } from '../command/command.handler.js';
import type { Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { payoutMethodView } from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import { adminPage, catalogueChange, insertUnlessTaken } from './payout-config.store.js';

/** What a PATCH is merged over: the method as the operator wrote it, without the store's meta. */
const methodDraftOf = ({
  version: _version,
  created_at: _created,
  updated_at: _updated,
  ...draft
}: PayoutMethodRecord): PayoutMethodDraft => draft;

/** Every network a method names must exist (`network not found`). */
const checkNetworksExist = async (tx: StoreTransaction, codes: readonly string[]) => {
  for (const code of codes) {
    if ((await tx.payoutNetworks.get(code)) === undefined)
      refuse(payrailError('network_not_found'));
  }
};

/** The id of a method created without one: one past the highest taken (1 for the first). */
const nextMethodId = async (tx: StoreTransaction): Promise<number> =>
  1 + Math.max(0, ...(await listAll(tx.payoutMethods, { sort: 'asc' })).map((m) => m.method_id));

/** The method of the path's id: `method_id not found` unless it is a positive integer of ours. */
const findMethodRecord = async (tx: StoreTransaction, methodId: string) => {
  const id = /^[1-9][0-9]{0,15}$/.test(methodId) ? Number(methodId) : undefined;
  const method = id === undefined ? undefined : await tx.payoutMethods.get(id);
  return method ?? refuse(payrailError('method_id_not_found'));
};

export const listPayoutMethods = (deps: EngineDeps, query: Query) =>
  adminPage(deps, query, (tx) => tx.payoutMethods, payoutMethodView);

export const createPayoutMethod = (deps: EngineDeps, catalogue: PayoutCatalogue, body: unknown) =>
  catalogueChange(deps, catalogue, async (tx, at) => {
    const draft = orRefuse(decodePayoutMethodCreate(body));
    await checkNetworksExist(tx, draft.network_codes);
    const methodId = draft.method_id ?? (await nextMethodId(tx));
    const method = await insertUnlessTaken('method_id', () =>
      tx.payoutMethods.insert({ ...draft, method_id: methodId, created_at: at, updated_at: at }),
    );
    return { payout_method: payoutMethodView(method) };
  });

export const updatePayoutMethod = (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  methodId: string,
  body: unknown,
) =>
  catalogueChange(deps, catalogue, async (tx, at) => {
    const current = await findMethodRecord(tx, methodId);
    const draft = orRefuse(decodePayoutMethodUpdate(body, methodDraftOf(current)));
    await checkNetworksExist(tx, draft.network_codes);
    const method = await tx.payoutMethods.update({
      ...current,
      ...draft,
      method_id: current.method_id,
      updated_at: at,
    });
    return { payout_method: payoutMethodView(method) };
  });
