/**
 * `EngineDeps.observer`: what a host measuring the engine is told of its units of work, committed
 * transitions and fired timers, read from real use cases on the memory store.
 */
import { type Store, StoreFailure } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import type { CommittedTransition, EngineObserver, UnitOfWorkEnded } from './engine.observer.js';
import { createEngine } from './engine.wiring.js';
import { bootstrapOperator } from './operators/operators.use-cases.js';
import {
  errorOf,
  merchantA,
  payoutHarness,
  payoutOf,
  walletaPayout,
} from './payouts/payouts.test-support.js';

interface Told {
  readonly units: (readonly [string, UnitOfWorkEnded['outcome']])[];
  readonly seconds: number[];
  readonly transitions: CommittedTransition[];
  readonly timers: (readonly [string, number])[];
}

const recording = (): { told: Told; observer: EngineObserver } => {
  const told: Told = { units: [], seconds: [], transitions: [], timers: [] };
  return {
    told,
    observer: {
      unitOfWorkStarted: (useCase) => (ended) => {
        told.units.push([useCase, ended.outcome]);
        told.seconds.push(ended.seconds);
      },
      transitionCommitted: (transition) => told.transitions.push(transition),
      timerFired: ({ timer, lagSeconds }) => told.timers.push([timer, lagSeconds]),
    },
  };
};

/** `store`, whose next unit of work, once armed, loses a race (a version conflict) after running. */
const racingStore = (store: Store) => {
  let armed = false;
  const wrapped: Store = {
    transaction: (work) =>
      store.transaction(async (tx) => {
        const result = await work(tx);
        if (armed) {
          armed = false;
          throw new StoreFailure('version_conflict', 'payouts');
        }
        return result;
      }),
    claimEnvironment: (environment) => store.claimEnvironment(environment),
    close: () => store.close(),
  };
  return { store: wrapped, arm: () => (armed = true) };
};

describe('observing a running engine', () => {
  it('tells each unit of work by its act and outcome, and the transitions it committed', async () => {
    const h = await payoutHarness();
    const { told, observer } = recording();
    const engine = createEngine({ ...h.deps, observer });
    await h.credit(merchantA, 'USD', '1000.00');

    payoutOf(await engine.payouts.create(merchantA, walletaPayout()));
    payoutOf(await engine.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' }));
    expect(
      errorOf(await engine.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' })),
    ).toEqual(['payout already approved', 400, 53]);
    await engine.payouts.get(merchantA, 'po_1');

    // The operator's role check is a unit of work of its own, outside the act.
    expect(told.units.filter(([useCase]) => useCase !== 'other')).toEqual([
      ['payout.create', 'committed'],
      ['payout.review', 'committed'],
      ['payout.review', 'refused'],
    ]);
    expect(told.units.filter(([useCase]) => useCase === 'other').length).toBeGreaterThanOrEqual(3);
    for (const seconds of told.seconds) {
      expect(seconds).toBeGreaterThanOrEqual(0);
      expect(seconds).toBeLessThan(5);
    }
    // The refused approval committed nothing, so it tells no transition.
    expect(told.transitions).toEqual([
      { machine: 'payout', from: 'none', to: 'pendingReview.awaitingReview' },
      { machine: 'payout', from: 'pendingReview.awaitingReview', to: 'approved.init' },
    ]);
  });

  it('tells a lost race as a conflict, then the rerun that committed, and its transition once', async () => {
    const h = await payoutHarness();
    const racing = racingStore(h.deps.store);
    const { told, observer } = recording();
    const engine = createEngine({ ...h.deps, store: racing.store, observer });
    await h.credit(merchantA, 'USD', '1000.00');
    payoutOf(await engine.payouts.create(merchantA, walletaPayout()));
    told.units.length = 0;
    told.transitions.length = 0;

    racing.arm();
    const cancelled = await engine.payouts.cancel(merchantA, 'po_1');
    expect(payoutOf(cancelled)).toMatchObject({ payout_id: 'po_1' });
    expect(told.units).toEqual([
      ['payout.cancel', 'conflict'],
      ['payout.cancel', 'committed'],
    ]);
    expect(told.transitions).toEqual([
      { machine: 'payout', from: 'pendingReview.awaitingReview', to: 'cancelled.pendingReview' },
    ]);
  });

  it('tells each fired timer with how late it fired on the engine clock', async () => {
    const h = await payoutHarness();
    const { told, observer } = recording();
    const engine = createEngine({ ...h.deps, observer });
    await h.credit(merchantA, 'USD', '1000.00');
    payoutOf(await engine.payouts.create(merchantA, walletaPayout()));
    payoutOf(await engine.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' }));
    told.units.length = 0;

    h.clock.advance(7);
    expect(await engine.workers.runDueTimers('test-worker')).toBe(1);
    expect(told.timers).toEqual([['payout.execute', 7]]);
    expect(told.units).toEqual([
      ['timer.claim', 'committed'],
      ['timer.payout.execute', 'committed'],
    ]);
  });

  it('keeps working when the observer throws', async () => {
    const h = await payoutHarness();
    const engine = createEngine({
      ...h.deps,
      observer: {
        unitOfWorkStarted: () => {
          throw new Error('observer down');
        },
        transitionCommitted: () => {
          throw new Error('observer down');
        },
      },
    });
    await h.credit(merchantA, 'USD', '1000.00');
    expect(payoutOf(await engine.payouts.create(merchantA, walletaPayout()))).toMatchObject({
      payout_id: 'po_1',
      status: 'pending_review',
    });
  });
});
