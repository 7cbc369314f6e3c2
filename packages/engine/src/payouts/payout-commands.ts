/**
 * The merchant's payout use cases (interface "Fiat payout", decisions §2): quick payout create
 * with idempotency by client_request_id, read, list, update, submit and cancel. Each is one unit
 * of work that runs the payout machine and commits its effects with the record.
 */
import { createHash } from 'node:crypto';
import {
  type AccountRecord,
  type BeneficiaryFields,
  type BeneficiaryRecord,
  type Currency,
  decodePayoutCreate,
  decodePayoutUpdate,
  decodeWith,
  type FeeBearer,
  formatAmount,
  isStoreFailure,
  type NetworkLookup,
  networkLookupOf,
  type PayoutChanges,
  type PayoutCreateRequest,
  type PayoutEvent,
  type PayoutInput,
  PayoutListQuery,
  type PayoutMethodRecord,
  type PayoutRecord,
  type PayoutRouting,
  type PayoutSnapshot,
  type PayoutVerificationDetails,
  parseAmount,
  payoutMachine,
  payoutRefusalOf,
  payoutResourceOf,
  payoutStateKeyOf,
  payrailError,
  requireBeneficiaryFields,
  type StoreTransaction,
  start,
} from '@payrail/core';
import { type Permission, requirePermission } from '../access-control.js';
import { commitEffects } from '../commit-effects.js';
import { retryingConflicts } from '../conflict-retry.js';
import { decideAndCommit, payoutDecider } from '../decide-and-commit.js';
import type { Caller, Query } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { noteStart } from '../inspection.js';
import { outboundUrlRefusal } from '../outbound-url-refusal.js';
import { callerAccount } from '../store-reads.js';
import { orRefuse, refuse, unitOfWork } from '../unit-of-work.js';
import {
  type LinkedBeneficiary,
  linkById,
  linkInline,
  requireSameChannel,
} from './beneficiary-linking.js';
import {
  type LoadedPayout,
  loadedPayoutOf,
  loadPayout,
  newPayoutRecord,
  savePayout,
} from './payout.store.js';
import { createdPayoutView, maskedFieldsOf, pageView } from './payout.views.js';
import type { PayoutCatalogue } from './payout-catalogue.js';
import { checkMethod, feeOf, findMethod, selectRoute } from './payout-routing.js';

/** The receiving networks the decoders check inline accounts against (active ones only). */
export const networkLookupIn = async (
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
): Promise<NetworkLookup> =>
  networkLookupOf(
    (await catalogue.activeNetworks(tx)).map((network) => ({
      code: network.code,
      fields: network.fields,
    })),
  );

/** JSON with object keys sorted at every depth: equal meaning, equal text. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

/**
 * SHA-256 of the decoded create request (defaults filled in, the amount at the currency's scale,
 * keys sorted): two bodies that mean the same payout hash alike ("10" and "10.00", an explicit
 * `fee_bearer: "merchant"` and none), so only a real difference is `client_request_id already used`.
 */
const requestHashOf = (request: PayoutCreateRequest): string =>
  createHash('sha256')
    .update(canonicalJson({ ...request, amount: atScale(request.currency, request.amount) }))
    .digest('hex');

const atScale = (currency: Currency, amount: string): string =>
  formatAmount(orRefuse(parseAmount(amount, currency)));

/** What the verification request tells the merchant about the recipient: fields masked. */
export const verificationOf = (linked: LinkedBeneficiary): PayoutVerificationDetails => ({
  beneficiary_name: linked.beneficiary.name,
  network_code: linked.account.network_code,
  account_type: linked.account.account_type,
  beneficiary_account: {
    network_code: linked.account.network_code,
    display_name: linked.account.display_name,
    fields_masked: maskedFieldsOf(linked.account.fields),
  },
});

/**
 * `wallet not found`: the account holds no wallet (balance) in the payout's currency, i.e. the
 * currency is not among the account's currencies (set when the operator creates the merchant).
 */
const requireWallet = (account: AccountRecord, currency: Currency): void => {
  if (!account.currencies.includes(currency)) refuse(payrailError('wallet_not_found'));
};

/** Thrown inside create when a concurrent twin took the payout's unique key first. */
class TwinCommitted extends Error {}

