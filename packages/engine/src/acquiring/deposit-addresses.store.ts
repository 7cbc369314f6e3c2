/**
 * Deposit addresses: where a payer sends the tokens of an order. They come from the host's
 * `DepositAddressProvider` (the core's port; `EngineDeps.depositAddresses`), are checked against
 * the network's format, and each one handed out is recorded (network, address -> order), so a
 * payment an upstream provider reports to that address finds its order.
 *
 * The sandbox's provider derives the address from the order id: deterministic, so a retried unit
 * of work hands out the same address, and valid in the network's format (EVM: EIP-55 checksummed
 * 20 bytes of SHA-256(order_id); TRON: base58check of 0x41 + the same 20 bytes; Solana: base58 of
 * the 32 bytes). Nobody holds keys for these addresses, so live has no default: there, without a
 * provider, no pay token can be handed out.
 */
import { createHash } from 'node:crypto';
import {
  base58Encode,
  type ChainNetwork,
  canonicalAddress,
  chainNetworks,
  type DepositAddressProvider,
  type DepositAddressRequest,
  type IdGenerator,
  isAddressOn,
  payrailError,
  type StoreTransaction,
  toEvmChecksumAddress,
  toTronAddress,
} from '@payrail/core';
import { refuse } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';

const sha256 = (text: string): Uint8Array =>
  new Uint8Array(createHash('sha256').update(text).digest());

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** The sandbox's address for an order's payer on `network`. */
export const depositAddressOf = (orderId: string, network: ChainNetwork): string => {
  const digest = sha256(orderId);
  switch (chainNetworks[network].addressFormat) {
    case 'evm':
      return toEvmChecksumAddress(`0x${hex(digest.slice(0, 20))}`);
    case 'tron':
      return toTronAddress(Uint8Array.from([0x41, ...digest.slice(0, 20)]));
    case 'solana':
      return base58Encode(digest);
  }
};

/** The sandbox's provider (the default in the sandbox): addresses derived from the order id. */
export const sandboxDepositAddresses: DepositAddressProvider = {
  addressFor: async (request) => depositAddressOf(request.order_id, request.network),
};

/** The provider this engine hands addresses out with; none in live unless the host gave one. */
export const depositAddressProviderOf = (
  deps: Pick<EngineDeps, 'depositAddresses' | 'settings'>,
): DepositAddressProvider | undefined =>
  deps.depositAddresses ??
  (deps.settings.environment === 'sandbox' ? sandboxDepositAddresses : undefined);

/**
 * The address `provider` allocates for the order on the request's network, spelt as it will be
 * recorded. Without a provider (live, none configured) no token can be paid in:
 * `no available pay tokens for current account`. An address malformed for the network is the
 * provider's fault, not the caller's, and fails the unit of work (an internal error): recorded,
 * it would be one no upstream payment could ever match.
 */
export const requestDepositAddress = async (
  provider: DepositAddressProvider | undefined,
  request: DepositAddressRequest,
): Promise<string> => {
  if (provider === undefined) return refuse(payrailError('no_available_pay_tokens'));
  const address: unknown = await provider.addressFor(request);
  if (!isAddressOn(request.network, address)) {
    throw new TypeError(
      `the deposit address provider answered a malformed ${request.network} address for order ${request.order_id}`,
    );
  }
  return canonicalAddress(request.network, address);
};

/**
 * Records `address` as the order's on `network`, so upstream payments find the order. Recording
 * it again records nothing new; an address already recorded for another order is a provider that
 * hands one address out twice, and fails the unit of work.
 */
export const recordDepositAddress = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  order: { readonly order_id: string; readonly account_id: string },
  network: ChainNetwork,
  address: string,
  at: number,
): Promise<void> => {
  const known = await tx.depositAddresses.findUnique({ network, address });
  if (known !== undefined) {
    if (known.order_id !== order.order_id) throw new Error(`deposit address taken: ${address}`);
    return;
  }
  await tx.depositAddresses.insert({
    address_id: ids.next('dep'),
    account_id: order.account_id,
    network,
    address,
    order_id: order.order_id,
    created_at: at,
    updated_at: at,
  });
};

/**
 * Refuses, when the engine is built, a live engine that watches chains (`acquiringProviders`)
 * but cannot hand out a deposit address: every order it took would be refused, so the host's
 * configuration is wrong, and saying so at start beats a refusal per order.
 */
export const requireDepositAddressesForProviders = (
  deps: Pick<EngineDeps, 'depositAddresses' | 'settings' | 'acquiringProviders'>,
): void => {
  if ((deps.acquiringProviders?.length ?? 0) > 0 && depositAddressProviderOf(deps) === undefined) {
    throw new TypeError(
      'live acquiring needs a deposit address provider: acquiringProviders are registered but depositAddresses is not set',
    );
  }
};
