/**
 * The interface's beneficiary linking rules, applied on every path that creates or reuses a
 * beneficiary or a receiving account (quick payout, payout PATCH, the standalone endpoints):
 *
 * 1. one beneficiary has at most one receiving account per network_code;
 * 2. an existing active beneficiary is found by method_id + payee_id;
 * 3. its account under the same network_code with the same fields is reused;
 * 4. a different account under that network_code is `beneficiary account mismatch`;
 * 5. with no such beneficiary, the beneficiary and its account are created.
 *
 * A reused beneficiary takes the profile the merchant just sent (sent keys replace stored ones,
 * other stored keys stay): a payout refused with `beneficiary profile incomplete` succeeds when
 * the merchant repeats it with the missing fields.
 */
import {
  type Beneficiary,
  type BeneficiaryAccount,
  type BeneficiaryAccountRecord,
  type BeneficiaryRecord,
  type IdGenerator,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { refuse } from '../command/command.handler.js';

export interface LinkedBeneficiary {
  readonly beneficiary: BeneficiaryRecord;
  readonly account: BeneficiaryAccountRecord;
}

const sameFields = (
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(a).every(([key, value]) => Object.hasOwn(b, key) && b[key] === value);

/** `beneficiary account disabled, please enable it first` or `beneficiary account suspended`. */
const requireActiveAccount = (account: BeneficiaryAccountRecord): void => {
  if (account.status === 'disabled') refuse(payrailError('beneficiary_account_disabled'));
  if (account.status === 'suspended') refuse(payrailError('beneficiary_account_suspended'));
};

/**
 * `beneficiary account not active`: the merchant's account is fine, but the operator disabled
 * (or removed) the receiving network it lives on, so nothing can be paid to it until the network
 * is enabled again. The merchant cannot fix this by a status PATCH, hence a message of its own.
 */
const requireOpenNetwork = async (
  tx: StoreTransaction,
  account: BeneficiaryAccountRecord,
): Promise<void> => {
  const network = await tx.payoutNetworks.get(account.network_code);
  if (network?.status !== 'active') refuse(payrailError('beneficiary_account_not_active'));
};

/**
 * `beneficiary channel mismatch`: a beneficiary first linked through a payout channel stays on
 * it; a payout naming another channel_id is refused (one without a channel_id is not).
 */
export const requireSameChannel = (
  beneficiary: BeneficiaryRecord,
  channelId: string | null,
): void => {
  const remembered = beneficiary.channel_id;
  if (remembered !== undefined && channelId !== null && channelId !== remembered) {
    refuse(payrailError('beneficiary_channel_mismatch'));
  }
};

/**
 * Rule 2 and the profile refresh: the active beneficiary of (method, payee_id) with the sent
 * name and fields merged in, a new one when there is none (remembering `channelId` when one is
 * sent), `beneficiary disabled` when it is, `beneficiary channel mismatch` on another channel.
 */
export const upsertBeneficiary = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  at: number,
  accountId: string,
  methodId: number,
  sent: Beneficiary,
  channelId: string | null = null,
): Promise<BeneficiaryRecord> => {
  const existing = await tx.beneficiaries.findUnique({
    account_id: accountId,
    method_id: methodId,
    payee_id: sent.fields.payee_id,
  });
  if (existing === undefined) {
    return tx.beneficiaries.insert({
      beneficiary_id: ids.next('ben'),
      account_id: accountId,
      method_id: methodId,
      payee_id: sent.fields.payee_id,
      name: sent.name,
      fields: sent.fields,
      status: 'active',
      ...(channelId === null ? {} : { channel_id: channelId }),
      created_at: at,
      updated_at: at,
    });
  }
  if (existing.status !== 'active') return refuse(payrailError('beneficiary_disabled'));
  requireSameChannel(existing, channelId);
  const fields = { ...existing.fields, ...sent.fields };
  if (existing.name === sent.name && sameFields(existing.fields, fields)) return existing;
  return tx.beneficiaries.update({ ...existing, name: sent.name, fields, updated_at: at });
};

/**
 * Rules 1, 3 and 4 for one beneficiary: its account under the sent network_code is reused when
 * the fields match (and it is active, and a sent account_type agrees), refused when they differ,
 * created when there is none.
 */
const linkAccount = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  at: number,
  beneficiary: BeneficiaryRecord,
  sent: BeneficiaryAccount,
): Promise<BeneficiaryAccountRecord> => {
  const existing = await tx.beneficiaryAccounts.findUnique({
    beneficiary_id: beneficiary.beneficiary_id,
    network_code: sent.network_code,
  });
  if (existing === undefined) return insertAccount(tx, ids, at, beneficiary, sent);
  if (!sameFields(existing.fields, sent.fields)) {
    return refuse(payrailError('beneficiary_account_mismatch'));
  }
  requireActiveAccount(existing);
  if (sent.account_type !== undefined && sent.account_type !== existing.account_type) {
    return refuse(payrailError('account_type_mismatch'));
  }
  return existing;
};

