/**
 * The access part of the engine: authentication, the read-only account endpoints, webhook
 * management, and the admin API's merchants, accounts, API keys and sandbox credits.
 */
import type { Engine } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { accountReadUseCases } from './account-reads.js';
import { adminAccountUseCases } from './admin-accounts.js';
import { authenticator } from './authentication.js';
import { webhookUseCases } from './webhook-management.js';

export type AccessAdmin = Pick<
  Engine['admin'],
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
  readonly auth: Engine['auth'];
  readonly accounts: Engine['accounts'];
  readonly webhooks: Engine['webhooks'];
  readonly admin: AccessAdmin;
}

export const accessUseCases = (deps: EngineDeps): AccessUseCases => ({
  auth: { authenticate: authenticator(deps) },
  accounts: accountReadUseCases(deps),
  webhooks: webhookUseCases(deps),
  admin: adminAccountUseCases(deps),
});
