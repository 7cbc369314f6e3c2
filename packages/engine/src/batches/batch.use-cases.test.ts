import type { PayoutRecord, PayoutRouteRecord } from '@payrail/core';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  caller,
  cryptoRoute,
  dataOf,
  otherMerchant,
  refusal,
  refusalOf,
  seed,
  type TestBed,
  t0,
  testBed,
} from '../acquiring/acquiring.test-support.js';
import { depositAddressOf } from '../acquiring/deposit-addresses.store.js';
import type { Caller, Engine } from '../engine.api.js';
import type { BatchView } from '../engine-answers.views.js';
import { batchUseCases } from './batch.use-cases.js';

const evmAddress = depositAddressOf('recipient-1', 'ETH');
const tronAddress = depositAddressOf('recipient-2', 'TRON');
const evmAddress2 = depositAddressOf('recipient-3', 'ETH');

const batchBody = {
  currency: 'USDT',
  method_id: 7,
  items: [
    {
      order_no: 'B1',
      amount: '10',
      beneficiary_account: { address: evmAddress, display_name: 'Alice' },
    },
    { order_no: 'B2', amount: '20.5', beneficiary_account: { address: tronAddress } },
  ],
};

let bed: TestBed;
let batches: Engine['batches'];
const creator = caller();
const approver = caller({ key_id: 'key_a2' });

beforeEach(async () => {
  bed = testBed();
  await seed(bed);
  batches = batchUseCases(bed.deps);
});

const batchOf = (data: { readonly batch: BatchView }) => data.batch;

const createBatch = async (body: Record<string, unknown> = {}, who: Caller = creator) =>
  batchOf(dataOf(await batches.create(who, { ...batchBody, ...body })));

const payouts = () =>
  bed.deps.store.transaction((tx) =>
    tx.payouts.list({ scope: 'acc_a', sort: 'asc', limit: 100, offset: 0 }),
  );

const contextOf = (payout: PayoutRecord) =>
  (payout.snapshot as { snapshot: { context: Record<string, unknown> } }).snapshot.context;

const addRoute = (route: Partial<PayoutRouteRecord>) =>
  bed.deps.store.transaction((tx) => tx.payoutRoutes.insert(cryptoRoute(route)));

describe('batch create', () => {
  it('answers data.batch in draft with the total of its items', async () => {
    expect(await createBatch()).toEqual({
      batch_id: 'bat_1',
      status: 'draft',
      currency: 'USDT',
      method_id: 7,
      item_count: 2,
      total_amount: '30.500000',
      submit_on_approve: true,
      created_by_key_id: 'key_a1',
      version: 0,
      created_at: t0,
      updated_at: t0,
    });
    expect(await bed.oracle.record('cryptoBatches', 'bat_1')).toMatchObject({
      account_id: 'acc_a',
      status: 'draft',
    });
    expect((await payouts()).total).toBe(0);
  });

  it('refuses a bad method, a route that does not serve the items, and a bad notify_url', async () => {
    expect(refusalOf(await batches.create(creator, { ...batchBody, method_id: 99 }))).toEqual(
      refusal(400, 53, 'payout method not found'),
    );
    expect(refusalOf(await batches.create(creator, { ...batchBody, method_id: 3 }))).toEqual(
      refusal(400, 53, 'payout method not supported for crypto'),
    );
    const tooBig = [
      { order_no: 'X', amount: '20000', beneficiary_account: { address: evmAddress } },
    ];
    expect(refusalOf(await batches.create(creator, { ...batchBody, items: tooBig }))).toEqual(
      refusal(400, 53, 'payout route not configured'),
    );
    expect(
      refusalOf(await batches.create(creator, { ...batchBody, notify_url: 'http://x.example' })),
    ).toEqual(refusal(400, 51, 'invalid notify_url'));
    expect(refusalOf(await batches.create(creator, { ...batchBody, currency: 'USD' }))).toEqual(
      refusal(400, 53, 'only crypto currency supported'),
    );
    expect(await bed.oracle.count('cryptoBatches')).toBe(0);
  });

  it('items on different routes: other channel accounts, or the same one split by amount', async () => {
    await addRoute({
      route_id: 'rt_big',
      min_amount: '15.000000',
      max_amount: '100000.000000',
      channel_account_id: 'chacc_2',
    });
    await addRoute({ route_id: 'rt_small', account_id: 'acc_a', max_amount: '15.000000' });
    expect(refusalOf(await batches.create(creator, batchBody))).toEqual(
      refusal(400, 53, 'batch contains multiple payout channel accounts'),
    );
    await bed.deps.store.transaction(async (tx) => {
      const big = await tx.payoutRoutes.get('rt_big');
      if (big) await tx.payoutRoutes.update({ ...big, channel_account_id: 'chacc_1' });
    });
    expect(refusalOf(await batches.create(creator, batchBody))).toEqual(
      refusal(400, 53, 'split batch by route'),
    );
  });

  it('a route without a channel account is not configured yet', async () => {
    await addRoute({ route_id: 'rt_mine', account_id: 'acc_a', channel_account_id: null });
    expect(refusalOf(await batches.create(creator, batchBody))).toEqual(
      refusal(400, 53, 'channel account not configured'),
    );
  });

  it('an order_no taken by a payout or by another open batch is refused', async () => {
    await createBatch();
    expect(refusalOf(await batches.create(creator, batchBody))).toEqual(
      refusal(400, 53, 'duplicate order_no in merchant payouts'),
    );
    // another merchant's references do not count
    await bed.deps.store.transaction(async (tx) => {
      await tx.payoutRoutes.insert(cryptoRoute({ route_id: 'rt_b', account_id: 'acc_b' }));
    });
    dataOf(await batches.create(otherMerchant, batchBody));
  });

  it('checks permission and product', async () => {
    const forbidden = refusal(403, 61, 'forbidden');
    expect(refusalOf(await batches.create(caller({ permissions: [] }), batchBody))).toEqual(
      forbidden,
    );
    await bed.deps.store.transaction(async (tx) => {
      const account = await tx.accounts.get('acc_a');
      if (account)
        await tx.accounts.update({ ...account, products: { payout: false, acquiring: true } });
    });
    expect(refusalOf(await batches.create(creator, batchBody))).toEqual(forbidden);
  });
});

