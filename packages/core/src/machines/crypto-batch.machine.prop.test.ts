/**
 * Model-based: random event sequences against a small independent model of the batch rules.
 * After every step the machine must agree with the model on acceptance and message, and keep its
 * invariants (status order, count and total, four eyes: no key that created the batch or added
 * an item approves it, at most 500 items, final is final). Keys are drawn for every act.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CryptoBatchItem } from '../codecs/crypto-batch.codecs.js';
import { addressPool, poolItem } from '../testing/crypto-batch.arbitraries.js';
import {
  batchRefusalOf,
  type CryptoBatchEvent,
  type CryptoBatchSnapshot,
  type CryptoBatchStatus,
  cryptoBatchMachine,
  cryptoBatchPayoutsOf,
  cryptoBatchStatusOf,
  cryptoBatchView,
  type PayoutIds,
} from './crypto-batch.machine.js';
import { decide, start } from './effects.js';

const creator = 'k0';
const keys = ['k0', 'k1', 'k2'] as const;

/** Amount in millionths, as a wire string at scale 6. */
const unitsToAmount = (units: bigint): string =>
  `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, '0')}`;
const amountToUnits = (amount: string): bigint => {
  const [int = '0', frac = ''] = amount.split('.');
  return BigInt(int) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
};

const addressKey = (address: string) =>
  address.startsWith('0x') ? address.toLowerCase() : address;

/**
 * A drawn item: pool slot `i`; `fresh` gives it an order_no no other slot uses (so only its
 * address can clash); `lower` spells an EVM address in lower case (still the same address).
 */
const drawnItem = fc
  .record({
    // Mostly any slot; sometimes one of a few, so a request repeats itself now and then.
    i: fc.oneof(fc.nat({ max: addressPool.length - 1 }), fc.nat({ max: 12 })),
    units: fc.bigInt({ min: 1n, max: 10n ** 12n }),
    fresh: fc.boolean(),
    lower: fc.boolean(),
  })
  .map(({ i, units, fresh, lower }) => {
    const item = poolItem(i, unitsToAmount(units));
    const address = item.beneficiary_account.address;
    return {
      order_no: fresh ? `f${i}-${units}` : item.order_no,
      amount: item.amount,
      beneficiary_account: {
        ...item.beneficiary_account,
        address: lower && address.startsWith('0x') ? address.toLowerCase() : address,
      },
    } satisfies CryptoBatchItem;
  });

const someItems = (max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(drawnItem, { maxLength: 8 }) },
    { weight: 1, arbitrary: fc.array(drawnItem, { maxLength: max }) },
  );

/** Unique initial items (0..500): the codec hands the machine only unique ones. */
const initialItems = fc
  .oneof(
    { weight: 8, arbitrary: fc.uniqueArray(fc.nat({ max: 1399 }), { maxLength: 10 }) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.nat({ max: 1399 }), { maxLength: 500 }) },
    {
      weight: 1,
      arbitrary: fc.uniqueArray(fc.nat({ max: 1399 }), { minLength: 490, maxLength: 500 }),
    },
  )
  .map((indices) => indices.map((i) => poolItem(i, unitsToAmount(BigInt(i + 1)))));

type PayoutIdsShape = 'complete' | 'missing' | 'partial' | 'repeated';

type Command =
  | { readonly kind: 'add'; readonly key: string; readonly items: readonly CryptoBatchItem[] }
  | {
      readonly kind: 'approve' | 'submit';
      readonly key: string;
      readonly ids: PayoutIdsShape;
      /** An approval names the version read plus this: 0 the current one, else a stale read. */
      readonly stale: number;
    };

const idsShape = fc.constantFrom<PayoutIdsShape>(
  'complete',
  'complete',
  'complete',
  'missing',
  'partial',
  'repeated',
);

const command: fc.Arbitrary<Command> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...keys), someItems(60))
    .map(([key, items]): Command => ({ kind: 'add', key, items })),
  fc
    .tuple(fc.constantFrom(...keys), idsShape, fc.constantFrom(0, 0, 0, -1, 1))
    .map(([key, ids, stale]): Command => ({ kind: 'approve', key, ids, stale })),
  fc
    .tuple(fc.constantFrom(...keys), idsShape)
    .map(([key, ids]): Command => ({ kind: 'submit', key, ids, stale: 0 })),
);

