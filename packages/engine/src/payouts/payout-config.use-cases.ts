/**
 * The payout configuration: the operator's CRUD of methods, network schemas and routes
 * (decisions §8, `/admin/payout-methods`, `/admin/payout-networks`, `/admin/routes`) and the
 * merchant's setup lookups (interface "Payout setup lookups"), which show only what the merchant
 * can use: active methods with an active route for its account (or for every account).
 */
import {
  type AccountRecord,
  type Currency,
  decodePayoutMethodCreate,
  decodePayoutMethodUpdate,
  decodePayoutNetworkCreate,
  decodePayoutNetworkUpdate,
  decodePayoutRouteCreate,
  decodePayoutRouteUpdate,
  decodeWith,
  isStoreFailure,
  listLimits,
  PageQuery,
  type PayoutMethodDraft,
  PayoutMethodListQuery,
  type PayoutMethodRecord,
  PayoutNetworkListQuery,
  type PayoutNetworkRecord,
  type PayoutRouteDraft,
  type PayrailError,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import type { Caller, PageView, Query } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { callerAccount, listAll } from '../store-reads.js';
import { orRefuse, refuse, unitOfWork } from '../unit-of-work.js';
import {
  pageView,
  payoutMethodView,
  payoutNetworkView,
  payoutRouteView,
  routeDraftOf,
} from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.js';
import { methodServesCurrency } from './payout-routing.js';

/** The admin lists take `limit` and `offset` only (the same rules as every list). */
const decodePage = decodeWith(PageQuery);

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

/** Inserts, answering `taken` when the id is already used. */
const insertOrRefuse = async <T>(insert: () => Promise<T>, taken: PayrailError): Promise<T> => {
  try {
    return await insert();
  } catch (error) {
    if (isStoreFailure(error) && error.reason === 'unique_violation') return refuse(taken);
    throw error;
  }
};

/** The methods an account can use now: active, with an active route for it (or for everyone). */
const usableMethods = async (
  tx: StoreTransaction,
  account: AccountRecord,
  currency: Currency | undefined,
): Promise<readonly { method: PayoutMethodRecord; currencies: readonly Currency[] }[]> => {
  const methods = await listAll(tx.payoutMethods, { sort: 'asc', where: { status: 'active' } });
  const routes = (
    await listAll(tx.payoutRoutes, { sort: 'asc', where: { status: 'active' } })
  ).filter((route) => route.account_id === null || route.account_id === account.account_id);
  return methods.flatMap((method) => {
    const currencies = method.currencies.filter(
      (c) =>
        (currency === undefined || c === currency) &&
        methodServesCurrency(method, c) &&
        routes.some((route) => route.method_id === method.method_id && route.currency === c),
    );
    return currencies.length === 0 ? [] : [{ method, currencies }];
  });
};

/** A short list shown whole: `{items, total, limit, offset}` like every list. */
const wholeList = <V>(items: readonly V[]): PageView<V> => ({
  items,
  total: items.length,
  limit: Math.max(items.length, listLimits.maxLimit),
  offset: 0,
});

export const payoutConfigUseCases = (deps: EngineDeps, catalogue: PayoutCatalogue) => {
  const run = <T>(work: (tx: StoreTransaction, at: number) => Promise<T>) => {
    const at = deps.clock.now();
    return unitOfWork(deps.store, (tx) => work(tx, at));
  };
  /** `run` for a change of the catalogue: once it has ended, the payout side reads it again. */
  const change = <T>(work: (tx: StoreTransaction, at: number) => Promise<T>) =>
    run(work).finally(() => catalogue.forget());

  // -------------------------------------------------------------------------------------------
  // Operator: /admin/payout-methods

  const findMethodRecord = async (tx: StoreTransaction, methodId: string) => {
    const id = /^[1-9][0-9]{0,15}$/.test(methodId) ? Number(methodId) : undefined;
    const method = id === undefined ? undefined : await tx.payoutMethods.get(id);
    return method ?? refuse(payrailError('method_id_not_found'));
  };

  const admin = {
    listPayoutMethods: (query: Query) =>
      run(async (tx) => {
        const q = orRefuse(decodePage(query));
        const page = await tx.payoutMethods.list({ sort: 'asc', limit: q.limit, offset: q.offset });
        return pageView(page, payoutMethodView);
      }),

    createPayoutMethod: (body: unknown) =>
      change(async (tx, at) => {
        const draft = orRefuse(decodePayoutMethodCreate(body));
        await checkNetworksExist(tx, draft.network_codes);
        const methodId =
          draft.method_id ??
          1 +
            Math.max(
              0,
              ...(await listAll(tx.payoutMethods, { sort: 'asc' })).map((m) => m.method_id),
            );
        const method = await insertOrRefuse(
          () =>
            tx.payoutMethods.insert({
              ...draft,
              method_id: methodId,
              created_at: at,
              updated_at: at,
            }),
          payrailError('invalid_query_param', { param: 'method_id' }),
        );
        return { payout_method: payoutMethodView(method) };
      }),

    updatePayoutMethod: (methodId: string, body: unknown) =>
      change(async (tx, at) => {
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
      }),

    // -----------------------------------------------------------------------------------------
    // Operator: /admin/payout-networks

    listPayoutNetworks: (query: Query) =>
      run(async (tx) => {
        const q = orRefuse(decodePage(query));
        const page = await tx.payoutNetworks.list({
          sort: 'asc',
          limit: q.limit,
          offset: q.offset,
        });
        return pageView(page, payoutNetworkView);
      }),

    createPayoutNetwork: (body: unknown) =>
      change(async (tx, at) => {
        const draft = orRefuse(decodePayoutNetworkCreate(body));
        const network = await insertOrRefuse(
          () => tx.payoutNetworks.insert({ ...draft, created_at: at, updated_at: at }),
          payrailError('invalid_query_param', { param: 'code' }),
        );
        return { payout_network: payoutNetworkView(network) };
      }),

    updatePayoutNetwork: (code: string, body: unknown) =>
      change(async (tx, at) => {
        const current =
          (await tx.payoutNetworks.get(code)) ?? refuse(payrailError('network_code_not_found'));
        const draft = orRefuse(decodePayoutNetworkUpdate(body, current));
        const network = await tx.payoutNetworks.update({ ...current, ...draft, updated_at: at });
        return { payout_network: payoutNetworkView(network) };
      }),

    // -----------------------------------------------------------------------------------------
    // Operator: /admin/routes

    listRoutes: (query: Query) =>
      run(async (tx) => {
        const q = orRefuse(decodePage(query));
        const page = await tx.payoutRoutes.list({ sort: 'asc', limit: q.limit, offset: q.offset });
        return pageView(page, payoutRouteView);
      }),

    createRoute: (body: unknown) =>
      change(async (tx, at) => {
        const draft = orRefuse(decodePayoutRouteCreate(body));
        await checkRouteTargets(tx, draft);
        const route = await tx.payoutRoutes.insert({
          ...draft,
          route_id: deps.ids.next('rt'),
          created_at: at,
          updated_at: at,
        });
        return { route: payoutRouteView(route) };
      }),

    updateRoute: (routeId: string, body: unknown) =>
      change(async (tx, at) => {
        const current =
          (await tx.payoutRoutes.get(routeId)) ?? refuse(payrailError('route_id_not_found'));
        const draft = orRefuse(decodePayoutRouteUpdate(body, routeDraftOf(current)));
        await checkRouteTargets(tx, draft);
        const route = await tx.payoutRoutes.update({ ...current, ...draft, updated_at: at });
        return { route: payoutRouteView(route) };
      }),
  };

  // -------------------------------------------------------------------------------------------
  // Merchant: payout setup lookups

  const merchantAccount = (tx: StoreTransaction, caller: Caller) =>
    callerAccount(tx, caller, 'refused', 'payout');

  const payoutSetup = {
    /** `GET /payment/payout-methods?currency=`: methods with a route for the account. */
    methods: (caller: Caller, query: Query) =>
      run(async (tx) => {
        const account = await merchantAccount(tx, caller);
        const q = orRefuse(decodeWith(PayoutMethodListQuery)(query));
        const usable = await usableMethods(tx, account, q.currency);
        return wholeList(
          usable.map(({ method, currencies }) => ({
            method_id: method.method_id,
            name: method.name,
            currency_type: method.currency_type,
            currencies,
            network_codes: method.network_codes,
            channel_ids: method.channel_ids,
          })),
        );
      }),

    /**
     * `GET /payment/payout-networks?method_id=&currency=&include_schema=`: the receiving networks
     * of the usable methods (of one, with method_id: `payout method not found` when it is not
     * usable), with the field schema under `fields` when include_schema is true.
     */
    networks: (caller: Caller, query: Query) =>
      run(async (tx) => {
        const account = await merchantAccount(tx, caller);
        const q = orRefuse(decodeWith(PayoutNetworkListQuery)(query));
        const usable = (await usableMethods(tx, account, q.currency)).filter(
          ({ method }) => q.method_id === undefined || method.method_id === q.method_id,
        );
        if (q.method_id !== undefined && usable.length === 0) {
          refuse(payrailError('payout_method_not_found'));
        }
        const networks = await listAll(tx.payoutNetworks, {
          sort: 'asc',
          where: { status: 'active' },
        });
        const items = networks.flatMap((network: PayoutNetworkRecord) => {
          const methodIds = usable
            .filter(({ method }) => method.network_codes.includes(network.code))
            .map(({ method }) => method.method_id);
          if (methodIds.length === 0) return [];
          return [
            {
              code: network.code,
              name: network.name,
              method_ids: methodIds,
              ...(q.include_schema ? { fields: network.fields } : {}),
            },
          ];
        });
        return wholeList(items);
      }),

    /** `GET /payment/payout-networks/{code}/schema`: 404 `network code not found` for unknown codes. */
    networkSchema: (caller: Caller, code: string) =>
      run(async (tx) => {
        await merchantAccount(tx, caller);
        const network = await tx.payoutNetworks.get(code);
        if (network === undefined || network.status !== 'active') {
          return refuse(payrailError('network_code_not_found'));
        }
        return {
          payout_network: { code: network.code, name: network.name, fields: network.fields },
        };
      }),
  };

  return { admin, payoutSetup };
};
