import { describe, expect, it } from 'vitest';
import { maskAccountValue } from './payout.views.js';
import {
  dataOf,
  errorOf,
  merchantA,
  merchantAWith,
  merchantB,
  payoutHarness,
  payoutOf,
  startTime,
  walletaPayout,
} from './payouts.test-support.js';

const alice = {
  method_id: 1,
  name: 'Alice Example',
  fields: { payee_id: 'alice01', email: 'alice@home.example', country: 'US' },
};

describe('beneficiaries', () => {
  it('create answers data.beneficiary; the same payee again refreshes and reuses it', async () => {
    const h = await payoutHarness();
    expect(dataOf(await h.engine.beneficiaries.create(merchantA, alice))).toEqual({
      beneficiary: {
        beneficiary_id: 'ben_1',
        method_id: 1,
        payee_id: 'alice01',
        name: 'Alice Example',
        fields: alice.fields,
        status: 'active',
        created_at: startTime,
        updated_at: startTime,
      },
    });
    h.clock.advance(10);
    const again = dataOf(
      await h.engine.beneficiaries.create(merchantA, {
        ...alice,
        fields: { payee_id: 'alice01', city: 'Oslo' },
      }),
    ).beneficiary;
    expect(again).toMatchObject({
      beneficiary_id: 'ben_1',
      fields: { ...alice.fields, city: 'Oslo' },
      updated_at: startTime + 10,
    });
    // The quick payout finds it too (rule 2).
    expect(payoutOf(await h.engine.payouts.create(merchantA, walletaPayout())).beneficiary_id).toBe(
      'ben_1',
    );
  });

  it('create errors: codec, method, channel, route-required fields, disabled payee', async () => {
    const h = await payoutHarness();
    const create = (body: unknown) => h.engine.beneficiaries.create(merchantA, body);
    expect(errorOf(await create(undefined))).toEqual(['request required', 400, 51]);
    expect(errorOf(await create({ name: 'A' }))).toEqual(['method_id required', 400, 51]);
    expect(errorOf(await create({ method_id: 1, name: 'A' }))).toEqual([
      'fields required',
      400,
      51,
    ]);
    expect(errorOf(await create({ ...alice, method_id: 42 }))).toEqual([
      'payout method not found',
      400,
      53,
    ]);
    expect(errorOf(await create({ ...alice, channel_id: 'express' }))).toEqual([
      'payout channel not found',
      400,
      53,
    ]);
    dataOf(
      await h.engine.admin.createRoute({
        account_id: 'acc_a',
        currency: 'USD',
        method_id: 1,
        min_amount: '1',
        max_amount: '10',
        channel_account_id: 'chacc_a',
        required_beneficiary_fields: ['first_name', 'last_name'],
      }),
    );
    expect(errorOf(await create(alice))).toEqual([
      'fields missing required: first_name, last_name',
      400,
      51,
    ]);
    // Merchant B has no such route.
    expect(dataOf(await h.engine.beneficiaries.create(merchantB, alice)).beneficiary).toMatchObject(
      { beneficiary_id: 'ben_1' },
    );
    dataOf(await h.engine.beneficiaries.update(merchantB, 'ben_1', { status: 'disabled' }));
    expect(errorOf(await h.engine.beneficiaries.create(merchantB, alice))).toEqual([
      'beneficiary disabled',
      400,
      53,
    ]);
  });

  it('get, list and status PATCH; another merchant sees none of them', async () => {
    const h = await payoutHarness();
    await h.engine.beneficiaries.create(merchantA, alice);
    h.clock.advance(1);
    await h.engine.beneficiaries.create(merchantA, {
      ...alice,
      fields: { payee_id: 'bob01' },
      name: 'Bob',
    });
    expect(dataOf(await h.engine.beneficiaries.get(merchantA, 'ben_1')).beneficiary).toMatchObject({
      beneficiary_id: 'ben_1',
    });
    expect(errorOf(await h.engine.beneficiaries.get(merchantB, 'ben_1'))).toEqual([
      'beneficiary_id not found',
      404,
      65,
    ]);
    const page = dataOf(await h.engine.beneficiaries.list(merchantA, { limit: '1' }));
    expect([page.items.map((b) => b.beneficiary_id), page.total, page.limit, page.offset]).toEqual([
      ['ben_2'],
      2,
      1,
      0,
    ]);
    expect(dataOf(await h.engine.beneficiaries.list(merchantB, {})).total).toBe(0);
    expect(errorOf(await h.engine.beneficiaries.list(merchantA, { limit: '101' }))).toEqual([
      'invalid limit',
      400,
      51,
    ]);

    h.clock.advance(5);
    expect(
      dataOf(await h.engine.beneficiaries.update(merchantA, 'ben_1', { status: 'disabled' }))
        .beneficiary,
    ).toMatchObject({ status: 'disabled', updated_at: startTime + 6 });
    expect(
      errorOf(await h.engine.beneficiaries.update(merchantA, 'ben_1', { status: 'disabled' })),
    ).toEqual(['no changes', 400, 53]);
    expect(
      errorOf(await h.engine.beneficiaries.update(merchantA, 'ben_1', { status: 'gone' })),
    ).toEqual(['invalid status', 400, 51]);
    expect(
      errorOf(await h.engine.beneficiaries.update(merchantB, 'ben_1', { status: 'active' })),
    ).toEqual(['beneficiary_id not found', 404, 65]);
  });

  it('read and write permissions are separate', async () => {
    const h = await payoutHarness();
    const reader = merchantAWith('payment.payout.beneficiary.read');
    expect(errorOf(await h.engine.beneficiaries.create(reader, alice))).toEqual([
      'forbidden',
      403,
      61,
    ]);
    expect(dataOf(await h.engine.beneficiaries.list(reader, {})).total).toBe(0);
    const accountsOnly = merchantAWith('payment.payout.beneficiary_account.read');
    expect(errorOf(await h.engine.beneficiaries.list(accountsOnly, {}))).toEqual([
      'forbidden',
      403,
      61,
    ]);
    expect(errorOf(await h.engine.beneficiaryAccounts.create(reader, {}))).toEqual([
      'forbidden',
      403,
      61,
    ]);
  });
});