const payoutIdsOf = (
  snapshot: CryptoBatchSnapshot,
  shape: PayoutIdsShape,
  step: number,
): PayoutIds | undefined => {
  const orderNos = snapshot.context.items.map((i) => i.order_no);
  if (shape === 'missing') return undefined;
  const ids = Object.fromEntries(orderNos.map((o, n) => [o, `po_${step}_${n}`]));
  if (shape === 'partial' && orderNos.length > 0) delete ids[orderNos[0] ?? ''];
  if (shape === 'repeated' && orderNos.length > 1)
    ids[orderNos[1] ?? ''] = ids[orderNos[0] ?? ''] ?? '';
  return ids;
};

const eventOf = (
  snapshot: CryptoBatchSnapshot,
  c: Command,
  step: number,
  model: Model,
): CryptoBatchEvent => {
  const at = 2000 + step;
  if (c.kind === 'add') return { type: 'batch.items.add', key_id: c.key, items: c.items, at };
  const payout_ids = payoutIdsOf(snapshot, c.ids, step);
  if (c.kind === 'submit')
    return { type: 'batch.submit', key_id: c.key, at, payout_ids: payout_ids ?? {} };
  const version = model.revision + c.stale;
  return payout_ids === undefined
    ? { type: 'batch.approve', key_id: c.key, version, at }
    : { type: 'batch.approve', key_id: c.key, version, at, payout_ids };
};

/** The model's own statement of the rules, written from the interface, not from the machine. */
interface Model {
  status: CryptoBatchStatus;
  /** Every key that chose a recipient: the creator, and whoever added accepted items. */
  editors: Set<string>;
  orderNos: string[];
  addressKeys: string[];
  units: bigint;
  /** Accepted events so far: the version an approver reads. */
  revision: number;
  readonly submitOnApprove: boolean;
}

const idsComplete = (orderNos: readonly string[], ids: PayoutIds | undefined): boolean => {
  if (ids === undefined) return false;
  const given = orderNos.map((o) => ids[o]);
  return (
    given.every((id) => typeof id === 'string' && id !== '') && new Set(given).size === given.length
  );
};

const hasRepeat = (values: readonly string[]) => new Set(values).size !== values.length;

const expectedRefusal = (model: Model, event: CryptoBatchEvent): string | undefined => {
  const count = model.orderNos.length;
  if (event.type === 'batch.items.add') {
    if (model.status !== 'draft') return 'batch not editable';
    const n = event.items.length;
    if (n === 0 || count + n > 500) return 'items length must be between 1 and 500';
    const orderNos = event.items.map((i) => i.order_no);
    const keysOfNew = event.items.map((i) => addressKey(i.beneficiary_account.address));
    if (hasRepeat(orderNos)) return 'duplicate order_no in request';
    if (hasRepeat(keysOfNew)) return 'duplicate receiving address in batch request';
    if (orderNos.some((o) => model.orderNos.includes(o))) return 'duplicate order_no in batch';
    if (keysOfNew.some((k) => model.addressKeys.includes(k))) {
      return 'duplicate receiving address in batch request';
    }
    return undefined;
  }
  if (event.type === 'batch.approve') {
    if (model.status !== 'draft') return 'batch not editable';
    // Issue 35, M3: an approval covers the batch its approver read, and no later change.
    if (event.version !== model.revision) return 'batch changed since the version approved';
    if (count === 0) return 'batch has no items';
    if (event.key_id === creator) return 'batch must be approved by a key other than its creator';
    if (model.editors.has(event.key_id)) {
      return 'batch must be approved by a key that did not add its items';
    }
    if (model.submitOnApprove && !idsComplete(model.orderNos, event.payout_ids)) {
      return 'internal error';
    }
    return undefined;
  }
  if (model.status === 'submitted') return 'batch not ready for submit';
  if (count === 0) return 'batch has no items';
  if (model.status !== 'approved') return 'batch not approved';
  return idsComplete(model.orderNos, event.payout_ids) ? undefined : 'internal error';
};

const applyToModel = (model: Model, event: CryptoBatchEvent): void => {
  model.revision += 1;
  if (event.type === 'batch.items.add') {
    model.editors.add(event.key_id);
    for (const item of event.items) {
      model.orderNos.push(item.order_no);
      model.addressKeys.push(addressKey(item.beneficiary_account.address));
      model.units += amountToUnits(item.amount);
    }
  } else if (event.type === 'batch.approve') {
    model.status = model.submitOnApprove ? 'submitted' : 'approved';
  } else {
    model.status = 'submitted';
  }
};

const rank: Record<CryptoBatchStatus, number> = { draft: 0, approved: 1, submitted: 2 };