export const insertAccount = (
  tx: StoreTransaction,
  ids: IdGenerator,
  at: number,
  beneficiary: BeneficiaryRecord,
  sent: BeneficiaryAccount,
): Promise<BeneficiaryAccountRecord> =>
  tx.beneficiaryAccounts.insert({
    beneficiary_account_id: ids.next('bacc'),
    account_id: beneficiary.account_id,
    beneficiary_id: beneficiary.beneficiary_id,
    network_code: sent.network_code,
    display_name: sent.display_name ?? null,
    account_type: sent.account_type ?? null,
    fields: sent.fields,
    status: 'active',
    created_at: at,
    updated_at: at,
  });

/** The inline pair of a payout: rules 1-5. */
export const linkInline = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  at: number,
  request: {
    readonly accountId: string;
    readonly methodId: number;
    readonly channelId?: string | null;
    readonly beneficiary: Beneficiary;
    readonly account: BeneficiaryAccount;
  },
): Promise<LinkedBeneficiary> => {
  const beneficiary = await upsertBeneficiary(
    tx,
    ids,
    at,
    request.accountId,
    request.methodId,
    request.beneficiary,
    request.channelId ?? null,
  );
  const account = await linkAccount(tx, ids, at, beneficiary, request.account);
  return { beneficiary, account };
};

/**
 * A payout naming `beneficiary_account_id`: `beneficiary account not found` (another merchant's
 * id too), the account's status, `beneficiary account not active` when its network is disabled,
 * its beneficiary's status, `beneficiary method mismatch` when a sent method_id is not the
 * beneficiary's, `beneficiary account type mismatch` when a sent account_type is not the
 * account's. (The channel is checked by the caller, which knows the payout's channel.)
 */
export const linkById = async (
  tx: StoreTransaction,
  request: {
    readonly accountId: string;
    readonly beneficiaryAccountId: string;
    readonly methodId?: number;
    readonly accountType?: string;
  },
): Promise<LinkedBeneficiary> => {
  const account = await tx.beneficiaryAccounts.get(request.beneficiaryAccountId, request.accountId);
  if (account === undefined) return refuse(payrailError('beneficiary_account_not_found'));
  requireActiveAccount(account);
  await requireOpenNetwork(tx, account);
  const beneficiary = await tx.beneficiaries.get(account.beneficiary_id, request.accountId);
  if (beneficiary === undefined) return refuse(payrailError('beneficiary_not_found'));
  if (beneficiary.status !== 'active') return refuse(payrailError('beneficiary_disabled'));
  if (request.methodId !== undefined && request.methodId !== beneficiary.method_id) {
    return refuse(payrailError('beneficiary_method_mismatch'));
  }
  if (request.accountType !== undefined && request.accountType !== account.account_type) {
    return refuse(payrailError('beneficiary_account_type_mismatch'));
  }
  return { beneficiary, account };
};
