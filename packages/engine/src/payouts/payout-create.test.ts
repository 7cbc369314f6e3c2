import type { Store, StoreTransaction } from '@payrail/core';
import type { MemoryStore } from '@payrail/store-memory';
import { describe, expect, it } from 'vitest';
import {
  dataOf,
  errorOf,
  merchantA,
  merchantAWith,
  merchantB,
  type PayoutHarness,
  payoutHarness,
  payoutOf,
  walletaPayout,
} from './payouts.test-support.js';

/** A route for merchant A only, on top of the sandbox's global one. */
const accountRoute = (h: PayoutHarness, extra: Record<string, unknown> = {}) =>
  h.engine.admin.createRoute({
    account_id: 'acc_a',
    currency: 'USD',
    method_id: 1,
    min_amount: '1',
    max_amount: '500',
    fixed_fee: '1.00',
    channel_account_id: 'chacc_a',
    ...extra,
  });

const bobPayout = (overrides: Record<string, unknown> = {}) =>
  walletaPayout({
    client_request_id: 'req-bob',
    reference: 'ref-bob',
    beneficiary: { name: 'Bob Example', fields: { payee_id: 'bob01' } },
    beneficiary_account: { network_code: 'WALLETB', fields: { walletb_account: '$bob' } },
    ...overrides,
  });

