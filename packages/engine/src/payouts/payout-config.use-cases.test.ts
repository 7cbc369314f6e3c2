import { sandboxNetworkSchemas } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import {
  dataOf,
  errorOf,
  merchantA,
  merchantB,
  payoutHarness,
  startTime,
} from './payouts.test-support.js';
import { seedSandboxCatalogue } from './sandbox-catalogue.use-cases.js';

describe('sandbox catalogue', () => {
  it('seeds methods 1 (fiat) and 2 (crypto), four networks and three global routes, once', async () => {
    const h = await payoutHarness();
    expect(await seedSandboxCatalogue(h.store, h.ids, h.clock)).toBe(0);
    const methods = dataOf(await h.engine.admin.listPayoutMethods({}));
    expect(methods).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(methods.items).toEqual([
      {
        method_id: 1,
        name: 'Wallet payout',
        currency_type: 'fiat',
        currencies: ['USD'],
        network_codes: ['WALLETA', 'WALLETB'],
        channel_ids: [],
        status: 'active',
        created_at: startTime,
        updated_at: startTime,
      },
      expect.objectContaining({
        method_id: 2,
        currency_type: 'crypto',
        currencies: ['USDT', 'USDC'],
        network_codes: ['EVM', 'TRON'],
      }),
    ]);
    const networks = dataOf(await h.engine.admin.listPayoutNetworks({})).items;
    expect(networks.map((n) => [n.code, n.fields])).toEqual(
      [...sandboxNetworkSchemas]
        .sort((a, b) => (a.code < b.code ? -1 : 1))
        .map((s) => [s.code, s.fields]),
    );
    const routes = dataOf(await h.engine.admin.listRoutes({})).items;
    expect(routes).toEqual([
      {
        route_id: 'rt_1',
        account_id: null,
        currency: 'USD',
        method_id: 1,
        channel_id: null,
        min_amount: '1.00',
        max_amount: '100000.00',
        fixed_fee: '0.50',
        percent_fee: '1.0',
        channel_account_id: 'sandbox_usd',
        required_beneficiary_fields: [],
        status: 'active',
        created_at: startTime,
        updated_at: startTime,
      },
      expect.objectContaining({ route_id: 'rt_2', currency: 'USDT', method_id: 2 }),
      expect.objectContaining({ route_id: 'rt_3', currency: 'USDC', method_id: 2 }),
    ]);
  });

  it("keeps an operator's edits when seeded again", async () => {
    const h = await payoutHarness();
    dataOf(await h.engine.admin.updateRoute('rt_1', { fixed_fee: '0.25' }));
    expect(await seedSandboxCatalogue(h.store, h.ids, h.clock)).toBe(0);
    expect(dataOf(await h.engine.admin.listRoutes({})).total).toBe(3);
    expect(dataOf(await h.engine.admin.listRoutes({ limit: '1' })).items[0]?.fixed_fee).toBe(
      '0.25',
    );
  });
});

