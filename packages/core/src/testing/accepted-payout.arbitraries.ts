/**
 * fast-check arbitraries of quick payout bodies that a given payout catalogue ACCEPTS: not only
 * do they decode, the engine creates the payout. They are built from the catalogue as the admin
 * API lists it (receiving networks with their field schemas, methods, routes), so the method,
 * currency, network, channel and account fields match, the amount is inside a route's limits at
 * the currency's scale, a user-borne fee stays below the amount, and the beneficiary carries
 * every field the route that will be chosen requires.
 *
 * A body is accepted by a merchant that holds a wallet in its currency and has not used its
 * reference, client_request_id or payee_id before (a fresh merchant per body is the simple way).
 * Creation does not need a balance; execution does.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import {
  checkAccountFields,
  type NetworkSchemaField,
} from '../codecs/beneficiary-account.codecs.js';
import { isText } from '../codecs/codec-toolkit.js';
import type {
  PayoutMethodView,
  PayoutNetworkView,
  PayoutRouteView,
} from '../codecs/payout-answers.codecs.js';
import { computeFee, type FeeBearer, feeExceedsAmount } from '../money/fees.js';
import {
  type Currency,
  Decimal,
  type FiatCurrency,
  fiatCurrencies,
  formatAmount,
  money,
  scaleOf,
} from '../money/money.js';
import { evmAddress, tronAddress } from './crypto-batch.arbitraries.js';
import {
  beneficiaryFieldsWith,
  emailAddress,
  type GeneratedBeneficiaryFields,
  merchantLabel,
  textOfLength,
} from './payout.arbitraries.js';

/** A receiving network as the catalogue lists it (`admin.listPayoutNetworks` items fit). */
export type CatalogueNetwork = Pick<PayoutNetworkView, 'code' | 'fields' | 'status'>;
/** A payout method as the catalogue lists it (`admin.listPayoutMethods` items fit). */
export type CatalogueMethod = Pick<
  PayoutMethodView,
  'method_id' | 'currency_type' | 'currencies' | 'network_codes' | 'channel_ids' | 'status'
>;
/** A payout route as the catalogue lists it (`admin.listRoutes` items fit). */
export type CatalogueRoute = Pick<
  PayoutRouteView,
  | 'account_id'
  | 'currency'
  | 'method_id'
  | 'channel_id'
  | 'min_amount'
  | 'max_amount'
  | 'fixed_fee'
  | 'percent_fee'
  | 'channel_account_id'
  | 'required_beneficiary_fields'
  | 'status'
>;

/**
 * A payout catalogue: what `admin.listPayoutNetworks`, `admin.listPayoutMethods` and
 * `admin.listRoutes` answer (their `items`), or what a host defines. Routes oldest first, as the
 * admin API lists them: among equally specific routes that take an amount the oldest wins.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export interface PayoutCatalogueContents {
  readonly networks: readonly CatalogueNetwork[];
  readonly methods: readonly CatalogueMethod[];
  readonly routes: readonly CatalogueRoute[];
}

/** @public listed in docs/testing.md for hosts' own properties. */
export interface AcceptedPayoutOptions {
  /**
   * The merchant's account_id: its own routes count too (and win over global ones). Without it
   * only global routes are used: pass it when the merchant has routes of its own.
   */
  readonly accountId?: string;
  /** The currencies the merchant holds a wallet in (`wallet not found` otherwise); default all. */
  readonly currencies?: readonly Currency[];
  /**
   * Values for account fields, by network code then field key, where the field's rule is one
   * fast-check's `stringMatching` cannot read (a `regex:` with lookarounds or back references).
   */
  readonly fieldValues?: Readonly<Record<string, Readonly<Record<string, fc.Arbitrary<string>>>>>;
}

/** A beneficiary account as a quick payout body carries it inline. */
export interface GeneratedBeneficiaryAccount {
  readonly network_code: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly display_name?: string;
  readonly account_type?: string;
}

