/**
 * A crypto mass payout batch (docs/spec/decisions.md §6): `draft` takes items, a key that neither created the
 * batch nor added any of its items approves it (four eyes: one key alone never both chooses the
 * recipients and approves them, issue 19 M1), and `submitted` (final) hands every item over to become a payout of
 * its own, with the item's order_no as the payout's reference.
 *
 * The engine creates those payouts: it gives the payout ids in the event that submits the batch
 * (`batch.submit`, or `batch.approve` of a batch created with `submit` true), the machine records
 * them on the items, and `cryptoBatchPayoutsOf` lists what to create. The machine emits no
 * effects: batch events are not part of the interface, so merchants hear about the payouts
 * through the payouts' own webhooks.
 */

import { assign, type SnapshotFrom, setup } from 'xstate';
import type { BatchItemView } from '../codecs/batch-answers.codecs.js';
import {
  type CryptoBatchItem,
  type CryptoBeneficiaryAccount,
  duplicateInBatchRefusal,
  duplicateInRequestRefusal,
  maxBatchItems,
} from '../codecs/crypto-batch.codecs.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { type CryptoCurrency, formatAmount, money, sum } from '../money/money.js';
import { recordOf } from '../typed-records.js';

/** Batch status, on the wire as spelt here; `submitted` is final. */
export type CryptoBatchStatus = 'draft' | 'approved' | 'submitted';

/** An item waits (`pending`) until its batch is submitted, then names its payout. */
export type CryptoBatchItemStatus = 'pending' | 'submitted';

/** An item as the batch keeps it: what was sent, plus its own status and, later, its payout. */
export interface CryptoBatchItemRecord extends CryptoBatchItem {
  readonly status: CryptoBatchItemStatus;
  /** Set when the batch is submitted: the payout this item became. */
  readonly payout_id?: string;
  /** Unix seconds: when the item joined the batch. */
  readonly created_at: number;
  /**
   * The key that put the item in the batch (the creator for the create request's items). Items
   * stored before this was recorded have none: their creator's key added them.
   */
  readonly added_by_key_id?: string;
}

/** JSON-serialisable; item_count and total_amount always agree with items. */
export interface CryptoBatchContext {
  readonly batch_id: string;
  readonly account_id: string;
  readonly currency: CryptoCurrency;
  readonly method_id: number;
  /** From the create request's `submit` (default true): approval then submits at once. */
  readonly submit_on_approve: boolean;
  readonly items: readonly CryptoBatchItemRecord[];
  readonly item_count: number;
  /** Decimal string at the currency's scale: the sum of the items' amounts. */
  readonly total_amount: string;
  readonly created_by_key_id: string;
  readonly approved_by_key_id?: string;
  readonly approved_at?: number;
  readonly submitted_by_key_id?: string;
  readonly submitted_at?: number;
  /** Accepted transitions so far, for optimistic concurrency. */
  readonly revision: number;
  readonly created_at: number;
  readonly updated_at: number;
}

/** A decoded create request plus what the engine knows: ids, the creating key, the time. */
export interface CryptoBatchInput {
  readonly batch_id: string;
  readonly account_id: string;
  readonly currency: CryptoCurrency;
  readonly method_id: number;
  readonly items: readonly CryptoBatchItem[];
  readonly created_by_key_id: string;
  /** The request's `submit`; omitted means true. */
  readonly submit?: boolean | undefined;
  readonly at: number;
}

/** The payout id the engine gives each item, keyed by order_no. */
export type PayoutIds = Readonly<Record<string, string>>;

/** Every event carries `at` (Unix seconds): the machine reads no clock. */
export type CryptoBatchEvent =
  | {
      readonly type: 'batch.items.add';
      /** The key adding them: it may not approve the batch. */
      readonly key_id: string;
      readonly items: readonly CryptoBatchItem[];
      readonly at: number;
    }
  | {
      readonly type: 'batch.approve';
      readonly key_id: string;
      /**
       * The batch's `revision` the approver read (`version` in its view): a batch changed since
       * is refused, so an approval covers the items the approver saw (issue 35, M3).
       */
      readonly version: number;
      readonly at: number;
      /** Needed only when the approval submits the batch (`submit_on_approve`). */
      readonly payout_ids?: PayoutIds;
    }
  | {
      readonly type: 'batch.submit';
      readonly key_id: string;
      readonly at: number;
      readonly payout_ids: PayoutIds;
    };

