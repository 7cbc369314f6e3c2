/**
 * `PATCH /payment/payouts/{payout_id}` (interface "Fiat payout", docs/spec/decisions.md §2): a draft or
 * returned payout's amount, currency, fee bearer, notify_url or recipient changed, re-priced on
 * the route it now takes. The machine decides (`payout not editable`, `no changes`); a change of
 * channel alone moves the route, which the machine does not keep, and is saved as it is.
 */
import {
  type AccountRecord,
  decodePayoutUpdate,
  type PayoutChanges,
  type PayoutEvent,
  type PayoutSnapshot,
  type PayoutUpdateRequest,
  payoutRefusalOf,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { notifyUrlRefusal } from '../access/outbound-url.policy.js';
import { handle, orRefuse, refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { type LinkedBeneficiary, requireSameChannel } from './beneficiary-linking.policy.js';
import { type LoadedPayout, payoutRepository } from './payout.persistence.js';
import { payoutAnswer } from './payout.views.js';
import { merchantGuard } from './payout-account.policy.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import {
  atScale,
  linkRecipient,
  networkLookupIn,
  requireWallet,
  routingFor,
  verificationOf,
} from './payout-recipient.policy.js';
import { checkMethod, findMethod } from './payout-routing.policy.js';

/** The recipient a payout already has, re-read (statuses may have changed since). */
const currentRecipient = async (
  tx: StoreTransaction,
  accountId: string,
  context: PayoutSnapshot['context'],
): Promise<LinkedBeneficiary> => {
  const beneficiary = await tx.beneficiaries.get(context.beneficiary_id, accountId);
  const account = await tx.beneficiaryAccounts.get(context.beneficiary_account_id, accountId);
  if (beneficiary === undefined) return refuse(payrailError('beneficiary_not_found'));
  if (account === undefined) return refuse(payrailError('beneficiary_account_not_found'));
  return { beneficiary, account };
};

interface Patching {
  readonly deps: EngineDeps;
  readonly catalogue: PayoutCatalogue;
  readonly tx: StoreTransaction;
  readonly account: AccountRecord;
  readonly loaded: LoadedPayout;
  readonly patch: PayoutUpdateRequest;
  readonly at: number;
}

/** The recipient after the patch: a new one it names, or the payout's own. */
const recipientAfter = async (p: Patching): Promise<LinkedBeneficiary> => {
  const { patch, tx, account } = p;
  const context = p.loaded.snapshot.context;
  if (patch.beneficiary_account_id === undefined && patch.beneficiary === undefined) {
    return currentRecipient(tx, account.account_id, context);
  }
  return linkRecipient(p.deps, p.catalogue, tx, p.at, account.account_id, {
    channelId: patch.channel_id ?? null,
    // An inline pair joins the payout's method unless the PATCH names another.
    ...(patch.method_id !== undefined
      ? { methodId: patch.method_id }
      : patch.beneficiary !== undefined
        ? {
            methodId: (await currentRecipient(tx, account.account_id, context)).beneficiary
              .method_id,
          }
        : {}),
    ...(patch.beneficiary_account_id === undefined
      ? {}
      : { beneficiaryAccountId: patch.beneficiary_account_id }),
    ...(patch.beneficiary === undefined ? {} : { beneficiary: patch.beneficiary }),
    ...(patch.beneficiary_account === undefined ? {} : { account: patch.beneficiary_account }),
  });
};

/** The payout as the patch would have it: its changes, and the route it is priced on. */
const patched = async (p: Patching) => {
  const { patch, loaded } = p;
  const context = loaded.snapshot.context;
  const currency = patch.currency ?? context.currency;
  requireWallet(p.account, currency);
  const amount = atScale(currency, patch.amount ?? context.amount);
  const feeBearer = patch.fee_bearer ?? context.fee_bearer;
  const linked = await recipientAfter(p);
  const methodId = linked.beneficiary.method_id;
  if (patch.method_id !== undefined && patch.method_id !== methodId) {
    refuse(payrailError('beneficiary_method_mismatch'));
  }
  const channelId =
    patch.channel_id ?? (methodId === loaded.routing?.method_id ? loaded.routing.channel_id : null);
  requireSameChannel(linked.beneficiary, channelId);
  checkMethod(await findMethod(p.catalogue, p.tx, methodId), currency, channelId);
  const { routing, fee } = await routingFor(p.catalogue, p.tx, {
    accountId: p.account.account_id,
    currency,
    amount,
    feeBearer,
    methodId,
    channelId,
    beneficiary: linked.beneficiary,
  });
  const changes: PayoutChanges = {
    currency,
    amount,
    fee,
    fee_bearer: feeBearer,
    notify_url: patch.notify_url ?? context.notify_url,
    beneficiary_id: linked.beneficiary.beneficiary_id,
    beneficiary_account_id: linked.account.beneficiary_account_id,
    verification: verificationOf(linked),
  };
  return { changes, routing };
};

export const updatePayout = async (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  caller: Caller,
  payoutId: string,
  body: unknown,
) => {
  const notifyUrlRefused = await notifyUrlRefusal(deps, body, caller, ['payment.payout.update']);
  const target = {
    id: payoutId,
    scope: caller.account_id,
    guard: merchantGuard(caller, 'payment.payout.update'),
  };
  const updated = await handle(deps, payoutRepository, target, async (step) => {
    const { tx, loaded, at, guarded: account } = step;
    if (!loaded.snapshot.hasTag('editable')) refuse(payrailError('payout_not_editable'));
    const patch = orRefuse(
      decodePayoutUpdate(body, {
        lookupNetwork: await networkLookupIn(catalogue, tx),
        allowInsecureNotifyUrl: deps.settings.allowInsecureWebhooks,
      }),
    );
    if (notifyUrlRefused !== undefined) refuse(notifyUrlRefused);
    const { changes, routing } = await patched({ deps, catalogue, tx, account, loaded, patch, at });
    const event: PayoutEvent = { type: 'payout.update', at, changes };
    const routeMoved = JSON.stringify(routing) !== JSON.stringify(loaded.routing);
    if (routeMoved && payoutRefusalOf(loaded.snapshot, event)?.key === 'no_changes') {
      // Only the channel (and so the route) changed: nothing the machine keeps.
      await payoutRepository.save(tx, { ...loaded, routing }, loaded.snapshot);
      return undefined;
    }
    return { event, onto: { ...loaded, routing } };
  });
  return payoutAnswer(updated);
};