export const payoutCommands = (deps: EngineDeps, catalogue: PayoutCatalogue) => {
  const allowInsecureNotifyUrl = deps.settings.allowInsecureWebhooks;

  /** Permissions, then the account: it must exist, not be frozen, and have payouts enabled. */
  const payoutAccount = async (
    tx: StoreTransaction,
    caller: Caller,
    ...permissions: Permission[]
  ): Promise<AccountRecord> => {
    requirePermission(caller, ...permissions);
    return callerAccount(tx, caller, 'refused', 'payout');
  };

  const routingFor = async (
    tx: StoreTransaction,
    request: {
      readonly accountId: string;
      readonly currency: Currency;
      readonly amount: string;
      readonly feeBearer: FeeBearer;
      readonly methodId: number;
      readonly channelId: string | null;
      readonly beneficiary: BeneficiaryRecord;
    },
  ): Promise<{ readonly routing: PayoutRouting; readonly fee: string }> => {
    const route = await selectRoute(catalogue, tx, request);
    const fee = feeOf(route, request.currency, request.amount, request.feeBearer);
    orRefuse(
      requireBeneficiaryFields(
        request.beneficiary.fields as BeneficiaryFields,
        route.required_beneficiary_fields,
      ),
    );
    return {
      fee,
      routing: {
        route_id: route.route_id,
        method_id: request.methodId,
        channel_id: request.channelId,
        channel_account_id: route.channel_account_id,
      },
    };
  };

  /** The payout's recipient: by id, or the inline pair through the linking rules. */
  const linkRecipient = async (
    tx: StoreTransaction,
    at: number,
    accountId: string,
    request: {
      readonly methodId?: number;
      /** The method of `methodId` when the caller has read it already in this unit of work. */
      readonly method?: PayoutMethodRecord;
      /** Remembered by a beneficiary this request creates. */
      readonly channelId?: string | null;
      readonly beneficiaryAccountId?: string;
      readonly accountType?: string;
      readonly beneficiary?: PayoutCreateRequest['beneficiary'];
      readonly account?: PayoutCreateRequest['beneficiary_account'];
    },
  ): Promise<LinkedBeneficiary> => {
    if (request.beneficiary !== undefined && request.account !== undefined) {
      // The codec guarantees method_id with an inline pair.
      const methodId = request.methodId ?? refuse(payrailError('method_id_required_inline'));
      const method = request.method ?? (await findMethod(catalogue, tx, methodId));
      if (!method.network_codes.includes(request.account.network_code)) {
        refuse(payrailError('network_not_found'));
      }
      return linkInline(tx, deps.ids, at, {
        accountId,
        methodId,
        channelId: request.channelId ?? null,
        beneficiary: request.beneficiary,
        account: request.account,
      });
    }
    return linkById(tx, {
      accountId,
      beneficiaryAccountId:
        request.beneficiaryAccountId ?? refuse(payrailError('beneficiary_account_id_required')),
      ...(request.methodId === undefined ? {} : { methodId: request.methodId }),
      ...(request.accountType === undefined ? {} : { accountType: request.accountType }),
    });
  };

  const answerRepeat = (original: PayoutRecord, requestHash: string) =>
    original.request_hash === requestHash
      ? { payout: createdPayoutView(loadedPayoutOf(original).snapshot) }
      : refuse(payrailError('client_request_id_already_used'));

  // -------------------------------------------------------------------------------------------
  // POST /payment/quickpayout

  const create = async (caller: Caller, body: unknown) => {
    const wantsSubmit = !(
      typeof body === 'object' &&
      body !== null &&
      (body as { submit?: unknown }).submit === false
    );
    const required: Permission[] = [
      'payment.payout.create',
      ...(wantsSubmit ? (['payment.payout.submit'] as const) : []),
    ];
    const guard = deps.outboundUrlGuard;
    const notifyUrlRefusal = await outboundUrlRefusal(guard, body, 'notify_url', 'notify_url', {
      caller,
      permissions: required,
    });
    const at = deps.clock.now();
    let seen: { readonly clientRequestId?: string; readonly hash: string } | undefined;

    const attempt = () =>
      unitOfWork(deps.store, async (tx) => {
        const account = await payoutAccount(tx, caller, ...required);
        const request = orRefuse(
          decodePayoutCreate(body, {
            lookupNetwork: await networkLookupIn(catalogue, tx),
            allowInsecureNotifyUrl,
          }),
        );
        if (notifyUrlRefusal !== undefined) refuse(notifyUrlRefusal);
        const hash = requestHashOf(request);
        seen = {
          hash,
          ...(request.client_request_id === undefined
            ? {}
            : { clientRequestId: request.client_request_id }),
        };
        if (request.client_request_id !== undefined) {
          const original = await tx.payouts.findUnique({
            account_id: account.account_id,
            client_request_id: request.client_request_id,
          });
          if (original !== undefined) return answerRepeat(original, hash);
        }
        const taken = await tx.payouts.findUnique({
          account_id: account.account_id,
          reference: request.reference,
        });
        if (taken !== undefined) {
          // Under READ COMMITTED a twin with our client_request_id may commit between the two
          // reads: the reference is then taken by the original, which answers as a repeat.
          if (
            request.client_request_id !== undefined &&
            taken.client_request_id === request.client_request_id
          ) {
            return answerRepeat(taken, hash);
          }
          refuse(payrailError('reference_already_exists'));
        }
        requireWallet(account, request.currency);

        const amount = atScale(request.currency, request.amount);
        const method =
          request.method_id === undefined
            ? undefined
            : await findMethod(catalogue, tx, request.method_id);
        if (method !== undefined) checkMethod(method, request.currency, request.channel_id ?? null);
        const linked = await linkRecipient(tx, at, account.account_id, {
          ...(request.method_id === undefined ? {} : { methodId: request.method_id }),
          ...(method === undefined ? {} : { method }),
          channelId: request.channel_id ?? null,
          ...(request.beneficiary_account_id === undefined
            ? {}
            : { beneficiaryAccountId: request.beneficiary_account_id }),
          ...(request.account_type === undefined ? {} : { accountType: request.account_type }),
          ...(request.beneficiary === undefined ? {} : { beneficiary: request.beneficiary }),
          ...(request.beneficiary_account === undefined
            ? {}
            : { account: request.beneficiary_account }),
        });
        requireSameChannel(linked.beneficiary, request.channel_id ?? null);
        const methodId = linked.beneficiary.method_id;
        if (request.method_id === undefined) {
          checkMethod(await findMethod(catalogue, tx, methodId), request.currency, null);
        }
        const { routing, fee } = await routingFor(tx, {
          accountId: account.account_id,
          currency: request.currency,
          amount,
          feeBearer: request.fee_bearer,
          methodId,
          channelId: request.channel_id ?? null,
          beneficiary: linked.beneficiary,
        });

        const input: PayoutInput = {
          payout_id: deps.ids.next('po'),
          account_id: account.account_id,
          reference: request.reference,
          ...(request.client_request_id === undefined
            ? {}
            : { client_request_id: request.client_request_id }),
          currency: request.currency,
          amount,
          fee,
          fee_bearer: request.fee_bearer,
          notify_url: request.notify_url,
          beneficiary_id: linked.beneficiary.beneficiary_id,
          beneficiary_account_id: linked.account.beneficiary_account_id,
          verification_enabled: account.verification_enabled,
          auto_approve: account.auto_approve,
          verification: verificationOf(linked),
          submit: request.submit,
          at,
        };
        const { snapshot, effects } = start(payoutMachine, input);
        noteStart(tx, { machine: payoutMachine, id: input.payout_id, input, snapshot });
        try {
          await tx.payouts.insert(newPayoutRecord(snapshot, routing, hash));
        } catch (error) {
          // A concurrent twin committed the reference or client_request_id between our check and
          // this insert; this unit of work must end, and a new one reads what the twin wrote.
          if (isPayoutKeyTaken(error)) throw new TwinCommitted();
          throw error;
        }
        await commitEffects(
          tx,
          deps.ids,
          effects,
          { accountId: account.account_id, notifyUrl: input.notify_url },
          at,
        );
        return { payout: createdPayoutView(snapshot) };
      });

    try {
      return await retryingConflicts(attempt);
    } catch (error) {
      if (!(error instanceof TwinCommitted) || seen === undefined) throw error;
      const { clientRequestId, hash } = seen;
      return unitOfWork(deps.store, async (tx) => {
        const original =
          clientRequestId === undefined
            ? undefined
            : await tx.payouts.findUnique({
                account_id: caller.account_id,
                client_request_id: clientRequestId,
              });
        return original === undefined
          ? refuse(payrailError('reference_already_exists'))
          : answerRepeat(original, hash);
      });
    }
  };

  // -------------------------------------------------------------------------------------------
  // Reads

  const get = (caller: Caller, payoutId: string) =>
    unitOfWork(deps.store, async (tx) => {
      await payoutAccount(tx, caller, 'payment.payout.read');
      const { snapshot } = await loadPayout(tx, payoutId, caller.account_id);
      return { payout: payoutResourceOf(snapshot) };
    });

  const list = (caller: Caller, query: Query) =>
    unitOfWork(deps.store, async (tx) => {
      await payoutAccount(tx, caller, 'payment.payout.read');
      const q = orRefuse(decodeWith(PayoutListQuery)(query));
      const page = await tx.payouts.list({
        scope: caller.account_id,
        where: {
          ...(q.reference === undefined ? {} : { reference: q.reference }),
          ...(q.client_request_id === undefined ? {} : { client_request_id: q.client_request_id }),
          ...(q.status === undefined ? {} : { status: q.status }),
          ...(q.review_status === undefined ? {} : { review_status: q.review_status }),
          ...(q.execution_status === undefined ? {} : { execution_status: q.execution_status }),
        },
        ...(q.start_at === undefined ? {} : { createdFrom: q.start_at }),
        ...(q.end_at === undefined ? {} : { createdTo: q.end_at }),
        limit: q.limit,
        offset: q.offset,
      });
      return pageView(page, (record) => payoutResourceOf(loadedPayoutOf(record).snapshot));
    });

  // -------------------------------------------------------------------------------------------
  // Operations on one payout

  /** Decides `event` on the caller's payout and commits it; the machine's refusal otherwise. */
  const operate = (
    caller: Caller,
    payoutId: string,
    permission: Permission,
    eventOf: (account: AccountRecord, at: number) => PayoutEvent,
  ) => {
    const at = deps.clock.now();
    return retryingConflicts(() =>
      unitOfWork(deps.store, async (tx) => {
        const account = await payoutAccount(tx, caller, permission);
        const loaded = await loadPayout(tx, payoutId, caller.account_id);
        const snapshot = await applyPayoutEvent(tx, deps, loaded, eventOf(account, at), at);
        return { payout: payoutResourceOf(snapshot) };
      }),
    );
  };

  const submit = (caller: Caller, payoutId: string) =>
    operate(caller, payoutId, 'payment.payout.submit', (account, at) => ({
      type: 'payout.submit',
      at,
      verification_enabled: account.verification_enabled,
      auto_approve: account.auto_approve,
    }));

  const cancel = (caller: Caller, payoutId: string) =>
    operate(caller, payoutId, 'payment.payout.cancel', (_, at) => ({ type: 'payout.cancel', at }));

  // -------------------------------------------------------------------------------------------
  // PATCH /payment/payouts/{payout_id}

  const update = async (caller: Caller, payoutId: string, body: unknown) => {
    const guard = deps.outboundUrlGuard;
    const notifyUrlRefusal = await outboundUrlRefusal(guard, body, 'notify_url', 'notify_url', {
      caller,
      permissions: ['payment.payout.update'],
    });
    const at = deps.clock.now();
    return retryingConflicts(() =>
      unitOfWork(deps.store, async (tx) => {
        const account = await payoutAccount(tx, caller, 'payment.payout.update');
        const loaded = await loadPayout(tx, payoutId, caller.account_id);
        const state = payoutStateKeyOf(loaded.snapshot);
        if (state !== 'draft' && state !== 'returned') refuse(payrailError('payout_not_editable'));
        const patch = orRefuse(
          decodePayoutUpdate(body, {
            lookupNetwork: await networkLookupIn(catalogue, tx),
            allowInsecureNotifyUrl,
          }),
        );
        if (notifyUrlRefusal !== undefined) refuse(notifyUrlRefusal);
        const context = loaded.snapshot.context;
        const currency = patch.currency ?? context.currency;
        requireWallet(account, currency);
        const amount = atScale(currency, patch.amount ?? context.amount);
        const feeBearer = patch.fee_bearer ?? context.fee_bearer;

        const newRecipient =
          patch.beneficiary_account_id !== undefined || patch.beneficiary !== undefined;
        const linked = newRecipient
          ? await linkRecipient(tx, at, account.account_id, {
              channelId: patch.channel_id ?? null,
              // An inline pair joins the payout's method unless the PATCH names another.
              ...(patch.method_id !== undefined
                ? { methodId: patch.method_id }
                : patch.beneficiary !== undefined
                  ? {
                      methodId: (await currentRecipient(tx, account.account_id, context))
                        .beneficiary.method_id,
                    }
                  : {}),
              ...(patch.beneficiary_account_id === undefined
                ? {}
                : { beneficiaryAccountId: patch.beneficiary_account_id }),
              ...(patch.beneficiary === undefined ? {} : { beneficiary: patch.beneficiary }),
              ...(patch.beneficiary_account === undefined
                ? {}
                : { account: patch.beneficiary_account }),
            })
          : await currentRecipient(tx, account.account_id, context);
        const methodId = linked.beneficiary.method_id;
        if (patch.method_id !== undefined && patch.method_id !== methodId) {
          refuse(payrailError('beneficiary_method_mismatch'));
        }
        const channelId =
          patch.channel_id ??
          (methodId === loaded.routing?.method_id ? loaded.routing.channel_id : null);
        requireSameChannel(linked.beneficiary, channelId);
        checkMethod(await findMethod(catalogue, tx, methodId), currency, channelId);
        const { routing, fee } = await routingFor(tx, {
          accountId: account.account_id,
          currency,
          amount,
          feeBearer,
          methodId,
          channelId,
          beneficiary: linked.beneficiary,
        });

        const changes: PayoutChanges = {
          currency,
          amount,
          fee,
          fee_bearer: feeBearer,
          notify_url: patch.notify_url ?? context.notify_url,
          beneficiary_id: linked.beneficiary.beneficiary_id,
          beneficiary_account_id: linked.account.beneficiary_account_id,
          verification: verificationOf(linked),
        };
        const event: PayoutEvent = { type: 'payout.update', at, changes };
        const refusal = payoutRefusalOf(loaded.snapshot, event);
        const routeMoved = JSON.stringify(routing) !== JSON.stringify(loaded.routing);
        if (refusal?.key === 'no_changes' && routeMoved) {
          // Only the channel (and so the route) changed: nothing the machine keeps.
          await savePayout(tx, loaded, loaded.snapshot, routing);
          return { payout: payoutResourceOf(loaded.snapshot) };
        }
        const snapshot = await applyPayoutEvent(tx, deps, loaded, event, at, routing);
        return { payout: payoutResourceOf(snapshot) };
      }),
    );
  };

  return { create, get, list, update, submit, cancel };
};