describe('quick payout: the engine answers every fiat payout error it owns', () => {
  it('permissions and product access: forbidden', async () => {
    const h = await payoutHarness();
    const onlySubmit = merchantAWith('payment.payout.submit');
    expect(errorOf(await h.engine.payouts.create(onlySubmit, walletaPayout()))).toEqual([
      'forbidden',
      403,
      61,
    ]);
    const onlyCreate = merchantAWith('payment.payout.create');
    expect(errorOf(await h.engine.payouts.create(onlyCreate, walletaPayout()))).toEqual([
      'forbidden',
      403,
      61,
    ]);
    // submit:false needs no submit permission.
    expect(
      payoutOf(await h.engine.payouts.create(onlyCreate, walletaPayout({ submit: false }))).status,
    ).toBe('draft');
    const noProduct = await payoutHarness({ payout_product: false });
    expect(errorOf(await noProduct.engine.payouts.create(merchantA, walletaPayout()))).toEqual([
      'forbidden',
      403,
      61,
    ]);
    await h.setAccount(merchantA, { status: 'frozen' });
    expect(errorOf(await h.engine.payouts.get(merchantA, 'po_1'))).toEqual([
      'account frozen',
      403,
      61,
    ]);
    // The account is read together with the payouts holding the body's keys (issue 24); its
    // refusal still comes before the body's, and before a reference already taken.
    expect(errorOf(await h.engine.payouts.create(merchantA, { amount: 'x' }))).toEqual([
      'account frozen',
      403,
      61,
    ]);
    expect(errorOf(await h.engine.payouts.create(merchantA, walletaPayout()))).toEqual([
      'account frozen',
      403,
      61,
    ]);
  });

  it('codec errors come first, with the store-backed network lookup', async () => {
    const h = await payoutHarness();
    expect(errorOf(await h.engine.payouts.create(merchantA, undefined))).toEqual([
      'request required',
      400,
      51,
    ]);
    expect(
      errorOf(
        await h.engine.payouts.create(
          merchantA,
          walletaPayout({ beneficiary_account: { network_code: 'NOPE', fields: { a: 'b' } } }),
        ),
      ),
    ).toEqual(['network not found', 400, 53]);
    expect(
      errorOf(
        await h.engine.payouts.create(
          merchantA,
          bobPayout({
            beneficiary_account: { network_code: 'WALLETB', fields: { walletb_account: 'bob' } },
          }),
        ),
      ),
    ).toEqual(['walletb_account must start with $', 400, 51]);
  });

  it('reference already exists', async () => {
    const h = await payoutHarness();
    dataOf(await h.engine.payouts.create(merchantA, walletaPayout()));
    expect(
      errorOf(
        await h.engine.payouts.create(merchantA, walletaPayout({ client_request_id: 'other' })),
      ),
    ).toEqual(['reference already exists', 400, 53]);
    expect(
      errorOf(
        await h.engine.payouts.create(merchantA, walletaPayout({ client_request_id: undefined })),
      ),
    ).toEqual(['reference already exists', 400, 53]);
    // References are per merchant.
    expect(payoutOf(await h.engine.payouts.create(merchantB, walletaPayout())).payout_id).toBe(
      'po_2',
    );
  });

  it('payout method not found, not supported for currency type, payout channel not found', async () => {
    const h = await payoutHarness();
    const create = (overrides: Record<string, unknown>) =>
      h.engine.payouts.create(merchantA, walletaPayout(overrides));
    expect(errorOf(await create({ method_id: 99 }))).toEqual(['payout method not found', 400, 53]);
    expect(errorOf(await create({ method_id: 2 }))).toEqual([
      'payout method not supported for currency type',
      400,
      53,
    ]);
    expect(errorOf(await create({ channel_id: 'express' }))).toEqual([
      'payout channel not found',
      400,
      53,
    ]);
    await h.engine.admin.updatePayoutMethod('1', { status: 'disabled' });
    expect(errorOf(await create({}))).toEqual(['payout method not found', 400, 53]);
  });

  it('the inline account must use a network of the method: network not found', async () => {
    const h = await payoutHarness();
    expect(
      errorOf(
        await h.engine.payouts.create(
          merchantA,
          walletaPayout({
            beneficiary_account: {
              network_code: 'TRON',
              fields: { address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
            },
          }),
        ),
      ),
    ).toEqual(['network not found', 400, 53]);
  });

  it('payout route not configured: outside every route range', async () => {
    const h = await payoutHarness();
    const create = (amount: string) =>
      h.engine.payouts.create(merchantA, walletaPayout({ amount }));
    expect(errorOf(await create('0.99'))).toEqual(['payout route not configured', 400, 53]);
    expect(errorOf(await create('100000.01'))).toEqual(['payout route not configured', 400, 53]);
    expect(payoutOf(await create('100000.00')).status).toBe('pending_review');
  });

  it('channel account not configured, and the channel picks its route', async () => {
    const h = await payoutHarness();
    dataOf(await h.engine.admin.updatePayoutMethod('1', { channel_ids: ['express', 'standard'] }));
    dataOf(
      await h.engine.admin.createRoute({
        currency: 'USD',
        method_id: 1,
        channel_id: 'express',
        min_amount: '1',
        max_amount: '1000',
      }),
    );
    expect(
      errorOf(await h.engine.payouts.create(merchantA, walletaPayout({ channel_id: 'express' }))),
    ).toEqual(['channel account not configured', 400, 53]);
    // Another channel of the method falls back to the route for any channel.
    const standard = await h.engine.payouts.create(
      merchantA,
      walletaPayout({ channel_id: 'standard' }),
    );
    expect(payoutOf(standard).status).toBe('pending_review');
    expect((await h.oracle.record('payouts', 'po_1')) as unknown).toMatchObject({
      snapshot: {
        routing: {
          route_id: 'rt_1',
          method_id: 1,
          channel_id: 'standard',
          channel_account_id: 'sandbox_usd',
        },
      },
    });
  });

  it('an account-specific route wins over the global one, and its fee applies', async () => {
    const h = await payoutHarness();
    dataOf(await accountRoute(h, { fixed_fee: '2.00', percent_fee: '0' }));
    await h.engine.payouts.create(merchantA, walletaPayout());
    const record = (await h.oracle.record('payouts', 'po_1')) as {
      snapshot: { snapshot: { context: { fee: string } }; routing: { route_id: string } };
    };
    expect(record.snapshot.routing.route_id).toBe('rt_4');
    expect(record.snapshot.snapshot.context.fee).toBe('2.00');
    // Above the account route's range the global route takes over: 0.50 + 1 % of 600.00.
    await h.engine.payouts.create(
      merchantA,
      walletaPayout({ client_request_id: 'r2', reference: 'ref-2', amount: '600' }),
    );
    const second = (await h.oracle.record('payouts', 'po_2')) as typeof record;
    expect([second.snapshot.routing.route_id, second.snapshot.snapshot.context.fee]).toEqual([
      'rt_1',
      '6.50',
    ]);
    // Merchant B never sees A's route.
    await h.engine.payouts.create(merchantB, walletaPayout());
    const third = (await h.oracle.record('payouts', 'po_3')) as typeof record;
    expect(third.snapshot.routing.route_id).toBe('rt_1');
  });

  it('amount must be greater than fee when fee_bearer is user', async () => {
    const h = await payoutHarness();
    dataOf(await accountRoute(h));
    expect(
      errorOf(
        await h.engine.payouts.create(
          merchantA,
          walletaPayout({ amount: '1.00', fee_bearer: 'user' }),
        ),
      ),
    ).toEqual(['amount must be greater than fee when fee_bearer is user', 400, 53]);
    // The merchant may bear the same fee.
    expect(
      payoutOf(await h.engine.payouts.create(merchantA, walletaPayout({ amount: '1.00' }))).amount,
    ).toBe('1.00');
    expect(
      payoutOf(
        await h.engine.payouts.create(
          merchantA,
          walletaPayout({
            amount: '1.01',
            fee_bearer: 'user',
            reference: 'r2',
            client_request_id: 'c2',
          }),
        ),
      ).amount,
    ).toBe('1.01');
  });

  it('beneficiary profile incomplete: missing <fields>, fixed by sending them', async () => {
    const h = await payoutHarness();
    dataOf(await accountRoute(h, { required_beneficiary_fields: ['zip', 'country', 'city'] }));
    expect(errorOf(await h.engine.payouts.create(merchantA, walletaPayout()))).toEqual([
      'beneficiary profile incomplete: missing zip, city',
      400,
      51,
    ]);
    // Nothing of the refused payout was kept.
    expect(await h.oracle.count('beneficiaries')).toBe(0);
    const complete = walletaPayout({
      beneficiary: {
        name: 'Alice Example',
        fields: { payee_id: 'alice01', country: 'US', zip: '94105', city: 'San Francisco' },
      },
    });
    const created = payoutOf(await h.engine.payouts.create(merchantA, complete));
    expect(created.status).toBe('pending_review');
    expect(await h.oracle.record('beneficiaries', 'ben_2')).toMatchObject({
      fields: { payee_id: 'alice01', country: 'US', zip: '94105', city: 'San Francisco' },
    });
    // A known payee is completed by a later payout: its stored profile plus what was sent.
    dataOf(
      await accountRoute(h, {
        required_beneficiary_fields: ['state'],
        min_amount: '700',
        max_amount: '800',
      }),
    );
    const state = walletaPayout({
      client_request_id: 'r2',
      reference: 'ref-2',
      amount: '750',
      beneficiary: { name: 'Alice Example', fields: { payee_id: 'alice01' } },
    });
    expect(errorOf(await h.engine.payouts.create(merchantA, state))).toEqual([
      'beneficiary profile incomplete: missing state',
      400,
      51,
    ]);
    const withState = {
      ...state,
      beneficiary: { name: 'Alice Example', fields: { payee_id: 'alice01', state: 'CA' } },
    };
    expect(payoutOf(await h.engine.payouts.create(merchantA, withState)).beneficiary_id).toBe(
      'ben_2',
    );
  });
});

describe('beneficiary linking rules 1-5 on quick payout', () => {
  it('rule 5: a new payee creates the beneficiary and its account', async () => {
    const h = await payoutHarness();
    const created = payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()));
    expect([created.beneficiary_id, created.beneficiary_account_id]).toEqual(['ben_1', 'bacc_1']);
    expect(await h.oracle.record('beneficiaries', 'ben_1')).toMatchObject({
      account_id: 'acc_a',
      method_id: 1,
      payee_id: 'alice01',
      name: 'Alice Example',
      status: 'active',
    });
    expect(await h.oracle.record('beneficiaryAccounts', 'bacc_1')).toMatchObject({
      beneficiary_id: 'ben_1',
      network_code: 'WALLETA',
      fields: { walleta_email: 'alice@example.com' },
      status: 'active',
    });
  });

  it('rules 2 and 3: the same payee and account are reused; the profile takes what was sent', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    const again = payoutOf(
      await h.engine.payouts.create(
        merchantA,
        walletaPayout({
          client_request_id: 'req-2',
          reference: 'ref-2',
          beneficiary: { name: 'Alice B. Example', fields: { payee_id: 'alice01', city: 'Oslo' } },
        }),
      ),
    );
    expect([again.beneficiary_id, again.beneficiary_account_id]).toEqual(['ben_1', 'bacc_1']);
    expect(await h.oracle.count('beneficiaries')).toBe(1);
    expect(await h.oracle.count('beneficiaryAccounts')).toBe(1);
    expect(await h.oracle.record('beneficiaries', 'ben_1')).toMatchObject({
      name: 'Alice B. Example',
      fields: { payee_id: 'alice01', country: 'US', city: 'Oslo' },
    });
  });

  it('rule 1: one account per network_code, so another network adds a second account', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    const walletb = payoutOf(
      await h.engine.payouts.create(
        merchantA,
        walletaPayout({
          client_request_id: 'req-2',
          reference: 'ref-2',
          beneficiary_account: { network_code: 'WALLETB', fields: { walletb_account: '$alice' } },
        }),
      ),
    );
    expect([walletb.beneficiary_id, walletb.beneficiary_account_id]).toEqual(['ben_1', 'bacc_2']);
  });

  it('rule 4: a different account under the same network is beneficiary account mismatch', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    const other = walletaPayout({
      client_request_id: 'req-2',
      reference: 'ref-2',
      beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'al@example.com' } },
    });
    expect(errorOf(await h.engine.payouts.create(merchantA, other))).toEqual([
      'beneficiary account mismatch',
      400,
      53,
    ]);
    // Another payee_id is the way out.
    const otherPayee = {
      ...other,
      beneficiary: { name: 'Alice Example', fields: { payee_id: 'alice02' } },
    };
    expect(payoutOf(await h.engine.payouts.create(merchantA, otherPayee)).beneficiary_id).toBe(
      'ben_2',
    );
  });

  it('a disabled beneficiary, a disabled or suspended account, a different account_type', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    const repeat = (overrides: Record<string, unknown> = {}) =>
      h.engine.payouts.create(
        merchantA,
        walletaPayout({
          client_request_id: undefined,
          reference: `ref-${Math.random()}`,
          ...overrides,
        }),
      );
    dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'disabled' }));
    expect(errorOf(await repeat())).toEqual([
      'beneficiary account disabled, please enable it first',
      400,
      53,
    ]);
    dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'suspended' }));
    expect(errorOf(await repeat())).toEqual(['beneficiary account suspended', 400, 53]);
    dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'active' }));
    expect(
      errorOf(
        await repeat({
          beneficiary_account: {
            network_code: 'WALLETA',
            account_type: 'personal',
            fields: { walleta_email: 'alice@example.com' },
          },
        }),
      ),
    ).toEqual(['account_type mismatch', 400, 53]);
    dataOf(await h.engine.beneficiaries.update(merchantA, 'ben_1', { status: 'disabled' }));
    expect(errorOf(await repeat())).toEqual(['beneficiary disabled', 400, 53]);
  });
});

