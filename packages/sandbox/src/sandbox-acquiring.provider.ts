/**
 * The built-in `sandbox` acquiring provider (docs/spec/decisions.md §4): what a chain watcher would call
 * `POST /upstream/acquiring/sandbox` with, so a merchant can rehearse payments locally with
 * `curl`. Its payload:
 *
 * ```json
 * {"events": [{"network": "TRON", "address": "T...", "token_id": "TRON_USDT",
 *              "tx_hash": "...", "amount": "30.000000", "status": "confirmed",
 *              "confirmations": 19, "payment_id": "chain-1"}]}
 * ```
 *
 * - `status`: `processing` (seen, unconfirmed), `confirming`, `confirmed`, `failed`; normalised
 *   to the core's kinds detected, confirming, confirmed, failed.
 * - `confirmations` (optional, a whole number >= 0): default 0 for processing and failed, 1 for
 *   confirming, the network's required count for confirmed (TRON 19, ETH 12, ...: the same table
 *   as the admin API's sandbox payments). `required_confirmations` is always that count.
 * - `payment_id` (optional, 1-64 letters, digits, `_`, `-`): the provider's id of the payment;
 *   repeating it updates that payment, and it must not name another order's payment. Without it
 *   the id is derived from network, tx_hash and address (`sbx_` + 24 hex digits of SHA-256), so
 *   every report of one transfer names one payment.
 * - `address` must be well-formed for `network` (EVM hex in any letter case, TRON base58check,
 *   Solana base58); `token_id` must be a pay token of that network; `amount` a decimal > 0 with
 *   at most 6 decimals; `tx_hash` 1-128 visible ASCII characters (an EVM `0x` hash is read
 *   lower-case, since hex has no case). Other keys are ignored, as providers add fields.
 *
 * No body, `null`, no `events` or an empty list: `empty upstream webhook event`. Anything else
 * malformed, a body that is not an object, `events` that is not a list or longer than 100, or
 * one bad event: `invalid upstream merchant deposit payload` (the whole request is refused).
 *
 * Every delivery is signed with the provider's secret, Standard Webhooks style
 * (`sandbox-upstream-signature.ts`, ADR 0032); the source addresses are a second factor.
 */
import { createHash } from 'node:crypto';
import {
  type AcquiringProvider,
  type ChainNetwork,
  chainNetworks,
  formatPayAmount,
  isAddressOn,
  isJsonObject,
  isPayTokenId,
  type PayrailError,
  type PayTokenId,
  type ProviderEventKind,
  parseAmount,
  payrailError,
  payTokens,
  presentValue,
  type UpstreamPaymentEvent,
} from '@payrail/core';
import { sandboxRequiredConfirmations } from '@payrail/engine';
import * as E from 'fp-ts/lib/Either.js';
import { sandboxUpstreamVerifier } from './sandbox-upstream-signature.js';

const sandboxProviderName = 'sandbox';

/** At most this many events per request: a chain watcher batches, it does not dump. */
export const maxSandboxEvents = 100;

export const sandboxUpstreamStatuses = ['processing', 'confirming', 'confirmed', 'failed'] as const;
export type SandboxUpstreamStatus = (typeof sandboxUpstreamStatuses)[number];

const kindOf: Readonly<Record<SandboxUpstreamStatus, ProviderEventKind>> = {
  processing: 'detected',
  confirming: 'confirming',
  confirmed: 'confirmed',
  failed: 'failed',
};

const isChainNetwork = (u: unknown): u is ChainNetwork =>
  typeof u === 'string' && Object.hasOwn(chainNetworks, u);

const isStatus = (u: unknown): u is SandboxUpstreamStatus =>
  sandboxUpstreamStatuses.some((status) => status === u);

const txHashShape = /^[\x21-\x7e]{1,128}$/;
const paymentIdShape = /^[A-Za-z0-9_-]{1,64}$/;
const evmTxHash = /^0x[0-9a-fA-F]+$/;

const isConfirmations = (u: unknown): u is number =>
  typeof u === 'number' && Number.isSafeInteger(u) && u >= 0;

/**
 * The payment id of a report that names none: one per transaction and receiving address on its
 * network (one transaction may pay several deposit addresses).
 */
export const derivedPaymentIdOf = (
  network: ChainNetwork,
  txHash: string,
  address: string,
): string =>
  `sbx_${createHash('sha256').update(`${network}:${txHash}:${address}`).digest('hex').slice(0, 24)}`;