/**
 * A quick payout body (`POST /payment/quickpayout`, `merchant.payouts.create`) that creates its
 * beneficiary and account inline.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export interface AcceptedQuickPayoutBody {
  readonly client_request_id?: string;
  readonly currency: FiatCurrency;
  readonly amount: string;
  readonly method_id: number;
  readonly channel_id?: string;
  readonly reference: string;
  readonly notify_url: string;
  readonly beneficiary: { readonly name: string; readonly fields: GeneratedBeneficiaryFields };
  readonly beneficiary_account: GeneratedBeneficiaryAccount;
  readonly fee_bearer?: FeeBearer;
  readonly submit?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Account fields by their network schema

/** The longest account field value the engine stores, whatever the rule. */
const maxAccountFieldLength = 256;

/** The key whose value must start with `$` whatever its rule (the interface's WALLETB). */
const walletbAccountKey = 'walletb_account';

/** Text of `min`-`max` code points without NUL or a lone surrogate (blank allowed). */
const anyText = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: 'binary', minLength: min, maxLength: max }).filter(isText);

/** Values of `length:<min>-<max>` (or of `''`: 1-64), with the `$` walletb_account needs. */
const lengthValues = (key: string, min: number, max: number): fc.Arbitrary<string> => {
  const [lo, hi] = [Math.max(min, 1), Math.min(max, maxAccountFieldLength)];
  if (lo > hi) throw new Error(`no value of ${key} fits length ${min}-${max}`);
  return key === walletbAccountKey
    ? anyText(lo - 1, hi - 1).map((rest) => `$${rest}`)
    : textOfLength(lo, hi);
};

const regexValues = (key: string, pattern: string): fc.Arbitrary<string> => {
  try {
    return fc.stringMatching(new RegExp(`^(?:${pattern})$`, 'u'), {
      maxLength: maxAccountFieldLength,
    });
  } catch (error) {
    throw new Error(
      `fast-check cannot generate values of ${key} (regex:${pattern}): ${String(error)}; ` +
        'pass them in options.fieldValues',
    );
  }
};

/** Values a field's `validation_rule` accepts, before the engine's own check of each. */
const ruleValues = (key: string, rule: string): fc.Arbitrary<string> => {
  if (rule === '') return lengthValues(key, 1, 64);
  if (rule === 'email') return emailAddress;
  if (rule === 'evm_address') return evmAddress;
  if (rule === 'tron_address') return tronAddress;
  if (rule.startsWith('prefix:')) {
    const prefix = rule.slice('prefix:'.length);
    const room = Math.min(64, maxAccountFieldLength - Array.from(prefix).length);
    if (room < 1) throw new Error(`no value of ${key} fits ${rule}`);
    return textOfLength(1, room).map((rest) => `${prefix}${rest}`);
  }
  if (rule.startsWith('regex:')) return regexValues(key, rule.slice('regex:'.length));
  const length = /^length:(\d{1,4})-(\d{1,4})$/.exec(rule);
  if (length) return lengthValues(key, Number(length[1]), Number(length[2]));
  throw new Error(`the engine accepts no value of ${key}: its rule ${rule} is not one it knows`);
};

/** Values of one schema field that the engine's own check accepts. */
const fieldValues = (field: NetworkSchemaField): fc.Arbitrary<string> => {
  const schema = { code: 'ANY', fields: [{ ...field, required: true }] };
  return ruleValues(field.field_key, field.validation_rule).filter((value) =>
    E.isRight(checkAccountFields(schema, { [field.field_key]: value })),
  );
};

/**
 * An account on `network`: its required fields always, its optional ones sometimes, each of a
 * value its rule accepts (or of `overrides`), with a display name and account type now and then.
 */
const accountOn = (
  network: CatalogueNetwork,
  overrides: Readonly<Record<string, fc.Arbitrary<string>>> = {},
): fc.Arbitrary<GeneratedBeneficiaryAccount> => {
  // Own keys only: a field may be called `constructor`.
  const values = Object.fromEntries(
    network.fields.map((field) => [
      field.field_key,
      (Object.hasOwn(overrides, field.field_key) ? overrides[field.field_key] : undefined) ??
        fieldValues(field),
    ]),
  );
  const required = network.fields.filter((f) => f.required).map((f) => f.field_key);
  return fc
    .record({
      fields: fc.record(values, { requiredKeys: required }),
      labels: fc.record(
        { display_name: textOfLength(1, 100), account_type: textOfLength(1, 64) },
        { requiredKeys: [] },
      ),
    })
    .map(({ fields, labels }) => ({ network_code: network.code, fields, ...labels }));
};