describe('quick payout by beneficiary_account_id', () => {
  const byId = (overrides: Record<string, unknown> = {}) => ({
    client_request_id: 'req-id',
    currency: 'USD',
    amount: '20.00',
    reference: 'ref-id',
    notify_url: 'https://merchant.example.com/payout-callback',
    beneficiary_account_id: 'bacc_1',
    ...overrides,
  });

  it('reuses the account; method_id may be left out', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    const created = payoutOf(await h.engine.payouts.create(merchantA, byId()));
    expect(created).toMatchObject({
      payout_id: 'po_2',
      beneficiary_id: 'ben_1',
      beneficiary_account_id: 'bacc_1',
    });
  });

  it('not found (also another merchant id), disabled, suspended, method and type mismatch', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    expect(
      errorOf(await h.engine.payouts.create(merchantA, byId({ beneficiary_account_id: 'bacc_9' }))),
    ).toEqual(['beneficiary account not found', 400, 53]);
    expect(errorOf(await h.engine.payouts.create(merchantB, byId()))).toEqual([
      'beneficiary account not found',
      400,
      53,
    ]);
    expect(
      errorOf(await h.engine.payouts.create(merchantA, byId({ account_type: 'business' }))),
    ).toEqual(['beneficiary account type mismatch', 400, 53]);
    // A second fiat method with its own route: the account belongs to method 1.
    dataOf(
      await h.engine.admin.createPayoutMethod({
        name: 'Other wallets',
        currency_type: 'fiat',
        currencies: ['USD'],
        network_codes: ['WALLETA'],
      }),
    );
    dataOf(
      await h.engine.admin.createRoute({
        currency: 'USD',
        method_id: 3,
        min_amount: '1',
        max_amount: '100',
        channel_account_id: 'chacc_3',
      }),
    );
    expect(errorOf(await h.engine.payouts.create(merchantA, byId({ method_id: 3 })))).toEqual([
      'beneficiary method mismatch',
      400,
      53,
    ]);
    dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'disabled' }));
    expect(errorOf(await h.engine.payouts.create(merchantA, byId()))).toEqual([
      'beneficiary account disabled, please enable it first',
      400,
      53,
    ]);
    dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'suspended' }));
    expect(errorOf(await h.engine.payouts.create(merchantA, byId()))).toEqual([
      'beneficiary account suspended',
      400,
      53,
    ]);
    dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'active' }));
    dataOf(await h.engine.beneficiaries.update(merchantA, 'ben_1', { status: 'disabled' }));
    expect(errorOf(await h.engine.payouts.create(merchantA, byId()))).toEqual([
      'beneficiary disabled',
      400,
      53,
    ]);
  });
});