/** Cheap comparisons only: batches reach 500 items and this runs after every step. */
const checkInvariants = (snapshot: CryptoBatchSnapshot, model: Model): void => {
  const c = snapshot.context;
  expect(cryptoBatchStatusOf(snapshot)).toBe(model.status);
  expect(c.item_count).toBe(c.items.length);
  expect(c.item_count).toBeLessThanOrEqual(500);
  expect(c.items.map((i) => i.order_no).join('\n')).toBe(model.orderNos.join('\n'));
  const total = c.items.reduce((s, i) => s + amountToUnits(i.amount), 0n);
  expect(c.total_amount).toBe(unitsToAmount(total));
  expect(c.total_amount).toBe(unitsToAmount(model.units));
  // Four eyes (issue 19, M1): no key both chose a recipient and approved them.
  if (c.approved_by_key_id !== undefined) {
    expect(c.approved_by_key_id).not.toBe(c.created_by_key_id);
    expect(c.items.map((i) => i.added_by_key_id)).not.toContain(c.approved_by_key_id);
    expect(model.editors.has(c.approved_by_key_id)).toBe(false);
  }
  expect(new Set(c.items.map((i) => i.order_no)).size).toBe(c.item_count);
  expect(new Set(c.items.map((i) => addressKey(i.beneficiary_account.address))).size).toBe(
    c.item_count,
  );
  const isSubmitted = model.status === 'submitted';
  expect(snapshot.status).toBe(isSubmitted ? 'done' : 'active');
  const itemStatus = isSubmitted ? 'submitted' : 'pending';
  expect(c.items.every((i) => i.status === itemStatus)).toBe(true);
  expect(c.items.every((i) => (i.payout_id !== undefined) === isSubmitted)).toBe(true);
  expect(cryptoBatchPayoutsOf(snapshot)).toHaveLength(isSubmitted ? c.item_count : 0);
};

describe('cryptoBatch model-based properties', () => {
  it('agrees with the model on every event and keeps its invariants', () => {
    fc.assert(
      fc.property(
        initialItems,
        fc.option(fc.boolean(), { nil: undefined }),
        fc.array(command, { maxLength: 10 }),
        (items, submit, commands) => {
          let snapshot = start(cryptoBatchMachine, {
            batch_id: 'b',
            account_id: 'a',
            currency: 'USDC',
            method_id: 1,
            items,
            created_by_key_id: creator,
            submit,
            at: 1000,
          }).snapshot;
          const model: Model = {
            status: 'draft',
            editors: new Set([creator]),
            orderNos: items.map((i) => i.order_no),
            addressKeys: items.map((i) => addressKey(i.beneficiary_account.address)),
            units: items.reduce((s, i) => s + amountToUnits(i.amount), 0n),
            revision: 0,
            submitOnApprove: submit ?? true,
          };
          checkInvariants(snapshot, model);
          commands.forEach((c, step) => {
            const event = eventOf(snapshot, c, step, model);
            const expected = expectedRefusal(model, event);
            expect(batchRefusalOf(snapshot, event)?.message).toBe(expected);
            const before = snapshot;
            const decision = decide(cryptoBatchMachine, snapshot, event);
            expect(decision.effects).toEqual([]);
            expect(decision.changed).toBe(expected === undefined);
            snapshot = decision.snapshot;
            if (expected === undefined) {
              applyToModel(model, event);
              expect(snapshot.context.revision).toBe(before.context.revision + 1);
              expect(cryptoBatchView(snapshot).version).toBe(model.revision);
              expect(snapshot.context.updated_at).toBe(event.at);
              if (event.type !== 'batch.items.add' && model.status === 'submitted') {
                const ids = event.payout_ids ?? {};
                const recorded = snapshot.context.items.every(
                  (i) => i.payout_id === ids[i.order_no],
                );
                expect(recorded).toBe(true);
              }
            } else {
              expect(snapshot).toBe(before);
            }
            expect(rank[cryptoBatchStatusOf(snapshot)]).toBeGreaterThanOrEqual(
              rank[cryptoBatchStatusOf(before)],
            );
            if (cryptoBatchStatusOf(before) === 'submitted') expect(snapshot).toBe(before);
            // A refused event returned the very same snapshot, already checked.
            if (decision.changed) checkInvariants(snapshot, model);
          });
          expect(JSON.parse(JSON.stringify(snapshot.context))).toEqual(snapshot.context);
        },
      ),
    );
  }, 30_000);
});
