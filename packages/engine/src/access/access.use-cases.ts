/**
 * The access part of the engine: authentication, the read-only account endpoints, webhook
 * management, and the admin API's merchants, accounts, API keys and sandbox credits.
 */
import type { AdminUseCases, Engine } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { accountReadUseCases } from './account-reads.use-cases.js';
import { adminAccountUseCases } from './admin-accounts.use-cases.js';
import { authenticator } from './authentication.use-cases.js';
import { createKeyCheckCache } from './key-check.cache.js';
import { webhookUseCases } from './webhook.use-cases.js';

export type AccessAdmin = Pick<
  AdminUseCases,
  | 'createMerchant'
  | 'updateAccount'
  | 'rotateNotifySecret'
  | 'issueApiKey'
  | 'listApiKeys'
  | 'rotateApiKey'
  | 'updateApiKey'
  | 'deleteApiKey'
  | 'credit'
>;

export interface AccessUseCases {
  readonly auth: Pick<Engine['auth'], 'authenticate'>;
  readonly accounts: Omit<Engine['accounts'], 'audit'>;
  readonly webhooks: Engine['webhooks'];
  readonly admin: AccessAdmin;
}

/** How long a key's records may serve the key check from memory by default (ADR 0029). */
const defaultKeyCheckCacheMs = 1000;

export const accessUseCases = (deps: EngineDeps): AccessUseCases => {
  const keyChecks = createKeyCheckCache({
    ttlMs: deps.settings.keyCheckCacheMs ?? defaultKeyCheckCacheMs,
  });
  return {
    auth: { authenticate: authenticator(deps, keyChecks) },
    accounts: accountReadUseCases(deps),
    webhooks: webhookUseCases(deps),
    admin: adminAccountUseCases(deps, keyChecks),
  };
};
