/**
 * The deposit address port: where an acquiring order's payer sends tokens. A live deployment
 * plugs in its custody (a wallet service, an exchange's sub-accounts, an HD wallet it holds the
 * keys of); the engine's sandbox derivation is one implementation whose addresses nobody can
 * spend from. The engine records every address it hands out per (network, address), which is how
 * an upstream provider's payment to that address finds its order.
 */
import type { ChainNetwork, PayTokenId } from '../money/pay-tokens.js';

export interface DepositAddressRequest {
  readonly order_id: string;
  readonly account_id: string;
  readonly network: ChainNetwork;
  /**
   * The token the payer chose, for a custody that wants to know it. The address is still one per
   * (order, network): another token of the same network must answer the same address.
   */
  readonly token_id: PayTokenId;
}

export interface DepositAddressProvider {
  /**
   * The address the order's payer pays to on `request.network`, in the network's format (EVM
   * hex in any letter case, TRON base58check, Solana base58); the engine refuses anything else
   * and records EVM addresses checksummed.
   *
   * It runs inside the unit of work that hands the address out, so it must be deterministic or
   * idempotent per (order_id, network): a unit of work that is retried after a conflict asks
   * again and must get the same address, and an address may be allocated for a unit of work
   * that then fails (it is neither shown nor recorded). Two orders must never share an address
   * on one network. Keep it fast: the transaction stays open while it runs. A throw fails the
   * unit of work as an internal error, and the caller may retry.
   */
  addressFor(request: DepositAddressRequest): Promise<string>;
}