const totalOf = (currency: CryptoCurrency, items: readonly CryptoBatchItem[]): string =>
  formatAmount(
    sum(
      currency,
      items.map((item) => money(currency, item.amount)),
    ),
  );

const recordsOf = (
  currency: CryptoCurrency,
  items: readonly CryptoBatchItem[],
  keyId: string,
  at: number,
): CryptoBatchItemRecord[] =>
  items.map((item) => ({
    order_no: item.order_no,
    amount: formatAmount(money(currency, item.amount)),
    beneficiary_account: item.beneficiary_account,
    status: 'pending',
    created_at: at,
    added_by_key_id: keyId,
  }));

/** Every key that chose a recipient of the batch: its creator and whoever added items. */
const batchEditorsOf = (context: CryptoBatchContext): ReadonlySet<string> =>
  new Set([
    context.created_by_key_id,
    ...context.items.map((item) => item.added_by_key_id ?? context.created_by_key_id),
  ]);

/** Every item has its own non-empty payout id, and no id is given twice. */
const payoutIdsCover = (
  items: readonly CryptoBatchItem[],
  payoutIds: PayoutIds | undefined,
): boolean => {
  if (payoutIds === undefined) return false;
  const ids = items.map((item) =>
    Object.hasOwn(payoutIds, item.order_no) ? payoutIds[item.order_no] : undefined,
  );
  return ids.every((id) => typeof id === 'string' && id !== '') && new Set(ids).size === ids.length;
};

/** A missing payout id is the engine's mistake, never the merchant's: `internal error`. */
const payoutIdsRefusal = (
  context: CryptoBatchContext,
  payoutIds: PayoutIds | undefined,
): PayrailError | undefined =>
  payoutIdsCover(context.items, payoutIds) ? undefined : payrailError('internal_error');

const refusalIn = (
  status: CryptoBatchStatus,
  context: CryptoBatchContext,
  event: CryptoBatchEvent,
): PayrailError | undefined => {
  switch (event.type) {
    case 'batch.items.add': {
      if (status !== 'draft') return payrailError('batch_not_editable');
      const count = event.items.length;
      if (count < 1 || context.item_count + count > maxBatchItems) {
        return payrailError('items_length');
      }
      return (
        duplicateInRequestRefusal(event.items) ??
        duplicateInBatchRefusal(event.items, context.items)
      );
    }
    case 'batch.approve': {
      if (status !== 'draft') return payrailError('batch_not_editable');
      if (event.version !== context.revision) return payrailError('batch_changed');
      if (context.item_count === 0) return payrailError('batch_has_no_items');
      if (event.key_id === context.created_by_key_id) {
        return payrailError('batch_approver_is_creator');
      }
      if (batchEditorsOf(context).has(event.key_id)) {
        return payrailError('batch_approver_added_items');
      }
      return context.submit_on_approve ? payoutIdsRefusal(context, event.payout_ids) : undefined;
    }
    case 'batch.submit': {
      if (status === 'submitted') return payrailError('batch_not_ready_for_submit');
      if (context.item_count === 0) return payrailError('batch_has_no_items');
      if (status !== 'approved') return payrailError('batch_not_approved');
      return payoutIdsRefusal(context, event.payout_ids);
    }
  }
};

const withItemsSubmitted = (
  context: CryptoBatchContext,
  keyId: string,
  at: number,
  payoutIds: PayoutIds,
): Partial<CryptoBatchContext> => ({
  items: context.items.map((item) => ({
    ...item,
    status: 'submitted',
    payout_id: payoutIds[item.order_no] ?? '',
  })),
  submitted_by_key_id: keyId,
  submitted_at: at,
});

/**
 * The batch lifecycle. Refused events leave the snapshot unchanged; `batchRefusalOf` says why.
 * Every accepted event adds one to `revision` and sets `updated_at` to the event's `at`.
 */
