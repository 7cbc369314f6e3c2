/**
 * The accepted-payout arbitraries against the codec, with the catalogue's own networks as the
 * lookup: every body decodes and names what the catalogue offers. That the engine creates each
 * payout is packages/server/src/accepted-payouts.prop.test.ts's to show.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { networkLookupOf, sandboxNetworkSchemas } from '../codecs/beneficiary-account.codecs.js';
import { decodePayoutCreate } from '../codecs/payout.codecs.js';
import {
  type AcceptedQuickPayoutBody,
  acceptedQuickPayoutBody,
  type CatalogueRoute,
  numberedPayoutBody,
  type PayoutCatalogueContents,
} from './accepted-payout.arbitraries.js';

const route = (fields: Partial<CatalogueRoute>): CatalogueRoute => ({
  account_id: null,
  currency: 'USD',
  method_id: 7,
  channel_id: null,
  min_amount: '1.00',
  max_amount: '1000.00',
  fixed_fee: '0.00',
  percent_fee: '0',
  channel_account_id: 'ca_1',
  required_beneficiary_fields: [],
  status: 'active',
  ...fields,
});

/** The sandbox's payout catalogue, as the server seeds it. */
const sandboxCatalogue: PayoutCatalogueContents = {
  networks: sandboxNetworkSchemas.map((schema) => ({ ...schema, status: 'active' })),
  methods: [
    {
      method_id: 1,
      currency_type: 'fiat',
      currencies: ['USD'],
      network_codes: ['WALLETA', 'WALLETB'],
      channel_ids: [],
      status: 'active',
    },
    {
      method_id: 2,
      currency_type: 'crypto',
      currencies: ['USDT', 'USDC'],
      network_codes: ['EVM', 'TRON'],
      channel_ids: [],
      status: 'active',
    },
  ],
  routes: [
    route({ method_id: 1, max_amount: '100000.00', fixed_fee: '0.50', percent_fee: '1.0' }),
    route({ method_id: 2, currency: 'USDT', min_amount: '1.000000', max_amount: '9.000000' }),
  ],
};

/** A host's own catalogue: regex, length and prefix rules, optional fields, channels, limits. */
const hostCatalogue: PayoutCatalogueContents = {
  networks: [
    {
      code: 'BANK',
      status: 'active',
      fields: [
        {
          field_key: 'iban',
          required: true,
          validation_rule: 'regex:[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}',
        },
        { field_key: 'bic', required: false, validation_rule: 'length:8-11' },
        { field_key: 'memo', required: false, validation_rule: '' },
      ],
    },
    {
      code: 'WALLETB',
      status: 'active',
      fields: [{ field_key: 'walletb_account', required: true, validation_rule: '' }],
    },
    {
      code: 'PIX',
      status: 'active',
      fields: [{ field_key: 'key', required: true, validation_rule: 'prefix:pix:' }],
    },
    {
      code: 'OLD',
      status: 'disabled',
      fields: [{ field_key: 'id', required: true, validation_rule: '' }],
    },
  ],
  methods: [
    {
      method_id: 7,
      currency_type: 'fiat',
      currencies: ['USD'],
      network_codes: ['BANK', 'WALLETB', 'PIX', 'OLD'],
      channel_ids: ['ch-a', 'ch-b'],
      status: 'active',
    },
    {
      method_id: 8,
      currency_type: 'fiat',
      currencies: ['USD'],
      network_codes: ['BANK'],
      channel_ids: [],
      status: 'disabled',
    },
  ],
  routes: [
    route({ fixed_fee: '5.00', percent_fee: '2.5', required_beneficiary_fields: ['country'] }),
    route({ channel_id: 'ch-a', min_amount: '10.00', required_beneficiary_fields: ['zip'] }),
    route({ account_id: 'acc_1', required_beneficiary_fields: ['email', 'birthdate'] }),
    route({ channel_id: 'ch-b', max_amount: '5.00', channel_account_id: null }),
    route({ method_id: 8, status: 'disabled' }),
  ],
};

const decoderOf = (catalogue: PayoutCatalogueContents) => {
  const lookupNetwork = networkLookupOf(catalogue.networks.filter((n) => n.status === 'active'));
  return (body: AcceptedQuickPayoutBody) => decodePayoutCreate(body, { lookupNetwork });
};

