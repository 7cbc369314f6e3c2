/**
 * The built-in sandbox provider's side of a payment: the admin body
 * `{token_id, amount, status, tx_hash?, payment_id?}` normalised into the core's
 * `ProviderPaymentEvent`, as a real provider adapter would normalise its webhook.
 *
 * processing -> `detected` with 0 confirmations; confirming -> `confirming` with 1;
 * confirmed -> `confirmed` with all the network's required confirmations. A payment without a
 * tx_hash gets one derived from its payment id (in the network's format), so updates of one
 * payment agree; an update that omits tx_hash keeps the recorded one.
 */
import { createHash } from 'node:crypto';
import {
  base58Encode,
  type ChainNetwork,
  chainNetworks,
  type PaymentRecord,
  type ProviderEventKind,
  type ProviderPaymentEvent,
  payTokens,
  type SandboxPaymentRequest,
  type SandboxPaymentStatus,
} from '@payrail/core';

/** Confirmations the sandbox requires per network before a payment counts as confirmed. */
export const sandboxRequiredConfirmations: Readonly<Record<ChainNetwork, number>> = {
  TRON: 19,
  ETH: 12,
  BSC: 15,
  MATIC: 128,
  ARBITRUM: 20,
  BASE: 20,
  SOL: 32,
};

const kindOf: Readonly<Record<SandboxPaymentStatus, ProviderEventKind>> = {
  processing: 'detected',
  confirming: 'confirming',
  confirmed: 'confirmed',
};

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A transaction hash for a sandbox payment, shaped like the network's own. */
export const sandboxTxHashOf = (network: ChainNetwork, paymentId: string): string => {
  const bytes = digest(`sandbox-tx:${paymentId}`);
  switch (chainNetworks[network].addressFormat) {
    case 'evm':
      return `0x${bytes.toString('hex')}`;
    case 'tron':
      return bytes.toString('hex');
    case 'solana':
      return base58Encode(Buffer.concat([bytes, digest(`sandbox-sig:${paymentId}`)]));
  }
};

export interface SandboxPaymentTarget {
  readonly payment_id: string;
  /** The order's deposit address on the token's network. */
  readonly address: string;
  /** The payment's record when the body updates a known payment. */
  readonly existing: PaymentRecord | undefined;
}

export const sandboxPaymentEvent = (
  request: SandboxPaymentRequest,
  target: SandboxPaymentTarget,
): ProviderPaymentEvent => {
  const network = payTokens[request.token_id].network;
  const required = sandboxRequiredConfirmations[network];
  const confirmations = { processing: 0, confirming: 1, confirmed: required }[request.status];
  return {
    kind: kindOf[request.status],
    payment_id: target.payment_id,
    token_id: request.token_id,
    address: target.address,
    amount: request.amount,
    tx_hash:
      request.tx_hash ?? target.existing?.tx_hash ?? sandboxTxHashOf(network, target.payment_id),
    confirmations,
    required_confirmations: required,
  };
};
