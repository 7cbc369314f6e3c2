/**
 * The admin API's account settings and the account's notify secret (docs/spec/decisions.md §8). A settings
 * change is read by the key check (`admin-accounts.use-cases.ts`).
 */
import {
  type AccountRecord,
  type AccountUpdateRequest,
  decodeAccountUpdate,
  payrailError,
  resolvePayToken,
} from '@payrail/core';
import { clockedUnitOfWork, orRefuse, refuse } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { accountView } from './access.views.js';
import { accountInPath } from './admin-records.store.js';
import { definedOf } from './list-filters.store.js';
import { sealSecret } from './secrets-at-rest.crypto.js';
import { newSigningSecret } from './signing-secrets.crypto.js';

const sameJsonText = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** `account` with every setting `patch` sends replaced (`products` key by key). */
const settingsAfter = (account: AccountRecord, patch: AccountUpdateRequest): AccountRecord => ({
  ...account,
  ...definedOf(patch, [
    'status',
    'verification_enabled',
    'auto_approve',
    'enabled_pay_tokens',
    'default_pay_tokens',
  ]),
  products: { ...account.products, ...patch.products },
});

/**
 * Settings are replaced field by field (`products` key by key). Default pay tokens sent must
 * be enabled once the update applies (`unsupported network/currency: <network>/<currency>`);
 * stored defaults that a narrower enabled list leaves out are kept, and skipped by orders.
 */
export const updateAccount = (deps: EngineDeps, accountId: string, body: unknown) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    const patch = orRefuse(decodeAccountUpdate(body));
    const account = await accountInPath(tx, accountId);
    const next = settingsAfter(account, patch);
    for (const id of patch.default_pay_tokens ?? []) {
      orRefuse(resolvePayToken(id, next.enabled_pay_tokens));
    }
    if (sameJsonText(next, account)) return refuse(payrailError('no_changes'));
    const saved = await tx.accounts.update({ ...next, updated_at: now });
    return { account: accountView(saved) };
  });

export const rotateNotifySecret = (deps: EngineDeps, accountId: string) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    const account = await accountInPath(tx, accountId);
    const notifySecret = newSigningSecret();
    const saved = await tx.accounts.update({
      ...account,
      notify_secret: sealSecret(deps.settings.keySecret, notifySecret),
      updated_at: now,
    });
    return { account: { account_id: saved.account_id, notify_secret: notifySecret } };
  });
