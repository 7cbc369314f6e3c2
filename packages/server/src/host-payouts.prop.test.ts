import {
  apiKeyPermissions,
  type Currency,
  Decimal,
  type ExecutionReport,
  formatAmount,
  type LedgerEntryView,
  money,
} from '@payrail/core';
import { acceptedQuickPayoutBody, type PayoutCatalogueContents } from '@payrail/core/testing';
import { createMemoryStore } from '@payrail/store-memory';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPayrail, type MerchantFacade, orThrow, type Payrail } from './index.js';

/** The catalogue payrail has: its networks, methods and routes, as the admin API lists them. */
const catalogueOf = async (payrail: Payrail): Promise<PayoutCatalogueContents> => ({
  networks: orThrow(await payrail.admin.listPayoutNetworks()).items,
  methods: orThrow(await payrail.admin.listPayoutMethods()).items,
  routes: orThrow(await payrail.admin.listRoutes({ limit: 100 })).items,
});

/** A new merchant (no reference or payee_id of an earlier run is taken), funded, with a key. */
const fundedMerchant = async (payrail: Payrail, currency: Currency, amount: string) => {
  const { merchant } = orThrow(await payrail.admin.createMerchant({ name: 'Acme' }));
  const { api_key } = orThrow(
    await payrail.admin.issueApiKey(merchant.account_id, { permissions: [...apiKeyPermissions] }),
  );
  orThrow(await payrail.admin.credit(merchant.account_id, { currency, amount }));
  return payrail.merchant(orThrow(await payrail.authenticate(api_key.token)));
};

/**
 * The ledger replayed oldest first: each record's balance_after is the running sum of its
 * bucket, and the sums are the balance the account answers, which is returned.
 */
const replayedBalance = async (acme: MerchantFacade, currency: Currency) => {
  const records: LedgerEntryView[] = [];
  for (let total = 1; records.length < total; ) {
    const page = orThrow(
      await acme.accounts.ledger({
        currency,
        sort_order: 'asc',
        limit: 100,
        offset: records.length,
      }),
    );
    records.push(...page.items);
    total = page.total;
  }
  const sums = { available: new Decimal(0), held: new Decimal(0) };
  const atScale = (value: Decimal) => formatAmount(money(currency, value));
  for (const record of records) {
    sums[record.bucket] = sums[record.bucket].plus(record.amount);
    expect(record.balance_after).toBe(atScale(sums[record.bucket]));
  }
  const balance = {
    currency,
    available: atScale(sums.available),
    held: atScale(sums.held),
    total: atScale(sums.available.plus(sums.held)),
  };
  expect(orThrow(await acme.accounts.balances({ currency })).items).toEqual([balance]);
  return balance;
};

const outcomes = fc.constantFrom<ExecutionReport>(
  { status: 'completed' },
  { status: 'failed', reason: 'account closed' },
);

describe('a host drives generated payouts through review and execution', () => {
  let payrail: Payrail;
  let catalogue: PayoutCatalogueContents;
  beforeAll(async () => {
    payrail = await createPayrail({
      store: createMemoryStore(),
      environment: 'sandbox', // with the sandbox payout catalogue
      keySecret: 'a key secret of at least 32 bytes',
      log: () => undefined,
    });
    catalogue = await catalogueOf(payrail);
  });

  it('creates every generated payout; each ends as reported, and its ledger replays', async () => {
    const credited = '200000.00'; // above any amount and fee the sandbox's USD route allows
    await fc.assert(
      fc.asyncProperty(acceptedQuickPayoutBody(catalogue), outcomes, async (body, report) => {
        const acme = await fundedMerchant(payrail, body.currency, credited);
        const created = await acme.payouts.create(body);
        if (created._tag === 'Left') throw new Error(created.left.message);
        const { payout_id, status } = created.right.payout;
        if (status === 'draft') orThrow(await acme.payouts.submit(payout_id)); // submit: false
        orThrow(await payrail.admin.reviewPayout(payout_id, { action: 'approve' }));
        // The executor door, open in the sandbox too: the bank has the money, then the outcome.
        orThrow(await payrail.executions.report(payout_id, { status: 'processing' }));
        const { payout } = orThrow(await payrail.executions.report(payout_id, report));
        expect(payout.status).toBe(report.status);

        const balance = await replayedBalance(acme, body.currency);
        expect(balance.held).toBe('0.00');
        // A completed payout took its amount and fee; a failed one gave its hold back.
        if (report.status === 'failed') expect(balance.available).toBe(credited);
        else expect(new Decimal(balance.available).lessThan(credited)).toBe(true);
      }),
    );
  });
});
