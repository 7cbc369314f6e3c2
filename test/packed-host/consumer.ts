// A TypeScript host's first file, type-checked against the packed .d.ts under strict nodenext
// (test/packed-host.test.mjs). The `@ts-expect-error` lines are the type test: if a wrong field
// or permission stopped being an error, tsc would fail on the unused directive.
import { apiKeyPermissions, type PayrailError, payoutMachine } from '@payrail/core';
import { payoutInput, validPayoutCreate } from '@payrail/core/testing';
import type { Engine } from '@payrail/engine';
import { createPayrail, orThrow, type Payrail } from '@payrail/server';
import { createMemoryStore } from '@payrail/store-memory';
import type { PGliteStoreOptions } from '@payrail/store-postgres';
import fc from 'fast-check';
import { createActor } from 'xstate';

/** @public The host's program, exported so that strict tsc neither drops nor flags it. */
export const host = async (): Promise<string> => {
  const payrail: Payrail = await createPayrail({
    store: createMemoryStore(),
    environment: 'sandbox',
    keySecret: 'a host secret of at least thirty-two bytes',
  });
  const { merchant } = orThrow(await payrail.admin.createMerchant({ name: 'Acme' }));
  const accountId: string = merchant.account_id;
  const issued = orThrow(
    await payrail.admin.issueApiKey(accountId, { permissions: ['payment.payout.read'] }),
  );
  const token: string = issued.api_key.token;
  // @ts-expect-error a permission the catalogue does not know
  await payrail.admin.issueApiKey(accountId, { permissions: ['payment.payout.steal'] });
  const acme = payrail.merchant(orThrow(await payrail.authenticate(token)));
  const created = await acme.payouts.create({
    reference: 'INV-1',
    currency: 'USD',
    amount: '1.00',
    notify_url: 'https://example.com/n',
    beneficiary_account_id: 'ba_1',
  });
  if (created._tag === 'Left') {
    const error: PayrailError = created.left;
    return `${error.code} ${error.message}`;
  }
  const status: string = created.right.payout.status;
  // @ts-expect-error amounts are decimal strings, never numbers
  await acme.payouts.create({ reference: 'x', currency: 'USD', amount: 1, notify_url: 'x' });
  // @ts-expect-error no such field on a payout
  created.right.payout.amount_in_cents;
  const engine: Engine = payrail.engine;
  void engine;
  void apiKeyPermissions;
  // The host's own xstate runs payrail's machine: one copy, one set of types (a peer dependency).
  const actor = createActor(payoutMachine, { input: payoutInput() });
  void actor;
  void fc.sample(validPayoutCreate, 1);
  const options: PGliteStoreOptions = { dataDir: '/tmp/x' };
  void options;
  return status;
};
