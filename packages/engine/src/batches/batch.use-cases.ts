/**
 * Crypto mass payout batches (interface "Crypto mass payout", decisions §6). A batch is created
 * in `draft`, takes more items while draft, is approved by a key other than its creator's (four
 * eyes, permission `payment.payout.submit`) and, when submitted (on approval by default, or by
 * `POST .../submit` for a batch created with `submit: false`), becomes one payout per item in the
 * same unit of work.
 *
 * The create body may carry an optional `notify_url` (beyond decisions §6's fields), checked like
 * a payout's: the batch's payouts send their callbacks there. Without it they send none and the
 * merchant follows them by query.
 */
import {
  type AccountRecord,
  batchRefusalOf,
  type CryptoBatchEvent,
  type CryptoBatchInput,
  type CryptoBatchItem,
  type CryptoBatchSnapshot,
  type CryptoCurrency,
  cryptoBatchConfigurationRefusal,
  cryptoBatchItemsView,
  cryptoBatchMachine,
  cryptoBatchStatusOf,
  cryptoMethodRefusal,
  decodeCryptoBatchCreateRequest,
  decodeCryptoBatchItemsRequest,
  decodeWith,
  type IdGenerator,
  isJsonObject,
  isNotifyUrl,
  PageQuery,
  payoutIdsFor,
  payrailError,
  presentValue,
  type StoreTransaction,
  start,
} from '@payrail/core';
import { requirePermission } from '../access-control.js';
import { unitOfWorkRetryingConflicts } from '../conflict-retry.js';
import { batchDecider, decideAndCommit } from '../decide-and-commit.js';
import type { Caller, Engine, Query } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { noteStart } from '../inspection.js';
import { outboundUrlRefusal } from '../outbound-url-refusal.js';
import { callerAccount } from '../store-reads.js';
import { type Outcome, orRefuse, refuse } from '../unit-of-work.js';
import { type LoadedBatch, loadBatch, newBatchRecord, saveBatch } from './batch.store.js';
import { batchViewOf } from './batch.views.js';
import {
  batchItemRouter,
  batchRoute,
  createBatchPayouts,
  loadBatchRoutes,
  takenReferences,
} from './batch-payouts.js';

/**
 * One batch event on the decide-and-commit path. The machine refuses every event it does not
 * accept, and an accepted one always changes the batch, so a decision is always saved.
 */
const commitBatch = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  batch: LoadedBatch,
  event: CryptoBatchEvent,
  beforeSave?: (next: CryptoBatchSnapshot) => Promise<void>,
): Promise<LoadedBatch> => {
  const committed = await decideAndCommit(tx, ids, batchDecider, {
    id: batch.record.batch_id,
    snapshot: batch.snapshot,
    event,
    at: event.at,
    save: (next) => saveBatch(tx, batch, next),
    // the batch machine emits no effects: its payouts speak through their own webhooks
    routing: () => ({ accountId: batch.record.account_id }),
    ...(beforeSave === undefined ? {} : { beforeSave }),
  });
  return committed?.saved ?? batch;
};

const batchAnswerOf = (batch: Pick<LoadedBatch, 'snapshot' | 'notifyUrl'>) => ({
  batch: batchViewOf(batch),
});

