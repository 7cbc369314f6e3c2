/**
 * The rules a payout's recipient and price follow on create and on update (interface "Fiat
 * payout", docs/spec/decisions.md §2): the receiving networks inline accounts are checked against, the
 * recipient by id or through the linking rules, the wallet of the payout's currency, the route
 * and fee, and what the verification request tells the merchant about the recipient.
 */
import {
  type AccountRecord,
  type BeneficiaryRecord,
  type Currency,
  type FeeBearer,
  formatAmount,
  type NetworkLookup,
  networkLookupOf,
  type PayoutCreateRequest,
  type PayoutMethodRecord,
  type PayoutRouting,
  type PayoutVerificationDetails,
  parseAmount,
  payrailError,
  requireBeneficiaryFields,
  type StoreTransaction,
} from '@payrail/core';
import { orRefuse, refuse } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { type LinkedBeneficiary, linkById, linkInline } from './beneficiary-linking.policy.js';
import { maskedFieldsOf } from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import { feeOf, findMethod, selectRoute } from './payout-routing.policy.js';

/** The receiving networks the decoders check inline accounts against (active ones only). */
export const networkLookupIn = async (
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
): Promise<NetworkLookup> =>
  networkLookupOf(
    (await catalogue.activeNetworks(tx)).map((network) => ({
      code: network.code,
      fields: network.fields,
    })),
  );

/** `amount` at `currency`'s scale ("10" is "10.00"), or its refusal. */
export const atScale = (currency: Currency, amount: string): string =>
  formatAmount(orRefuse(parseAmount(amount, currency)));

/** What the verification request tells the merchant about the recipient: fields masked. */
export const verificationOf = (linked: LinkedBeneficiary): PayoutVerificationDetails => ({
  beneficiary_name: linked.beneficiary.name,
  network_code: linked.account.network_code,
  account_type: linked.account.account_type,
  beneficiary_account: {
    network_code: linked.account.network_code,
    display_name: linked.account.display_name,
    fields_masked: maskedFieldsOf(linked.account.fields),
  },
});

/**
 * `wallet not found`: the account holds no wallet (balance) in the payout's currency, i.e. the
 * currency is not among the account's currencies (set when the operator creates the merchant).
 */
export const requireWallet = (account: AccountRecord, currency: Currency): void => {
  if (!account.currencies.includes(currency)) refuse(payrailError('wallet_not_found'));
};

/** What a payout is priced on. */
export interface PricingRequest {
  readonly accountId: string;
  readonly currency: Currency;
  readonly amount: string;
  readonly feeBearer: FeeBearer;
  readonly methodId: number;
  readonly channelId: string | null;
  readonly beneficiary: BeneficiaryRecord;
}

/** The route a payout takes, its fee, and the beneficiary fields that route requires. */
export const routingFor = async (
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
  request: PricingRequest,
): Promise<{ readonly routing: PayoutRouting; readonly fee: string }> => {
  const route = await selectRoute(catalogue, tx, request);
  const fee = feeOf(route, request.currency, request.amount, request.feeBearer);
  orRefuse(requireBeneficiaryFields(request.beneficiary.fields, route.required_beneficiary_fields));
  return {
    fee,
    routing: {
      route_id: route.route_id,
      method_id: request.methodId,
      channel_id: request.channelId,
      channel_account_id: route.channel_account_id,
    },
  };
};

/** Who a payout pays, as a create or an update names it. */
export interface RecipientRequest {
  readonly methodId?: number;
  /** The method of `methodId` when the caller has read it already in this unit of work. */
  readonly method?: PayoutMethodRecord;
  /** Remembered by a beneficiary this request creates. */
  readonly channelId?: string | null;
  readonly beneficiaryAccountId?: string;
  readonly accountType?: string;
  readonly beneficiary?: PayoutCreateRequest['beneficiary'];
  readonly account?: PayoutCreateRequest['beneficiary_account'];
}

/** The payout's recipient: by id, or the inline pair through the linking rules. */
export const linkRecipient = async (
  deps: Pick<EngineDeps, 'ids'>,
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
  at: number,
  accountId: string,
  request: RecipientRequest,
): Promise<LinkedBeneficiary> => {
  if (request.beneficiary !== undefined && request.account !== undefined) {
    // The codec guarantees method_id with an inline pair.
    const methodId = request.methodId ?? refuse(payrailError('method_id_required_inline'));
    const method = request.method ?? (await findMethod(catalogue, tx, methodId));
    if (!method.network_codes.includes(request.account.network_code)) {
      refuse(payrailError('network_not_found'));
    }
    return linkInline(tx, deps.ids, at, {
      accountId,
      methodId,
      channelId: request.channelId ?? null,
      beneficiary: request.beneficiary,
      account: request.account,
    });
  }
  return linkById(tx, {
    accountId,
    beneficiaryAccountId:
      request.beneficiaryAccountId ?? refuse(payrailError('beneficiary_account_id_required')),
    ...(request.methodId === undefined ? {} : { methodId: request.methodId }),
    ...(request.accountType === undefined ? {} : { accountType: request.accountType }),
  });
};