const defaultConfirmations = (status: SandboxUpstreamStatus, network: ChainNetwork): number =>
  ({ processing: 0, confirming: 1, confirmed: sandboxRequiredConfirmations[network], failed: 0 })[
    status
  ];

/** One event of the payload, normalised; `undefined` when anything about it is malformed. */
const eventOf = (u: unknown): UpstreamPaymentEvent | undefined => {
  if (!isJsonObject(u)) return undefined;
  const v = (key: string) => presentValue(u, key);
  const network = v('network');
  if (!isChainNetwork(network)) return undefined;
  const address = v('address');
  const tokenId = v('token_id');
  const rawTxHash = v('tx_hash');
  const status = v('status');
  const confirmations = v('confirmations');
  const paymentId = v('payment_id');
  if (
    !isAddressOn(network, address) ||
    !isPayTokenId(tokenId) ||
    payTokens[tokenId].network !== network ||
    typeof rawTxHash !== 'string' ||
    !txHashShape.test(rawTxHash) ||
    !isStatus(status) ||
    (confirmations !== undefined && !isConfirmations(confirmations)) ||
    (paymentId !== undefined && (typeof paymentId !== 'string' || !paymentIdShape.test(paymentId)))
  ) {
    return undefined;
  }
  const amount = amountOf(v('amount'), tokenId);
  if (amount === undefined) return undefined;
  const evm = chainNetworks[network].addressFormat === 'evm';
  const txHash = evm && evmTxHash.test(rawTxHash) ? rawTxHash.toLowerCase() : rawTxHash;
  // The id must not depend on how the address was spelt: EVM hex is compared in lower case.
  const canonicalAddress = evm ? address.toLowerCase() : address;
  return {
    network,
    address,
    token_id: tokenId,
    payment_id: paymentId ?? derivedPaymentIdOf(network, txHash, canonicalAddress),
    tx_hash: txHash,
    amount,
    kind: kindOf[status],
    confirmations: confirmations ?? defaultConfirmations(status, network),
    required_confirmations: sandboxRequiredConfirmations[network],
  };
};

/** The amount at the pay scale, when it is a plain decimal > 0 with at most 6 decimals. */
const amountOf = (u: unknown, tokenId: PayTokenId): string | undefined => {
  const parsed = parseAmount(u, payTokens[tokenId].currency);
  return E.isRight(parsed) && parsed.right.value.greaterThan(0)
    ? formatPayAmount(parsed.right.value)
    : undefined;
};

const invalid = (): PayrailError => payrailError('invalid_upstream_deposit_payload');
const empty = (): PayrailError => payrailError('empty_upstream_event');

/** The sandbox payload (see the module comment) as normalised events. */
export const parseSandboxUpstreamEvents = (
  body: unknown,
): E.Either<PayrailError, readonly UpstreamPaymentEvent[]> => {
  if (body === undefined || body === null) return E.left(empty());
  if (!isJsonObject(body)) return E.left(invalid());
  const events = presentValue(body, 'events');
  if (events === undefined) return E.left(empty());
  if (!Array.isArray(events)) return E.left(invalid());
  if (events.length === 0) return E.left(empty());
  if (events.length > maxSandboxEvents) return E.left(invalid());
  const normalised: UpstreamPaymentEvent[] = [];
  for (const event of events) {
    const next = eventOf(event);
    if (next === undefined) return E.left(invalid());
    normalised.push(next);
  }
  return E.right(normalised);
};

export interface SandboxProviderOptions {
  /** Addresses and CIDR ranges allowed to call (the server's PAYRAIL_UPSTREAM_SANDBOX_SOURCES). */
  readonly allowedSources: readonly string[];
  /**
   * `whsec_` + base64 of 24 to 64 bytes (the server's PAYRAIL_UPSTREAM_SANDBOX_SECRET): every
   * delivery must be signed with it (`signSandboxUpstream`).
   */
  readonly secret: string;
  /**
   * Unix milliseconds, for the signature's 5-minute tolerance; default the wall clock. Not the
   * sandbox's adjustable clock: a replay is old in real time, whatever the test clock says.
   */
  readonly now?: () => number;
}

/** The `sandbox` provider, to register in `EngineDeps.acquiringProviders` of a sandbox engine. */
export const sandboxAcquiringProvider = ({
  allowedSources,
  secret,
  now = Date.now,
}: SandboxProviderOptions): AcquiringProvider => ({
  name: sandboxProviderName,
  allowedSources: [...allowedSources],
  verify: sandboxUpstreamVerifier(secret, now),
  parse: (body) => parseSandboxUpstreamEvents(body),
});
