import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { CryptoBatchItem } from '../codecs/crypto-batch.codecs.js';
import { addressPool, poolItem } from '../testing/crypto-batch.arbitraries.js';
import {
  batchRefusalOf,
  type CryptoBatchEvent,
  type CryptoBatchInput,
  type CryptoBatchSnapshot,
  cryptoBatchItemsView,
  cryptoBatchMachine,
  cryptoBatchPayoutsOf,
  cryptoBatchStatusOf,
  cryptoBatchView,
  payoutIdsFor,
} from './crypto-batch.machine.js';
import { decide, start } from './effects.js';

const creator = 'key_creator';
const approver = 'key_approver';

const input = (overrides: Partial<CryptoBatchInput> = {}): CryptoBatchInput => ({
  batch_id: 'bat_1',
  account_id: 'acc_1',
  currency: 'USDT',
  method_id: 7,
  items: [poolItem(0, '1.5'), poolItem(1, '2')],
  created_by_key_id: creator,
  submit: false,
  at: 1000,
  ...overrides,
});

const created = (overrides: Partial<CryptoBatchInput> = {}): CryptoBatchSnapshot =>
  start(cryptoBatchMachine, input(overrides)).snapshot;

let nextId = 0;
const newId = () => `po_${++nextId}`;

const add = (items: readonly CryptoBatchItem[], at = 2000, key_id = creator): CryptoBatchEvent => ({
  type: 'batch.items.add',
  key_id,
  items,
  at,
});
const approve = (
  snapshot: CryptoBatchSnapshot,
  key_id = approver,
  at = 3000,
): CryptoBatchEvent => ({
  type: 'batch.approve',
  key_id,
  version: snapshot.context.revision,
  at,
  payout_ids: payoutIdsFor(snapshot, newId),
});
const submit = (snapshot: CryptoBatchSnapshot, key_id = creator, at = 4000): CryptoBatchEvent => ({
  type: 'batch.submit',
  key_id,
  at,
  payout_ids: payoutIdsFor(snapshot, newId),
});

/** Applies an event the machine must accept. */
const accept = (snapshot: CryptoBatchSnapshot, event: CryptoBatchEvent): CryptoBatchSnapshot => {
  expect(batchRefusalOf(snapshot, event)).toBeUndefined();
  const decision = decide(cryptoBatchMachine, snapshot, event);
  expect(decision.changed).toBe(true);
  expect(decision.effects).toEqual([]);
  return decision.snapshot;
};

/** Asserts the machine refuses `event` with `message` and leaves the snapshot as it was. */
const refuse = (snapshot: CryptoBatchSnapshot, event: CryptoBatchEvent, message: string) => {
  expect(batchRefusalOf(snapshot, event)?.message).toBe(message);
  const decision = decide(cryptoBatchMachine, snapshot, event);
  expect(decision.changed).toBe(false);
  expect(decision.snapshot.context).toEqual(snapshot.context);
  expect(decision.snapshot.value).toEqual(snapshot.value);
};

const approved = (): CryptoBatchSnapshot => {
  const s = created();
  return accept(s, approve(s));
};
const submitted = (): CryptoBatchSnapshot => {
  const s = approved();
  return accept(s, submit(s));
};

describe('cryptoBatch: creation', () => {
  it('starts in draft with pending items, their count and their total at scale', () => {
    const s = created();
    expect(cryptoBatchStatusOf(s)).toBe('draft');
    expect(s.context).toMatchObject({
      item_count: 2,
      total_amount: '3.500000',
      revision: 0,
      created_at: 1000,
      updated_at: 1000,
      submit_on_approve: false,
      created_by_key_id: creator,
    });
    expect(s.context.items.map((i) => [i.amount, i.status, i.created_at])).toEqual([
      ['1.500000', 'pending', 1000],
      ['2.000000', 'pending', 1000],
    ]);
    expect(start(cryptoBatchMachine, input()).effects).toEqual([]);
  });

  it('submit omitted means the approval submits (submit_on_approve true)', () => {
    expect(created({ submit: undefined }).context.submit_on_approve).toBe(true);
    expect(created({ submit: true }).context.submit_on_approve).toBe(true);
  });
});

