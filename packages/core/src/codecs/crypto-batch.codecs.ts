/**
 * Crypto mass payout requests (the interface's "Crypto mass payout" rules and errors,
 * decisions §6): the create body `{currency, method_id, items, submit?}` and the add-items body
 * `{items}`. Rules that need storage or configuration (the method, the batch's items, the
 * merchant's payout references, the route) are pure functions below that take that data.
 *
 * Precedence, first failure wins:
 * 1. `request required` (not a JSON object), `currency required`, `only crypto currency
 *    supported`, `method_id required`, a non-integer method_id or non-boolean submit
 *    (`Validation Failed`), `items required` (add-items only: a create body without `items` is
 *    an empty draft batch whose items come later), a non-array items (`Validation Failed`),
 *    `items length must be between 1 and 500`;
 * 2. each item in array order, and within an item: not an object (`Validation Failed`),
 *    `order_no required`, `amount required`, the amount's decimal format,
 *    `amount must be greater than zero`, `beneficiary_account.address required`,
 *    network_code (`network not found`), a non-string display_name or address
 *    (`Validation Failed`), `receiving address required`,
 *    `invalid EVM receiving address` / `invalid TRON receiving address`;
 * 3. across items: `duplicate order_no in request`, then
 *    `duplicate receiving address in batch request`;
 * 4. with storage (`cryptoBatchConfigurationRefusal`): `payout method not found`,
 *    `payout method not supported for crypto`, `duplicate order_no in batch`,
 *    `duplicate receiving address in batch request` (against the batch's items),
 *    `duplicate order_no in merchant payouts`, `payout route not configured`,
 *    `batch contains multiple payout channel accounts`, `split batch by route`.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  type CryptoCurrency,
  formatAmount,
  isCryptoCurrency,
  isPositive,
  parseAmount,
} from '../money/money.js';
import type { PayoutMethodRecord } from '../ports/records.js';
import { isEvmAddress, isTronAddress } from './addresses.js';
import { codecOf, decodeWith, fail, requestBody } from './codec-toolkit.js';

/** Items per batch, per request and in total (interface "Limits"). */
export const maxBatchItems = 500;

/**
 * The receiving networks of a crypto batch, named as the payout networks whose schemas check an
 * `address` with the EVM and TRON rules: the interface allows those two formats only.
 */
export const cryptoNetworkCodes = ['EVM', 'TRON'] as const;
export type CryptoNetworkCode = (typeof cryptoNetworkCodes)[number];

const isCryptoNetworkCode = (value: unknown): value is CryptoNetworkCode =>
  value === 'EVM' || value === 'TRON';

/**
 * The network an address is read on when the item names none: a leading `T` is TRON (every TRON
 * address starts with it), anything else EVM.
 */
export const inferNetworkCode = (address: string): CryptoNetworkCode =>
  address.startsWith('T') ? 'TRON' : 'EVM';

/**
 * The receiving account of an item. The request may omit `network_code`; the decoded account
 * always carries it (sent or inferred), so each payout knows its network.
 */
export interface CryptoBeneficiaryAccount {
  readonly address: string;
  readonly network_code: CryptoNetworkCode;
  readonly display_name?: string;
}

/** One item: it becomes a payout of its own, with order_no as the payout's reference. */
export interface CryptoBatchItem {
  readonly order_no: string;
  /** A decimal string at the batch currency's scale ("12.500000"). */
  readonly amount: string;
  readonly beneficiary_account: CryptoBeneficiaryAccount;
}

/**
 * What makes two receiving addresses "the same" in a batch: EVM hex is case-insensitive (a
 * checksummed and a lower-case spelling are one account); TRON base58 is compared exactly.
 */
export const receivingAddressKey = (address: string): string =>
  address.startsWith('0x') ? address.toLowerCase() : address;

type JsonObject = Readonly<Record<string, unknown>>;

const isJsonObject = (u: unknown): u is JsonObject =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

/** JSON `null` reads as absent, as elsewhere in the codecs. */
const presentValue = (object: JsonObject, key: string): unknown => {
  const value = Object.hasOwn(object, key) ? object[key] : undefined;
  return value === null ? undefined : value;
};

const isBlank = (value: string): boolean => value.trim() === '';

const validationFailed = (): PayrailError => payrailError('validation_failed');

