/** `admin.createMerchant`: a merchant and its first account (docs/spec/decisions.md §8). */
import {
  type AccountRecord,
  decodeMerchantCreate,
  type MerchantCreateRequest,
  type MerchantRecord,
  type PayTokenId,
  payTokenIds,
  payTokens,
  type StoreTransaction,
} from '@payrail/core';
import { clockedUnitOfWork, orRefuse } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { accountView, merchantView } from './access.views.js';
import { sealSecret } from './secrets-at-rest.crypto.js';
import { newSigningSecret } from './signing-secrets.crypto.js';

/** Sandbox accounts start with every pay token of their currencies and these as defaults. */
const sandboxDefaultPayTokens: readonly PayTokenId[] = ['TRON_USDT', 'ETH_USDC'];

/** The pay tokens a new account starts with: its currencies' in the sandbox, none in live. */
const initialPayTokens = (deps: EngineDeps, request: MerchantCreateRequest) =>
  deps.settings.environment === 'sandbox'
    ? payTokenIds.filter((id) => request.currencies.includes(payTokens[id].currency))
    : [];

const insertFirstAccount = (
  deps: EngineDeps,
  tx: StoreTransaction,
  {
    merchant,
    request,
    notifySecret,
    now,
  }: {
    readonly merchant: MerchantRecord;
    readonly request: MerchantCreateRequest;
    readonly notifySecret: string;
    readonly now: number;
  },
): Promise<AccountRecord> => {
  const enabled = initialPayTokens(deps, request);
  return tx.accounts.insert({
    account_id: deps.ids.next('acc'),
    merchant_id: merchant.merchant_id,
    status: 'active',
    currencies: request.currencies,
    verification_enabled: false,
    auto_approve: false,
    products: { payout: true, acquiring: true },
    enabled_pay_tokens: enabled,
    default_pay_tokens: sandboxDefaultPayTokens.filter((id) => enabled.includes(id)),
    notify_secret: sealSecret(deps.settings.keySecret, notifySecret),
    created_at: now,
    updated_at: now,
  });
};

/**
 * A merchant and its first account: active, both products on, no verification, no
 * auto-approve. In the sandbox every pay token of the account's currencies is enabled and
 * TRON_USDT and ETH_USDC are the defaults; in live none is (the operator enables them).
 */
export const createMerchant = (deps: EngineDeps, body: unknown) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    const request = orRefuse(decodeMerchantCreate(body));
    const merchant = await tx.merchants.insert({
      merchant_id: deps.ids.next('mch'),
      name: request.name,
      status: 'active',
      created_at: now,
      updated_at: now,
    });
    const notifySecret = newSigningSecret();
    const account = await insertFirstAccount(deps, tx, { merchant, request, notifySecret, now });
    return {
      merchant: { ...merchantView(merchant, account), notify_secret: notifySecret },
      account: accountView(account),
    };
  });