describe('payout setup lookups', () => {
  it('methods: those with a route for the account, narrowed by currency', async () => {
    const h = await payoutHarness();
    const methods = dataOf(await h.engine.payoutSetup.methods(merchantA, {}));
    expect(methods).toEqual({
      items: [
        {
          method_id: 1,
          name: 'Wallet payout',
          currency_type: 'fiat',
          currencies: ['USD'],
          network_codes: ['WALLETA', 'WALLETB'],
          channel_ids: [],
        },
        {
          method_id: 2,
          name: 'Stablecoin payout',
          currency_type: 'crypto',
          currencies: ['USDT', 'USDC'],
          network_codes: ['EVM', 'TRON'],
          channel_ids: [],
        },
      ],
      total: 2,
      limit: 100,
      offset: 0,
    });
    const usdc = dataOf(await h.engine.payoutSetup.methods(merchantA, { currency: 'USDC' }));
    expect(usdc.items).toEqual([expect.objectContaining({ method_id: 2, currencies: ['USDC'] })]);
    expect(errorOf(await h.engine.payoutSetup.methods(merchantA, { currency: 'EUR' }))).toEqual([
      'invalid currency',
      400,
      51,
    ]);

    // A method whose only route belongs to merchant B is B's alone.
    dataOf(
      await h.engine.admin.createPayoutMethod({
        name: 'B only',
        currency_type: 'fiat',
        currencies: ['USD'],
        network_codes: ['WALLETA'],
      }),
    );
    dataOf(
      await h.engine.admin.createRoute({
        account_id: 'acc_b',
        currency: 'USD',
        method_id: 3,
        min_amount: '1',
        max_amount: '2',
        channel_account_id: 'c',
      }),
    );
    const ids = async (caller: typeof merchantA) =>
      dataOf(await h.engine.payoutSetup.methods(caller, {})).items.map((m) => m.method_id);
    expect(await ids(merchantA)).toEqual([1, 2]);
    expect(await ids(merchantB)).toEqual([1, 2, 3]);
    dataOf(await h.engine.admin.updatePayoutMethod('2', { status: 'disabled' }));
    expect(await ids(merchantA)).toEqual([1]);
  });

  it('networks: codes of the usable methods, with the schema on request', async () => {
    const h = await payoutHarness();
    const all = dataOf(await h.engine.payoutSetup.networks(merchantA, {}));
    expect(all.items).toEqual([
      { code: 'EVM', name: 'EVM address', method_ids: [2] },
      { code: 'TRON', name: 'TRON address', method_ids: [2] },
      { code: 'WALLETA', name: 'Wallet A (e-mail)', method_ids: [1] },
      { code: 'WALLETB', name: 'Wallet B ($ account)', method_ids: [1] },
    ]);
    const fiat = dataOf(
      await h.engine.payoutSetup.networks(merchantA, { method_id: '1', include_schema: 'true' }),
    );
    expect(fiat.items).toEqual([
      {
        code: 'WALLETA',
        name: 'Wallet A (e-mail)',
        method_ids: [1],
        fields: [{ field_key: 'walleta_email', required: true, validation_rule: 'email' }],
      },
      {
        code: 'WALLETB',
        name: 'Wallet B ($ account)',
        method_ids: [1],
        fields: [{ field_key: 'walletb_account', required: true, validation_rule: 'prefix:$' }],
      },
    ]);
    expect(
      dataOf(await h.engine.payoutSetup.networks(merchantA, { currency: 'USDT' })).items.map(
        (n) => n.code,
      ),
    ).toEqual(['EVM', 'TRON']);
    expect(errorOf(await h.engine.payoutSetup.networks(merchantA, { method_id: '9' }))).toEqual([
      'payout method not found',
      400,
      53,
    ]);
    expect(
      errorOf(await h.engine.payoutSetup.networks(merchantA, { include_schema: 'yes' })),
    ).toEqual(['invalid include_schema', 400, 51]);
  });

  it('network schema: data.payout_network, or 404 network code not found', async () => {
    const h = await payoutHarness();
    expect(dataOf(await h.engine.payoutSetup.networkSchema(merchantA, 'WALLETB'))).toEqual({
      payout_network: {
        code: 'WALLETB',
        name: 'Wallet B ($ account)',
        fields: [{ field_key: 'walletb_account', required: true, validation_rule: 'prefix:$' }],
      },
    });
    expect(errorOf(await h.engine.payoutSetup.networkSchema(merchantA, 'NOPE'))).toEqual([
      'network code not found',
      404,
      65,
    ]);
    const noPayouts = await payoutHarness({ payout_product: false });
    expect(errorOf(await noPayouts.engine.payoutSetup.networkSchema(merchantA, 'WALLETB'))).toEqual(
      ['forbidden', 403, 61],
    );
  });
});