// ---------------------------------------------------------------------------------------------
// Lanes: (method, currency, route) a quick payout can take

interface Lane {
  readonly method: CatalogueMethod;
  readonly currency: FiatCurrency;
  /** A route of the lane that has a channel account; the amount is drawn from its limits. */
  readonly route: CatalogueRoute;
  /** The channel_id values the body may carry (`null`: none sent). */
  readonly channels: readonly (string | null)[];
  /** Accounts on the method's active networks. */
  readonly account: fc.Arbitrary<GeneratedBeneficiaryAccount>;
  /** Amounts within the route's limits, canonical. */
  readonly amount: fc.Arbitrary<string>;
}

const isFiat = (currency: string): currency is FiatCurrency =>
  fiatCurrencies.some((fiat) => fiat === currency);

const servesAccount = (route: CatalogueRoute, accountId: string | undefined): boolean =>
  route.account_id === null || route.account_id === accountId;

/** The channels a body may name for `route`: none, or one of the method's it serves. */
const channelsOf = (method: CatalogueMethod, route: CatalogueRoute): (string | null)[] => [
  null,
  ...method.channel_ids.filter((id) => route.channel_id === null || route.channel_id === id),
];

/**
 * Accounts on each active network, built once: a rule fast-check cannot generate for throws
 * here, when the arbitrary is made, not in the middle of a run.
 */
const accountsByNetwork = (
  catalogue: PayoutCatalogueContents,
  options: AcceptedPayoutOptions,
): ReadonlyMap<string, fc.Arbitrary<GeneratedBeneficiaryAccount>> =>
  new Map(
    catalogue.networks
      .filter((network) => network.status === 'active')
      .map((network) => {
        const overrides = options.fieldValues ?? {};
        const own = Object.hasOwn(overrides, network.code) ? overrides[network.code] : undefined;
        return [network.code, accountOn(network, own)];
      }),
  );

const lanesOf = (
  catalogue: PayoutCatalogueContents,
  options: AcceptedPayoutOptions,
): readonly Lane[] => {
  const accountsOn = accountsByNetwork(catalogue, options);
  return catalogue.methods.flatMap((method) => {
    if (method.status !== 'active' || method.currency_type !== 'fiat') return [];
    const accounts = method.network_codes.flatMap((code) => {
      const onNetwork = accountsOn.get(code);
      return onNetwork === undefined ? [] : [onNetwork];
    });
    if (accounts.length === 0) return [];
    return method.currencies.filter(isFiat).flatMap((currency) => {
      if (options.currencies !== undefined && !options.currencies.includes(currency)) return [];
      return catalogue.routes
        .filter(
          (route) =>
            route.status === 'active' &&
            route.currency === currency &&
            route.method_id === method.method_id &&
            route.channel_account_id !== null &&
            servesAccount(route, options.accountId),
        )
        .map((route) => ({
          method,
          currency,
          route,
          channels: channelsOf(method, route),
          account: fc.oneof(...accounts),
          amount: amountWithin(currency, route.min_amount, route.max_amount),
        }));
    });
  });
};

/**
 * The route the engine chooses for a payout: among the active routes of (account or global,
 * currency, method, channel) the most specific that takes the amount, the account's own before
 * a global one, an exact channel before any channel, then the oldest.
 */