describe('four eyes and submission', () => {
  it('the creator cannot approve; another key approves and the batch becomes payouts', async () => {
    await createBatch({ notify_url: 'https://merchant.example.com/payouts' });
    expect(refusalOf(await batches.approve(creator, 'bat_1', { version: 0 }))).toEqual(
      refusal(400, 53, 'batch must be approved by a key other than its creator'),
    );
    expect(
      refusalOf(
        await batches.approve(
          caller({ key_id: 'key_a3', permissions: ['payment.payout.create'] }),
          'bat_1',
          { version: 0 },
        ),
      ),
    ).toEqual(refusal(403, 61, 'forbidden'));
    bed.deps.clock.advance(30);
    const approved = batchOf(dataOf(await batches.approve(approver, 'bat_1', { version: 0 })));
    expect(approved).toEqual({
      batch_id: 'bat_1',
      status: 'submitted',
      currency: 'USDT',
      method_id: 7,
      item_count: 2,
      total_amount: '30.500000',
      submit_on_approve: true,
      created_by_key_id: 'key_a1',
      approved_by_key_id: 'key_a2',
      approved_at: t0 + 30,
      submitted_by_key_id: 'key_a2',
      submitted_at: t0 + 30,
      notify_url: 'https://merchant.example.com/payouts',
      version: 1,
      created_at: t0,
      updated_at: t0 + 30,
    });

    const page = await payouts();
    expect(page.total).toBe(2);
    expect(
      page.items.map((p) => [
        p.reference,
        p.amount,
        p.status,
        p.review_status,
        p.execution_status,
        p.batch_id,
      ]),
    ).toEqual([
      ['B1', '10.000000', 'pending_review', 'pending_review', 'init', 'bat_1'],
      ['B2', '20.500000', 'pending_review', 'pending_review', 'init', 'bat_1'],
    ]);
    const [first, second] = page.items;
    if (first === undefined || second === undefined) throw new Error('two payouts expected');
    // fee of the route: 1 + 0.5 %
    expect(contextOf(first)).toMatchObject({
      fee: '1.050000',
      fee_bearer: 'merchant',
      notify_url: 'https://merchant.example.com/payouts',
    });
    expect(contextOf(second).fee).toBe('1.102500');
    expect((first.snapshot as { routing: unknown }).routing).toEqual({
      route_id: 'rt_usdt',
      method_id: 7,
      channel_id: null,
      channel_account_id: 'chacc_1',
    });

    const items = dataOf(await batches.items(creator, 'bat_1', {}));
    expect(items).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(items.items.map((i) => [i.order_no, i.payout_id, i.status])).toEqual([
      ['B1', first.payout_id, 'submitted'],
      ['B2', second.payout_id, 'submitted'],
    ]);

    const recipients = await bed.deps.store.transaction(async (tx) => ({
      beneficiary: await tx.beneficiaries.get(contextOf(first).beneficiary_id as string, 'acc_a'),
      account: await tx.beneficiaryAccounts.get(
        contextOf(second).beneficiary_account_id as string,
        'acc_a',
      ),
    }));
    expect(recipients.beneficiary).toMatchObject({
      method_id: 7,
      payee_id: evmAddress.toLowerCase(),
      name: 'Alice',
      status: 'active',
    });
    expect(recipients.account).toMatchObject({
      network_code: 'TRON',
      fields: { address: tronAddress },
      status: 'active',
    });
    // waiting for an operator: no callback, no money moved
    expect(await bed.oracle.outbox()).toEqual([]);
    expect(await bed.oracle.journalIds()).toEqual([]);
    expect(refusalOf(await batches.submit(approver, 'bat_1'))).toEqual(
      refusal(400, 53, 'batch not ready for submit'),
    );
    expect(
      refusalOf(await batches.addItems(creator, 'bat_1', { items: [batchBody.items[0]] })),
    ).toEqual(refusal(400, 53, 'batch not editable'));
  });

  it('submit:false waits approved for POST submit; submitting early is refused', async () => {
    await createBatch({ submit: false });
    expect(refusalOf(await batches.submit(approver, 'bat_1'))).toEqual(
      refusal(400, 53, 'batch not approved'),
    );
    expect(batchOf(dataOf(await batches.approve(approver, 'bat_1', { version: 0 }))).status).toBe(
      'approved',
    );
    expect((await payouts()).total).toBe(0);
    const submitted = batchOf(dataOf(await batches.submit(creator, 'bat_1')));
    expect(submitted).toMatchObject({ status: 'submitted', submitted_by_key_id: 'key_a1' });
    expect((await payouts()).total).toBe(2);
  });

  it('payouts follow the account: auto approval reports to notify_url and asks for execution', async () => {
    await bed.deps.store.transaction(async (tx) => {
      const account = await tx.accounts.get('acc_a');
      if (account) await tx.accounts.update({ ...account, auto_approve: true });
    });
    await createBatch({ notify_url: 'https://merchant.example.com/payouts' });
    dataOf(await batches.approve(approver, 'bat_1', { version: 0 }));
    const rows = await bed.oracle.outbox();
    expect(rows.map((r) => [r.event_type, r.destination])).toEqual([
      [
        'payout.review.approved',
        { kind: 'notify_url', url: 'https://merchant.example.com/payouts' },
      ],
      [
        'payout.review.approved',
        { kind: 'notify_url', url: 'https://merchant.example.com/payouts' },
      ],
    ]);
    expect((await bed.oracle.timers()).map((t) => t.name)).toEqual([
      'payout.execute',
      'payout.execute',
    ]);
    expect((await payouts()).items.map((p) => p.status)).toEqual(['approved', 'approved']);
  });

  it('without notify_url the payouts send nothing and skip merchant verification', async () => {
    await bed.deps.store.transaction(async (tx) => {
      const account = await tx.accounts.get('acc_a');
      if (account) await tx.accounts.update({ ...account, verification_enabled: true });
    });
    await createBatch();
    dataOf(await batches.approve(approver, 'bat_1', { version: 0 }));
    expect(await bed.oracle.outbox()).toEqual([]);
    expect((await payouts()).items.map((p) => p.status)).toEqual([
      'pending_review',
      'pending_review',
    ]);
    // with a notify_url the verification request goes out
    await createBatch({
      notify_url: 'https://merchant.example.com/payouts',
      items: [{ order_no: 'C1', amount: '5', beneficiary_account: { address: evmAddress2 } }],
    });
    const id = (
      await bed.deps.store.transaction((tx) =>
        tx.cryptoBatches.list({ scope: 'acc_a', where: { status: 'draft' }, limit: 1, offset: 0 }),
      )
    ).items[0]?.batch_id;
    dataOf(await batches.approve(approver, id ?? '', { version: 0 }));
    const rows = await bed.oracle.outbox();
    expect(rows.map((r) => r.event_type)).toEqual(['payout.verify.request']);
    expect(rows[0]?.payload).toMatchObject({
      reference: 'C1',
      amount: '5.000000',
      network_code: 'EVM',
      beneficiary_account: {
        network_code: 'EVM',
        display_name: null,
        fields_masked: { address: `***${evmAddress2.slice(-4)}` },
      },
    });
  });

  it('a reference taken before submission refuses the whole submission, leaving nothing behind', async () => {
    await createBatch({ submit: false });
    dataOf(await batches.approve(approver, 'bat_1', { version: 0 }));
    await bed.deps.store.transaction((tx) =>
      tx.payouts.insert({
        payout_id: 'po_manual',
        account_id: 'acc_a',
        reference: 'B2',
        client_request_id: null,
        request_hash: 'x',
        currency: 'USD',
        amount: '1.00',
        status: 'draft',
        review_status: 'draft',
        execution_status: 'init',
        batch_id: null,
        snapshot: {},
        created_at: t0,
        updated_at: t0,
      }),
    );
    expect(refusalOf(await batches.submit(approver, 'bat_1'))).toEqual(
      refusal(400, 53, 'duplicate order_no in merchant payouts'),
    );
    expect((await payouts()).total).toBe(1);
    expect(await bed.oracle.count('beneficiaries')).toBe(0);
    expect(batchOf(dataOf(await batches.get(creator, 'bat_1'))).status).toBe('approved');
  });

  it('a second batch to the same address reuses its beneficiary and account', async () => {
    await createBatch();
    dataOf(await batches.approve(approver, 'bat_1', { version: 0 }));
    const again = batchOf(
      dataOf(
        await batches.create(creator, {
          ...batchBody,
          items: [
            {
              order_no: 'B3',
              amount: '3',
              beneficiary_account: { address: evmAddress.toLowerCase() },
            },
          ],
        }),
      ),
    );
    dataOf(await batches.approve(approver, again.batch_id as string, { version: 0 }));
    expect(await bed.oracle.count('beneficiaries')).toBe(2);
    expect(await bed.oracle.count('beneficiaryAccounts')).toBe(2);
  });
});

