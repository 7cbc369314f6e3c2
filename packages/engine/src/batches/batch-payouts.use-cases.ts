/**
 * What a crypto batch needs from the payout side (docs/spec/decisions.md §6): the route of its items, the
 * references its order_nos would take, and, once it is submitted, one payout per item, created in
 * the same unit of work as the submission.
 *
 * Each item's payout pays the item's address through a beneficiary of the batch's crypto method
 * whose payee_id is the address (EVM lower-cased, so both spellings are one recipient) and whose
 * one account under the item's network (EVM or TRON) carries `{address}`. The interface's linking
 * rules hold: an existing active beneficiary and its matching account are reused; a different
 * account under that network is `beneficiary account mismatch`; a disabled beneficiary or a
 * disabled or suspended account refuses the submission.
 */
import { createHash } from 'node:crypto';
import {
  type AccountRecord,
  type BatchItemRoute,
  batchRouteOf,
  type CryptoBatchItem,
  type CryptoBatchPayout,
  type CryptoBatchSnapshot,
  type CryptoCurrency,
  computeFee,
  cryptoBatchMachine,
  cryptoBatchPayoutsOf,
  Decimal,
  formatAmount,
  type IdGenerator,
  isStoreFailure,
  money,
  type PayoutInput,
  type PayoutRouteRecord,
  payrailError,
  receivingAddressKey,
  type StoreTransaction,
} from '@payrail/core';
import { create, orRefuse, refuse } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import type { LinkedBeneficiary } from '../payouts/beneficiary-linking.policy.js';
import { payoutRepository } from '../payouts/payout.persistence.js';
import { verificationOf } from '../payouts/payout-recipient.policy.js';
import { batchesInStatus } from './batch.persistence.js';

// ---------------------------------------------------------------------------------------------
// Routes

/** The active routes of (currency, method), global or of any account, oldest first. */
export const loadBatchRoutes = async (
  tx: StoreTransaction,
  currency: CryptoCurrency,
  methodId: number,
): Promise<readonly PayoutRouteRecord[]> => {
  const routes: PayoutRouteRecord[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await tx.payoutRoutes.list({
      where: { currency, method_id: methodId, status: 'active' },
      sort: 'asc',
      limit: 100,
      offset,
    });
    routes.push(...page.items);
    if (offset + page.items.length >= page.total || page.items.length === 0) return routes;
  }
};

/**
 * The route of one payout, in the order quick payouts prefer routes: the account's own before the
 * global ones (account_id null), routes without a channel before channel-bound ones (a batch names
 * no channel), then the oldest; the amount must lie within [min_amount, max_amount].
 */
const routeForAmount = (
  routes: readonly PayoutRouteRecord[],
  accountId: string,
  amount: string,
): PayoutRouteRecord | undefined => {
  const value = new Decimal(amount);
  const rank = (route: PayoutRouteRecord): number =>
    (route.account_id === null ? 2 : 0) + (route.channel_id === null ? 0 : 1);
  return routes
    .filter((route) => route.account_id === null || route.account_id === accountId)
    .map((route, order) => ({ route, order }))
    .sort((a, b) => rank(a.route) - rank(b.route) || a.order - b.order)
    .map(({ route }) => route)
    .find(
      (route) =>
        value.greaterThanOrEqualTo(route.min_amount) && value.lessThanOrEqualTo(route.max_amount),
    );
};

/**
 * The one route of all the items (the core's `batchRouteOf` rules), which must name a channel
 * account (`channel account not configured`, as for a quick payout).
 */
export const batchRoute = (
  routes: readonly PayoutRouteRecord[],
  accountId: string,
  items: readonly CryptoBatchItem[],
): PayoutRouteRecord => {
  const chosen = orRefuse(batchRouteOf(items, batchItemRouter(routes, accountId)));
  const route =
    routes.find((r) => r.route_id === chosen.route_id) ??
    refuse(payrailError('payout_route_not_configured'));
  if (route.channel_account_id === null) refuse(payrailError('channel_account_not_configured'));
  return route;
};

/** `route_of` for the core's batch rules: the item's route as `{route_id, channel_account_id}`. */
export const batchItemRouter =
  (routes: readonly PayoutRouteRecord[], accountId: string) =>
  (item: CryptoBatchItem): BatchItemRoute | undefined => {
    const route = routeForAmount(routes, accountId, item.amount);
    return route === undefined
      ? undefined
      : { route_id: route.route_id, channel_account_id: route.channel_account_id };
  };

// ---------------------------------------------------------------------------------------------
// References

/**
 * Which of `items`' order_nos are taken in the merchant's scope: a payout's reference, or an
 * order_no of another batch not yet submitted (which will become one).
 */
export const takenReferences = async (
  tx: StoreTransaction,
  accountId: string,
  items: readonly CryptoBatchItem[],
  exceptBatchId?: string,
): Promise<ReadonlySet<string>> => {
  const wanted = new Set(items.map((item) => item.order_no));
  const taken = new Set<string>();
  for (const orderNo of wanted) {
    const payout = await tx.payouts.findUnique({ account_id: accountId, reference: orderNo });
    if (payout !== undefined) taken.add(orderNo);
  }
  for (const status of ['draft', 'approved'] as const) {
    for (const batch of await batchesInStatus(tx, accountId, status)) {
      if (batch.record.batch_id === exceptBatchId) continue;
      for (const item of batch.snapshot.context.items) {
        if (wanted.has(item.order_no)) taken.add(item.order_no);
      }
    }
  }
  return taken;
};