export const cryptoBatchMachine = setup({
  // XState reads `types` for its types only, never its value: its documented `{} as` form.
  types: {} as {
    context: CryptoBatchContext;
    events: CryptoBatchEvent;
    input: CryptoBatchInput;
  },
  guards: {
    draftAccepts: ({ context, event }) => refusalIn('draft', context, event) === undefined,
    approvedAccepts: ({ context, event }) => refusalIn('approved', context, event) === undefined,
    draftAcceptsAndSubmits: ({ context, event }) =>
      context.submit_on_approve && refusalIn('draft', context, event) === undefined,
  },
  actions: {
    addItems: assign(({ context, event }) => {
      if (event.type !== 'batch.items.add') return {};
      const added = recordsOf(context.currency, event.items, event.key_id, event.at);
      const items = [...context.items, ...added];
      const total = money(context.currency, context.total_amount).value.plus(
        totalOf(context.currency, added),
      );
      return {
        items,
        item_count: items.length,
        total_amount: formatAmount(money(context.currency, total)),
      };
    }),
    recordApproval: assign(({ event }) =>
      event.type === 'batch.approve'
        ? { approved_by_key_id: event.key_id, approved_at: event.at }
        : {},
    ),
    submitItems: assign(({ context, event }) =>
      event.type === 'batch.items.add'
        ? {}
        : withItemsSubmitted(context, event.key_id, event.at, event.payout_ids ?? {}),
    ),
    touch: assign(({ context, event }) => ({
      revision: context.revision + 1,
      updated_at: event.at,
    })),
  },
}).createMachine({
  id: 'cryptoBatch',
  context: ({ input }) => {
    const items = recordsOf(input.currency, input.items, input.created_by_key_id, input.at);
    return {
      batch_id: input.batch_id,
      account_id: input.account_id,
      currency: input.currency,
      method_id: input.method_id,
      submit_on_approve: input.submit ?? true,
      items,
      item_count: items.length,
      total_amount: totalOf(input.currency, items),
      created_by_key_id: input.created_by_key_id,
      revision: 0,
      created_at: input.at,
      updated_at: input.at,
    };
  },
  initial: 'draft',
  states: {
    draft: {
      on: {
        'batch.items.add': { guard: 'draftAccepts', actions: ['addItems', 'touch'] },
        'batch.approve': [
          {
            guard: 'draftAcceptsAndSubmits',
            target: 'submitted',
            actions: ['recordApproval', 'submitItems', 'touch'],
          },
          { guard: 'draftAccepts', target: 'approved', actions: ['recordApproval', 'touch'] },
        ],
      },
    },
    approved: {
      on: {
        'batch.submit': {
          guard: 'approvedAccepts',
          target: 'submitted',
          actions: ['submitItems', 'touch'],
        },
      },
    },
    submitted: { type: 'final' },
  },
});

/** What the engine persists (`getPersistedSnapshot`) and hands back to `decide`. */
export type CryptoBatchSnapshot = SnapshotFrom<typeof cryptoBatchMachine>;

/** The batch status of a snapshot (state names are the wire values). */
export const cryptoBatchStatusOf = (snapshot: CryptoBatchSnapshot): CryptoBatchStatus =>
  snapshot.value;

/**
 * Why the machine would refuse `event`, as the catalogue error to answer, or undefined when it
 * accepts it; the guards use the same rules, so the two never disagree. Precedence:
 * - `batch.items.add`: `batch not editable` (not draft); `items length must be between 1 and
 *   500` (no items, or the batch would pass 500); `duplicate order_no in request`; `duplicate
 *   receiving address in batch request` (within the new items); `duplicate order_no in batch`;
 *   `duplicate receiving address in batch request` (an address already in the batch);
 * - `batch.approve`: `batch not editable` (not draft); `batch changed since the version approved`
 *   (the event's `version` is not the batch's revision); `batch has no items`; `batch must be
 *   approved by a key other than its creator`; `batch must be approved by a key that did not add
 *   its items`;
 * - `batch.submit`: `batch not ready for submit` (already submitted); `batch has no items`;
 *   `batch not approved`.
 * An event that submits without a payout id for every item: `internal error` (an engine bug).
 */