describe('operator payout configuration', () => {
  it('methods: create with the next id, update, and their refusals', async () => {
    const h = await payoutHarness();
    const created = dataOf(
      await h.engine.admin.createPayoutMethod({
        name: 'Express wallets',
        currency_type: 'fiat',
        currencies: ['USD'],
        network_codes: ['WALLETA'],
        channel_ids: ['express'],
      }),
    );
    expect(created.payout_method).toMatchObject({ method_id: 3, channel_ids: ['express'] });
    expect(
      errorOf(
        await h.engine.admin.createPayoutMethod({
          method_id: 3,
          name: 'Dup',
          currency_type: 'fiat',
          currencies: ['USD'],
          network_codes: ['WALLETA'],
        }),
      ),
    ).toEqual(['invalid method_id', 400, 51]);
    expect(
      errorOf(
        await h.engine.admin.createPayoutMethod({
          name: 'Bad',
          currency_type: 'fiat',
          currencies: ['USD'],
          network_codes: ['SEPA'],
        }),
      ),
    ).toEqual(['network not found', 400, 53]);
    h.clock.advance(3);
    expect(
      dataOf(await h.engine.admin.updatePayoutMethod('3', { name: 'Express' })).payout_method,
    ).toMatchObject({ method_id: 3, name: 'Express', updated_at: startTime + 3 });
    expect(errorOf(await h.engine.admin.updatePayoutMethod('99', { name: 'x' }))).toEqual([
      'method_id not found',
      404,
      65,
    ]);
    expect(errorOf(await h.engine.admin.updatePayoutMethod('abc', { name: 'x' }))).toEqual([
      'method_id not found',
      404,
      65,
    ]);
    expect(errorOf(await h.engine.admin.updatePayoutMethod('3', {}))).toEqual([
      'no changes',
      400,
      53,
    ]);
  });

  it('networks: create with a checked schema, update, and their refusals', async () => {
    const h = await payoutHarness();
    const body = {
      code: 'IBAN',
      name: 'Bank account',
      fields: [{ field_key: 'iban', validation_rule: 'regex:[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}' }],
    };
    expect(dataOf(await h.engine.admin.createPayoutNetwork(body))).toEqual({
      payout_network: {
        code: 'IBAN',
        name: 'Bank account',
        fields: [
          {
            field_key: 'iban',
            required: true,
            validation_rule: 'regex:[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}',
          },
        ],
        status: 'active',
        created_at: startTime,
        updated_at: startTime,
      },
    });
    expect(errorOf(await h.engine.admin.createPayoutNetwork(body))).toEqual([
      'invalid code',
      400,
      51,
    ]);
    expect(
      errorOf(
        await h.engine.admin.createPayoutNetwork({
          code: 'X2',
          fields: [{ field_key: 'a', validation_rule: 'luhn' }],
        }),
      ),
    ).toEqual([
      "field fields[0].validation_rule invalid: expect '', email, evm_address, tron_address, prefix:<p>, regex:<pattern> or length:<min>-<max>",
      400,
      51,
    ]);
    expect(
      dataOf(await h.engine.admin.updatePayoutNetwork('IBAN', { status: 'disabled' }))
        .payout_network,
    ).toMatchObject({ code: 'IBAN', status: 'disabled' });
    expect(errorOf(await h.engine.admin.updatePayoutNetwork('NOPE', { name: 'x' }))).toEqual([
      'network code not found',
      404,
      65,
    ]);
    // A disabled network is not offered, and inline accounts on it are refused by the codec.
    expect(errorOf(await h.engine.payoutSetup.networkSchema(merchantA, 'IBAN'))).toEqual([
      'network code not found',
      404,
      65,
    ]);
  });

  it('routes: create, update, and the targets they must name', async () => {
    const h = await payoutHarness();
    const route = {
      currency: 'USD',
      method_id: 1,
      min_amount: '10',
      max_amount: '20',
      channel_account_id: 'ch',
    };
    expect(
      dataOf(await h.engine.admin.createRoute({ ...route, account_id: 'acc_a' })).route,
    ).toMatchObject({
      route_id: 'rt_4',
      account_id: 'acc_a',
      min_amount: '10.00',
      fixed_fee: '0.00',
    });
    expect(errorOf(await h.engine.admin.createRoute({ ...route, method_id: 9 }))).toEqual([
      'payout method not found',
      400,
      53,
    ]);
    expect(errorOf(await h.engine.admin.createRoute({ ...route, currency: 'USDT' }))).toEqual([
      'payout method not supported for currency type',
      400,
      53,
    ]);
    expect(errorOf(await h.engine.admin.createRoute({ ...route, channel_id: 'fast' }))).toEqual([
      'payout channel not found',
      400,
      53,
    ]);
    expect(errorOf(await h.engine.admin.createRoute({ ...route, account_id: 'acc_z' }))).toEqual([
      'merchant account not found',
      400,
      53,
    ]);
    expect(
      dataOf(await h.engine.admin.updateRoute('rt_4', { max_amount: '30', status: 'disabled' }))
        .route,
    ).toMatchObject({ max_amount: '30.00', status: 'disabled' });
    expect(errorOf(await h.engine.admin.updateRoute('rt_404', { status: 'active' }))).toEqual([
      'route_id not found',
      404,
      65,
    ]);
    expect(errorOf(await h.engine.admin.updateRoute('rt_4', { min_amount: '31' }))).toEqual([
      'invalid max_amount',
      400,
      51,
    ]);
    expect(dataOf(await h.engine.admin.listRoutes({ offset: '3' }))).toMatchObject({
      items: [{ route_id: 'rt_4' }],
      total: 4,
      offset: 3,
    });
  });
});
