/**
 * Pay tokens: the `<NETWORK>_<CURRENCY>` ids of the interface, with the network each token
 * lives on and the address format of that network.
 */
import * as E from 'fp-ts/lib/Either.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { recordOf } from '../typed-records.js';
import { type CryptoCurrency, isCryptoCurrency } from './money.js';

export type AddressFormat = 'evm' | 'tron' | 'solana';

export const chainNetworks = {
  TRON: { addressFormat: 'tron' },
  ETH: { addressFormat: 'evm' },
  BSC: { addressFormat: 'evm' },
  MATIC: { addressFormat: 'evm' },
  ARBITRUM: { addressFormat: 'evm' },
  BASE: { addressFormat: 'evm' },
  SOL: { addressFormat: 'solana' },
} as const satisfies Record<string, { addressFormat: AddressFormat }>;
export type ChainNetwork = keyof typeof chainNetworks;

export const payTokenIds = [
  'TRON_USDT',
  'ETH_USDT',
  'BSC_USDT',
  'MATIC_USDT',
  'ARBITRUM_USDT',
  'SOL_USDT',
  'ETH_USDC',
  'BASE_USDC',
  'BSC_USDC',
  'MATIC_USDC',
  'ARBITRUM_USDC',
  'SOL_USDC',
] as const;
export type PayTokenId = (typeof payTokenIds)[number];

export interface PayToken {
  readonly id: PayTokenId;
  readonly network: ChainNetwork;
  readonly currency: CryptoCurrency;
  readonly addressFormat: AddressFormat;
}

const isChainNetwork = (value: string): value is ChainNetwork =>
  Object.hasOwn(chainNetworks, value);

/** The network and currency an id names (`TRON_USDT`: `TRON`, `USDT`). */
const toPayToken = (id: PayTokenId): PayToken => {
  const cut = id.lastIndexOf('_');
  const network = id.slice(0, cut);
  const currency = id.slice(cut + 1);
  if (!isChainNetwork(network) || !isCryptoCurrency(currency)) {
    throw new TypeError(`pay token ${id} names no network and crypto currency`);
  }
  return { id, network, currency, addressFormat: chainNetworks[network].addressFormat };
};

export const payTokens: Readonly<Record<PayTokenId, PayToken>> = recordOf(payTokenIds, toPayToken);

export const isPayTokenId = (value: unknown): value is PayTokenId =>
  typeof value === 'string' && payTokenIds.some((id) => id === value);

/** A well-formed id: upper-case network, underscore, upper-case currency ("TRON_USDT"). */
const payTokenIdShape = /^[A-Z][A-Z0-9]*_[A-Z][A-Z0-9]*$/;

/**
 * How a requested id that is not one reads in the message. `String` throws on an object whose
 * `toString` is not a function (`{"toString": null}` parses from JSON), so such a value reads as
 * its tag instead (found by fuzzing, issue 13).
 */
const shownId = (id: unknown): string => {
  try {
    return String(id);
  } catch {
    return Object.prototype.toString.call(id);
  }
};

/**
 * Resolves a requested id. A malformed one (a bare `USDT`, lower case) is
 * `invalid pay currency: <id>`; a well-formed one that is not a known, enabled token is
 * `unsupported network/currency: <network>/<currency>` (docs/spec/decisions.md §4).
 */
export const resolvePayToken = (
  id: unknown,
  enabled: readonly PayTokenId[] = payTokenIds,
): E.Either<PayrailError, PayToken> => {
  if (typeof id !== 'string' || !payTokenIdShape.test(id)) {
    return E.left(payrailError('invalid_pay_currency', { id: shownId(id) }));
  }
  const cut = id.lastIndexOf('_');
  if (!isPayTokenId(id) || !enabled.includes(id)) {
    return E.left(
      payrailError('network_currency_unsupported', {
        network: id.slice(0, cut),
        currency: id.slice(cut + 1),
      }),
    );
  }
  return E.right(payTokens[id]);
};

/** The token for a `network` + `currency` pair, if the pair names one. */
export const payTokenFor = (network: string, currency: string): PayToken | undefined => {
  const id = `${network}_${currency}`;
  return isPayTokenId(id) ? payTokens[id] : undefined;
};