describe('another merchant', () => {
  it("never sees A's payouts: 404 like a missing one, and its own payee is its own", async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    expect(errorOf(await h.engine.payouts.get(merchantB, 'po_1'))).toEqual([
      'payout not found',
      404,
      65,
    ]);
    expect(errorOf(await h.engine.payouts.get(merchantA, 'po_404'))).toEqual([
      'payout not found',
      404,
      65,
    ]);
    for (const operation of [
      h.engine.payouts.submit(merchantB, 'po_1'),
      h.engine.payouts.cancel(merchantB, 'po_1'),
      h.engine.payouts.update(merchantB, 'po_1', { amount: '5' }),
    ]) {
      expect(errorOf(await operation)).toEqual(['payout not found', 404, 65]);
    }
    expect(dataOf(await h.engine.payouts.list(merchantB, {})).total).toBe(0);
    const own = payoutOf(await h.engine.payouts.create(merchantB, walletaPayout()));
    expect([own.beneficiary_id, own.beneficiary_account_id]).toEqual(['ben_2', 'bacc_2']);
  });
});

describe('idempotency by client_request_id', () => {
  it('an identical repeat answers the original payout; amounts compare by value', async () => {
    const h = await payoutHarness();
    const first = payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()));
    h.clock.advance(60);
    const repeat = await h.engine.payouts.create(
      merchantA,
      walletaPayout({ amount: '100', fee_bearer: 'merchant', submit: true }),
    );
    expect(payoutOf(repeat)).toEqual(first);
    expect(await h.oracle.count('payouts')).toBe(1);
    // After the original moved on, a repeat shows where it is now.
    await h.engine.admin.reviewPayout('po_1', { action: 'reject' });
    expect(payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()))).toMatchObject({
      payout_id: 'po_1',
      status: 'rejected',
      risk_status: 'rejected',
    });
  });

  it('a repeat with a different body is client_request_id already used', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    for (const changed of [
      { amount: '100.01' },
      { reference: 'ref-other' },
      { fee_bearer: 'user' },
      { submit: false },
    ]) {
      expect(errorOf(await h.engine.payouts.create(merchantA, walletaPayout(changed)))).toEqual([
        'client_request_id already used',
        400,
        53,
      ]);
    }
    // The id is per merchant.
    expect(payoutOf(await h.engine.payouts.create(merchantB, walletaPayout())).payout_id).toBe(
      'po_2',
    );
  });

  it('20 concurrent identical requests make one payout and all answer it', async () => {
    const h = await payoutHarness();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.engine.payouts.create(merchantA, walletaPayout())),
    );
    expect(new Set(answers.map((a) => payoutOf(a).payout_id))).toEqual(new Set(['po_1']));
    expect(await h.oracle.count('payouts')).toBe(1);
    expect(await h.oracle.count('beneficiaries')).toBe(1);
  });

  /**
   * On a store whose units of work really overlap, a twin may commit between our checks and our
   * insert: the checks miss it and the insert is a unique violation. Simulated by hiding the
   * payouts' unique lookups from the next `hide` calls.
   */
  const racingStore = (memory: MemoryStore, state: { hide: number; collection: string }) =>
    ({
      ...memory,
      closed: memory.closed,
      close: () => memory.close(),
      transaction: <T>(work: (tx: StoreTransaction) => Promise<T>) =>
        memory.transaction((tx) => {
          const key = state.collection as 'payouts' | 'beneficiaries';
          const collection = tx[key];
          const findUnique = async (query: never): Promise<unknown> => {
            if (state.hide > 0) {
              state.hide -= 1;
              return undefined;
            }
            return collection.findUnique(query);
          };
          return work({ ...tx, [key]: { ...collection, findUnique } } as StoreTransaction);
        }),
    }) as Store as MemoryStore;

  it('a twin committed concurrently: identical -> the original, different -> already used', async () => {
    const state = { hide: 0, collection: 'payouts' };
    const h = await payoutHarness({ wrapStore: (memory) => racingStore(memory, state) });
    const first = payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()));
    state.hide = 2;
    expect(payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()))).toEqual(first);
    state.hide = 2;
    expect(
      errorOf(await h.engine.payouts.create(merchantA, walletaPayout({ amount: '5.00' }))),
    ).toEqual(['client_request_id already used', 400, 53]);
    state.hide = 2;
    expect(
      errorOf(
        await h.engine.payouts.create(merchantA, walletaPayout({ client_request_id: 'req-9' })),
      ),
    ).toEqual(['reference already exists', 400, 53]);
    expect(await h.oracle.count('payouts')).toBe(1);
  });

  it('a twin committed between the client_request_id and the reference reads: answered as a repeat', async () => {
    // PostgreSQL's READ COMMITTED: the first read misses the twin, the second sees its reference.
    const state = { hide: 0, collection: 'payouts' };
    const h = await payoutHarness({ wrapStore: (memory) => racingStore(memory, state) });
    const first = payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()));
    state.hide = 1;
    expect(payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()))).toEqual(first);
    state.hide = 1;
    expect(
      errorOf(await h.engine.payouts.create(merchantA, walletaPayout({ amount: '5.00' }))),
    ).toEqual(['client_request_id already used', 400, 53]);
    state.hide = 1;
    expect(
      errorOf(
        await h.engine.payouts.create(merchantA, walletaPayout({ client_request_id: 'req-9' })),
      ),
    ).toEqual(['reference already exists', 400, 53]);
    expect(await h.oracle.count('payouts')).toBe(1);
  });

  it('a beneficiary created concurrently: the unit of work runs again and reuses it', async () => {
    const state = { hide: 0, collection: 'beneficiaries' };
    const h = await payoutHarness({ wrapStore: (memory) => racingStore(memory, state) });
    await h.engine.payouts.create(merchantA, walletaPayout());
    state.hide = 1;
    const second = payoutOf(
      await h.engine.payouts.create(
        merchantA,
        walletaPayout({ client_request_id: 'req-2', reference: 'ref-2' }),
      ),
    );
    // The first run took ben_2 before its insert was refused; the second reused ben_1.
    expect([second.payout_id, second.beneficiary_id]).toEqual(['po_2', 'ben_1']);
    expect(await h.oracle.count('beneficiaries')).toBe(1);
  });
});
