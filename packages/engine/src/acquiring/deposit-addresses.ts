/**
 * Deposit addresses: where a payer sends the tokens of an order. Each address handed out is
 * recorded (network, address -> order), so a payment an upstream provider reports to that address
 * finds its order.
 *
 * The sandbox derives the address from the order id: deterministic, so a retried unit of work
 * hands out the same address, and valid in the network's format (EVM: EIP-55 checksummed 20 bytes
 * of SHA-256(order_id); TRON: base58check of 0x41 + the same 20 bytes; Solana: base58 of the 32
 * bytes). Nobody holds keys for these addresses: a live deployment needs a custody or provider
 * port that allocates real addresses, which does not exist yet.
 */
import { createHash } from 'node:crypto';
import {
  base58Encode,
  type ChainNetwork,
  chainNetworks,
  type DepositAddressRecord,
  type IdGenerator,
  type StoreTransaction,
  toEvmChecksumAddress,
  toTronAddress,
} from '@payrail/core';

const sha256 = (text: string): Uint8Array =>
  new Uint8Array(createHash('sha256').update(text).digest());

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** The address an order's payer pays to on `network`. */
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

/**
 * How a provider's spelling of an address is compared with ours: EVM hex is case-insensitive, so
 * it is checksummed first; base58 addresses are compared exactly.
 */
export const canonicalAddress = (network: ChainNetwork, address: string): string =>
  chainNetworks[network].addressFormat === 'evm' && /^0x[0-9a-fA-F]{40}$/.test(address)
    ? toEvmChecksumAddress(address)
    : address;

/**
 * The order's deposit address on `network`, recorded so upstream payments find the order.
 * Asking again answers the same address and records nothing new.
 */
export const assignDepositAddress = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  order: { readonly order_id: string; readonly account_id: string },
  network: ChainNetwork,
  at: number,
): Promise<string> => {
  const address = depositAddressOf(order.order_id, network);
  const known = await tx.depositAddresses.findUnique({ network, address });
  if (known !== undefined) {
    if (known.order_id !== order.order_id) throw new Error(`deposit address taken: ${address}`);
    return address;
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
  return address;
};

/** The record of an address handed out on `network`, whoever's order it belongs to. */
export const findDepositAddress = (
  tx: StoreTransaction,
  network: ChainNetwork,
  address: string,
): Promise<DepositAddressRecord | undefined> =>
  tx.depositAddresses.findUnique({ network, address: canonicalAddress(network, address) });
