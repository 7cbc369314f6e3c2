/**
 * The standalone beneficiary and beneficiary-account endpoints (docs/spec/decisions.md §3). Creation follows
 * the linking rules like a quick payout does: a beneficiary is found again by method_id +
 * payee_id (its profile refreshed), and a beneficiary keeps one account per network_code
 * (`beneficiary account already exists`). Account fields are answered masked (`fields_masked`).
 */
import {
  BeneficiaryCreateRequest,
  BeneficiaryPatchRequest,
  decodeWith,
  type PayoutMethodRecord,
  payrailError,
  requireBeneficiaryCreateFields,
  type StoreTransaction,
} from '@payrail/core';
import { orRefuse, refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import {
  changeAsAccount,
  findBeneficiary,
  listOwn,
  readAsAccount,
  withStatus,
} from './beneficiary.store.js';
import { beneficiaryAccountUseCases } from './beneficiary-account.use-cases.js';
import { upsertBeneficiary } from './beneficiary-linking.policy.js';
import { beneficiaryView } from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import { candidateRoutes, findMethod } from './payout-routing.policy.js';

/**
 * The profile fields a beneficiary of this method (and channel) needs to be paid on every route
 * the account can use: the union of those routes' required fields, in route order.
 */
const requiredProfileFields = async (
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
  accountId: string,
  method: PayoutMethodRecord,
  channelId: string | null,
): Promise<readonly string[]> => {
  const required: string[] = [];
  for (const currency of method.currencies) {
    const routes = await candidateRoutes(catalogue, tx, {
      accountId,
      currency,
      methodId: method.method_id,
      channelId,
    });
    for (const route of routes) required.push(...route.required_beneficiary_fields);
  }
  return [...new Set(required)];
};

/** `POST /payment/beneficiaries`: creates, or refreshes the profile of the same payee. */
const createBeneficiary = (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  caller: Caller,
  body: unknown,
) =>
  changeAsAccount(deps, caller, 'payment.payout.beneficiary.write', async (tx, at, account) => {
    const request = orRefuse(decodeWith(BeneficiaryCreateRequest)(body));
    const method = await findMethod(catalogue, tx, request.method_id);
    const channelId = request.channel_id ?? null;
    if (channelId !== null && !method.channel_ids.includes(channelId)) {
      refuse(payrailError('payout_channel_not_found'));
    }
    const required = await requiredProfileFields(
      catalogue,
      tx,
      account.account_id,
      method,
      channelId,
    );
    orRefuse(requireBeneficiaryCreateFields(request.fields, required));
    const beneficiary = await upsertBeneficiary(
      tx,
      deps.ids,
      at,
      account.account_id,
      method.method_id,
      { name: request.name, fields: request.fields },
      channelId,
    );
    return { beneficiary: beneficiaryView(beneficiary) };
  });

const getBeneficiary = (deps: EngineDeps, caller: Caller, beneficiaryId: string) =>
  readAsAccount(deps, caller, 'payment.payout.beneficiary.read', async (tx) => ({
    beneficiary: beneficiaryView(await findBeneficiary(tx, caller, beneficiaryId, 'path')),
  }));

/** `PATCH /payment/beneficiaries/{id}`: `status` active or disabled. */
const updateBeneficiary = (
  deps: EngineDeps,
  caller: Caller,
  beneficiaryId: string,
  body: unknown,
) =>
  changeAsAccount(deps, caller, 'payment.payout.beneficiary.write', async (tx, at) => {
    const beneficiary = await findBeneficiary(tx, caller, beneficiaryId, 'path');
    const { status } = orRefuse(decodeWith(BeneficiaryPatchRequest)(body));
    const updated = await tx.beneficiaries.update(withStatus(beneficiary, status, at));
    return { beneficiary: beneficiaryView(updated) };
  });

export const beneficiaryUseCases = (deps: EngineDeps, catalogue: PayoutCatalogue) => ({
  beneficiaries: {
    create: (caller: Caller, body: unknown) => createBeneficiary(deps, catalogue, caller, body),
    get: (caller: Caller, beneficiaryId: string) => getBeneficiary(deps, caller, beneficiaryId),
    list: listOwn(
      deps,
      'payment.payout.beneficiary.read',
      (tx) => tx.beneficiaries,
      beneficiaryView,
    ),
    update: (caller: Caller, beneficiaryId: string, body: unknown) =>
      updateBeneficiary(deps, caller, beneficiaryId, body),
  },
  beneficiaryAccounts: beneficiaryAccountUseCases(deps, catalogue),
});
