/**
 * Issue 12, finding 2, as a property: a frozen account's payout never completes and its
 * balances (available and held, per currency) never move, whatever acts and in whatever order -
 * the operator's review, sandbox execution outcomes, the executor's reports, the execution timer
 * firing as the sandbox clock moves, the merchant's verification answers, the merchant's own
 * payout and batch calls. Each run freezes a new merchant with payouts at every step (see
 * `frozenMerchant`) and plays a random sequence of those acts. On every store of the http
 * package's list; 25 runs per store keep it within a 2-core machine.
 */
import type { ExecutionReport } from '@payrail/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalOf } from './engine-app.test-support.js';
import {
  accountFrozen,
  type FrozenBed,
  type FrozenMerchant,
  type FrozenPayoutStep,
  frozenBed,
  frozenMerchant,
  moneyOf,
  operator,
} from './frozen-account.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const steps: readonly FrozenPayoutStep[] = [
  'awaitingReview',
  'approved',
  'processing',
  'awaitingVerification',
];
const step = fc.constantFrom(...steps);
type Outcome = 'processing' | 'completed' | 'failed';
const outcome = fc.constantFrom<Outcome>('processing', 'completed', 'failed');

type Act =
  | { readonly kind: 'review'; readonly step: FrozenPayoutStep; readonly action: string }
  | {
      readonly kind: 'sandboxExecution';
      readonly step: FrozenPayoutStep;
      readonly outcome: Outcome;
    }
  | { readonly kind: 'report'; readonly step: FrozenPayoutStep; readonly outcome: Outcome }
  | { readonly kind: 'clock'; readonly seconds: number }
  | {
      readonly kind: 'verification';
      readonly step: FrozenPayoutStep;
      readonly verified: boolean | null;
      readonly attempt: number;
    }
  | { readonly kind: 'merchant'; readonly call: 'submit' | 'cancel' | 'batchSubmit' };

const act: fc.Arbitrary<Act> = fc.oneof(
  fc.record({
    kind: fc.constant('review' as const),
    step,
    action: fc.constantFrom('approve', 'approve', 'return', 'reject'),
  }),
  fc.record({ kind: fc.constant('sandboxExecution' as const), step, outcome }),
  fc.record({ kind: fc.constant('report' as const), step, outcome }),
  fc.record({ kind: fc.constant('clock' as const), seconds: fc.integer({ min: 1, max: 21_600 }) }),
  fc.record({
    kind: fc.constant('verification' as const),
    step,
    verified: fc.constantFrom(true, true, false, null),
    attempt: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({
    kind: fc.constant('merchant' as const),
    call: fc.constantFrom('submit' as const, 'cancel' as const, 'batchSubmit' as const),
  }),
);

/** Plays one act; checks what it must answer when it is an act that would move money. */
const play = async (bed: FrozenBed, m: FrozenMerchant, a: Act): Promise<void> => {
  const { h } = bed;
  switch (a.kind) {
    case 'review': {
      const answer = await operator(h, 'POST', `/admin/payouts/${m.payouts[a.step]}/review`, {
        action: a.action,
        ...(a.action === 'approve' ? {} : { reason: 'frozen' }),
      });
      if (a.action === 'approve') expect(refusalOf(answer)).toEqual(accountFrozen);
      return;
    }
    case 'sandboxExecution': {
      const answer = await operator(
        h,
        'POST',
        `/admin/sandbox/payouts/${m.payouts[a.step]}/execution`,
        { outcome: a.outcome },
      );
      expect(refusalOf(answer)).toEqual(accountFrozen);
      return;
    }
    case 'report': {
      const body: ExecutionReport =
        a.outcome === 'failed' ? { status: 'failed', reason: 'bank' } : { status: a.outcome };
      const answer = await h.engine.executions.report(m.payouts[a.step], body);
      // A report the payout already reflects is answered as it is; any other is refused.
      if (answer._tag === 'Left') expect(answer.left.message).toBe('account frozen');
      return;
    }
    case 'clock':
      await h.admin('POST', '/admin/sandbox/clock/advance', { seconds: a.seconds });
      return;
    case 'verification': {
      const answer = await h.engine.callbacks.verificationAnswered(
        m.payouts[a.step],
        a.verified,
        a.attempt,
      );
      if (a.verified === true && a.step === 'awaitingVerification') {
        expect(answer).toMatchObject({ _tag: 'Left', left: { message: 'account frozen' } });
      }
      return;
    }
    case 'merchant': {
      const as = h.as(m.token);
      const answer =
        a.call === 'batchSubmit'
          ? await as.post(`/payment/crypto-payouts/batches/${m.batchId}/submit`)
          : await as.post(`/payment/payouts/${m.payouts.awaitingReview}/${a.call}`);
      expect(refusalOf(answer)).toEqual(accountFrozen);
      return;
    }
  }
};

describe.each(storesUnderTest)('a frozen account moves no money ($name)', (under) => {
  let bed: FrozenBed;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;

  beforeAll(async () => {
    store = await under.open();
    bed = await frozenBed(store);
  });

  afterAll(async () => {
    await store.close?.();
  });

  it('money leaves a frozen account: whatever acts, no payout completes and no balance moves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(act, { minLength: 1, maxLength: 8 }), async (acts) => {
        const m = await frozenMerchant(bed);
        const before = await moneyOf(bed, m);
        expect(before.completed).toEqual([]);
        expect(before.handed).toEqual([]);
        for (const a of acts) {
          await play(bed, m, a);
          expect(await moneyOf(bed, m), JSON.stringify(a)).toEqual(before);
        }
      }),
      { numRuns: 25 },
    );
  });
});
