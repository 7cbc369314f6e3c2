/**
 * Crypto mass payout requests (the interface's "Crypto mass payout" rules and errors,
 * docs/spec/decisions.md §6): the create body `{currency, method_id, items, submit?, notify_url?}` and the
 * add-items body `{items}`. Rules that need storage or configuration (the method, the batch's
 * items, the merchant's payout references, the route) are pure functions below that take that
 * data.
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
 * 4. create only: the optional notify_url (blank counts as not sent), the quick payout's rule
 *    (`invalid notify_url`; `http` only where the sandbox allows insecure webhooks);
 * 5. with storage (`cryptoBatchConfigurationRefusal`): `payout method not found`,
 *    `payout method not supported for crypto`, `duplicate order_no in batch`,
 *    `duplicate receiving address in batch request` (against the batch's items),
 *    `duplicate order_no in merchant payouts`, `payout route not configured`,
 *    `batch contains multiple payout channel accounts`, `split batch by route`.
 *
 * Steps 1-3 are `request(...)` stages in key order: the body's, each item's (a request of its
 * own, which the items leaf applies in array order) and the account's (its address key in a
 * `required` stage, before network_code, display_name and the address's own format). The items
 * are a list leaf rather than a `t.array`, because their length is judged before any item and the
 * duplicates after every one. Two readings depend on another field, which `leafFrom` reads as a
 * sibling: the create body's amounts are read at its currency's scale, and an address is checked
 * on the network_code sent, or inferred from the address when none is.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  type CryptoCurrency,
  cryptoCurrencies,
  formatAmount,
  isCryptoCurrency,
  isPositive,
  parseAmount,
} from '../money/money.js';
import type { PayoutMethodRecord } from '../ports/records.js';
import { isEvmAddress, isTronAddress } from './addresses.js';
import {
  decodeWith,
  defined,
  isBlank,
  type LeafSchema,
  leaf,
  leafFrom,
  oneOfLeaf,
  present,
  request,
  requiredField,
  type Sibling,
  wholeNumberLeaf,
  withDefault,
} from './codec-toolkit.js';
import { notifyUrl, type PayoutOptions } from './payout.codecs.js';

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
 * What makes two receiving addresses "the same" in a batch: EVM hex is case-insensitive (a
 * checksummed and a lower-case spelling are one account); TRON base58 is compared exactly.
 */
export const receivingAddressKey = (address: string): string =>
  address.startsWith('0x') ? address.toLowerCase() : address;

const validationFailed = (): PayrailError => payrailError('validation_failed');
const absent = (u: unknown): boolean => u === undefined;

// ---------------------------------------------------------------------------------------------
// The receiving account of an item

/** The network the account is read on: the one sent, else the one its address implies. */
const networkOf = (sent: unknown, address: unknown): CryptoNetworkCode =>
  isCryptoNetworkCode(sent) ? sent : inferNetworkCode(typeof address === 'string' ? address : '');

/**
 * `network_code`: a string (`Validation Failed`) naming EVM or TRON (`network not found`). When
 * not sent it is inferred from the address (a non-string address fails at its own place), so
 * the decoded account always carries the network its payout goes out on.
 */
const NetworkCode = leafFrom<CryptoNetworkCode>(
  'CryptoNetworkCode',
  isCryptoNetworkCode,
  (u, sibling) => {
    if (u === undefined) return E.right(networkOf(undefined, sibling('address')));
    if (typeof u !== 'string') return E.left(validationFailed());
    return isCryptoNetworkCode(u) ? E.right(u) : E.left(payrailError('network_not_found'));
  },
  {
    type: 'string',
    enum: [...cryptoNetworkCodes],
    description: 'omitted: TRON for an address starting with T, else EVM',
  },
);

const DisplayName = leaf<string>(
  'CryptoDisplayName',
  (u): u is string => typeof u === 'string',
  'validation_failed',
  { type: 'string' },
);

/**
 * The address: a string (`Validation Failed`), not blank (`receiving address required`), valid on
 * the account's network (`invalid EVM receiving address` / `invalid TRON receiving address`).
 */