const decodeAccount = (u: unknown): E.Either<PayrailError, CryptoBeneficiaryAccount> => {
  if (u === undefined || u === null) return E.left(payrailError('address_key_required'));
  if (!isJsonObject(u)) return E.left(validationFailed());
  const address = presentValue(u, 'address');
  if (address === undefined) return E.left(payrailError('address_key_required'));
  const sentNetwork = presentValue(u, 'network_code');
  if (sentNetwork !== undefined && typeof sentNetwork !== 'string') {
    return E.left(validationFailed());
  }
  if (sentNetwork !== undefined && !isCryptoNetworkCode(sentNetwork)) {
    return E.left(payrailError('network_not_found'));
  }
  const displayName = presentValue(u, 'display_name');
  if (displayName !== undefined && typeof displayName !== 'string') {
    return E.left(validationFailed());
  }
  if (typeof address !== 'string') return E.left(validationFailed());
  if (isBlank(address)) return E.left(payrailError('receiving_address_required'));
  const network_code = sentNetwork ?? inferNetworkCode(address);
  const account: CryptoBeneficiaryAccount = {
    address,
    network_code,
    ...(displayName === undefined ? {} : { display_name: displayName }),
  };
  if (network_code === 'TRON') {
    return isTronAddress(address) ? E.right(account) : E.left(payrailError('invalid_tron_address'));
  }
  return isEvmAddress(address) ? E.right(account) : E.left(payrailError('invalid_evm_address'));
};

const decodeItem =
  (currency: CryptoCurrency) =>
  (u: unknown): E.Either<PayrailError, CryptoBatchItem> => {
    if (!isJsonObject(u)) return E.left(validationFailed());
    const orderNo = presentValue(u, 'order_no');
    if (orderNo === undefined) return E.left(payrailError('order_no_required'));
    if (typeof orderNo !== 'string') return E.left(validationFailed());
    if (isBlank(orderNo)) return E.left(payrailError('order_no_required'));
    const rawAmount = presentValue(u, 'amount');
    if (rawAmount === undefined) return E.left(payrailError('field_required', { field: 'amount' }));
    return pipe(
      parseAmount(rawAmount, currency),
      E.filterOrElse(isPositive, (): PayrailError => payrailError('amount_must_be_positive')),
      E.flatMap((amount) =>
        pipe(
          decodeAccount(
            Object.hasOwn(u, 'beneficiary_account') ? u.beneficiary_account : undefined,
          ),
          E.map(
            (beneficiary_account): CryptoBatchItem => ({
              order_no: orderNo,
              amount: formatAmount(amount),
              beneficiary_account,
            }),
          ),
        ),
      ),
    );
  };

/** The first value that repeats, if any. */
const firstRepeat = <A>(values: readonly A[]): A | undefined => {
  const seen = new Set<A>();
  for (const value of values) {
    if (seen.has(value)) return value;
    seen.add(value);
  }
  return undefined;
};

/**
 * Uniqueness inside one list of items: `duplicate order_no in request`, then
 * `duplicate receiving address in batch request` (EVM compared case-insensitively).
 */
export const duplicateInRequestRefusal = (
  items: readonly CryptoBatchItem[],
): PayrailError | undefined => {
  if (firstRepeat(items.map((item) => item.order_no)) !== undefined) {
    return payrailError('duplicate_order_no_in_request');
  }
  const addresses = items.map((item) => receivingAddressKey(item.beneficiary_account.address));
  if (firstRepeat(addresses) !== undefined) {
    return payrailError('duplicate_receiving_address');
  }
  return undefined;
};

const decodeItems =
  (currency: CryptoCurrency) =>
  (u: unknown): E.Either<PayrailError, readonly CryptoBatchItem[]> => {
    if (u === undefined) return E.left(payrailError('items_required'));
    if (!Array.isArray(u)) return E.left(validationFailed());
    if (u.length < 1 || u.length > maxBatchItems) return E.left(payrailError('items_length'));
    const items: CryptoBatchItem[] = [];
    for (const raw of u) {
      const item = decodeItem(currency)(raw);
      if (E.isLeft(item)) return item;
      items.push(item.right);
    }
    const duplicate = duplicateInRequestRefusal(items);
    return duplicate === undefined ? E.right(items) : E.left(duplicate);
  };

