/**
 * The standalone beneficiary-account endpoints (docs/spec/decisions.md §3): a beneficiary keeps one account
 * per network_code (`beneficiary account already exists`); fields are answered masked
 * (`fields_masked`).
 */
import {
  BeneficiaryAccountPatchRequest,
  decodeBeneficiaryAccountCreate,
  decodeWith,
  isStoreFailure,
  payrailError,
} from '@payrail/core';
import { orRefuse, refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import {
  changeAsAccount,
  findBeneficiary,
  findBeneficiaryAccount,
  listOwn,
  readAsAccount,
  withStatus,
} from './beneficiary.store.js';
import { insertAccount } from './beneficiary-linking.policy.js';
import { beneficiaryAccountView } from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import { networkLookupIn } from './payout-recipient.policy.js';
import { findMethod } from './payout-routing.policy.js';

const createAccountOnce = (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  caller: Caller,
  body: unknown,
  at: number,
) =>
  readAsAccount(deps, caller, 'payment.payout.beneficiary_account.write', async (tx) => {
    const request = orRefuse(
      decodeBeneficiaryAccountCreate(body, {
        lookupNetwork: await networkLookupIn(catalogue, tx),
      }),
    );
    const beneficiary = await findBeneficiary(tx, caller, request.beneficiary_id, 'body');
    if (beneficiary.status !== 'active') refuse(payrailError('beneficiary_disabled'));
    const method = await findMethod(catalogue, tx, beneficiary.method_id);
    if (!method.network_codes.includes(request.network_code)) {
      refuse(payrailError('network_not_found'));
    }
    const existing = await tx.beneficiaryAccounts.findUnique({
      beneficiary_id: beneficiary.beneficiary_id,
      network_code: request.network_code,
    });
    if (existing !== undefined) refuse(payrailError('beneficiary_account_already_exists'));
    const { beneficiary_id: _, ...account } = request;
    const created = await insertAccount(tx, deps.ids, at, beneficiary, account);
    return { beneficiary_account: beneficiaryAccountView(created) };
  });

/** `POST /payment/beneficiary-accounts`: one account per network_code of a beneficiary. */
const createBeneficiaryAccount = async (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  caller: Caller,
  body: unknown,
) => {
  const at = deps.clock.now();
  try {
    return await createAccountOnce(deps, catalogue, caller, body, at);
  } catch (error) {
    // A concurrent request created the account between our check and our insert.
    if (isStoreFailure(error) && error.reason === 'unique_violation') {
      return createAccountOnce(deps, catalogue, caller, body, at);
    }
    throw error;
  }
};

const getBeneficiaryAccount = (deps: EngineDeps, caller: Caller, beneficiaryAccountId: string) =>
  readAsAccount(deps, caller, 'payment.payout.beneficiary_account.read', async (tx) => {
    const account = await findBeneficiaryAccount(tx, caller, beneficiaryAccountId);
    return { beneficiary_account: beneficiaryAccountView(account) };
  });

/** `PATCH /payment/beneficiary-accounts/{id}`: `status` active, disabled or suspended. */
const updateBeneficiaryAccount = (
  deps: EngineDeps,
  caller: Caller,
  beneficiaryAccountId: string,
  body: unknown,
) =>
  changeAsAccount(deps, caller, 'payment.payout.beneficiary_account.write', async (tx, at) => {
    const account = await findBeneficiaryAccount(tx, caller, beneficiaryAccountId);
    const { status } = orRefuse(decodeWith(BeneficiaryAccountPatchRequest)(body));
    const updated = await tx.beneficiaryAccounts.update(withStatus(account, status, at));
    return { beneficiary_account: beneficiaryAccountView(updated) };
  });

export const beneficiaryAccountUseCases = (deps: EngineDeps, catalogue: PayoutCatalogue) => ({
  create: (caller: Caller, body: unknown) =>
    createBeneficiaryAccount(deps, catalogue, caller, body),
  get: (caller: Caller, beneficiaryAccountId: string) =>
    getBeneficiaryAccount(deps, caller, beneficiaryAccountId),
  list: listOwn(
    deps,
    'payment.payout.beneficiary_account.read',
    (tx) => tx.beneficiaryAccounts,
    beneficiaryAccountView,
  ),
  update: (caller: Caller, beneficiaryAccountId: string, body: unknown) =>
    updateBeneficiaryAccount(deps, caller, beneficiaryAccountId, body),
});