export const batchUseCases = (deps: EngineDeps): Engine['batches'] => {
  const run = <T>(work: (tx: StoreTransaction) => Promise<T>): Promise<Outcome<T>> =>
    unitOfWorkRetryingConflicts(deps.store, work);

  /** The optional notify_url of a create body: blank counts as not sent. */
  const notifyUrlOf = (body: unknown): string | null => {
    const value = isJsonObject(body) ? presentValue(body, 'notify_url') : undefined;
    if (value === undefined || (typeof value === 'string' && value.trim() === '')) return null;
    return isNotifyUrl(value, { allowHttp: deps.settings.allowInsecureWebhooks })
      ? value
      : refuse(payrailError('invalid_notify_url'));
  };

  const merchantBatch = async (
    tx: StoreTransaction,
    caller: Caller,
    batchId: string,
  ): Promise<LoadedBatch> =>
    (await loadBatch(tx, batchId, caller.account_id)) ?? refuse(payrailError('batch_not_found'));

  /** The storage-backed rules of new items: method, duplicates, references, one route. */
  const checkConfiguration = async (
    tx: StoreTransaction,
    account: AccountRecord,
    batch: {
      readonly currency: CryptoCurrency;
      readonly method_id: number;
      readonly batch_id?: string;
    },
    items: readonly CryptoBatchItem[],
    existing: readonly CryptoBatchItem[],
  ): Promise<void> => {
    const method = await tx.payoutMethods.get(batch.method_id);
    if (items.length === 0 && existing.length === 0) {
      // An empty draft (created without items): nothing to route yet, but the method must be
      // a crypto one already. Approving or submitting it is `batch has no items`.
      const refusal = cryptoMethodRefusal(
        method?.status === 'active' ? method.currency_type : undefined,
      );
      if (refusal !== undefined) refuse(refusal);
      return;
    }
    const routes = await loadBatchRoutes(tx, batch.currency, batch.method_id);
    const refusal = cryptoBatchConfigurationRefusal({
      items,
      existing_items: existing,
      method_currency_type: method?.status === 'active' ? method.currency_type : undefined,
      taken_references: await takenReferences(tx, account.account_id, items, batch.batch_id),
      route_of: batchItemRouter(routes, account.account_id),
    });
    if (refusal !== undefined) refuse(refusal);
    batchRoute(routes, account.account_id, [...existing, ...items]);
  };

  /** Decides an approval or submission; a batch that becomes submitted gets its payouts. */
  const advance = async (
    tx: StoreTransaction,
    account: AccountRecord,
    batch: LoadedBatch,
    event: CryptoBatchEvent,
  ): Promise<LoadedBatch> => {
    const committed = await commitBatch(tx, deps.ids, batch, event, async (snapshot) => {
      if (cryptoBatchStatusOf(snapshot) !== 'submitted') return;
      const context = snapshot.context;
      await createBatchPayouts(deps, tx, snapshot, {
        account,
        notifyUrl: batch.notifyUrl,
        routes: await loadBatchRoutes(tx, context.currency, context.method_id),
        at: event.at,
      });
    });
    return committed;
  };

  const payoutIdsOf = (snapshot: CryptoBatchSnapshot) =>
    payoutIdsFor(snapshot, () => deps.ids.next('po'));

  const create = async (caller: Caller, body: unknown) => {
    const guard = deps.outboundUrlGuard;
    const notifyUrlRefusal = await outboundUrlRefusal(guard, body, 'notify_url', 'notify_url', {
      caller,
      permissions: ['payment.payout.create'],
    });
    const now = deps.clock.now();
    return run(async (tx) => {
      requirePermission(caller, 'payment.payout.create');
      const account = await callerAccount(tx, caller, 'refused', 'payout');
      const request = orRefuse(decodeCryptoBatchCreateRequest(body));
      // As for a quick payout: the account must hold a wallet in the batch's currency.
      if (!account.currencies.includes(request.currency)) refuse(payrailError('wallet_not_found'));
      const notifyUrl = notifyUrlOf(body);
      if (notifyUrlRefusal !== undefined) refuse(notifyUrlRefusal);
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
      const { snapshot } = start(cryptoBatchMachine, input);
      noteStart(tx, { machine: cryptoBatchMachine, id: input.batch_id, input, snapshot });
      await tx.cryptoBatches.insert(newBatchRecord(snapshot, notifyUrl));
      return batchAnswerOf({ snapshot, notifyUrl });
    });
  };

  const get = (caller: Caller, batchId: string) => {
    return run(async (tx) => {
      requirePermission(caller, 'payment.payout.read');
      await callerAccount(tx, caller, 'allowed', 'payout');
      return batchAnswerOf(await merchantBatch(tx, caller, batchId));
    });
  };

  const items = (caller: Caller, batchId: string, query: Query) => {
    return run(async (tx) => {
      requirePermission(caller, 'payment.payout.read');
      await callerAccount(tx, caller, 'allowed', 'payout');
      const { limit, offset } = orRefuse(decodeWith(PageQuery)(query));
      const batch = await merchantBatch(tx, caller, batchId);
      const all = cryptoBatchItemsView(batch.snapshot);
      return { items: all.slice(offset, offset + limit), total: all.length, limit, offset };
    });
  };

  const addItems = (caller: Caller, batchId: string, body: unknown) => {
    const now = deps.clock.now();
    return run(async (tx) => {
      requirePermission(caller, 'payment.payout.create');
      const account = await callerAccount(tx, caller, 'refused', 'payout');
      const batch = await merchantBatch(tx, caller, batchId);
      const context = batch.snapshot.context;
      const request = orRefuse(decodeCryptoBatchItemsRequest(context.currency)(body));
      const event: CryptoBatchEvent = {
        type: 'batch.items.add',
        key_id: caller.key_id,
        items: request.items,
        at: now,
      };
      const refusal = batchRefusalOf(batch.snapshot, event);
      if (refusal !== undefined) refuse(refusal);
      await checkConfiguration(tx, account, context, request.items, context.items);
      return batchAnswerOf(await commitBatch(tx, deps.ids, batch, event));
    });
  };

  /** Approve or submit: the same checks, then the event the batch's own state calls for. */
  const advanceBatch =
    (eventOf: (batch: LoadedBatch, keyId: string, at: number) => CryptoBatchEvent) =>
    (caller: Caller, batchId: string) => {
      const now = deps.clock.now();
      return run(async (tx) => {
        requirePermission(caller, 'payment.payout.submit');
        const account = await callerAccount(tx, caller, 'refused', 'payout');
        const batch = await merchantBatch(tx, caller, batchId);
        return batchAnswerOf(await advance(tx, account, batch, eventOf(batch, caller.key_id, now)));
      });
    };

  const approve = advanceBatch((batch, key_id, at) => ({
    type: 'batch.approve',
    key_id,
    at,
    ...(batch.snapshot.context.submit_on_approve
      ? { payout_ids: payoutIdsOf(batch.snapshot) }
      : {}),
  }));

  const submit = advanceBatch((batch, key_id, at) => ({
    type: 'batch.submit',
    key_id,
    at,
    payout_ids: payoutIdsOf(batch.snapshot),
  }));

  return { create, get, items, addItems, approve, submit };
};
