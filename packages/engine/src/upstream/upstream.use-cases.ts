/**
 * `POST /upstream/acquiring/{provider}` (docs/spec/decisions.md §4, the interface's "Platform-side webhook
 * receiving"): a provider reports payments to deposit addresses; each is applied to the order
 * that handed the address out.
 *
 * Checks, first failure answers: the provider is registered
 * (`unsupported acquiring webhook provider: <provider>`), the call comes from one of its sources
 * (`webhook ip not allowed`, a second factor), the provider's signature over the raw body holds
 * (`unauthorized`: an address proves little behind a proxy, ADR 0032), the body is JSON
 * (`Content-Type: application/json`, else `invalid upstream merchant deposit payload`: a
 * browser form post is never read), its payload parses into normalised events (the provider's
 * `empty upstream webhook event` / `invalid upstream merchant deposit payload`); then, event by
 * event, the address was handed out on that network (`merchant deposit address not found`) and
 * its order exists (`acquiring order not found`).
 *
 * An order past its expire_time whose timer has not fired yet is expired first, as a read would
 * (the command handler's `settle`), so a late payment reads the same whether or not the timer
 * ran before it.
 *
 * `applyPaymentEvent` is the one door for payments: this receiver uses it for each normalised
 * event, and so does the admin API's sandbox payment (acquiring/sandbox-payment.use-case.ts).
 *
 * All events of one request are one unit of work: the request is applied whole or not at all,
 * so a provider that retries a refused delivery retries exactly what was refused. Applying an
 * event twice, or events in another order, changes nothing (the order machine's join), so a
 * retry of an accepted delivery is harmless too. The answer lists what each event did.
 */
