/**
 * The merchant's payout setup lookups (interface "Payout setup lookups"), which show only what
 * the merchant can use: active methods with an active route for its account (or for every
 * account).
 */
import {
  type AccountRecord,
  type Currency,
  decodeWith,
  listLimits,
  PayoutMethodListQuery,
  type PayoutMethodRecord,
  PayoutNetworkListQuery,
  type PayoutNetworkRecord,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { callerAccount, listAll } from '../access/caller-account.store.js';
import { orRefuse, refuse } from '../command/command.handler.js';
import type { Caller, PageView, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { configUnitOfWork } from './payout-config.store.js';
import { methodServesCurrency } from './payout-routing.policy.js';

/** A method the account can use, with the currencies it can use it in. */
interface UsableMethod {
  readonly method: PayoutMethodRecord;
  readonly currencies: readonly Currency[];
}

/** The methods an account can use now: active, with an active route for it (or for everyone). */
const usableMethods = async (
  tx: StoreTransaction,
  account: AccountRecord,
  currency: Currency | undefined,
): Promise<readonly UsableMethod[]> => {
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

const merchantAccount = (tx: StoreTransaction, caller: Caller) =>
  callerAccount(tx, caller, 'refused', 'payout');

/** `GET /payment/payout-methods?currency=`: methods with a route for the account. */
export const availablePayoutMethods = (deps: EngineDeps, caller: Caller, query: Query) =>
  configUnitOfWork(deps, async (tx) => {
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
  });

/** The networks some usable method pays to, with the ids of those methods. */
const receivingNetworksOf = (
  networks: readonly PayoutNetworkRecord[],
  usable: readonly UsableMethod[],
  includeSchema: boolean | undefined,
) =>
  networks.flatMap((network) => {
    const methodIds = usable
      .filter(({ method }) => method.network_codes.includes(network.code))
      .map(({ method }) => method.method_id);
    if (methodIds.length === 0) return [];
    return [
      {
        code: network.code,
        name: network.name,
        method_ids: methodIds,
        ...(includeSchema ? { fields: network.fields } : {}),
      },
    ];
  });

/**
 * `GET /payment/payout-networks?method_id=&currency=&include_schema=`: the receiving networks
 * of the usable methods (of one, with method_id: `payout method not found` when it is not
 * usable), with the field schema under `fields` when include_schema is true.
 */
export const receivingNetworks = (deps: EngineDeps, caller: Caller, query: Query) =>
  configUnitOfWork(deps, async (tx) => {
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
    return wholeList(receivingNetworksOf(networks, usable, q.include_schema));
  });

/** `GET /payment/payout-networks/{code}/schema`: 404 `network code not found` for unknown codes. */
export const networkSchema = (deps: EngineDeps, caller: Caller, code: string) =>
  configUnitOfWork(deps, async (tx) => {
    await merchantAccount(tx, caller);
    const network = await tx.payoutNetworks.get(code);
    if (network === undefined || network.status !== 'active') {
      return refuse(payrailError('network_code_not_found'));
    }
    return {
      payout_network: { code: network.code, name: network.name, fields: network.fields },
    };
  });