const ReceivingAddress = leafFrom<string>(
  'ReceivingAddress',
  (u): u is string => isEvmAddress(u) || isTronAddress(u),
  (u, sibling) => {
    if (typeof u !== 'string') return E.left(validationFailed());
    if (isBlank(u)) return E.left(payrailError('receiving_address_required'));
    if (networkOf(sibling('network_code'), u) === 'TRON') {
      return isTronAddress(u) ? E.right(u) : E.left(payrailError('invalid_tron_address'));
    }
    return isEvmAddress(u) ? E.right(u) : E.left(payrailError('invalid_evm_address'));
  },
  { type: 'string', description: 'EVM (0x...) or TRON (T...) address' },
);

/**
 * `beneficiary_account`: an object (`Validation Failed`); the address key first
 * (`beneficiary_account.address required`, a blank address is judged later), then network_code,
 * display_name and the address itself, in that order.
 */
const CryptoBeneficiaryAccount = request(
  'CryptoBeneficiaryAccount',
  {
    required: t.type({ address: defined(payrailError('address_key_required')) }),
    format: t.intersection([
      t.type({ network_code: NetworkCode }),
      t.partial({ display_name: DisplayName }),
      t.type({ address: ReceivingAddress }),
    ]),
  },
  validationFailed(),
);

/**
 * The receiving account of an item. The request may omit `network_code`; the decoded account
 * always carries it (sent or inferred), so each payout knows its network.
 */
export type CryptoBeneficiaryAccount = t.TypeOf<typeof CryptoBeneficiaryAccount>;

const accountSchema: LeafSchema = {
  type: 'object',
  properties: {
    address: ReceivingAddress.schema,
    network_code: NetworkCode.schema,
    display_name: DisplayName.schema,
  },
  required: ['address'],
};

// ---------------------------------------------------------------------------------------------
// Items

/** order_no: absent -> `order_no required`, then a string (`Validation Failed`), then not blank. */
const OrderNo = leafFrom<string>(
  'CryptoOrderNo',
  (u): u is string => typeof u === 'string' && !isBlank(u),
  (u) => {
    if (typeof u !== 'string') return E.left(validationFailed());
    return isBlank(u) ? E.left(payrailError('order_no_required')) : E.right(u);
  },
  {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description: "unique per merchant; becomes the item's payout reference",
  },
);

/** An amount of the batch currency, answered at its scale ("12.5" -> "12.500000"). */
const readCryptoAmount = (u: unknown, currency: CryptoCurrency): E.Either<PayrailError, string> =>
  pipe(
    parseAmount(u, currency),
    E.filterOrElse(isPositive, (): PayrailError => payrailError('amount_must_be_positive')),
    E.map(formatAmount),
  );

const cryptoAmount = (currency: CryptoCurrency) =>
  leafFrom<string>(
    `CryptoAmount(${currency})`,
    (u): u is string => {
      const read = readCryptoAmount(u, currency);
      return E.isRight(read) && read.right === u;
    },
    (u) => readCryptoAmount(u, currency),
    {
      type: 'string',
      pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$',
      description: 'greater than 0, at most the batch currency scale of decimals',
    },
  );

/**
 * One item, which becomes a payout of its own with order_no as the payout's reference: an object
 * (`Validation Failed`), then order_no, amount (`amount required`, its decimal format, `amount must
 * be greater than zero`) and beneficiary_account, in that order.
 */
const cryptoBatchItem = (currency: CryptoCurrency) =>
  request(
    'CryptoBatchItem',
    {
      format: t.type({
        order_no: requiredField(OrderNo, payrailError('order_no_required'), absent),
        amount: requiredField(
          cryptoAmount(currency),
          payrailError('field_required', { field: 'amount' }),
          absent,
        ),
        beneficiary_account: requiredField(
          CryptoBeneficiaryAccount,
          payrailError('address_key_required'),
          absent,
        ),
      }),
    },
    validationFailed(),
  );
type CryptoBatchItemCodec = ReturnType<typeof cryptoBatchItem>;

/** One item of a batch; `amount` is a decimal string at the batch currency's scale ("12.500000"). */
export type CryptoBatchItem = t.TypeOf<CryptoBatchItemCodec>;