describe('recipients', () => {
  const setBeneficiary = (changes: Record<string, unknown>) =>
    bed.deps.store.transaction(async (tx) => {
      const page = await tx.beneficiaries.list({
        scope: 'acc_a',
        limit: 10,
        offset: 0,
        sort: 'asc',
      });
      const first = page.items[0];
      if (first) await tx.beneficiaries.update({ ...first, ...changes });
    });

  it('a disabled recipient or another account under its network refuses the submission', async () => {
    await createBatch({ items: [batchBody.items[0]] });
    dataOf(await batches.approve(approver, 'bat_1', { version: 0 }));
    await setBeneficiary({ status: 'disabled' });
    const again = async (orderNo: string) =>
      batches.create(creator, {
        ...batchBody,
        submit: true,
        items: [{ order_no: orderNo, amount: '2', beneficiary_account: { address: evmAddress } }],
      });
    const second = batchOf(dataOf(await again('D1'))).batch_id as string;
    expect(refusalOf(await batches.approve(approver, second, { version: 0 }))).toEqual(
      refusal(400, 53, 'beneficiary disabled'),
    );
    await setBeneficiary({ status: 'active' });
    await bed.deps.store.transaction(async (tx) => {
      const page = await tx.beneficiaryAccounts.list({ scope: 'acc_a', limit: 10, offset: 0 });
      const first = page.items[0];
      if (first)
        await tx.beneficiaryAccounts.update({ ...first, fields: { address: evmAddress2 } });
    });
    expect(refusalOf(await batches.approve(approver, second, { version: 0 }))).toEqual(
      refusal(400, 53, 'beneficiary account mismatch'),
    );
    expect((await payouts()).total).toBe(1);
  });
});

