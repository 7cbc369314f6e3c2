/**
 * `POST /payment/quickpayout` (interface "Fiat payout", docs/spec/decisions.md §2): a payout created, and
 * submitted unless the body says `submit: false`, in one unit of work. Idempotent by
 * `client_request_id`: the same request again answers the payout it created; another request
 * under that id is `client_request_id already used`.
 */
import { createHash } from 'node:crypto';
import {
  type AccountRecord,
  type Currency,
  decodePayoutCreate,
  isStoreFailure,
  type PayoutCreateRequest,
  type PayoutInput,
  type PayoutRecord,
  type PayoutRouting,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { type Permission, requirePermission } from '../access/access-control.policy.js';
import { notifyUrlRefusal } from '../access/outbound-url.policy.js';
import {
  create,
  orRefuse,
  refuse,
  retryingConflicts,
  together,
  unitOfWork,
} from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { requireSameChannel } from './beneficiary-linking.policy.js';
import { loadedPayoutOf, payoutRepository } from './payout.persistence.js';
import { createdPayoutView } from './payout.views.js';
import { payoutAccount } from './payout-account.policy.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';
import {
  atScale,
  linkRecipient,
  networkLookupIn,
  requireWallet,
  routingFor,
  verificationOf,
} from './payout-recipient.policy.js';
import { checkMethod, findMethod } from './payout-routing.policy.js';

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

/** Creating needs `payment.payout.create`, and `payment.payout.submit` unless `submit: false`. */
const permissionsOf = (body: unknown): Permission[] => {
  const holdsBack =
    typeof body === 'object' && body !== null && Reflect.get(body, 'submit') === false;
  return holdsBack ? ['payment.payout.create'] : ['payment.payout.create', 'payment.payout.submit'];
};

/** The answer to a repeat of `original`'s client_request_id: it, if the request is the same. */
const answerRepeat = (original: PayoutRecord, requestHash: string) =>
  original.request_hash === requestHash
    ? { payout: createdPayoutView(loadedPayoutOf(original).snapshot) }
    : refuse(payrailError('client_request_id_already_used'));

/** Thrown inside create when a concurrent twin took the payout's unique key first. */
class TwinCommitted extends Error {}

const isPayoutKeyTaken = (error: unknown): boolean =>
  isStoreFailure(error) && error.reason === 'unique_violation' && error.collection === 'payouts';

/** What a run saw of the request, for answering a twin that committed first. */
interface Seen {
  readonly clientRequestId: string | undefined;
  readonly hash: string;
}

/** The payouts holding the request's client_request_id and its reference, if any. */
interface Holders {
  readonly original: PayoutRecord | undefined;
  readonly taken: PayoutRecord | undefined;
}

/** What a request whose body is refused reads: nothing (the body's refusal is answered). */
const unread: Holders = { original: undefined, taken: undefined };

/** Both reads at once: one round trip on a pipelining store. */
const holdersOf = async (
  tx: StoreTransaction,
  accountId: string,
  request: PayoutCreateRequest,
): Promise<Holders> => {
  const clientRequestId = request.client_request_id;
  const [original, taken] = await together([
    clientRequestId === undefined
      ? Promise.resolve(undefined)
      : tx.payouts.findUnique({ account_id: accountId, client_request_id: clientRequestId }),
    tx.payouts.findUnique({ account_id: accountId, reference: request.reference }),
  ]);
  return { original, taken };
};

/**
 * The payout this request already made (by client_request_id), or `reference already exists`
 * when another payout holds the reference; `undefined` when the request is new.
 */
const repeatOf = ({ original, taken }: Holders, request: PayoutCreateRequest, hash: string) => {
  if (original !== undefined) return answerRepeat(original, hash);
  if (taken === undefined) return undefined;
  // Under READ COMMITTED a twin with our client_request_id may commit between the two reads:
  // the reference is then taken by the original, which answers as a repeat.
  const clientRequestId = request.client_request_id;
  if (clientRequestId !== undefined && taken.client_request_id === clientRequestId) {
    return answerRepeat(taken, hash);
  }
  return refuse(payrailError('reference_already_exists'));
};

/** The machine's input for a new payout: recipient linked, method checked, route priced. */
const payoutInputOf = async (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  tx: StoreTransaction,
  account: AccountRecord,
  request: PayoutCreateRequest,
  at: number,
): Promise<{ readonly input: PayoutInput; readonly routing: PayoutRouting }> => {
  const currency: Currency = request.currency;
  const amount = atScale(currency, request.amount);
  const channelId = request.channel_id ?? null;
  const method =
    request.method_id === undefined
      ? undefined
      : await findMethod(catalogue, tx, request.method_id);
  if (method !== undefined) checkMethod(method, currency, channelId);
  const linked = await linkRecipient(deps, catalogue, tx, at, account.account_id, {
    ...(request.method_id === undefined ? {} : { methodId: request.method_id }),
    ...(method === undefined ? {} : { method }),
    channelId,
    ...(request.beneficiary_account_id === undefined
      ? {}
      : { beneficiaryAccountId: request.beneficiary_account_id }),
    ...(request.account_type === undefined ? {} : { accountType: request.account_type }),
    ...(request.beneficiary === undefined ? {} : { beneficiary: request.beneficiary }),
    ...(request.beneficiary_account === undefined ? {} : { account: request.beneficiary_account }),
  });
  requireSameChannel(linked.beneficiary, channelId);
  const methodId = linked.beneficiary.method_id;
  if (request.method_id === undefined) {
    checkMethod(await findMethod(catalogue, tx, methodId), currency, null);
  }
  const { routing, fee } = await routingFor(catalogue, tx, {
    accountId: account.account_id,
    currency,
    amount,
    feeBearer: request.fee_bearer,
    methodId,
    channelId,
    beneficiary: linked.beneficiary,
  });
  const input: PayoutInput = {
    payout_id: deps.ids.next('po'),
    account_id: account.account_id,
    reference: request.reference,
    ...(request.client_request_id === undefined
      ? {}
      : { client_request_id: request.client_request_id }),
    currency,
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
  return { input, routing };
};

/** After a twin committed the reference or client_request_id first: its answer, or a refusal. */
const answerTwin = (deps: EngineDeps, caller: Caller, seen: Seen) =>
  unitOfWork(deps.store, async (tx) => {
    const original =
      seen.clientRequestId === undefined
        ? undefined
        : await tx.payouts.findUnique({
            account_id: caller.account_id,
            client_request_id: seen.clientRequestId,
          });
    return original === undefined
      ? refuse(payrailError('reference_already_exists'))
      : answerRepeat(original, seen.hash);
  });

export const createPayout = async (
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  caller: Caller,
  body: unknown,
) => {
  const permissions = permissionsOf(body);
  const notifyUrlRefused = await notifyUrlRefusal(deps, body, caller, permissions);
  const at = deps.clock.now();
  let seen: Seen | undefined;
  const attempt = () =>
    unitOfWork(deps.store, async (tx) => {
      // A key without the permissions reads nothing, not even the catalogue.
      requirePermission(caller, ...permissions);
      const decoded = decodePayoutCreate(body, {
        lookupNetwork: await networkLookupIn(catalogue, tx),
        allowInsecureNotifyUrl: deps.settings.allowInsecureWebhooks,
      });
      // The account and the payouts holding the request's keys, read together; the account's
      // refusal still comes before the body's.
      const [account, holders] = await together([
        payoutAccount(tx, caller, ...permissions),
        E.isRight(decoded) ? holdersOf(tx, caller.account_id, decoded.right) : unread,
      ]);
      const request = orRefuse(decoded);
      if (notifyUrlRefused !== undefined) refuse(notifyUrlRefused);
      const hash = requestHashOf(request);
      seen = { clientRequestId: request.client_request_id, hash };
      const repeat = repeatOf(holders, request, hash);
      if (repeat !== undefined) return repeat;
      requireWallet(account, request.currency);
      const { input, routing } = await payoutInputOf(deps, catalogue, tx, account, request, at);
      const created = await create(tx, deps.ids, payoutRepository, {
        input,
        extra: { routing, requestHash: hash },
        at,
      }).catch((error: unknown) => {
        // A concurrent twin committed the reference or client_request_id between our check and
        // this insert; this unit of work must end, and a new one reads what the twin wrote.
        throw isPayoutKeyTaken(error) ? new TwinCommitted() : error;
      });
      return { payout: createdPayoutView(created.snapshot) };
    });
  try {
    return await retryingConflicts(attempt);
  } catch (error) {
    if (!(error instanceof TwinCommitted) || seen === undefined) throw error;
    return answerTwin(deps, caller, seen);
  }
};