describe('quick payout bodies a catalogue accepts', () => {
  it("decode against the sandbox catalogue's networks: method 1, USD, WALLETA or WALLETB", () => {
    const decode = decoderOf(sandboxCatalogue);
    fc.assert(
      fc.property(acceptedQuickPayoutBody(sandboxCatalogue), (body) => {
        const decoded = decode(body);
        if (decoded._tag === 'Left') throw new Error(decoded.left.message);
        expect(body).toMatchObject({ method_id: 1, currency: 'USD' });
        expect(['WALLETA', 'WALLETB']).toContain(body.beneficiary_account.network_code);
        expect(Number(body.amount)).toBeGreaterThanOrEqual(1);
        expect(Number(body.amount)).toBeLessThanOrEqual(100_000);
      }),
    );
  });

  it("decode against a host's catalogue, on its active networks and usable routes only", () => {
    const decode = decoderOf(hostCatalogue);
    fc.assert(
      fc.property(acceptedQuickPayoutBody(hostCatalogue), (body) => {
        const decoded = decode(body);
        if (decoded._tag === 'Left') throw new Error(decoded.left.message);
        expect(body.method_id).toBe(7);
        expect(['BANK', 'WALLETB', 'PIX']).toContain(body.beneficiary_account.network_code);
        // ch-b's own route has no channel account: up to its 5.00 it wins, and refuses.
        if (body.channel_id === 'ch-b') expect(Number(body.amount)).toBeGreaterThan(5);
      }),
    );
  });

  it('carry the fields of the route the engine will choose', () => {
    const ownRoute = acceptedQuickPayoutBody(hostCatalogue, { accountId: 'acc_1' }).filter(
      (body) => body.channel_id === undefined && Number(body.amount) <= 1000,
    );
    fc.assert(
      fc.property(ownRoute, ({ beneficiary }) => {
        // The account's own route wins over the global one for any amount it takes.
        expect(Object.keys(beneficiary.fields)).toEqual(
          expect.arrayContaining(['email', 'birthdate']),
        );
      }),
    );
  });

  it('let the merchant bear a fee that would leave the recipient nothing', () => {
    fc.assert(
      fc.property(acceptedQuickPayoutBody(hostCatalogue), (body) => {
        // The global route's fee is 5.00 + 2.5 %: a user cannot bear it on 5.12 or less.
        if (body.channel_id === undefined && Number(body.amount) <= 5.12) {
          expect(body.fee_bearer).not.toBe('user');
        }
      }),
    );
  });

  it('throw at once, saying why, for a catalogue that accepts no quick payout', () => {
    const cryptoOnly = { ...sandboxCatalogue, methods: sandboxCatalogue.methods.slice(1) };
    expect(() => acceptedQuickPayoutBody(cryptoOnly)).toThrow(/accepts no quick payout/);
    expect(() => acceptedQuickPayoutBody(sandboxCatalogue, { currencies: ['USDT'] })).toThrow(
      'the catalogue accepts no quick payout: it needs an active fiat method with an active ' +
        'network and an active route with a channel account for one of its currencies (among USDT)',
    );
  });

  it('take values from options.fieldValues where fast-check cannot read a regex', () => {
    const lookahead: PayoutCatalogueContents = {
      ...sandboxCatalogue,
      networks: [
        {
          code: 'WALLETA',
          status: 'active',
          fields: [{ field_key: 'handle', required: true, validation_rule: 'regex:(?=h)h[0-9]+' }],
        },
      ],
    };
    expect(() => acceptedQuickPayoutBody(lookahead)).toThrow(/pass them in options.fieldValues/);
    const handle = fc.integer({ min: 0, max: 999 }).map((n) => `h${n}`);
    const bodies = acceptedQuickPayoutBody(lookahead, {
      fieldValues: { WALLETA: { handle } },
    });
    const decode = decoderOf(lookahead);
    fc.assert(
      fc.property(bodies, (body) => {
        expect(body.beneficiary_account.fields.handle).toMatch(/^h[0-9]+$/);
        expect(decode(body)._tag).toBe('Right');
      }),
    );
  });

  it('numbered apart, share no reference, client_request_id or payee_id, and still decode', () => {
    const decode = decoderOf(sandboxCatalogue);
    fc.assert(
      fc.property(acceptedQuickPayoutBody(sandboxCatalogue), fc.nat(20), (body, count) => {
        const numbered = Array.from({ length: count + 2 }, (_, n) => numberedPayoutBody(body, n));
        for (const key of ['reference', 'client_request_id'] as const) {
          const values = numbered.map((b) => b[key]).filter((v) => v !== undefined);
          expect(new Set(values).size).toBe(values.length);
        }
        expect(new Set(numbered.map((b) => b.beneficiary.fields.payee_id)).size).toBe(
          numbered.length,
        );
        for (const b of numbered) expect(decode(b)._tag).toBe('Right');
      }),
    );
  });
});