describe('items and visibility', () => {
  it('adds items to a draft, refusing duplicates within the batch', async () => {
    await createBatch();
    const more = {
      items: [{ order_no: 'B3', amount: '1', beneficiary_account: { address: evmAddress2 } }],
    };
    expect(batchOf(dataOf(await batches.addItems(creator, 'bat_1', more)))).toMatchObject({
      item_count: 3,
      total_amount: '31.500000',
    });
    expect(refusalOf(await batches.addItems(creator, 'bat_1', more))).toEqual(
      refusal(400, 53, 'duplicate order_no in batch'),
    );
    const sameAddress = {
      items: [{ order_no: 'B4', amount: '1', beneficiary_account: { address: tronAddress } }],
    };
    expect(refusalOf(await batches.addItems(creator, 'bat_1', sameAddress))).toEqual(
      refusal(400, 53, 'duplicate receiving address in batch request'),
    );
    const page = dataOf(await batches.items(creator, 'bat_1', { limit: '2', offset: '1' }));
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.items.map((i) => i.order_no)).toEqual(['B2', 'B3']);
    expect(refusalOf(await batches.items(creator, 'bat_1', { limit: '0' }))).toEqual(
      refusal(400, 51, 'invalid limit'),
    );
  });

  it("another merchant's batch is not found, exactly like a missing one", async () => {
    await createBatch();
    const notFound = refusal(404, 65, 'batch not found');
    const other = caller({ merchant_id: 'mch_b', account_id: 'acc_b', key_id: 'key_b2' });
    expect(refusalOf(await batches.get(other, 'bat_1'))).toEqual(notFound);
    expect(refusalOf(await batches.items(other, 'bat_1', {}))).toEqual(notFound);
    expect(refusalOf(await batches.approve(other, 'bat_1', { version: 0 }))).toEqual(notFound);
    expect(refusalOf(await batches.submit(other, 'bat_1'))).toEqual(notFound);
    expect(refusalOf(await batches.addItems(other, 'bat_1', { items: [] }))).toEqual(notFound);
    expect(refusalOf(await batches.get(creator, 'bat_404'))).toEqual(notFound);
  });
});
