/**
 * The admin API's API keys (docs/spec/decisions.md §7, §8): issue, list, rotate, enable or disable, delete.
 * Each change but an issue is read by the key check (`admin-accounts.use-cases.ts`).
 */
import {
  type ApiKeyRecord,
  decodeApiKeyIssue,
  decodeApiKeyUpdate,
  payrailError,
} from '@payrail/core';
import { clockedUnitOfWork, orRefuse, refuse } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import type { IssuedApiKeyView } from '../engine-answers.views.js';
import { apiKeyView } from './access.views.js';
import { accountInPath, apiKeyInPath } from './admin-records.store.js';
import { signApiKeyToken } from './api-key-token.crypto.js';
import { listAll } from './caller-account.store.js';
import { windowView } from './list-pages.views.js';

/** The page size of the API key list: all of an account's live keys fit in one page. */
const apiKeyListLimit = 100;

const withToken = async (
  deps: EngineDeps,
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

/** The token is in this answer and in a rotation's, never anywhere else. */
export const issueApiKey = (deps: EngineDeps, accountId: string, body: unknown) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    const request = orRefuse(decodeApiKeyIssue(body));
    const account = await accountInPath(tx, accountId);
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
    return withToken(deps, key, now);
  });

/** The account's keys that are not deleted, newest first, without tokens. */
export const listApiKeys = (deps: EngineDeps, accountId: string) =>
  clockedUnitOfWork(deps, async (tx) => {
    const account = await accountInPath(tx, accountId);
    const keys = (await listAll(tx.apiKeys, { scope: account.account_id })).filter(
      (key) => key.status !== 'deleted',
    );
    return windowView(keys, { limit: apiKeyListLimit, offset: 0 }, apiKeyView);
  });

/**
 * A new version and its token; every earlier token answers `api key version mismatch`. The
 * expiry is kept: rotating replaces a credential, it does not extend one (issue a new key).
 */
export const rotateApiKey = (deps: EngineDeps, keyId: string) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    const key = await apiKeyInPath(tx, keyId);
    const saved = await tx.apiKeys.update({
      ...key,
      key_version: key.key_version + 1,
      updated_at: now,
    });
    return withToken(deps, saved, now);
  });

export const updateApiKey = (deps: EngineDeps, keyId: string, body: unknown) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    const patch = orRefuse(decodeApiKeyUpdate(body));
    const key = await apiKeyInPath(tx, keyId);
    if (key.status === patch.status) return refuse(payrailError('no_changes'));
    const saved = await tx.apiKeys.update({ ...key, status: patch.status, updated_at: now });
    return { api_key: apiKeyView(saved) };
  });

/** Soft: the record stays (status `deleted`) for the audit trail; its tokens are not found. */
export const deleteApiKey = (deps: EngineDeps, keyId: string) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    const key = await apiKeyInPath(tx, keyId);
    const saved = await tx.apiKeys.update({ ...key, status: 'deleted', updated_at: now });
    return { api_key: apiKeyView(saved) };
  });