describe('beneficiary accounts', () => {
  const walletb = {
    beneficiary_id: 'ben_1',
    network_code: 'WALLETB',
    display_name: 'Main',
    fields: { walletb_account: '$alice2024' },
  };

  it('create answers data.beneficiary_account with masked fields; one per network_code', async () => {
    const h = await payoutHarness();
    await h.engine.beneficiaries.create(merchantA, alice);
    expect(dataOf(await h.engine.beneficiaryAccounts.create(merchantA, walletb))).toEqual({
      beneficiary_account: {
        beneficiary_account_id: 'bacc_1',
        beneficiary_id: 'ben_1',
        network_code: 'WALLETB',
        display_name: 'Main',
        account_type: null,
        fields_masked: { walletb_account: '***2024' },
        status: 'active',
        created_at: startTime,
        updated_at: startTime,
      },
    });
    expect(await h.oracle.record('beneficiaryAccounts', 'bacc_1')).toMatchObject({
      fields: { walletb_account: '$alice2024' },
    });
    expect(errorOf(await h.engine.beneficiaryAccounts.create(merchantA, walletb))).toEqual([
      'beneficiary account already exists',
      400,
      53,
    ]);
    // The payout reuses it by id.
    const payout = payoutOf(
      await h.engine.payouts.create(merchantA, {
        currency: 'USD',
        amount: '5',
        reference: 'r1',
        notify_url: 'https://merchant.example.com/cb',
        beneficiary_account_id: 'bacc_1',
      }),
    );
    expect(payout).toMatchObject({ beneficiary_id: 'ben_1', beneficiary_account_id: 'bacc_1' });
  });

  it('create errors: codec and schema, beneficiary not found or disabled, network of the method', async () => {
    const h = await payoutHarness();
    await h.engine.beneficiaries.create(merchantA, alice);
    const create = (body: unknown) => h.engine.beneficiaryAccounts.create(merchantA, body);
    expect(errorOf(await create({ network_code: 'WALLETB' }))).toEqual([
      'beneficiary_id required',
      400,
      51,
    ]);
    expect(
      errorOf(await create({ ...walletb, fields: { walletb_account: '$a', x: '1' } })),
    ).toEqual(['unknown field x', 400, 51]);
    expect(errorOf(await create({ ...walletb, network_code: 'WALLETZ' }))).toEqual([
      'network not found',
      400,
      53,
    ]);
    expect(errorOf(await create({ ...walletb, beneficiary_id: 'ben_9' }))).toEqual([
      'beneficiary not found',
      400,
      53,
    ]);
    expect(errorOf(await h.engine.beneficiaryAccounts.create(merchantB, walletb))).toEqual([
      'beneficiary not found',
      400,
      53,
    ]);
    expect(
      errorOf(
        await create({
          beneficiary_id: 'ben_1',
          network_code: 'EVM',
          fields: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
        }),
      ),
    ).toEqual(['network not found', 400, 53]);
    dataOf(await h.engine.beneficiaries.update(merchantA, 'ben_1', { status: 'disabled' }));
    expect(errorOf(await create(walletb))).toEqual(['beneficiary disabled', 400, 53]);
  });

  it('get, list, PATCH status; another merchant gets not found', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    expect(
      dataOf(await h.engine.beneficiaryAccounts.get(merchantA, 'bacc_1')).beneficiary_account,
    ).toMatchObject({ fields_masked: { walleta_email: 'a***@example.com' } });
    expect(errorOf(await h.engine.beneficiaryAccounts.get(merchantB, 'bacc_1'))).toEqual([
      'beneficiary_account_id not found',
      404,
      65,
    ]);
    expect(dataOf(await h.engine.beneficiaryAccounts.list(merchantA, {}))).toMatchObject({
      items: [{ beneficiary_account_id: 'bacc_1' }],
      total: 1,
      limit: 20,
      offset: 0,
    });
    for (const status of ['suspended', 'disabled', 'active']) {
      expect(
        dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status }))
          .beneficiary_account,
      ).toMatchObject({ status });
    }
    expect(
      errorOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'active' })),
    ).toEqual(['no changes', 400, 53]);
    expect(errorOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', {}))).toEqual([
      'no changes',
      400,
      53,
    ]);
    expect(
      errorOf(await h.engine.beneficiaryAccounts.update(merchantB, 'bacc_1', { status: 'active' })),
    ).toEqual(['beneficiary_account_id not found', 404, 65]);
  });
});

describe('maskAccountValue', () => {
  it.each([
    ['alice@example.com', 'a***@example.com'],
    ['$bob123456', '***3456'],
    ['0x52908400098527886E0F7030069857D2E4169EE7', '***9EE7'],
    ['abcd', '****'],
    ['@handle', '***ndle'],
    ['', ''],
  ])('%s -> %s', (value, masked) => {
    expect(maskAccountValue(value)).toBe(masked);
  });
});
