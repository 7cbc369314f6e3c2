/**
 * The payout machine's pure steps: one payout's whole lifecycle through `start` and `decide`, and
 * the persisted snapshot's round trip through JSON, as a store column holds it.
 */
import { bench, describe } from 'vitest';
import { payoutInput, T0 } from '../testing/payout.fixtures.js';
import { decide, start } from './effects.js';
import {
  type PayoutEvent,
  payoutMachine,
  payoutStatusOf,
  persistPayout,
  restorePayout,
} from './payout.machine.js';

const input = payoutInput();

/** pending_review -> approved -> processing (hold) -> completed (settle): 4 effects-bearing steps. */
const approve: PayoutEvent = {
  type: 'payout.review.approve',
  at: T0 + 1,
  account_status: 'active',
};
const processing: PayoutEvent = {
  type: 'payout.execution.processing',
  at: T0 + 2,
  available: '1000.00',
  account_status: 'active',
};
const completedEvent: PayoutEvent = {
  type: 'payout.execution.completed',
  at: T0 + 3,
  available: '1000.00',
  account_status: 'active',
};
const lifecycle = [approve, processing, completedEvent];

const runLifecycle = () => {
  let snapshot = start(payoutMachine, input).snapshot;
  for (const event of lifecycle) {
    const decision = decide(payoutMachine, snapshot, event);
    if (!decision.changed) throw new Error(`${event.type} refused`);
    snapshot = decision.snapshot;
  }
  return snapshot;
};

const completed = runLifecycle();
if (payoutStatusOf(completed) !== 'completed') throw new Error('the lifecycle does not complete');
const approved = decide(payoutMachine, start(payoutMachine, input).snapshot, approve).snapshot;

describe('payout machine', () => {
  bench('start (pending_review)', () => {
    start(payoutMachine, input);
  });

  bench('decide: one step (approved -> processing, posts the hold)', () => {
    decide(payoutMachine, approved, processing);
  });

  bench('start + decide x3: full lifecycle to completed', () => {
    runLifecycle();
  });
});

describe('payout persisted snapshot', () => {
  bench('persist + JSON round trip + restore', () => {
    const stored = JSON.stringify(persistPayout(completed));
    restorePayout(JSON.parse(stored));
  });
});
