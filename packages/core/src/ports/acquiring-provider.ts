/**
 * The acquiring provider port: an upstream that watches chains and calls
 * `POST /upstream/acquiring/{provider}` when a payment to one of our deposit addresses moves
 * (docs/spec/decisions.md §4). Each provider is an adapter that reads its own payload and normalises it into
 * the one closed set below before anything reaches the engine, so the order machine never knows
 * which provider spoke. The built-in `sandbox` provider lives in `@payrail/sandbox`.
 */
import type { Either } from 'fp-ts/lib/Either.js';
import type { PayrailError } from '../errors/error-catalogue.js';
import type { ProviderPaymentEvent } from '../machines/order-status.js';
import type { ChainNetwork } from '../money/pay-tokens.js';

/**
 * One payment event as every provider reports it once normalised: the core's
 * `ProviderPaymentEvent` (`kind` detected | confirming | confirmed | failed, the provider's
 * `payment_id`, token, amount at the pay scale, tx_hash, confirmations) plus the `network` the
 * deposit `address` is on. The order is found by (network, address), never by an order id the
 * provider might send.
 */
export interface UpstreamPaymentEvent extends ProviderPaymentEvent {
  readonly network: ChainNetwork;
}

/** Request headers, names lower-cased (what a provider may sign or version its payload with). */
export type UpstreamHeaders = Readonly<Record<string, string>>;

/** A provider's call as it arrived, before anything read it. */
export interface UpstreamDelivery {
  /** The body exactly as received (UTF-8 text; `''` when there was none): what was signed. */
  readonly body: string;
  readonly headers: UpstreamHeaders;
}

export interface AcquiringProvider {
  /** The `{provider}` path segment it answers on, e.g. `sandbox`. */
  readonly name: string;
  /**
   * Addresses and CIDR ranges (IPv4 or IPv6) the provider calls from. A call from anywhere else
   * answers `webhook ip not allowed`; an empty list allows no address at all. A second factor:
   * the signature (`verify`) is what proves the provider spoke.
   */
  readonly allowedSources: readonly string[];
  /**
   * Whether the provider itself sent this delivery: its signature over the raw body (and, for
   * a scheme with a timestamp, that it is recent), compared in constant time. Runs before
   * anything reads the body; `false` answers `unauthorized`. Never throws.
   */
  verify(delivery: UpstreamDelivery): boolean;
  /**
   * The verified payload (parsed JSON; `undefined` when the body was empty or not JSON) as
   * normalised events, or the catalogue's `empty upstream webhook event` /
   * `invalid upstream merchant deposit payload`. `delivery` is there for a provider that must
   * read the exact text (numbers JSON cannot hold). Never throws, never answers an empty list.
   */
  parse(
    payload: unknown,
    delivery: UpstreamDelivery,
  ): Either<PayrailError, readonly UpstreamPaymentEvent[]>;
}