const chosenRoute = (
  catalogue: PayoutCatalogueContents,
  lane: Lane,
  channelId: string | null,
  amount: string,
  accountId: string | undefined,
): CatalogueRoute | undefined => {
  const rank = (route: CatalogueRoute): number =>
    (route.account_id === null ? 2 : 0) + (route.channel_id === channelId ? 0 : 1);
  const value = new Decimal(amount);
  return catalogue.routes
    .filter(
      (route) =>
        route.status === 'active' &&
        route.currency === lane.currency &&
        route.method_id === lane.method.method_id &&
        servesAccount(route, accountId) &&
        (route.channel_id === null || channelId === null || route.channel_id === channelId),
    )
    .map((route, order) => ({ route, order }))
    .sort((a, b) => rank(a.route) - rank(b.route) || a.order - b.order)
    .map(({ route }) => route)
    .find((route) => value.gte(route.min_amount) && value.lte(route.max_amount));
};

// ---------------------------------------------------------------------------------------------
// Amounts, URLs, bodies

/** Amounts within [min, max] at `currency`'s scale (never 0), canonical. */
const amountWithin = (currency: Currency, min: string, max: string): fc.Arbitrary<string> => {
  const unit = new Decimal(10).pow(scaleOf(currency));
  const lo = BigInt(new Decimal(min).times(unit).toFixed(0));
  const hi = BigInt(new Decimal(max).times(unit).toFixed(0));
  return fc
    .bigInt({ min: lo > 0n ? lo : 1n, max: hi })
    .map((units) => formatAmount(money(currency, new Decimal(units.toString()).dividedBy(unit))));
};

/** The same amount as a merchant may write it: "10.50", "10.5"; "10.00", "10.0", "10". */
const spelledAmount = (canonical: string): fc.Arbitrary<string> => {
  const [whole = canonical, fraction = ''] = canonical.split('.');
  const kept = fraction.replace(/0+$/, '');
  const spellings = [canonical, kept === '' ? whole : `${whole}.${kept}`];
  return fc.constantFrom(...new Set(spellings));
};

/**
 * A DNS label, but none with `--` as its third and fourth characters: those are reserved for
 * IDNA (`xn--a` is punycode that decodes to nothing), and the URL parser behind the SSRF guard
 * refuses one that is not valid punycode (found by `pnpm test:deep`, issue 34).
 */
const urlLabel = fc
  .stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/)
  .filter((label) => label.slice(2, 4) !== '--');

/**
 * https notify URLs the SSRF guard accepts: names under the domains reserved for examples, an
 * optional port, a path and a query.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const publicNotifyUrl: fc.Arbitrary<string> = fc
  .record({
    labels: fc.array(urlLabel, { maxLength: 2 }),
    domain: fc.constantFrom('example.com', 'example.org', 'example.net'),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    path: fc.stringMatching(/^(\/[A-Za-z0-9._~-]{1,12}){0,3}(\?[a-z]{1,5}=[a-z0-9]{0,5})?$/),
  })
  .map(({ labels, domain, port, path }) => {
    const host = [...labels, domain].join('.');
    return `https://${host}${port === undefined ? '' : `:${port}`}${path}`;
  });

/** What a lane's draw settles before the body: channel, amount and the route that takes it. */
interface Priced {
  readonly lane: Lane;
  readonly channelId: string | null;
  readonly amount: string;
  readonly route: CatalogueRoute;
}

const pricedIn = (
  catalogue: PayoutCatalogueContents,
  lane: Lane,
  accountId: string | undefined,
): fc.Arbitrary<Priced> =>
  fc
    .tuple(fc.constantFrom(...lane.channels), lane.amount)
    .map(([channelId, amount]) => ({
      lane,
      channelId,
      amount,
      route: chosenRoute(catalogue, lane, channelId, amount, accountId),
    }))
    .filter(
      (priced): priced is Priced =>
        priced.route !== undefined && priced.route.channel_account_id !== null,
    );

/** `user` only while the fee stays below the amount (else the merchant bears it). */
const feeBearerFor = (priced: Priced, wanted: FeeBearer): FeeBearer => {
  if (wanted === 'merchant') return wanted;
  const gross = money(priced.lane.currency, priced.amount);
  const fee = computeFee(gross, {
    fixed: priced.route.fixed_fee,
    percent: priced.route.percent_fee,
  });
  return feeExceedsAmount(gross, fee) ? 'merchant' : 'user';
};

