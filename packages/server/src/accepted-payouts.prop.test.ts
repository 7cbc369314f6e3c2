/**
 * `acceptedQuickPayoutBody` (@payrail/core/testing) against the engine: every body it generates
 * from a catalogue is created, with the sandbox catalogue through the typed facade and through
 * `POST /payment/quickpayout`, and with a host's own catalogue (regex, length and prefix rules,
 * optional fields, channels, a merchant's own route, required beneficiary fields, a fixed fee
 * above the smallest amounts).
 */
import { apiKeyPermissions } from '@payrail/core';
import {
  type AcceptedQuickPayoutBody,
  acceptedQuickPayoutBody,
  numberedPayoutBody,
  type PayoutCatalogueContents,
} from '@payrail/core/testing';
import { createMemoryStore } from '@payrail/store-memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPayrail, type Payrail, type PayrailOptions } from './create-payrail.js';
import { orThrow } from './facade.js';

/** The issue's figure: 500 generated bodies, unless FC_NUM_RUNS says otherwise. */
const numRuns = Number(process.env.FC_NUM_RUNS ?? 500);

const embed = (options: Partial<PayrailOptions> = {}) =>
  createPayrail({
    store: createMemoryStore(),
    environment: 'sandbox',
    keySecret: 'a key secret of at least 32 bytes',
    log: () => undefined,
    ...options,
  });

const catalogueOf = async (payrail: Payrail): Promise<PayoutCatalogueContents> => ({
  networks: orThrow(await payrail.admin.listPayoutNetworks()).items,
  methods: orThrow(await payrail.admin.listPayoutMethods()).items,
  routes: orThrow(await payrail.admin.listRoutes({ limit: 100 })).items,
});

const newMerchant = async (payrail: Payrail) => {
  const { merchant } = orThrow(await payrail.admin.createMerchant({ name: 'Acme' }));
  const { api_key } = orThrow(
    await payrail.admin.issueApiKey(merchant.account_id, { permissions: [...apiKeyPermissions] }),
  );
  return { accountId: merchant.account_id, token: api_key.token };
};

/** Creates `body` for the merchant of `token`; throws the catalogue's message when refused. */
const created = async (payrail: Payrail, token: string, body: AcceptedQuickPayoutBody) => {
  const acme = payrail.merchant(orThrow(await payrail.authenticate(token)));
  const answer = await acme.payouts.create(body);
  if (answer._tag === 'Left') throw new Error(answer.left.message);
  return answer.right.payout;
};

describe('every generated quick payout body is accepted', () => {
  it(`by the sandbox catalogue, through the facade (${numRuns} of ${numRuns})`, async () => {
    const payrail = await embed();
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(acceptedQuickPayoutBody(await catalogueOf(payrail)), async (body) => {
        const { token } = await newMerchant(payrail);
        const payout = await created(payrail, token, body);
        expect(payout).toMatchObject({ reference: body.reference, currency: body.currency });
        expect(payout.status).toBe(body.submit === false ? 'draft' : 'pending_review');
        accepted += 1;
      }),
      { numRuns },
    );
    expect(accepted).toBe(numRuns);
  });

  it('by the sandbox route POST /payment/quickpayout, one merchant, the rate limit off', async () => {
    // A property sends faster than the per-key limit (100/s, burst 200) lets a key: turn it off.
    const payrail = await embed({ rateLimit: { requestsPerSecond: 0 } });
    const catalogue = await catalogueOf(payrail);
    const { token } = await newMerchant(payrail);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(acceptedQuickPayoutBody(catalogue), async (body) => {
        // One merchant takes them all: numbered bodies never share a reference or payee_id.
        const response = await payrail.app.request('/payment/quickpayout', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(numberedPayoutBody(body, n++)),
        });
        const answer: unknown = await response.json();
        expect([response.status, answer]).toMatchObject([200, { code: 0 }]);
      }),
      { numRuns },
    );
  });

  it("by a host's own catalogue, for a merchant with a route of its own", async () => {
    const payrail = await embed({ seedSandboxCatalogue: false });
    const { accountId, token } = await newMerchant(payrail);
    await defineHostCatalogue(payrail, accountId);
    const bodies = acceptedQuickPayoutBody(await catalogueOf(payrail), { accountId });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const payout = await created(payrail, token, numberedPayoutBody(body, n++));
        expect(payout.amount).toBe(Number(body.amount).toFixed(2));
      }),
      { numRuns },
    );
  });
});

/**
 * Networks with regex, length and prefix rules and optional fields, one disabled; a method with
 * two channels; routes: global (fee 5.00 + 2.5 %, country required), channel a (zip required),
 * the merchant's own (email and birthdate required), channel b without a channel account.
 */
const defineHostCatalogue = async (payrail: Payrail, accountId: string) => {
  const { admin } = payrail;
  const network = (code: string, fields: { field_key: string; validation_rule: string }[]) =>
    admin.createPayoutNetwork({
      code,
      name: code,
      status: 'active',
      fields: fields.map((field, i) => ({ ...field, required: i === 0 })),
    });
  orThrow(
    await network('BANK', [
      { field_key: 'iban', validation_rule: 'regex:[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}' },
      { field_key: 'bic', validation_rule: 'length:8-11' },
      { field_key: 'memo', validation_rule: '' },
    ]),
  );
  orThrow(await network('WALLETB', [{ field_key: 'walletb_account', validation_rule: '' }]));
  orThrow(await network('PIX', [{ field_key: 'key', validation_rule: 'prefix:pix:' }]));
  orThrow(await network('OLD', [{ field_key: 'id', validation_rule: '' }]));
  orThrow(await admin.updatePayoutNetwork('OLD', { status: 'disabled' }));
  const { payout_method } = orThrow(
    await admin.createPayoutMethod({
      name: 'Bank and wallets',
      currency_type: 'fiat',
      currencies: ['USD'],
      network_codes: ['BANK', 'WALLETB', 'PIX', 'OLD'],
      channel_ids: ['ch-a', 'ch-b'],
      status: 'active',
    }),
  );
  const route = {
    account_id: null,
    currency: 'USD',
    method_id: payout_method.method_id,
    channel_id: null,
    min_amount: '1.00',
    max_amount: '1000.00',
    fixed_fee: '0.00',
    percent_fee: '0',
    channel_account_id: 'ca_bank',
    required_beneficiary_fields: [],
    status: 'active',
  } as const;
  for (const own of [
    { fixed_fee: '5.00', percent_fee: '2.5', required_beneficiary_fields: ['country'] },
    { channel_id: 'ch-a', min_amount: '10.00', required_beneficiary_fields: ['zip'] },
    { account_id: accountId, required_beneficiary_fields: ['email', 'birthdate'] },
    { channel_id: 'ch-b', max_amount: '5.00', channel_account_id: null },
  ]) {
    orThrow(await admin.createRoute({ ...route, ...own }));
  }
};
