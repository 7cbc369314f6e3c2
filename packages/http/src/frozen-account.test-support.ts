/**
 * A frozen account with money and payouts at every step, for the frozen-account suites (issue
 * 12, finding 2; ADR 0033): an app over the real engine on a store of the http package's list,
 * with a recording payout executor, and a merchant that, before the operator froze it, was
 * credited 100.00 USD and 100.000000 USDT and has a payout awaiting review, one approved (its
 * hand-off to the executor not yet made), one processing (its amount and fee held), one awaiting
 * the merchant's verification, and a crypto batch in draft.
 */
import type { Balance, PayoutExecutor, PayoutRecord, Store } from '@payrail/core';
import { expect } from 'vitest';
import {
  type Answer,
  type EngineApp,
  engineApp,
  operatorToken,
} from './engine-app.test-support.js';

export interface FrozenBed {
  readonly h: EngineApp;
  readonly store: Store;
  /** The payout ids the executor received, in order. */
  readonly handed: readonly string[];
}

export const frozenBed = async (store: Store): Promise<FrozenBed> => {
  const handed: string[] = [];
  const executor: PayoutExecutor = {
    execute: async (request) => {
      handed.push(request.payout_id);
    },
  };
  const h = engineApp({ store, payoutExecutor: executor });
  await h.seedCatalogue();
  return { h, store, handed };
};

/** The payouts a frozen merchant holds, by the step each had reached when it was frozen. */
export interface FrozenPayouts {
  readonly awaitingReview: string;
  readonly approved: string;
  readonly processing: string;
  readonly awaitingVerification: string;
}

export type FrozenPayoutStep = keyof FrozenPayouts;

export interface FrozenMerchant {
  readonly accountId: string;
  readonly token: string;
  readonly payouts: FrozenPayouts;
  readonly batchId: string;
}

const ok = (answer: Answer, what: string) => {
  expect(answer.body, `${what}: ${JSON.stringify(answer.body)}`).toMatchObject({ code: 0 });
  return answer.body.data;
};

let merchants = 0;

/** A payout of `amount` USD, submitted at creation (so pending review, or verification). */
const payoutBody = (amount: string) => {
  merchants += 1;
  return {
    currency: 'USD',
    amount,
    method_id: 1,
    reference: `frozen-${merchants}`,
    notify_url: 'https://merchant.example/payouts/notify',
    beneficiary: { name: 'Jane Doe', fields: { payee_id: `payee${merchants}` } },
    beneficiary_account: {
      network_code: 'WALLETA',
      fields: { walleta_email: 'jane@example.com' },
    },
  };
};

/** The operator's call, answered as it is. */
export const operator = (h: EngineApp, method: string, path: string, body?: unknown) =>
  h.call(method, path, { Authorization: `Bearer ${operatorToken}` }, body);

/**
 * A merchant credited 100.00 USD and 100.000000 USDT, with payouts of `amount` USD at each step
 * and a draft batch, then frozen by the operator.
 */
export const frozenMerchant = async (bed: FrozenBed, amount = '10.00'): Promise<FrozenMerchant> => {
  const { h } = bed;
  merchants += 1;
  const { merchant } = await h.admin('POST', '/admin/merchants', {
    name: `Frozen ${merchants}`,
    currencies: ['USD', 'USDT'],
  });
  const accountId = merchant.account_id as string;
  const { token } = await h.issueKey(accountId, {
    permissions: [
      'payment.account.read',
      'payment.payout.create',
      'payment.payout.submit',
      'payment.payout.read',
      'payment.payout.cancel',
      'payment.payout.update',
    ],
  });
  const as = h.as(token);
  await h.admin('POST', `/admin/accounts/${accountId}/credit`, {
    currency: 'USD',
    amount: '100.00',
  });
  await h.admin('POST', `/admin/accounts/${accountId}/credit`, {
    currency: 'USDT',
    amount: '100.000000',
  });
  const create = async () =>
    ok(await as.post('/payment/quickpayout', payoutBody(amount)), 'payout').payout
      .payout_id as string;
  const approve = async (payoutId: string) =>
    h.admin('POST', `/admin/payouts/${payoutId}/review`, { action: 'approve' });

  const awaitingReview = await create();
  const approved = await create();
  await approve(approved);
  const processing = await create();
  await approve(processing);
  await h.admin('POST', `/admin/sandbox/payouts/${processing}/execution`, {
    outcome: 'processing',
  });
  await h.admin('PATCH', `/admin/accounts/${accountId}`, { verification_enabled: true });
  const awaitingVerification = await create();
  const { batch } = ok(
    await as.post('/payment/crypto-payouts/batches', {
      currency: 'USDT',
      method_id: 2,
      submit: false,
      items: [
        {
          order_no: `frozen-batch-${merchants}`,
          amount: '5',
          beneficiary_account: { address: `0x${merchants.toString(16).padStart(40, 'b')}` },
        },
      ],
    }),
    'batch',
  );
  await h.admin('PATCH', `/admin/accounts/${accountId}`, { status: 'frozen' });
  return {
    accountId,
    token,
    payouts: { awaitingReview, approved, processing, awaitingVerification },
    batchId: batch.batch_id as string,
  };
};

/** What the property watches: the account's balances, payouts, batch and executor hand-offs. */
export const moneyOf = async (bed: FrozenBed, m: FrozenMerchant) =>
  bed.store.transaction(async (tx) => {
    const balances: readonly Balance[] = await tx.ledger.balances(m.accountId);
    const payouts: readonly PayoutRecord[] = (
      await tx.payouts.list({ scope: m.accountId, limit: 100, offset: 0 })
    ).items;
    const batch = await tx.cryptoBatches.get(m.batchId, m.accountId);
    const ids = new Set(payouts.map((p) => p.payout_id));
    return {
      balances,
      completed: payouts.filter((p) => p.execution_status === 'completed').map((p) => p.payout_id),
      batchStatus: batch?.status,
      batchPayouts: payouts.filter((p) => p.batch_id !== null).length,
      handed: bed.handed.filter((id) => ids.has(id)),
    };
  });

export const accountFrozen = { status: 403, code: 61, message: 'account frozen', data: null };
