/**
 * The sandbox's default payout catalogue (docs/spec/decisions.md §8): what a new merchant can pay out with at
 * once. Seeding is idempotent (what exists is left as it is, so an operator's edits survive a
 * restart) and runs in one unit of work. Processes starting together on one database seed at
 * the same moment: the one whose inserts collide with the catalogue another committed first
 * runs its unit of work once more, finds everything, and creates nothing.
 *
 * | method | currencies | networks | global route (per currency) |
 * |---|---|---|---|
 * | 1 Wallet payout (fiat) | USD | WALLETA (walleta_email), WALLETB (walletb_account, `$`) | 1.00-100000.00, 0.50 + 1.0 % |
 * | 2 Stablecoin payout (crypto) | USDT, USDC | EVM, TRON | 1-1000000, 1.000000 + 0 % |
 */
import {
  type Clock,
  type Currency,
  type IdGenerator,
  isStoreFailure,
  type NewRecord,
  type PayoutMethodRecord,
  type PayoutRouteRecord,
  type Store,
  sandboxNetworkSchemas,
} from '@payrail/core';

const sandboxFiatMethodId = 1;
const sandboxCryptoMethodId = 2;

type MethodSeed = Omit<NewRecord<PayoutMethodRecord>, 'created_at' | 'updated_at'>;
type RouteSeed = Omit<NewRecord<PayoutRouteRecord>, 'route_id' | 'created_at' | 'updated_at'>;

const networkNames: Readonly<Record<string, string>> = {
  WALLETA: 'Wallet A (e-mail)',
  WALLETB: 'Wallet B ($ account)',
  EVM: 'EVM address',
  TRON: 'TRON address',
};

const methods: readonly MethodSeed[] = [
  {
    method_id: sandboxFiatMethodId,
    name: 'Wallet payout',
    currency_type: 'fiat',
    currencies: ['USD'],
    network_codes: ['WALLETA', 'WALLETB'],
    channel_ids: [],
    status: 'active',
  },
  {
    method_id: sandboxCryptoMethodId,
    name: 'Stablecoin payout',
    currency_type: 'crypto',
    currencies: ['USDT', 'USDC'],
    network_codes: ['EVM', 'TRON'],
    channel_ids: [],
    status: 'active',
  },
];

const globalRoute = (
  currency: Currency,
  methodId: number,
  limits: Pick<RouteSeed, 'min_amount' | 'max_amount' | 'fixed_fee' | 'percent_fee'>,
): RouteSeed => ({
  account_id: null,
  currency,
  method_id: methodId,
  channel_id: null,
  ...limits,
  channel_account_id: `sandbox_${currency.toLowerCase()}`,
  required_beneficiary_fields: [],
  status: 'active',
});

const routes: readonly RouteSeed[] = [
  globalRoute('USD', sandboxFiatMethodId, {
    min_amount: '1.00',
    max_amount: '100000.00',
    fixed_fee: '0.50',
    percent_fee: '1.0',
  }),
  ...(['USDT', 'USDC'] as const).map((currency) =>
    globalRoute(currency, sandboxCryptoMethodId, {
      min_amount: '1.000000',
      max_amount: '1000000.000000',
      fixed_fee: '1.000000',
      percent_fee: '0',
    }),
  ),
];

/** A concurrent seeder committed the catalogue's keys first (payout_networks or payout_methods). */
const seededMeanwhile = (error: unknown): boolean =>
  isStoreFailure(error) &&
  error.reason === 'unique_violation' &&
  (error.collection === 'payout_networks' || error.collection === 'payout_methods');

/** Seeds the default catalogue where it is missing; answers how many records it created. */
export const seedSandboxCatalogue = async (
  store: Store,
  ids: IdGenerator,
  clock: Clock,
): Promise<number> => {
  try {
    return await seedOnce(store, ids, clock);
  } catch (error) {
    if (!seededMeanwhile(error)) throw error;
    return seedOnce(store, ids, clock);
  }
};

const seedOnce = (store: Store, ids: IdGenerator, clock: Clock): Promise<number> =>
  store.transaction(async (tx) => {
    const at = clock.now();
    let created = 0;
    for (const schema of sandboxNetworkSchemas) {
      if ((await tx.payoutNetworks.get(schema.code)) !== undefined) continue;
      await tx.payoutNetworks.insert({
        code: schema.code,
        name: networkNames[schema.code] ?? schema.code,
        fields: schema.fields,
        status: 'active',
        created_at: at,
        updated_at: at,
      });
      created += 1;
    }
    for (const method of methods) {
      if ((await tx.payoutMethods.get(method.method_id)) !== undefined) continue;
      await tx.payoutMethods.insert({ ...method, created_at: at, updated_at: at });
      created += 1;
    }
    for (const route of routes) {
      const existing = await tx.payoutRoutes.list({
        where: { account_id: null, currency: route.currency, method_id: route.method_id },
        limit: 1,
        offset: 0,
      });
      if (existing.total > 0) continue;
      await tx.payoutRoutes.insert({
        ...route,
        route_id: ids.next('rt'),
        created_at: at,
        updated_at: at,
      });
      created += 1;
    }
    return created;
  });