describe('cryptoBatch: batch.items.add', () => {
  it('appends items in draft; count, total, revision and updated_at follow', () => {
    const s = accept(created(), add([poolItem(2, '0.000001')], 2500));
    expect(s.context.items.map((i) => i.order_no)).toEqual(['o0', 'o1', 'o2']);
    expect(s.context).toMatchObject({
      item_count: 3,
      total_amount: '3.500001',
      revision: 1,
      updated_at: 2500,
    });
    expect(s.context.items[2]).toMatchObject({ status: 'pending', created_at: 2500 });
  });

  it('batch not editable once approved or submitted', () => {
    refuse(approved(), add([poolItem(9, '1')]), 'batch not editable');
    refuse(submitted(), add([poolItem(9, '1')]), 'batch not editable');
  });

  it('items length must be between 1 and 500: no items, or the batch would pass 500', () => {
    refuse(created(), add([]), 'items length must be between 1 and 500');
    const full = created({ items: Array.from({ length: 499 }, (_, i) => poolItem(i, '1')) });
    const s = accept(full, add([poolItem(600, '1')]));
    expect(s.context.item_count).toBe(500);
    refuse(s, add([poolItem(601, '1')]), 'items length must be between 1 and 500');
    refuse(
      full,
      add([poolItem(600, '1'), poolItem(601, '1')]),
      'items length must be between 1 and 500',
    );
  });

  it('duplicate order_no in request / in batch', () => {
    refuse(created(), add([poolItem(5, '1'), poolItem(5, '2')]), 'duplicate order_no in request');
    refuse(
      created(),
      add([{ ...poolItem(5, '1'), order_no: 'o0' }]),
      'duplicate order_no in batch',
    );
  });

  it('duplicate receiving address in batch request: within the new items or against the batch', () => {
    const evm = addressPool[0] ?? '';
    refuse(
      created(),
      add([
        poolItem(5, '1'),
        { ...poolItem(6, '1'), beneficiary_account: poolItem(5, '1').beneficiary_account },
      ]),
      'duplicate receiving address in batch request',
    );
    refuse(
      created(),
      add([
        {
          order_no: 'new',
          amount: '1',
          beneficiary_account: { address: evm.toLowerCase(), network_code: 'EVM' },
        },
      ]),
      'duplicate receiving address in batch request',
    );
  });

  it('precedence: not editable, length, order_no in request, address in request, order_no in batch', () => {
    refuse(approved(), add([]), 'batch not editable');
    const full = created({ items: Array.from({ length: 500 }, (_, i) => poolItem(i, '1')) });
    refuse(full, add([poolItem(0, '1')]), 'items length must be between 1 and 500');
    refuse(created(), add([poolItem(0, '1'), poolItem(0, '1')]), 'duplicate order_no in request');
    refuse(
      created(),
      add([
        poolItem(0, '1'),
        { ...poolItem(7, '1'), beneficiary_account: poolItem(0, '1').beneficiary_account },
      ]),
      'duplicate receiving address in batch request',
    );
    refuse(
      created(),
      add([{ ...poolItem(0, '1'), beneficiary_account: poolItem(8, '1').beneficiary_account }]),
      'duplicate order_no in batch',
    );
  });
});