export const batchRefusalOf = (
  snapshot: CryptoBatchSnapshot,
  event: CryptoBatchEvent,
): PayrailError | undefined => refusalIn(cryptoBatchStatusOf(snapshot), snapshot.context, event);

/** Fresh payout ids for every item of the batch, for the event that submits it. */
export const payoutIdsFor = (snapshot: CryptoBatchSnapshot, newId: () => string): PayoutIds =>
  Object.fromEntries(snapshot.context.items.map((item) => [item.order_no, newId()]));

/** `data.batch`: what batch endpoints answer. */
export interface CryptoBatchView {
  readonly batch_id: string;
  readonly status: CryptoBatchStatus;
  readonly currency: CryptoCurrency;
  readonly method_id: number;
  readonly item_count: number;
  readonly total_amount: string;
  readonly submit_on_approve: boolean;
  readonly created_by_key_id: string;
  readonly approved_by_key_id?: string;
  readonly approved_at?: number;
  readonly submitted_by_key_id?: string;
  readonly submitted_at?: number;
  /** The batch's revision: what an approval names (`POST .../approve {version}`). */
  readonly version: number;
  readonly created_at: number;
  readonly updated_at: number;
}

const optional = <K extends string, V>(key: K, value: V | undefined): { readonly [P in K]?: V } =>
  value === undefined ? {} : recordOf([key], () => value);

/** Builds `data.batch` from a snapshot; approval and submission fields appear once they happen. */
export const cryptoBatchView = (snapshot: CryptoBatchSnapshot): CryptoBatchView => {
  const c = snapshot.context;
  return {
    batch_id: c.batch_id,
    status: cryptoBatchStatusOf(snapshot),
    currency: c.currency,
    method_id: c.method_id,
    item_count: c.item_count,
    total_amount: c.total_amount,
    submit_on_approve: c.submit_on_approve,
    created_by_key_id: c.created_by_key_id,
    ...optional('approved_by_key_id', c.approved_by_key_id),
    ...optional('approved_at', c.approved_at),
    ...optional('submitted_by_key_id', c.submitted_by_key_id),
    ...optional('submitted_at', c.submitted_at),
    version: c.revision,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
};

/** The rows of the items endpoint (the answer codec's `BatchItemView`), in the order the items joined the batch. */
export const cryptoBatchItemsView = (snapshot: CryptoBatchSnapshot): readonly BatchItemView[] =>
  snapshot.context.items.map((item) => ({
    batch_id: snapshot.context.batch_id,
    order_no: item.order_no,
    currency: snapshot.context.currency,
    amount: item.amount,
    beneficiary_account: item.beneficiary_account,
    status: item.status,
    ...optional('payout_id', item.payout_id),
    created_at: item.created_at,
  }));

/** What the engine creates for one item of a submitted batch: a payout of its own. */
export interface CryptoBatchPayout {
  readonly payout_id: string;
  /** The item's order_no. */
  readonly reference: string;
  readonly batch_id: string;
  readonly account_id: string;
  readonly currency: CryptoCurrency;
  readonly amount: string;
  readonly method_id: number;
  readonly beneficiary_account: CryptoBeneficiaryAccount;
  /** The key that submitted the batch: the payouts' submitter. */
  readonly submitted_by_key_id: string;
}

/** The payouts a submitted batch turns into; empty before submission. */
export const cryptoBatchPayoutsOf = (
  snapshot: CryptoBatchSnapshot,
): readonly CryptoBatchPayout[] => {
  const c = snapshot.context;
  if (cryptoBatchStatusOf(snapshot) !== 'submitted') return [];
  return c.items.map((item) => ({
    payout_id: item.payout_id ?? '',
    reference: item.order_no,
    batch_id: c.batch_id,
    account_id: c.account_id,
    currency: c.currency,
    amount: item.amount,
    method_id: c.method_id,
    beneficiary_account: item.beneficiary_account,
    submitted_by_key_id: c.submitted_by_key_id ?? '',
  }));
};