// ---------------------------------------------------------------------------------------------
// Beneficiaries

const linkRecipient = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  payout: CryptoBatchPayout,
  at: number,
): Promise<LinkedBeneficiary> => {
  const { address, network_code, display_name } = payout.beneficiary_account;
  const payeeId = receivingAddressKey(address);
  const found = await tx.beneficiaries.findUnique({
    account_id: payout.account_id,
    method_id: payout.method_id,
    payee_id: payeeId,
  });
  if (found !== undefined && found.status !== 'active')
    refuse(payrailError('beneficiary_disabled'));
  const beneficiary =
    found ??
    (await tx.beneficiaries.insert({
      beneficiary_id: ids.next('ben'),
      account_id: payout.account_id,
      method_id: payout.method_id,
      payee_id: payeeId,
      name: display_name ?? address,
      fields: { payee_id: payeeId },
      status: 'active',
      created_at: at,
      updated_at: at,
    }));
  const existing = await tx.beneficiaryAccounts.findUnique({
    beneficiary_id: beneficiary.beneficiary_id,
    network_code,
  });
  if (existing !== undefined) {
    if (receivingAddressKey(existing.fields.address ?? '') !== payeeId) {
      refuse(payrailError('beneficiary_account_mismatch'));
    }
    if (existing.status === 'disabled') refuse(payrailError('beneficiary_account_disabled'));
    if (existing.status === 'suspended') refuse(payrailError('beneficiary_account_suspended'));
    return { beneficiary, account: existing };
  }
  const account = await tx.beneficiaryAccounts.insert({
    beneficiary_account_id: ids.next('bacc'),
    account_id: payout.account_id,
    beneficiary_id: beneficiary.beneficiary_id,
    network_code,
    display_name: display_name ?? null,
    account_type: null,
    fields: { address },
    status: 'active',
    created_at: at,
    updated_at: at,
  });
  return { beneficiary, account };
};

// ---------------------------------------------------------------------------------------------
// Payouts

/** SHA-256 of what the payout was made from: the batch item, canonically ordered. */
const requestHashOf = (payout: CryptoBatchPayout): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        payout.batch_id,
        payout.reference,
        payout.currency,
        payout.amount,
        payout.method_id,
        payout.beneficiary_account.network_code,
        payout.beneficiary_account.address,
      ]),
    )
    .digest('hex');

export interface BatchPayoutSettings {
  readonly account: AccountRecord;
  /** The batch's notify_url; null: the payouts send no callbacks and skip merchant verification. */
  readonly notifyUrl: string | null;
  readonly routes: readonly PayoutRouteRecord[];
  readonly at: number;
}

/**
 * Creates the payouts of a batch that has just been submitted, each submitted at once
 * (`pending_review`, then verification, auto approval or an operator, as for any payout), with
 * its fee from the batch's one route, and commits their effects. A reference taken since the
 * batch was checked answers `duplicate order_no in merchant payouts`; a route that no longer
 * serves all items answers the route's message.
 */
export const createBatchPayouts = async (
  deps: EngineDeps,
  tx: StoreTransaction,
  batch: CryptoBatchSnapshot,
  settings: BatchPayoutSettings,
): Promise<void> => {
  const { account, notifyUrl, routes, at } = settings;
  const route = batchRoute(routes, account.account_id, batch.context.items);
  for (const payout of cryptoBatchPayoutsOf(batch)) {
    const recipient = await linkRecipient(tx, deps.ids, payout, at);
    const amount = money(payout.currency, payout.amount);
    const fee = computeFee(amount, { fixed: route.fixed_fee, percent: route.percent_fee });
    const input: PayoutInput = {
      payout_id: payout.payout_id,
      account_id: payout.account_id,
      reference: payout.reference,
      currency: payout.currency,
      amount: payout.amount,
      fee: formatAmount(fee),
      fee_bearer: 'merchant',
      notify_url: notifyUrl ?? '',
      beneficiary_id: recipient.beneficiary.beneficiary_id,
      beneficiary_account_id: recipient.account.beneficiary_account_id,
      // Verification asks the merchant at notify_url; a batch without one was already confirmed
      // by the merchant's second key (four eyes).
      verification_enabled: account.verification_enabled && notifyUrl !== null,
      auto_approve: account.auto_approve,
      verification: verificationOf(recipient),
      submit: true,
      at,
    };
    await create(tx, deps.ids, payoutRepository, {
      input,
      extra: {
        requestHash: requestHashOf(payout),
        batchId: payout.batch_id,
        // the payout side's stored format: the snapshot plus the route it was priced on
        routing: {
          route_id: route.route_id,
          method_id: route.method_id,
          channel_id: route.channel_id,
          channel_account_id: route.channel_account_id,
        },
      },
      at,
      parent: { machine: cryptoBatchMachine, id: batch.context.batch_id, snapshot: batch },
    }).catch((error: unknown) => {
      const referenceTaken =
        isStoreFailure(error) &&
        error.reason === 'unique_violation' &&
        error.collection === 'payouts';
      if (referenceTaken) refuse(payrailError('duplicate_order_no_in_payouts'));
      throw error;
    });
  }
};