/** `POST /payment/crypto-payouts/batches`. `submit` omitted means true (decisions §6). */
export interface CryptoBatchCreateRequest {
  readonly currency: CryptoCurrency;
  readonly method_id: number;
  readonly items: readonly CryptoBatchItem[];
  /** false keeps the approved batch waiting for `POST .../submit`; true submits it on approval. */
  readonly submit?: boolean;
}

const isMethodId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

const checkCryptoBatchCreateRequest = (
  u: unknown,
): E.Either<PayrailError, CryptoBatchCreateRequest> => {
  if (!isJsonObject(u)) return E.left(payrailError('request_required'));
  const currency = presentValue(u, 'currency');
  if (currency === undefined || currency === '') return E.left(payrailError('currency_required'));
  if (!isCryptoCurrency(currency)) return E.left(payrailError('only_crypto_currency'));
  const methodId = presentValue(u, 'method_id');
  if (methodId === undefined) return E.left(payrailError('method_id_required'));
  if (!isMethodId(methodId)) return E.left(validationFailed());
  const submit = presentValue(u, 'submit');
  if (submit !== undefined && typeof submit !== 'boolean') return E.left(validationFailed());
  // Without `items` the batch is an empty draft (items added later, as Wise batch groups do);
  // approving or submitting it before it has items is `batch has no items`.
  const sentItems = presentValue(u, 'items');
  return pipe(
    sentItems === undefined ? E.right([]) : decodeItems(currency)(sentItems),
    E.map(
      (items): CryptoBatchCreateRequest => ({
        currency,
        method_id: methodId,
        items,
        ...(submit === undefined ? {} : { submit }),
      }),
    ),
  );
};

/** `POST .../batches/{batch_id}/items` body; amounts are read at the batch currency's scale. */
export interface CryptoBatchItemsRequest {
  readonly items: readonly CryptoBatchItem[];
}

const checkCryptoBatchItemsRequest =
  (currency: CryptoCurrency) =>
  (u: unknown): E.Either<PayrailError, CryptoBatchItemsRequest> => {
    if (!isJsonObject(u)) return E.left(payrailError('request_required'));
    return pipe(
      decodeItems(currency)(presentValue(u, 'items')),
      E.map((items) => ({ items })),
    );
  };

const codecFromCheck = <A>(
  name: string,
  check: (u: unknown) => E.Either<PayrailError, A>,
): t.Type<A, A, unknown> =>
  codecOf<A>(
    name,
    (u): u is A => E.isRight(check(u)),
    (u, c) =>
      pipe(
        check(u),
        E.fold(
          (error) => fail<A>(u, c, error),
          (a) => t.success(a),
        ),
      ),
  );

/** Codec of the create body; decoded amounts come out at the currency's scale. */
export const CryptoBatchCreateRequest: t.Type<
  CryptoBatchCreateRequest,
  CryptoBatchCreateRequest,
  unknown
> = requestBody(codecFromCheck('CryptoBatchCreateRequest', checkCryptoBatchCreateRequest));

/**
 * Codec of the add-items body for a batch of `currency`: the amount's scale is the batch's, which
 * the body does not carry, so the codec is made per currency.
 */
export const CryptoBatchItemsRequest = (
  currency: CryptoCurrency,
): t.Type<CryptoBatchItemsRequest, CryptoBatchItemsRequest, unknown> =>
  requestBody(codecFromCheck('CryptoBatchItemsRequest', checkCryptoBatchItemsRequest(currency)));

/** Decodes a create body into the request or its catalogue error. */
export const decodeCryptoBatchCreateRequest = decodeWith(CryptoBatchCreateRequest);

/** Decodes an add-items body for a batch of `currency`. */
export const decodeCryptoBatchItemsRequest = (
  currency: CryptoCurrency,
): ((u: unknown) => E.Either<PayrailError, CryptoBatchItemsRequest>) =>
  decodeWith(CryptoBatchItemsRequest(currency));

// ---------------------------------------------------------------------------------------------
// Rules that need storage or configuration: pure functions over the data the engine loads.

/** How a payout method is classified; a batch needs a crypto one. */
export type PayoutMethodCurrencyType = PayoutMethodRecord['currency_type'];

/**
 * `payout method not found` for an unknown method (undefined), `payout method not supported for
 * crypto` for a fiat one.
 */