import {
  type AcquiringProvider,
  isIpAllowed,
  isStoreFailure,
  type PaymentRecord,
  type PayrailError,
  ProviderPaymentEvent,
  payrailError,
  payTokens,
  type StoreTransaction,
  type UpstreamEventResult,
  type UpstreamPaymentEvent,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import {
  findDepositAddress,
  type LoadedOrder,
  orderOfDeposit,
  orderRepository,
} from '../acquiring/order.persistence.js';
import {
  commitDecision,
  refuse,
  settle,
  unitOfWorkRetryingConflicts,
} from '../command/command.handler.js';
import type { Engine, UpstreamRequest } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';

// The registry of acquiring providers (`EngineDeps.acquiringProviders`) and the source check of
// their calls. A provider is known by its exact name; each one lists the addresses it calls from.

/** Looks a provider up by the `{provider}` path segment. */
type ProviderLookup = (name: string) => AcquiringProvider | undefined;

/**
 * The providers by name. Two providers with one name are a wiring mistake, refused when the
 * engine is built rather than answered by whichever came first.
 */
const acquiringProviderLookup = (providers: readonly AcquiringProvider[] = []): ProviderLookup => {
  const byName = new Map<string, AcquiringProvider>();
  for (const provider of providers) {
    if (byName.has(provider.name)) {
      throw new Error(`two acquiring providers are named ${JSON.stringify(provider.name)}`);
    }
    byName.set(provider.name, provider);
  }
  return (name) => byName.get(name);
};

/**
 * Whether a call from `ip` may speak for the provider. Unlike an API key's whitelist, an empty
 * list allows nobody: a provider whose sources were not configured is shut, not open. The
 * address is read by the core's `ip-ranges` (an IPv4-mapped IPv6 address is its IPv4 address).
 */
const isAllowedSource = (ip: string, allowedSources: readonly string[]): boolean =>
  allowedSources.length > 0 && isIpAllowed(ip, allowedSources);

/**
 * The event as the order machine takes it: the network is the order lookup's business, and the
 * address is spelt as we recorded it (an EVM address arrives in any letter case).
 */
const paymentOf = (event: UpstreamPaymentEvent, address: string): ProviderPaymentEvent => {
  const { network: _network, ...payment } = event;
  return { ...payment, address };
};

/**
 * A provider adapter is trusted to normalise, not to be right: what it hands over must be a
 * well-formed event whose token is on its network, else the whole payload is invalid (the
 * machine would answer a field's own message instead).
 */
const isWellFormed = (event: UpstreamPaymentEvent): boolean =>
  ProviderPaymentEvent.is(event) && payTokens[event.token_id].network === event.network;

/**
 * `application/json`, parameters (`; charset=utf-8`) allowed: what every provider sends, and
 * what a browser cannot post cross-origin without asking first (a form's types are refused).
 */
const isJsonContent = (headers: UpstreamRequest['headers']): boolean =>
  /^application\/json\s*(;|$)/i.test((headers['content-type'] ?? '').trim());

/** The parsed body; `undefined` when empty or not JSON (the provider's `empty upstream webhook event`). */
const jsonOf = (body: string): unknown => {
  if (body.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed;
  } catch {
    return undefined;
  }
};

export interface AppliedPayment extends LoadedOrder {
  /** The payment's record after the event (unchanged when the event added nothing). */
  readonly payment: PaymentRecord | undefined;
}

/**
 * Binds `paymentId` to the order that saw it first (an acquiring payment record), in the caller's
 * unit of work, so a refused event binds nothing. An event naming a payment id already bound to
 * another order is refused with `invalid upstream merchant deposit payload`: a provider's id
 * names one transfer to one deposit address, and moving it would leave its first order unable
 * ever to be credited (issue 12; the ledger keys the credit by payment id). A concurrent unit of
 * work that bound it first is read back after its commit (the PostgreSQL stores wait for it).
 */
const bindPaymentId = async (
  tx: StoreTransaction,
  paymentId: string,
  order: LoadedOrder,
  at: number,
): Promise<void> => {
  const { order_id, account_id } = order.record;
  let bound = await tx.acquiringPayments.get(paymentId);
  if (bound === undefined) {
    try {
      await tx.acquiringPayments.insert({
        payment_id: paymentId,
        account_id,
        order_id,
        created_at: at,
        updated_at: at,
      });
      return;
    } catch (error) {
      if (!(isStoreFailure(error) && error.reason === 'unique_violation')) throw error;
      bound = await tx.acquiringPayments.get(paymentId);
    }
  }
  if (bound?.order_id !== order_id) refuse(payrailError('invalid_upstream_deposit_payload'));
};

/**
 * Applies a provider's normalised payment event to the order at `at`: the payment record is
 * created or moved forward, the order's status follows, confirmed money is credited once
 * (`pay_in`), and a payment after expiry or close is `late` with `anomaly_tag: expired_paid`.
 * A malformed event or one contradicting the recorded transfer is refused with the machine's
 * message (`invalid upstream merchant deposit payload`).
 *
 * A payment id is the provider's id of one transfer, credited under `<payment_id>:pay_in`; one
 * transfer cannot pay two orders, so an event naming a payment id first seen on another order
 * is refused with the same message (`bindPaymentId`; for a payment recorded before ids were
 * bound, the ledger's `duplicate_journal` still refuses a second credit), on every path a
 * payment arrives by. One transfer (token, receiving address, tx_hash) is one record too: the
 * order machine refuses it reported under a second payment id with the same message
 * (`recordOfTransfer`). An address belongs to one order, so the order's own records are where a
 * transfer can be met again, and two racing reports of it under two ids are kept apart by the
 * order's version: the loser reruns on the winner's record and is refused.
 */
export const applyPaymentEvent = async (
  deps: EngineDeps,
  tx: StoreTransaction,
  order: LoadedOrder,
  payment: ProviderPaymentEvent,
  at: number,
): Promise<AppliedPayment> => {
  await bindPaymentId(tx, payment.payment_id, order, at);
  const event = { type: 'acquiring.payment.observed', payment, at } as const;
  const next = await commitDecision(tx, deps.ids, orderRepository, order, event, at).catch(
    (error: unknown) => {
      if (isStoreFailure(error) && error.reason === 'duplicate_journal') {
        refuse(payrailError('invalid_upstream_deposit_payload'));
      }
      throw error;
    },
  );
  return { ...next, payment: next.snapshot.context.payments[payment.payment_id] };
};

/**
 * Applies one event to the order its address belongs to, on the order's latest version in
 * `orders` (an order past its expire_time expired first), and answers what it did.
 */
const applyEvent = async (
  deps: EngineDeps,
  tx: StoreTransaction,
  orders: Map<string, LoadedOrder>,
  event: UpstreamPaymentEvent,
  now: number,
): Promise<UpstreamEventResult> => {
  if (!isWellFormed(event)) refuse(payrailError('invalid_upstream_deposit_payload'));
  const deposit = await findDepositAddress(tx, event.network, event.address);
  const order =
    orders.get(deposit.order_id) ??
    (await settle(tx, deps.ids, orderRepository, await orderOfDeposit(tx, deposit), now));
  const applied = await applyPaymentEvent(deps, tx, order, paymentOf(event, deposit.address), now);
  orders.set(deposit.order_id, applied);
  const payment = applied.payment ?? refuse(payrailError('internal_error'));
  return {
    payment_id: payment.payment_id,
    order_id: deposit.order_id,
    payment_status: payment.status,
    order_status: applied.snapshot.value,
    changed: applied.record !== order.record,
  };
};

const applyEvents = async (
  deps: EngineDeps,
  tx: StoreTransaction,
  events: readonly UpstreamPaymentEvent[],
  now: number,
): Promise<UpstreamEventResult[]> => {
  // Several events of one request may move one order: each applies to its latest version.
  const orders = new Map<string, LoadedOrder>();
  const results: UpstreamEventResult[] = [];
  for (const event of events) results.push(await applyEvent(deps, tx, orders, event, now));
  return results;
};

/** The delivery's events once its provider, source, signature and content type check out. */
const eventsOf = (
  providerNamed: ProviderLookup,
  name: string,
  request: UpstreamRequest,
): E.Either<PayrailError, readonly UpstreamPaymentEvent[]> => {
  const provider = providerNamed(name);
  if (provider === undefined) {
    return E.left(payrailError('unsupported_acquiring_provider', { provider: name }));
  }
  if (!isAllowedSource(request.ip, provider.allowedSources)) {
    return E.left(payrailError('webhook_ip_not_allowed'));
  }
  const delivery = { body: request.body, headers: request.headers };
  if (!provider.verify(delivery)) return E.left(payrailError('unauthorized'));
  if (!isJsonContent(request.headers)) {
    return E.left(payrailError('invalid_upstream_deposit_payload'));
  }
  const parsed = provider.parse(jsonOf(request.body), delivery);
  if (E.isLeft(parsed)) return parsed;
  if (parsed.right.length === 0) return E.left(payrailError('empty_upstream_event'));
  return parsed;
};

export const upstreamUseCases = (deps: EngineDeps): Engine['upstream'] => {
  const providerNamed = acquiringProviderLookup(deps.acquiringProviders);
  const receive = async (name: string, request: UpstreamRequest) => {
    const events = eventsOf(providerNamed, name, request);
    if (E.isLeft(events)) return events;
    const now = deps.clock.now();
    return unitOfWorkRetryingConflicts(deps.store, async (tx) => ({
      events: await applyEvents(deps, tx, events.right, now),
    }));
  };
  return { receive };
};