/** The item codec of each crypto currency (the amounts' scale is the currency's). */
const itemCodecs: Readonly<Record<CryptoCurrency, CryptoBatchItemCodec>> = {
  USDT: cryptoBatchItem('USDT'),
  USDC: cryptoBatchItem('USDC'),
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

/**
 * A list of items: an array (`Validation Failed`) of 1 to 500 (`items length must be between 1
 * and 500`), each item in array order, then the duplicates across them. A list leaf, not a
 * `t.array`: its length is judged before any item, and the duplicates after every item.
 */
const readItems = (
  u: unknown,
  currency: CryptoCurrency,
): E.Either<PayrailError, readonly CryptoBatchItem[]> => {
  if (!Array.isArray(u)) return E.left(validationFailed());
  if (u.length < 1 || u.length > maxBatchItems) return E.left(payrailError('items_length'));
  const items: CryptoBatchItem[] = [];
  for (const raw of u) {
    const item = decodeWith(itemCodecs[currency])(raw);
    if (E.isLeft(item)) return item;
    items.push(item.right);
  }
  const duplicate = duplicateInRequestRefusal(items);
  return duplicate === undefined ? E.right(items) : E.left(duplicate);
};

const isItemList = (u: unknown): u is readonly CryptoBatchItem[] =>
  Array.isArray(u) &&
  u.length >= 1 &&
  u.length <= maxBatchItems &&
  cryptoCurrencies.some((currency) => u.every((item) => itemCodecs[currency].is(item))) &&
  duplicateInRequestRefusal(u) === undefined;

/**
 * The items leaf; `currencyOf` names the currency whose scale the amounts are read at, and
 * `description` what the document says of the field.
 */
const cryptoBatchItems = (currencyOf: (sibling: Sibling) => CryptoCurrency, description?: string) =>
  leafFrom<readonly CryptoBatchItem[]>(
    'CryptoBatchItems',
    isItemList,
    (u, sibling) => readItems(u, currencyOf(sibling)),
    {
      type: 'array',
      minItems: 1,
      maxItems: maxBatchItems,
      items: {
        type: 'object',
        properties: {
          order_no: OrderNo.schema,
          amount: cryptoAmount('USDT').schema,
          beneficiary_account: accountSchema,
        },
        required: ['order_no', 'amount', 'beneficiary_account'],
      },
      ...(description === undefined ? {} : { description }),
    },
  );

// ---------------------------------------------------------------------------------------------
// Create and add-items

const BatchCurrency = oneOfLeaf('BatchCurrency', cryptoCurrencies, 'only_crypto_currency');

const MethodId = wholeNumberLeaf(
  'PayoutMethodId',
  { minimum: 1 },
  'validation_failed',
  'payout method id (payout-methods lookup)',
);

const Submit = leaf<boolean>(
  'SubmitOnApproval',
  (u): u is boolean => typeof u === 'boolean',
  'validation_failed',
  {
    type: 'boolean',
    default: true,
    description:
      'false keeps the approved batch waiting for `POST .../submit`; true submits it on approval',
  },
);

/**
 * The create body's items are read at the scale of the body's own currency. A body whose
 * currency is not a crypto one fails on currency first, so any scale does for its items.
 */
const currencyOfBody = (sibling: Sibling): CryptoCurrency => {
  const currency = sibling('currency');
  return isCryptoCurrency(currency) ? currency : 'USDT';
};

/**
 * The batch's optional notify_url, where its payouts send their callbacks: blank counts as not
 * sent (decodes to `undefined`, read as no notify_url); anything else is read by the quick
 * payout's leaf (`invalid notify_url`).
 */
const optionalNotifyUrl = (allowHttp: boolean) => {
  const url = notifyUrl(allowHttp);
  return leafFrom<string | undefined>(
    'OptionalNotifyUrl',
    (u): u is string => url.is(u),
    (u) => (typeof u === 'string' && isBlank(u) ? E.right(undefined) : decodeWith(url)(u)),
    { ...url.schema, description: `${String(url.schema.description)}; blank counts as not sent` },
    () => payrailError('invalid_notify_url'),
  );
};

const cryptoBatchCreateRequest = (options: PayoutOptions) =>
  request('CryptoBatchCreateRequest', {
    format: t.intersection([
      t.type({
        currency: requiredField(
          BatchCurrency,
          payrailError('currency_required'),
          (u) => u === undefined || u === '',
        ),
        method_id: requiredField(MethodId, payrailError('method_id_required'), absent),
      }),
      t.partial({ submit: Submit }),
      // Absent reads as no items (an empty draft); `[]` sent is `items length ...`, so the
      // document shows no default: the converter writes none the field itself refuses.
      t.type({
        items: withDefault(
          cryptoBatchItems(
            currencyOfBody,
            'leave it out to create an empty draft batch, whose items come with `POST …/items`',
          ),
          [],
        ),
      }),
      t.partial({ notify_url: optionalNotifyUrl(options.allowInsecureNotifyUrl === true) }),
    ]),
  });

/**
 * `POST /payment/crypto-payouts/batches`, in the precedence of the header: currency (absent,
 * `null` or `""` -> `currency required`), method_id, submit, items, then notify_url. Without
 * `items` the batch is an empty draft (items added later, as Wise batch groups do); approving or
 * submitting it before it has items is `batch has no items`. `submit` omitted means true
 * (docs/spec/decisions.md §6) and stays omitted in the decoded request, as does a notify_url not sent (or
 * blank). notify_url must be https.
 */
export const CryptoBatchCreateRequest = cryptoBatchCreateRequest({});
export type CryptoBatchCreateRequest = t.TypeOf<typeof CryptoBatchCreateRequest>;
const InsecureCryptoBatchCreateRequest = cryptoBatchCreateRequest({ allowInsecureNotifyUrl: true });

/** `POST .../batches/{batch_id}/items`: `{items}`, absent -> `items required`. */
const cryptoBatchItemsRequest = (currency: CryptoCurrency) =>
  request('CryptoBatchItemsRequest', {
    format: t.type({
      items: requiredField(
        cryptoBatchItems(() => currency),
        payrailError('items_required'),
        absent,
      ),
    }),
  });
export type CryptoBatchItemsRequest = t.TypeOf<ReturnType<typeof cryptoBatchItemsRequest>>;

const itemsRequests = {
  USDT: cryptoBatchItemsRequest('USDT'),
  USDC: cryptoBatchItemsRequest('USDC'),
} satisfies Record<CryptoCurrency, unknown>;

/**
 * Codec of the add-items body for a batch of `currency`: the amount's scale is the batch's, which
 * the body does not carry, so there is one codec per currency.
 */
export const CryptoBatchItemsRequest = (currency: CryptoCurrency) => itemsRequests[currency];

/**
 * Decodes a create body into the request or its catalogue error; the sandbox passes
 * `allowInsecureNotifyUrl` to accept an `http` notify_url.
 */
export const decodeCryptoBatchCreateRequest = (
  input: unknown,
  options: PayoutOptions = {},
): E.Either<PayrailError, CryptoBatchCreateRequest> =>
  decodeWith(
    options.allowInsecureNotifyUrl === true
      ? InsecureCryptoBatchCreateRequest
      : CryptoBatchCreateRequest,
  )(input);

/** Decodes an add-items body for a batch of `currency`. */
export const decodeCryptoBatchItemsRequest = (
  currency: CryptoCurrency,
): ((u: unknown) => E.Either<PayrailError, CryptoBatchItemsRequest>) =>
  decodeWith(itemsRequests[currency]);

/**
 * The approve body (issue 35, M3; beyond the interface, ADR 0007): the batch `version` the
 * approver read (`data.batch.version`), so an approval covers the items that approver saw and
 * no item added since. `request required` -> `version required` (absent or null) -> a whole
 * number (`Validation Failed`).
 */
export const BatchApproveRequest = request('BatchApproveRequest', {
  required: t.type({ version: present(payrailError('field_required', { field: 'version' })) }),
  format: t.type({
    version: wholeNumberLeaf(
      'BatchVersion',
      { minimum: 0 },
      'validation_failed',
      "the batch's `version` as the approver read it: a batch changed since is refused",
    ),
  }),
});
export type BatchApproveRequest = t.TypeOf<typeof BatchApproveRequest>;
export const decodeBatchApprove = decodeWith(BatchApproveRequest);

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
