/**
 * The standalone beneficiary and beneficiary-account endpoints (decisions §3). Creation follows
 * the linking rules like a quick payout does: a beneficiary is found again by method_id +
 * payee_id (its profile refreshed), and a beneficiary keeps one account per network_code
 * (`beneficiary account already exists`). Account fields are answered masked (`fields_masked`).
 */
import {
  BeneficiaryAccountPatchRequest,
  type BeneficiaryAccountRecord,
  BeneficiaryCreateRequest,
  BeneficiaryPatchRequest,
  type BeneficiaryRecord,
  type Currency,
  decodeBeneficiaryAccountCreate,
  decodeWith,
  isStoreFailure,
  type Page,
  PageQuery,
  payrailError,
  requireBeneficiaryCreateFields,
  type StoreTransaction,
} from '@payrail/core';
import { type Permission, requirePermission } from '../access-control.js';
import { retryingConflicts } from '../conflict-retry.js';
import type { Caller, Query } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { callerAccount } from '../store-reads.js';
import { orRefuse, refuse, unitOfWork } from '../unit-of-work.js';
import { insertAccount, upsertBeneficiary } from './beneficiary-linking.js';
import { beneficiaryAccountView, beneficiaryView, pageView } from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.js';
import { networkLookupIn } from './payout-commands.js';
import { candidateRoutes, findMethod } from './payout-routing.js';

/**
 * The profile fields a beneficiary of this method (and channel) needs to be paid on every route
 * the account can use: the union of those routes' required fields, in route order.
 */
const requiredProfileFields = async (
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
  accountId: string,
  methodId: number,
  channelId: string | null,
  currencies: readonly Currency[],
): Promise<readonly string[]> => {
  const required: string[] = [];
  for (const currency of currencies) {
    const routes = await candidateRoutes(catalogue, tx, {
      accountId,
      currency,
      methodId,
      channelId,
    });
    for (const route of routes) required.push(...route.required_beneficiary_fields);
  }
  return [...new Set(required)];
};

export const beneficiaryUseCases = (deps: EngineDeps, catalogue: PayoutCatalogue) => {
  const withAccount = async (tx: StoreTransaction, caller: Caller, permission: Permission) => {
    requirePermission(caller, permission);
    return callerAccount(tx, caller, 'refused', 'payout');
  };

  /** A page of the caller's own records of one collection, as `view` shows them. */
  const listOwn =
    <R, V>(
      permission: Permission,
      collection: (tx: StoreTransaction) => {
        list(query: { scope: string; limit: number; offset: number }): Promise<Page<R>>;
      },
      view: (record: R) => V,
    ) =>
    (caller: Caller, query: Query) =>
      unitOfWork(deps.store, async (tx) => {
        await withAccount(tx, caller, permission);
        const q = orRefuse(decodeWith(PageQuery)(query));
        const page = await collection(tx).list({
          scope: caller.account_id,
          limit: q.limit,
          offset: q.offset,
        });
        return pageView(page, view);
      });

  /**
   * An id in the path that does not resolve is 404 (`beneficiary_id not found`); one in a body is
   * 400 `beneficiary not found` (decisions §1).
   */
  const findBeneficiary = async (
    tx: StoreTransaction,
    caller: Caller,
    beneficiaryId: string,
    from: 'path' | 'body',
  ): Promise<BeneficiaryRecord> =>
    (await tx.beneficiaries.get(beneficiaryId, caller.account_id)) ??
    refuse(payrailError(from === 'path' ? 'beneficiary_id_not_found' : 'beneficiary_not_found'));

  /** Only ever the id in the path: 404 `beneficiary_account_id not found`. */
  const findAccount = async (
    tx: StoreTransaction,
    caller: Caller,
    beneficiaryAccountId: string,
  ): Promise<BeneficiaryAccountRecord> =>
    (await tx.beneficiaryAccounts.get(beneficiaryAccountId, caller.account_id)) ??
    refuse(payrailError('beneficiary_account_id_not_found'));

  const beneficiaries = {
    /** `POST /payment/beneficiaries`: creates, or refreshes the profile of the same payee. */
    create: (caller: Caller, body: unknown) => {
      const at = deps.clock.now();
      return retryingConflicts(() =>
        unitOfWork(deps.store, async (tx) => {
          const account = await withAccount(tx, caller, 'payment.payout.beneficiary.write');
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
            method.method_id,
            channelId,
            method.currencies,
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
        }),
      );
    },

    get: (caller: Caller, beneficiaryId: string) =>
      unitOfWork(deps.store, async (tx) => {
        await withAccount(tx, caller, 'payment.payout.beneficiary.read');
        return {
          beneficiary: beneficiaryView(await findBeneficiary(tx, caller, beneficiaryId, 'path')),
        };
      }),

    list: listOwn('payment.payout.beneficiary.read', (tx) => tx.beneficiaries, beneficiaryView),

    /** `PATCH /payment/beneficiaries/{id}`: `status` active or disabled. */
    update: (caller: Caller, beneficiaryId: string, body: unknown) => {
      const at = deps.clock.now();
      return retryingConflicts(() =>
        unitOfWork(deps.store, async (tx) => {
          await withAccount(tx, caller, 'payment.payout.beneficiary.write');
          const beneficiary = await findBeneficiary(tx, caller, beneficiaryId, 'path');
          const { status } = orRefuse(decodeWith(BeneficiaryPatchRequest)(body));
          if (status === beneficiary.status) refuse(payrailError('no_changes'));
          const updated = await tx.beneficiaries.update({ ...beneficiary, status, updated_at: at });
          return { beneficiary: beneficiaryView(updated) };
        }),
      );
    },
  };

  const beneficiaryAccounts = {
    /** `POST /payment/beneficiary-accounts`: one account per network_code of a beneficiary. */
    create: async (caller: Caller, body: unknown) => {
      const at = deps.clock.now();
      const attempt = () =>
        unitOfWork(deps.store, async (tx) => {
          await withAccount(tx, caller, 'payment.payout.beneficiary_account.write');
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
      try {
        return await attempt();
      } catch (error) {
        // A concurrent request created the account between our check and our insert.
        if (isStoreFailure(error) && error.reason === 'unique_violation') {
          return attempt();
        }
        throw error;
      }
    },

    get: (caller: Caller, beneficiaryAccountId: string) =>
      unitOfWork(deps.store, async (tx) => {
        await withAccount(tx, caller, 'payment.payout.beneficiary_account.read');
        const account = await findAccount(tx, caller, beneficiaryAccountId);
        return { beneficiary_account: beneficiaryAccountView(account) };
      }),

    list: listOwn(
      'payment.payout.beneficiary_account.read',
      (tx) => tx.beneficiaryAccounts,
      beneficiaryAccountView,
    ),

    /** `PATCH /payment/beneficiary-accounts/{id}`: `status` active, disabled or suspended. */
    update: (caller: Caller, beneficiaryAccountId: string, body: unknown) => {
      const at = deps.clock.now();
      return retryingConflicts(() =>
        unitOfWork(deps.store, async (tx) => {
          await withAccount(tx, caller, 'payment.payout.beneficiary_account.write');
          const account = await findAccount(tx, caller, beneficiaryAccountId);
          const { status } = orRefuse(decodeWith(BeneficiaryAccountPatchRequest)(body));
          if (status === account.status) refuse(payrailError('no_changes'));
          const updated = await tx.beneficiaryAccounts.update({
            ...account,
            status,
            updated_at: at,
          });
          return { beneficiary_account: beneficiaryAccountView(updated) };
        }),
      );
    },
  };

  return { beneficiaries, beneficiaryAccounts };
};
