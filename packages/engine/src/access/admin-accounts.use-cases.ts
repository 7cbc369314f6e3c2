/**
 * The admin API's merchants, account settings, API keys and sandbox credits (docs/spec/decisions.md §8). The
 * operator's token is the HTTP layer's to check; these use cases trust their caller.
 *
 * Ids in the path that do not resolve: an unknown account answers `merchant account not found`
 * (400/53: the catalogue has no 404 for accounts, and `account not found` is the 401 of a
 * merchant's credential); an unknown or deleted key answers `api key not found`.
 */
import type { EngineDeps } from '../engine.deps.js';
import { rotateNotifySecret, updateAccount } from './account-settings.use-cases.js';
import {
  deleteApiKey,
  issueApiKey,
  listApiKeys,
  rotateApiKey,
  updateApiKey,
} from './api-keys.use-cases.js';
import { createMerchant } from './create-merchant.use-case.js';
import type { KeyCheckCache } from './key-check.cache.js';
import { sandboxCredit } from './sandbox-credit.use-case.js';

export const adminAccountUseCases = (deps: EngineDeps, keyChecks: KeyCheckCache) => {
  // What the key check reads changes: it forgets the record once the unit of work has ended,
  // whatever it answered (ADR 0029).
  const forgetAccount = (accountId: string) => () => keyChecks.forgetAccount(accountId);
  const forgetKey = (keyId: string) => () => keyChecks.forgetKey(keyId);
  return {
    createMerchant: (body: unknown) => createMerchant(deps, body),
    updateAccount: (accountId: string, body: unknown) =>
      updateAccount(deps, accountId, body).finally(forgetAccount(accountId)),
    rotateNotifySecret: (accountId: string) => rotateNotifySecret(deps, accountId),
    issueApiKey: (accountId: string, body: unknown) => issueApiKey(deps, accountId, body),
    listApiKeys: (accountId: string) => listApiKeys(deps, accountId),
    rotateApiKey: (keyId: string) => rotateApiKey(deps, keyId).finally(forgetKey(keyId)),
    updateApiKey: (keyId: string, body: unknown) =>
      updateApiKey(deps, keyId, body).finally(forgetKey(keyId)),
    deleteApiKey: (keyId: string) => deleteApiKey(deps, keyId).finally(forgetKey(keyId)),
    credit: (accountId: string, body: unknown) => sandboxCredit(deps, accountId, body),
  };
};