describe('cryptoBatch: batch.approve (four eyes)', () => {
  it('another key approves: approved, with the approver recorded', () => {
    const s = approved();
    expect(cryptoBatchStatusOf(s)).toBe('approved');
    expect(s.context).toMatchObject({
      approved_by_key_id: approver,
      approved_at: 3000,
      revision: 1,
    });
    expect(s.context.items.every((i) => i.status === 'pending')).toBe(true);
  });

  it('the creator cannot approve its own batch', () => {
    const s = created();
    refuse(s, approve(s, creator), 'batch must be approved by a key other than its creator');
  });

  it('issue 19, M1: a key that added items cannot approve, even when another key created the batch', () => {
    // Key A opens an empty draft; key B adds every item, then tries to approve it alone.
    const draft = created({ items: [], submit: false });
    const s = accept(draft, add([poolItem(2, '1'), poolItem(3, '2')], 2500, approver));
    expect(s.context.items.map((i) => i.added_by_key_id)).toEqual([approver, approver]);
    refuse(s, approve(s, approver), 'batch must be approved by a key that did not add its items');
    // A third key, which chose nobody, is the second pair of eyes.
    expect(cryptoBatchStatusOf(accept(s, approve(s, 'key_third')))).toBe('approved');
  });

  it('batch has no items', () => {
    const s = created({ items: [] });
    refuse(s, approve(s), 'batch has no items');
  });

  it('issue 35, M3: an approval names the version it read; items added since refuse it', () => {
    // The checker reads the batch at version 0 (2 items); the maker adds an item; the checker's
    // approval of version 0 would cover an item it never saw.
    const read = created();
    const changed = accept(read, add([poolItem(9, '990')], 2500, creator));
    expect(cryptoBatchView(changed).version).toBe(1);
    refuse(changed, approve(read), 'batch changed since the version approved');
    refuse(
      changed,
      { ...approve(changed), version: 2 } as CryptoBatchEvent,
      'batch changed since the version approved',
    );
    // Approving what is there now, having read it, goes through.
    const approvedNow = accept(changed, approve(changed));
    expect(approvedNow.context.item_count).toBe(3);
    expect(approvedNow.context.total_amount).toBe('993.500000');
  });

  it('batch not editable once approved or submitted', () => {
    const a = approved();
    refuse(a, approve(a, 'key_other'), 'batch not editable');
    const sub = submitted();
    refuse(sub, approve(sub, 'key_other'), 'batch not editable');
  });

  it('precedence: not editable, then no items, then the creator', () => {
    const a = approved();
    refuse(a, approve(a, creator), 'batch not editable');
    const empty = created({ items: [] });
    refuse(empty, approve(empty, creator), 'batch has no items');
  });

  it('with submit_on_approve the approval submits at once, items taking their payout ids', () => {
    const s = created({ submit: undefined });
    const event = approve(s);
    const next = accept(s, event);
    expect(cryptoBatchStatusOf(next)).toBe('submitted');
    expect(next.status).toBe('done');
    expect(next.context).toMatchObject({
      approved_by_key_id: approver,
      submitted_by_key_id: approver,
      submitted_at: 3000,
      revision: 1,
    });
    const ids = event.type === 'batch.approve' ? event.payout_ids : undefined;
    expect(next.context.items.map((i) => [i.status, i.payout_id])).toEqual([
      ['submitted', ids?.o0],
      ['submitted', ids?.o1],
    ]);
  });

  it('an approval that submits without payout ids for every item is an internal error', () => {
    const s = created({ submit: true });
    refuse(s, { type: 'batch.approve', key_id: approver, version: 0, at: 1 }, 'internal error');
    refuse(
      s,
      { type: 'batch.approve', key_id: approver, version: 0, at: 1, payout_ids: { o0: 'po_a' } },
      'internal error',
    );
    refuse(
      s,
      {
        type: 'batch.approve',
        key_id: approver,
        version: 0,
        at: 1,
        payout_ids: { o0: 'po_a', o1: 'po_a' },
      },
      'internal error',
    );
  });
});

