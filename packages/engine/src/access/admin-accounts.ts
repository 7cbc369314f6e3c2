/**
 * The admin API's merchants, account settings, API keys and sandbox credits (decisions §8). The
 * operator's token is the HTTP layer's to check; these use cases trust their caller.
 *
 * Ids in the path that do not resolve: an unknown account answers `merchant account not found`
 * (400/53: the catalogue has no 404 for accounts, and `account not found` is the 401 of a
 * merchant's credential); an unknown or deleted key answers `api key not found`.
 */
import {
  type AccountRecord,
  type ApiKeyRecord,
  decodeAccountCredit,
  decodeAccountUpdate,
  decodeApiKeyIssue,
  decodeApiKeyUpdate,
  decodeMerchantCreate,
  depositJournal,
  type FundingRecord,
  formatAmount,
  money,
  type PayTokenId,
  payrailError,
  payTokenIds,
  payTokens,
  resolvePayToken,
  type StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { unitOfWorkRetryingConflicts } from '../conflict-retry.js';
import type { IssuedApiKeyView } from '../engine-answers.js';
import type { EngineDeps } from '../engine-deps.js';
import { listAll } from '../store-reads.js';
import { type Outcome, orRefuse, refuse } from '../unit-of-work.js';
import {
  accountView,
  apiKeyView,
  balanceView,
  fundingView,
  merchantView,
  zeroBalance,
} from './access.views.js';
import { signApiKeyToken } from './api-key-token.js';
import type { KeyCheckCache } from './key-check-cache.js';
import { sealSecret } from './secrets-at-rest.js';
import { newSigningSecret } from './signing-secrets.js';

/** Sandbox accounts start with every pay token of their currencies and these as defaults. */
const sandboxDefaultPayTokens: readonly PayTokenId[] = ['TRON_USDT', 'ETH_USDC'];

/** What a sandbox credit is recorded as having arrived through (a deposit's `network`). */
const sandboxCreditNetwork = 'SANDBOX';

/** The page size of the API key list: all of an account's live keys fit in one page. */
const apiKeyListLimit = 100;

const loadAccount = async (tx: StoreTransaction, accountId: string): Promise<AccountRecord> =>
  // Always the account in the path (decisions §1: 404), never the credential's.
  (await tx.accounts.get(accountId)) ?? refuse(payrailError('account_id_not_found'));

const loadKey = async (tx: StoreTransaction, keyId: string): Promise<ApiKeyRecord> => {
  const key = await tx.apiKeys.get(keyId);
  return key === undefined || key.status === 'deleted'
    ? // The key in the path, not a credential: 404, not `api key not found` (401).
      refuse(payrailError('key_id_not_found'))
    : key;
};

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export const adminAccountUseCases = (deps: EngineDeps, keyChecks: KeyCheckCache) => {
  const work = <T>(run: (tx: StoreTransaction, now: number) => Promise<T>): Promise<Outcome<T>> => {
    const now = deps.clock.now();
    return unitOfWorkRetryingConflicts(deps.store, (tx) => run(tx, now));
  };
  /** `work` that changes what the key check reads: `forget` runs once it has ended. */
  const changing = <T>(
    forget: () => void,
    run: (tx: StoreTransaction, now: number) => Promise<T>,
  ): Promise<Outcome<T>> => work(run).finally(forget);
  const isSandbox = deps.settings.environment === 'sandbox';

  const withToken = async (
    key: ApiKeyRecord,
    now: number,
  ): Promise<{ readonly api_key: IssuedApiKeyView }> => ({
    api_key: {
      ...apiKeyView(key),
      token: await signApiKeyToken(deps.settings.keySecret, {
        key_id: key.key_id,
        merchant_id: key.merchant_id,
        account_id: key.account_id,
        env: key.env,
        ver: key.key_version,
        iat: now,
      }),
    },
  });

  /**
   * A merchant and its first account: active, both products on, no verification, no
   * auto-approve. In the sandbox every pay token of the account's currencies is enabled and
   * TRON_USDT and ETH_USDC are the defaults; in live none is (the operator enables them).
   */
  const createMerchant = (body: unknown) =>
    work(async (tx, now) => {
      const request = orRefuse(decodeMerchantCreate(body));
      const merchant = await tx.merchants.insert({
        merchant_id: deps.ids.next('mch'),
        name: request.name,
        status: 'active',
        created_at: now,
        updated_at: now,
      });
      const enabled = isSandbox
        ? payTokenIds.filter((id) => request.currencies.includes(payTokens[id].currency))
        : [];
      const notifySecret = newSigningSecret();
      const account = await tx.accounts.insert({
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
      return {
        merchant: { ...merchantView(merchant, account), notify_secret: notifySecret },
        account: accountView(account),
      };
    });

  /**
   * Settings are replaced field by field (`products` key by key). Default pay tokens sent must
   * be enabled once the update applies (`unsupported network/currency: <network>/<currency>`);
   * stored defaults that a narrower enabled list leaves out are kept, and skipped by orders.
   */
  const updateAccount = (accountId: string, body: unknown) =>
    changing(
      () => keyChecks.forgetAccount(accountId),
      async (tx, now) => {
        const patch = orRefuse(decodeAccountUpdate(body));
        const account = await loadAccount(tx, accountId);
        const next: AccountRecord = {
          ...account,
          ...(patch.status === undefined ? {} : { status: patch.status }),
          ...(patch.verification_enabled === undefined
            ? {}
            : { verification_enabled: patch.verification_enabled }),
          ...(patch.auto_approve === undefined ? {} : { auto_approve: patch.auto_approve }),
          products: { ...account.products, ...patch.products },
          ...(patch.enabled_pay_tokens === undefined
            ? {}
            : { enabled_pay_tokens: patch.enabled_pay_tokens }),
          ...(patch.default_pay_tokens === undefined
            ? {}
            : { default_pay_tokens: patch.default_pay_tokens }),
        };
        for (const id of patch.default_pay_tokens ?? []) {
          orRefuse(resolvePayToken(id, next.enabled_pay_tokens));
        }
        if (sameJson(next, account)) return refuse(payrailError('no_changes'));
        const saved = await tx.accounts.update({ ...next, updated_at: now });
        return { account: accountView(saved) };
      },
    );

  const rotateNotifySecret = (accountId: string) =>
    work(async (tx, now) => {
      const account = await loadAccount(tx, accountId);
      const notifySecret = newSigningSecret();
      const saved = await tx.accounts.update({
        ...account,
        notify_secret: sealSecret(deps.settings.keySecret, notifySecret),
        updated_at: now,
      });
      return { account: { account_id: saved.account_id, notify_secret: notifySecret } };
    });

  /** The token is in this answer and in a rotation's, never anywhere else. */
  const issueApiKey = (accountId: string, body: unknown) =>
    work(async (tx, now) => {
      const request = orRefuse(decodeApiKeyIssue(body));
      const account = await loadAccount(tx, accountId);
      const key = await tx.apiKeys.insert({
        key_id: deps.ids.next('key'),
        account_id: account.account_id,
        merchant_id: account.merchant_id,
        name: request.name,
        env: request.env ?? deps.settings.environment,
        permissions: request.permissions,
        key_version: 1,
        status: 'active',
        ip_whitelist: request.ip_whitelist,
        expires_at: now + request.expires_in_seconds,
        created_at: now,
        updated_at: now,
      });
      return withToken(key, now);
    });

  /** The account's keys that are not deleted, newest first, without tokens. */
  const listApiKeys = (accountId: string) =>
    work(async (tx) => {
      const account = await loadAccount(tx, accountId);
      const keys = (await listAll(tx.apiKeys, { scope: account.account_id })).filter(
        (key) => key.status !== 'deleted',
      );
      return {
        items: keys.slice(0, apiKeyListLimit).map(apiKeyView),
        total: keys.length,
        limit: apiKeyListLimit,
        offset: 0,
      };
    });

  /**
   * A new version and its token; every earlier token answers `api key version mismatch`. The
   * expiry is kept: rotating replaces a credential, it does not extend one (issue a new key).
   */
  const rotateApiKey = (keyId: string) =>
    changing(
      () => keyChecks.forgetKey(keyId),
      async (tx, now) => {
        const key = await loadKey(tx, keyId);
        const saved = await tx.apiKeys.update({
          ...key,
          key_version: key.key_version + 1,
          updated_at: now,
        });
        return withToken(saved, now);
      },
    );

  const updateApiKey = (keyId: string, body: unknown) =>
    changing(
      () => keyChecks.forgetKey(keyId),
      async (tx, now) => {
        const patch = orRefuse(decodeApiKeyUpdate(body));
        const key = await loadKey(tx, keyId);
        if (key.status === patch.status) return refuse(payrailError('no_changes'));
        const saved = await tx.apiKeys.update({ ...key, status: patch.status, updated_at: now });
        return { api_key: apiKeyView(saved) };
      },
    );

  /** Soft: the record stays (status `deleted`) for the audit trail; its tokens are not found. */
  const deleteApiKey = (keyId: string) =>
    changing(
      () => keyChecks.forgetKey(keyId),
      async (tx, now) => {
        const key = await loadKey(tx, keyId);
        const saved = await tx.apiKeys.update({ ...key, status: 'deleted', updated_at: now });
        return { api_key: apiKeyView(saved) };
      },
    );

  /**
   * Sandbox only (`forbidden` elsewhere): a completed deposit record and its `deposit` journal
   * in one unit of work, in a currency of the account (`currency not supported` otherwise).
   * Answers the deposit and the currency's balance after it.
   */
  const credit = async (accountId: string, body: unknown) => {
    if (!isSandbox) return E.left(payrailError('forbidden'));
    return work(async (tx, now) => {
      const request = orRefuse(decodeAccountCredit(body));
      const account = await loadAccount(tx, accountId);
      if (!account.currencies.includes(request.currency)) {
        return refuse(payrailError('currency_not_supported'));
      }
      const amount = money(request.currency, request.amount);
      const deposit: FundingRecord = await tx.deposits.insert({
        record_id: deps.ids.next('dep'),
        account_id: account.account_id,
        currency: request.currency,
        network: sandboxCreditNetwork,
        amount: formatAmount(amount),
        status: 'completed',
        tx_hash: null,
        created_at: now,
        updated_at: now,
      });
      await tx.ledger.post(
        depositJournal({ accountId: account.account_id, businessId: deposit.record_id }, amount),
        now,
      );
      const balance =
        (await tx.ledger.balances(account.account_id)).find(
          (b) => b.currency === request.currency,
        ) ?? zeroBalance(request.currency);
      return { deposit: fundingView(deposit), balance: balanceView(balance) };
    });
  };

  return {
    createMerchant,
    updateAccount,
    rotateNotifySecret,
    issueApiKey,
    listApiKeys,
    rotateApiKey,
    updateApiKey,
    deleteApiKey,
    credit,
  };
};
