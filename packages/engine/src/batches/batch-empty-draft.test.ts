/**
 * A batch created without items is an empty draft whose items come later (docs/spec/decisions.md §6 leaves
 * it open; docs/domain-rules.md): approving or submitting it first is `batch has no items`, and
 * the account must hold a wallet in the batch's currency (`wallet not found`).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  accountRecord,
  caller,
  dataOf,
  refusal,
  refusalOf,
  seed,
  type TestBed,
  t0,
  testBed,
} from '../acquiring/acquiring.test-support.js';
import { depositAddressOf } from '../acquiring/deposit-addresses.store.js';
import type { Engine } from '../engine.api.js';
import { batchUseCases } from './batch.use-cases.js';

let bed: TestBed;
let batches: Engine['batches'];
const creator = caller();
const approver = caller({ key_id: 'key_a2' });

beforeEach(async () => {
  bed = testBed();
  await seed(bed);
  batches = batchUseCases(bed.deps);
});

describe('an empty draft batch', () => {
  it('is created without items, refuses approval and submission until it has some', async () => {
    expect(dataOf(await batches.create(creator, { currency: 'USDT', method_id: 7 }))).toEqual({
      batch: {
        batch_id: 'bat_1',
        status: 'draft',
        currency: 'USDT',
        method_id: 7,
        item_count: 0,
        total_amount: '0.000000',
        submit_on_approve: true,
        created_by_key_id: 'key_a1',
        version: 0,
        created_at: t0,
        updated_at: t0,
      },
    });
    expect(refusalOf(await batches.approve(approver, 'bat_1', { version: 0 }))).toEqual(
      refusal(400, 53, 'batch has no items'),
    );
    expect(refusalOf(await batches.submit(approver, 'bat_1'))).toEqual(
      refusal(400, 53, 'batch has no items'),
    );
    // `items required` belongs to the add-items call.
    expect(refusalOf(await batches.addItems(creator, 'bat_1', {}))).toEqual(
      refusal(400, 51, 'items required'),
    );
    const address = depositAddressOf('recipient-1', 'ETH');
    dataOf(
      await batches.addItems(creator, 'bat_1', {
        items: [{ order_no: 'E1', amount: '5', beneficiary_account: { address } }],
      }),
    );
    // Approving what was read before the items came is refused (issue 35, M3); as read now, it goes.
    expect(refusalOf(await batches.approve(approver, 'bat_1', { version: 0 }))).toEqual(
      refusal(400, 53, 'batch changed since the version approved'),
    );
    expect(dataOf(await batches.approve(approver, 'bat_1', { version: 1 }))).toMatchObject({
      batch: { status: 'submitted', item_count: 1 },
    });
  });

  it('still needs a crypto method that exists', async () => {
    expect(refusalOf(await batches.create(creator, { currency: 'USDT', method_id: 99 }))).toEqual(
      refusal(400, 53, 'payout method not found'),
    );
    expect(refusalOf(await batches.create(creator, { currency: 'USDT', method_id: 3 }))).toEqual(
      refusal(400, 53, 'payout method not supported for crypto'),
    );
  });
});

describe('wallet not found', () => {
  it('refuses a batch in a currency the account holds no wallet in', async () => {
    await bed.deps.store.transaction(async (tx) => {
      const account = (await tx.accounts.get('acc_a')) ?? accountRecord();
      await tx.accounts.update({ ...account, currencies: ['USD', 'USDC'] });
    });
    expect(refusalOf(await batches.create(creator, { currency: 'USDT', method_id: 7 }))).toEqual(
      refusal(400, 53, 'wallet not found'),
    );
    expect(await bed.oracle.count('cryptoBatches')).toBe(0);
  });

  it('answers after the codec: a bad notify_url first, as for a quick payout', async () => {
    await bed.deps.store.transaction(async (tx) => {
      const account = (await tx.accounts.get('acc_a')) ?? accountRecord();
      await tx.accounts.update({ ...account, currencies: ['USD', 'USDC'] });
    });
    const body = (notify_url: string) => ({ currency: 'USDT', method_id: 7, notify_url });
    expect(refusalOf(await batches.create(creator, body('http://x.example')))).toEqual(
      refusal(400, 51, 'invalid notify_url'),
    );
    expect(refusalOf(await batches.create(creator, body('https://x.example/cb')))).toEqual(
      refusal(400, 53, 'wallet not found'),
    );
    expect(await bed.oracle.count('cryptoBatches')).toBe(0);
  });
});