describe('cryptoBatch: batch.submit', () => {
  it('an approved batch is submitted (final); each item names its payout', () => {
    const a = approved();
    const event = submit(a, creator, 4000);
    const s = accept(a, event);
    expect(cryptoBatchStatusOf(s)).toBe('submitted');
    expect(s.status).toBe('done');
    expect(s.context).toMatchObject({
      submitted_by_key_id: creator,
      submitted_at: 4000,
      revision: 2,
    });
    const ids = event.type === 'batch.submit' ? event.payout_ids : {};
    expect(s.context.items.map((i) => i.payout_id)).toEqual([ids.o0, ids.o1]);
    expect(s.context.items.every((i) => i.status === 'submitted')).toBe(true);
  });

  it('batch not approved while in draft', () => {
    const s = created();
    refuse(s, submit(s), 'batch not approved');
  });

  it('batch has no items, before batch not approved', () => {
    const s = created({ items: [] });
    refuse(s, submit(s), 'batch has no items');
  });

  it('batch not ready for submit once submitted', () => {
    const s = submitted();
    refuse(s, submit(s), 'batch not ready for submit');
  });

  it('missing payout ids are an internal error', () => {
    const a = approved();
    refuse(a, { type: 'batch.submit', key_id: creator, at: 1, payout_ids: {} }, 'internal error');
    refuse(
      a,
      { type: 'batch.submit', key_id: creator, at: 1, payout_ids: { o0: 'x', o1: '' } },
      'internal error',
    );
  });

  it('the submitted state is final: every event leaves it as it is', () => {
    const s = submitted();
    for (const event of [add([poolItem(9, '1')]), approve(s, 'key_x'), submit(s)]) {
      const decision = decide(cryptoBatchMachine, s, event);
      expect(decision.changed).toBe(false);
      expect(cryptoBatchStatusOf(decision.snapshot)).toBe('submitted');
    }
  });
});

describe('cryptoBatch: views and what the engine turns into payouts', () => {
  it('data.batch carries the batch fields, approval and submission once they happen', () => {
    expect(cryptoBatchView(created())).toEqual({
      batch_id: 'bat_1',
      status: 'draft',
      currency: 'USDT',
      method_id: 7,
      item_count: 2,
      total_amount: '3.500000',
      submit_on_approve: false,
      created_by_key_id: creator,
      version: 0,
      created_at: 1000,
      updated_at: 1000,
    });
    expect(cryptoBatchView(submitted())).toMatchObject({
      status: 'submitted',
      approved_by_key_id: approver,
      approved_at: 3000,
      submitted_by_key_id: creator,
      submitted_at: 4000,
      updated_at: 4000,
    });
  });

  it('items list with status and, once submitted, payout_id', () => {
    expect(cryptoBatchItemsView(created())[0]).toEqual({
      batch_id: 'bat_1',
      order_no: 'o0',
      currency: 'USDT',
      amount: '1.500000',
      beneficiary_account: { address: addressPool[0], network_code: 'EVM' },
      status: 'pending',
      created_at: 1000,
    });
    const rows = cryptoBatchItemsView(submitted());
    expect(rows.every((r) => r.status === 'submitted' && r.payout_id?.startsWith('po_'))).toBe(
      true,
    );
  });

  it('a submitted batch lists one payout per item, referenced by its order_no', () => {
    expect(cryptoBatchPayoutsOf(created())).toEqual([]);
    expect(cryptoBatchPayoutsOf(approved())).toEqual([]);
    const s = submitted();
    expect(cryptoBatchPayoutsOf(s)).toEqual(
      s.context.items.map((item) => ({
        payout_id: item.payout_id,
        reference: item.order_no,
        batch_id: 'bat_1',
        account_id: 'acc_1',
        currency: 'USDT',
        amount: item.amount,
        method_id: 7,
        beneficiary_account: item.beneficiary_account,
        submitted_by_key_id: creator,
      })),
    );
  });
});

describe('cryptoBatch: persistence', () => {
  it('a persisted snapshot survives JSON and carries on', () => {
    const actor = createActor(cryptoBatchMachine, { input: input() });
    actor.start();
    actor.send(add([poolItem(3, '4')]));
    const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    actor.stop();
    // The input is ignored when a snapshot is given: the batch carries on from where it was.
    const revived = createActor(cryptoBatchMachine, {
      snapshot: persisted,
      input: input({ batch_id: 'ignored' }),
    });
    revived.start();
    expect(revived.getSnapshot().context).toMatchObject({
      batch_id: 'bat_1',
      total_amount: '7.500000',
    });
    revived.send(approve(revived.getSnapshot()));
    expect(cryptoBatchStatusOf(revived.getSnapshot())).toBe('approved');
    revived.stop();
  });
});
