/**
 * `POST /payment/crypto-payouts/batches` (interface "Crypto mass payout", docs/spec/decisions.md §6): a batch
 * created in `draft` with its first items, checked against the merchant's wallet, method and
 * routes.
 *
 * The create body may carry an optional `notify_url` (beyond docs/spec/decisions.md §6's fields), checked by
 * the create codec with the quick payout's rule (blank counts as not sent): the batch's payouts
 * send their callbacks there. Without it they send none and the merchant follows them by query.
 */
import { type CryptoBatchInput, decodeCryptoBatchCreateRequest, payrailError } from '@payrail/core';
import { requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import { notifyUrlRefusal } from '../access/outbound-url.policy.js';
import {
  create,
  orRefuse,
  refuse,
  unitOfWorkRetryingConflicts,
} from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { batchRepository } from './batch.persistence.js';
import { batchAnswerOf } from './batch.views.js';
import { checkConfiguration } from './batch-configuration.policy.js';

export const createBatch = async (deps: EngineDeps, caller: Caller, body: unknown) => {
  const notifyUrlRefused = await notifyUrlRefusal(deps, body, caller, ['payment.payout.create']);
  const now = deps.clock.now();
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    requirePermission(caller, 'payment.payout.create');
    const account = await callerAccount(tx, caller, 'refused', 'payout');
    const request = orRefuse(
      decodeCryptoBatchCreateRequest(body, {
        allowInsecureNotifyUrl: deps.settings.allowInsecureWebhooks,
      }),
    );
    // As for a quick payout: the account must hold a wallet in the batch's currency.
    if (!account.currencies.includes(request.currency)) refuse(payrailError('wallet_not_found'));
    if (notifyUrlRefused !== undefined) refuse(notifyUrlRefused);
    await checkConfiguration(tx, account, request, request.items, []);
    const input: CryptoBatchInput = {
      batch_id: deps.ids.next('bat'),
      account_id: account.account_id,
      currency: request.currency,
      method_id: request.method_id,
      items: request.items,
      created_by_key_id: caller.key_id,
      submit: request.submit,
      at: now,
    };
    const created = await create(tx, deps.ids, batchRepository, {
      input,
      extra: request.notify_url ?? null,
      at: now,
    });
    return batchAnswerOf(created);
  });
};