const isPayoutKeyTaken = (error: unknown): boolean =>
  isStoreFailure(error) && error.reason === 'unique_violation' && error.collection === 'payouts';

/** The recipient a payout already has, re-read (statuses may have changed since). */
const currentRecipient = async (
  tx: StoreTransaction,
  accountId: string,
  context: PayoutSnapshot['context'],
): Promise<LinkedBeneficiary> => {
  const beneficiary = await tx.beneficiaries.get(context.beneficiary_id, accountId);
  const account = await tx.beneficiaryAccounts.get(context.beneficiary_account_id, accountId);
  if (beneficiary === undefined) return refuse(payrailError('beneficiary_not_found'));
  if (account === undefined) return refuse(payrailError('beneficiary_account_not_found'));
  return { beneficiary, account };
};

/**
 * Runs one event on a loaded payout: the machine's refusal, or the new snapshot saved with its
 * effects committed (routing from the payout's notify_url) in the caller's unit of work.
 */
export const applyPayoutEvent = async (
  tx: StoreTransaction,
  deps: Pick<EngineDeps, 'ids'>,
  loaded: LoadedPayout,
  event: PayoutEvent,
  at: number,
  routing: PayoutRouting | undefined = loaded.routing,
): Promise<PayoutSnapshot> => {
  const committed = await decideAndCommit(tx, deps.ids, payoutDecider, {
    id: loaded.record.payout_id,
    snapshot: loaded.snapshot,
    event,
    at,
    save: (next) => savePayout(tx, loaded, next, routing),
    // A batch's payouts without a notify_url send no callbacks.
    routing: ({ context: { notify_url: notifyUrl } }) => ({
      accountId: loaded.record.account_id,
      ...(notifyUrl === '' ? {} : { notifyUrl }),
    }),
  });
  // The refusal answers every event the machine does not accept, so an accepted one changed it.
  return committed?.snapshot ?? loaded.snapshot;
};