/** Beneficiary fields carrying the keys given, one arbitrary per set of keys. */
type FieldsWith = (required: readonly string[]) => fc.Arbitrary<GeneratedBeneficiaryFields>;

/** `beneficiaryFieldsWith`, built once per set of keys (building one compiles ~30 regexes). */
const fieldsWithOnce = (): FieldsWith => {
  const built = new Map<string, fc.Arbitrary<GeneratedBeneficiaryFields>>();
  return (required) => {
    const key = [...required].sort().join(',');
    const fields = built.get(key) ?? beneficiaryFieldsWith(required);
    built.set(key, fields);
    return fields;
  };
};

/** What a body carries whatever its lane. */
const laneFreeParts = fc.record({
  reference: merchantLabel,
  notify_url: publicNotifyUrl,
  name: textOfLength(1, 200),
  optional: fc.record(
    {
      client_request_id: merchantLabel,
      fee_bearer: fc.constantFrom<FeeBearer>('merchant', 'user'),
      submit: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
});

const bodyOf = (priced: Priced, fieldsWith: FieldsWith) =>
  fc
    .tuple(
      laneFreeParts,
      priced.lane.account,
      spelledAmount(priced.amount),
      fieldsWith(priced.route.required_beneficiary_fields),
    )
    .map(
      ([{ name, optional, ...parts }, account, amount, fields]): AcceptedQuickPayoutBody => ({
        ...parts,
        amount,
        beneficiary: { name, fields },
        currency: priced.lane.currency,
        method_id: priced.lane.method.method_id,
        ...(priced.channelId === null ? {} : { channel_id: priced.channelId }),
        beneficiary_account: account,
        ...optional,
        ...(optional.fee_bearer === undefined
          ? {}
          : { fee_bearer: feeBearerFor(priced, optional.fee_bearer) }),
      }),
    );

/**
 * Quick payout bodies `catalogue` accepts, each creating its beneficiary and account inline:
 * an active fiat method, a currency it pays out (among `options.currencies`), one of its active
 * networks with account fields its schema accepts, a channel of the method or none, an amount
 * inside the limits of an active route with a channel account, the fields that route requires.
 * Throws at once when the catalogue accepts no quick payout at all, saying why.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const acceptedQuickPayoutBody = (
  catalogue: PayoutCatalogueContents,
  options: AcceptedPayoutOptions = {},
): fc.Arbitrary<AcceptedQuickPayoutBody> => {
  const lanes = lanesOf(catalogue, options);
  if (lanes.length === 0) {
    throw new Error(
      'the catalogue accepts no quick payout: it needs an active fiat method with an active ' +
        'network and an active route with a channel account for one of its currencies' +
        (options.currencies === undefined ? '' : ` (among ${options.currencies.join(', ')})`),
    );
  }
  const fieldsWith = fieldsWithOnce();
  return fc
    .oneof(...lanes.map((lane) => pricedIn(catalogue, lane, options.accountId)))
    .chain((priced) => bodyOf(priced, fieldsWith));
};

/** `value` after `tag`, cut to `max` code points. */
const tagged = (tag: string, value: string, max: number): string =>
  `${tag}${Array.from(value)
    .slice(0, max - Array.from(tag).length)
    .join('')}`;

/**
 * `body` numbered `n` (a whole number): its reference, client_request_id and payee_id carry `n`,
 * so bodies numbered differently never share one, and one merchant takes them one after another.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const numberedPayoutBody = (
  body: AcceptedQuickPayoutBody,
  n: number,
): AcceptedQuickPayoutBody => {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a whole number: ${n}`);
  const { client_request_id: requestId } = body;
  return {
    ...body,
    reference: tagged(`${n}~`, body.reference, 64),
    ...(requestId === undefined ? {} : { client_request_id: tagged(`${n}~`, requestId, 64) }),
    beneficiary: {
      ...body.beneficiary,
      fields: {
        ...body.beneficiary.fields,
        payee_id: tagged(`P${n}Z`, body.beneficiary.fields.payee_id, 60),
      },
    },
  };
};