export const cryptoMethodRefusal = (
  currencyType: PayoutMethodCurrencyType | undefined,
): PayrailError | undefined => {
  if (currencyType === undefined) return payrailError('payout_method_not_found');
  return currencyType === 'crypto' ? undefined : payrailError('method_not_crypto');
};

/**
 * New items against the batch's existing ones: `duplicate order_no in batch`, then
 * `duplicate receiving address in batch request` (an address already in the batch).
 */
export const duplicateInBatchRefusal = (
  items: readonly CryptoBatchItem[],
  existing: readonly CryptoBatchItem[],
): PayrailError | undefined => {
  const orderNos = new Set(existing.map((item) => item.order_no));
  if (items.some((item) => orderNos.has(item.order_no))) {
    return payrailError('duplicate_order_no_in_batch');
  }
  const addresses = new Set(
    existing.map((item) => receivingAddressKey(item.beneficiary_account.address)),
  );
  if (items.some((item) => addresses.has(receivingAddressKey(item.beneficiary_account.address)))) {
    return payrailError('duplicate_receiving_address');
  }
  return undefined;
};

/**
 * order_no becomes the payout's reference, unique per merchant: `duplicate order_no in merchant
 * payouts` when one is already taken. `takenReferences` holds the merchant's payout references
 * and the order_nos of its other batches not yet submitted.
 */
export const duplicateInMerchantPayoutsRefusal = (
  items: readonly CryptoBatchItem[],
  takenReferences: ReadonlySet<string>,
): PayrailError | undefined =>
  items.some((item) => takenReferences.has(item.order_no))
    ? payrailError('duplicate_order_no_in_payouts')
    : undefined;

/** Where one item's payout would go: the route and the channel account it names. */
export interface BatchItemRoute {
  readonly route_id: string;
  /** As on the route record: null when the route names none (items compare equal on null). */
  readonly channel_account_id: string | null;
}

/**
 * All items of a batch must use one payout route. An item without a route: `payout route not
 * configured`; items reaching different channel accounts: `batch contains multiple payout channel
 * accounts` (no single channel can execute the batch); one channel account but several routes
 * (different fees or limits, e.g. by amount range): `split batch by route`. Pass every item of
 * the batch (existing and new); answers the one route.
 */
export const batchRouteOf = (
  items: readonly CryptoBatchItem[],
  routeOf: (item: CryptoBatchItem) => BatchItemRoute | undefined,
): E.Either<PayrailError, BatchItemRoute> => {
  const routes: BatchItemRoute[] = [];
  for (const item of items) {
    const route = routeOf(item);
    if (route === undefined) return E.left(payrailError('payout_route_not_configured'));
    routes.push(route);
  }
  const [first] = routes;
  if (first === undefined) return E.left(payrailError('batch_has_no_items'));
  if (routes.some((route) => route.channel_account_id !== first.channel_account_id)) {
    return E.left(payrailError('batch_multiple_channel_accounts'));
  }
  if (routes.some((route) => route.route_id !== first.route_id)) {
    return E.left(payrailError('split_batch_by_route'));
  }
  return E.right(first);
};

/** What the storage-backed rules of a create or add-items request look at. */
export interface CryptoBatchConfiguration {
  /** The items of this request (already decoded). */
  readonly items: readonly CryptoBatchItem[];
  /** The batch's items before this request; empty on create. */
  readonly existing_items: readonly CryptoBatchItem[];
  /** The batch's method's classification; undefined when the method does not exist. */
  readonly method_currency_type: PayoutMethodCurrencyType | undefined;
  readonly taken_references: ReadonlySet<string>;
  readonly route_of: (item: CryptoBatchItem) => BatchItemRoute | undefined;
}

/**
 * The storage-backed rules in their precedence: method, duplicates in the batch, duplicates in
 * the merchant's payouts, one route for all the batch's items (existing and new).
 */
export const cryptoBatchConfigurationRefusal = (
  configuration: CryptoBatchConfiguration,
): PayrailError | undefined => {
  const { items, existing_items } = configuration;
  const routeRefusal = (): PayrailError | undefined => {
    const route = batchRouteOf([...existing_items, ...items], configuration.route_of);
    return E.isLeft(route) ? route.left : undefined;
  };
  return (
    cryptoMethodRefusal(configuration.method_currency_type) ??
    duplicateInBatchRefusal(items, existing_items) ??
    duplicateInMerchantPayoutsRefusal(items, configuration.taken_references) ??
    routeRefusal()
  );
};
