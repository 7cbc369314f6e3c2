import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import { describe, expect, it, vi } from 'vitest';
import { type ActorOptions, createActor, type InspectionEvent } from 'xstate';
import type { ErrorKey } from '../errors/error-catalogue.js';
import { isBalanced, type Journal } from '../ledger/ledger.js';
import { payoutInput, T0 } from '../testing/payout.fixtures.js';
import { eventIdOf } from '../webhooks/webhook-envelope.js';
import { type DomainEvent, decide, type Effect, start } from './effects.js';
import {
  allowedPayoutCombinations,
  executionStatusOf,
  isFinalPayout,
  maxVerificationAttempts,
  type PayoutEvent,
  type PayoutInput,
  type PayoutMachine,
  type PayoutSnapshot,
  type PayoutStateKey,
  type PersistedPayout,
  payoutMachine,
  payoutRefusalOf,
  payoutStateKeyOf,
  payoutStatePairs,
  payoutStatusOf,
  persistPayout,
  restorePayout,
  reviewStatusOf,
} from './payout.machine.js';
import { payoutResourceOf } from './payout.view.js';

interface Run {
  readonly snapshot: PayoutSnapshot;
  /** Effects of the last step only. */
  readonly effects: readonly Effect[];
  readonly changed: boolean;
}

/** Starts a payout and feeds it events; every event must be accepted. */
const run = (input: PayoutInput, events: readonly PayoutEvent[] = []): Run =>
  events.reduce<Run>(
    (current, event) => {
      const next = decide(payoutMachine, current.snapshot, event);
      expect(next.changed, `${event.type} accepted`).toBe(true);
      return next;
    },
    start(payoutMachine, input),
  );

const step = (snapshot: PayoutSnapshot, event: PayoutEvent) =>
  decide(payoutMachine, snapshot, event);

const emitted = (effects: readonly Effect[]): readonly DomainEvent[] =>
  effects.flatMap((e) => (e.type === 'emit' ? [e.event] : []));
const eventTypes = (effects: readonly Effect[]) => emitted(effects).map((e) => e.eventType);
const journals = (effects: readonly Effect[]): readonly Journal[] =>
  effects.flatMap((e) => (e.type === 'post' ? [e.journal] : []));
const journalSummary = (effects: readonly Effect[]) =>
  journals(effects).map((j) => `${j.recordType} ${j.amount}`);

const statePair = (snapshot: PayoutSnapshot) =>
  `${reviewStatusOf(snapshot)} / ${executionStatusOf(snapshot)}`;

const at = (n: number) => T0 + n;
/** The account's status a money-moving event carries; active unless a test freezes it. */
type AccountStatus = 'active' | 'frozen';
const approveAs = (account_status: AccountStatus): PayoutEvent => ({
  type: 'payout.review.approve',
  at: at(1),
  account_status,
});
const approve = approveAs('active');
const processing = (
  available = '1000.00',
  account_status: AccountStatus = 'active',
): PayoutEvent => ({
  type: 'payout.execution.processing',
  at: at(2),
  available,
  account_status,
});
const completed = (
  available = '1000.00',
  account_status: AccountStatus = 'active',
): PayoutEvent => ({
  type: 'payout.execution.completed',
  at: at(3),
  available,
  account_status,
});
const failed = (
  reason = 'upstream rejected',
  account_status: AccountStatus = 'active',
): PayoutEvent => ({
  type: 'payout.execution.failed',
  at: at(3),
  reason,
  account_status,
});
const answered = (
  verified: boolean | null,
  attempt: number,
  account_status: AccountStatus = 'active',
): PayoutEvent => ({
  type: 'payout.verification.answered',
  at: at(attempt),
  verified,
  attempt,
  account_status,
});

const refusalKey = (snapshot: PayoutSnapshot, event: PayoutEvent): ErrorKey | undefined =>
  payoutRefusalOf(snapshot, event)?.key;

/** Refused: the machine ignores the event and the refusal carries the catalogue message. */
const expectRefused = (snapshot: PayoutSnapshot, event: PayoutEvent, message: string) => {
  expect(payoutRefusalOf(snapshot, event)?.message).toBe(message);
  const next = step(snapshot, event);
  expect(next.changed).toBe(false);
  expect(next.snapshot).toBe(snapshot);
  expect(next.effects).toEqual([]);
};

const resultData = (
  review_status: string,
  execution_status: string,
  status: string,
  extra: Record<string, unknown> = {},
) => ({
  payout_id: 'po_1',
  reference: 'ref-1',
  currency: 'USD',
  amount: '100.00',
  status,
  review_status,
  execution_status,
  ...extra,
});

describe('payout combinations (interface: Combinations given for the query result)', () => {
  it('combination: pending_review / init — waiting for verification or review', () => {
    const { snapshot, effects } = run(payoutInput());
    expect(statePair(snapshot)).toBe('pending_review / init');
    expect(payoutStatusOf(snapshot)).toBe('pending_review');
    // No verification, no auto approval: it waits for an operator, nothing is sent or posted.
    expect(effects).toEqual([]);
    expect(isFinalPayout(snapshot)).toBe(false);
  });

  it('combination: approved / init — approved, waiting for execution', () => {
    const { snapshot, effects } = run(payoutInput(), [approve]);
    expect(statePair(snapshot)).toBe('approved / init');
    expect(payoutStatusOf(snapshot)).toBe('approved');
    expect(eventTypes(effects)).toEqual(['payout.review.approved']);
    expect(effects).toContainEqual({ type: 'requestExecution', payoutId: 'po_1' });
    expect(journals(effects)).toEqual([]);
  });

  it('combination: approved / processing — execution in progress', () => {
    const { snapshot, effects } = run(payoutInput(), [approve, processing()]);
    expect(statePair(snapshot)).toBe('approved / processing');
    expect(payoutStatusOf(snapshot)).toBe('processing');
    expect(eventTypes(effects)).toEqual(['payout.execution.processing']);
    // amount + fee is held (fee_bearer merchant).
    expect(journalSummary(effects)).toEqual(['payout_hold 101.50']);
  });

  it('combination: approved / completed — final success', () => {
    const { snapshot, effects } = run(payoutInput(), [approve, processing(), completed()]);
    expect(statePair(snapshot)).toBe('approved / completed');
    expect(payoutStatusOf(snapshot)).toBe('completed');
    expect(isFinalPayout(snapshot)).toBe(true);
    expect(eventTypes(effects)).toEqual(['payout.execution.completed']);
    expect(journalSummary(effects)).toEqual(['payout 100.00', 'payout_fee 1.50']);
  });

  it('combination: approved / failed — final execution failure', () => {
    const { snapshot, effects } = run(payoutInput(), [approve, processing(), failed()]);
    expect(statePair(snapshot)).toBe('approved / failed');
    expect(payoutStatusOf(snapshot)).toBe('failed');
    expect(isFinalPayout(snapshot)).toBe(true);
    expect(emitted(effects).map((e) => e.data)).toEqual([
      resultData('approved', 'failed', 'failed', { execution_fail_reason: 'upstream rejected' }),
    ]);
    expect(journalSummary(effects)).toEqual(['payout_release 101.50']);
  });

  it('combination: rejected / init — rejected before execution', () => {
    const { snapshot, effects } = run(payoutInput(), [
      { type: 'payout.review.reject', at: at(1), reason: 'risk' },
    ]);
    expect(statePair(snapshot)).toBe('rejected / init');
    expect(payoutStatusOf(snapshot)).toBe('rejected');
    expect(isFinalPayout(snapshot)).toBe(true);
    expect(eventTypes(effects)).toEqual(['payout.review.rejected']);
    expect(effects.some((e) => e.type === 'requestExecution' || e.type === 'post')).toBe(false);
  });

  it('combination: returned / init — returned, needs handling', () => {
    const { snapshot, effects } = run(payoutInput(), [{ type: 'payout.review.return', at: at(1) }]);
    expect(statePair(snapshot)).toBe('returned / init');
    expect(payoutStatusOf(snapshot)).toBe('returned');
    expect(isFinalPayout(snapshot)).toBe(false);
    expect(eventTypes(effects)).toEqual(['payout.review.returned']);
    // Needs handling: the merchant may edit and resubmit it.
    expect(refusalKey(snapshot, { type: 'payout.submit', at: at(2) })).toBeUndefined();
  });
});

describe('payout moves (interface: Moves that the events show)', () => {
  it('move: pending_review / init --payout.review.approved--> approved / init, webhook sent', () => {
    const pending = run(payoutInput());
    const { snapshot, effects } = step(pending.snapshot, approve);
    expect(statePair(snapshot)).toBe('approved / init');
    expect(emitted(effects)).toEqual([
      {
        eventType: 'payout.review.approved',
        businessType: 'payout',
        businessId: 'po_1',
        revision: 2,
        occurredAt: at(1),
        data: resultData('approved', 'init', 'approved'),
      },
    ]);
    expect(effects.at(-1)).toEqual({ type: 'requestExecution', payoutId: 'po_1' });
  });

  it('move: pending_review / init --payout.review.returned--> returned / init, manual handling', () => {
    const pending = run(payoutInput());
    const { snapshot, effects } = step(pending.snapshot, {
      type: 'payout.review.return',
      at: at(1),
    });
    expect(statePair(snapshot)).toBe('returned / init');
    expect(emitted(effects).map((e) => e.data)).toEqual([
      resultData('returned', 'init', 'returned'),
    ]);
    expect(effects.filter((e) => e.type !== 'emit')).toEqual([]);
  });

  it('move: pending_review / init --payout.review.rejected--> rejected / init, webhook sent', () => {
    const pending = run(payoutInput());
    const { snapshot, effects } = step(pending.snapshot, {
      type: 'payout.review.reject',
      at: at(1),
    });
    expect(statePair(snapshot)).toBe('rejected / init');
    expect(emitted(effects).map((e) => [e.eventType, e.data])).toEqual([
      ['payout.review.rejected', resultData('rejected', 'init', 'rejected')],
    ]);
    expect(effects.filter((e) => e.type !== 'emit')).toEqual([]);
  });

  it('move: approved / init --payout.execution.processing--> approved / processing, webhook sent', () => {
    const ready = run(payoutInput(), [approve]);
    const { snapshot, effects } = step(ready.snapshot, processing());
    expect(statePair(snapshot)).toBe('approved / processing');
    expect(emitted(effects).map((e) => [e.eventType, e.data])).toEqual([
      ['payout.execution.processing', resultData('approved', 'processing', 'processing')],
    ]);
    const [hold] = journals(effects);
    expect(hold?.postings).toEqual([
      { ledgerAccount: 'merchant:acc_1:available', currency: 'USD', amount: '-101.50' },
      { ledgerAccount: 'merchant:acc_1:held', currency: 'USD', amount: '101.50' },
    ]);
  });

  it('move: approved / processing --payout.execution.completed--> approved / completed, status completed, webhook sent', () => {
    const inFlight = run(payoutInput(), [approve, processing()]);
    const { snapshot, effects } = step(inFlight.snapshot, completed());
    expect(statePair(snapshot)).toBe('approved / completed');
    expect(payoutStatusOf(snapshot)).toBe('completed');
    expect(emitted(effects).map((e) => [e.eventType, e.data])).toEqual([
      ['payout.execution.completed', resultData('approved', 'completed', 'completed')],
    ]);
    expect(journals(effects).map((j) => j.journalId)).toEqual(['po_1:payout', 'po_1:payout_fee']);
    expect(journals(effects).every(isBalanced)).toBe(true);
  });

  it('move: approved / processing --payout.execution.failed--> approved / failed, execution_fail_reason is set', () => {
    const inFlight = run(payoutInput(), [approve, processing()]);
    const { snapshot, effects } = step(inFlight.snapshot, failed('bank closed'));
    expect(statePair(snapshot)).toBe('approved / failed');
    expect(snapshot.context.execution_fail_reason).toBe('bank closed');
    expect(payoutResourceOf(snapshot).execution_fail_reason).toBe('bank closed');
    expect(emitted(effects).map((e) => [e.eventType, e.data])).toEqual([
      [
        'payout.execution.failed',
        resultData('approved', 'failed', 'failed', { execution_fail_reason: 'bank closed' }),
      ],
    ]);
    expect(journalSummary(effects)).toEqual(['payout_release 101.50']);
  });

  it('move: pending_review / init --verification callback verified=true--> approved (then execution)', () => {
    const pending = run(payoutInput({ verification_enabled: true }));
    expect(eventTypes(pending.effects)).toEqual(['payout.verify.request']);
    const { snapshot, effects } = step(pending.snapshot, answered(true, 1));
    expect(statePair(snapshot)).toBe('approved / init');
    expect(eventTypes(effects)).toEqual(['payout.review.approved']);
    expect(effects).toContainEqual({ type: 'requestExecution', payoutId: 'po_1' });
  });

  it('move: pending_review / init --verification callback verified=false--> not executed, reject path', () => {
    const pending = run(payoutInput({ verification_enabled: true }));
    const { snapshot, effects } = step(pending.snapshot, answered(false, 1));
    expect(statePair(snapshot)).toBe('rejected / init');
    expect(eventTypes(effects)).toEqual(['payout.review.rejected']);
    expect(effects.some((e) => e.type === 'requestExecution')).toBe(false);
  });

  it('move: pending_review / init --callback unparsable or undecided--> unchanged, attempt retryable, not executed', () => {
    const pending = run(payoutInput({ verification_enabled: true }));
    const { snapshot, effects } = step(pending.snapshot, answered(null, 1));
    expect(statePair(snapshot)).toBe('pending_review / init');
    expect(payoutStateKeyOf(snapshot)).toBe('pendingReview.awaitingVerification');
    expect(effects).toEqual([]);
    expect(snapshot.context.verification_attempts).toBe(1);
    // Retryable: the next attempt's answer still decides.
    expect(statePair(step(snapshot, answered(true, 2)).snapshot)).toBe('approved / init');
  });
});

describe('a returned payout (ADR 0043)', () => {
  const returned = (reason = 'bounced by the bank', n = 9): PayoutEvent => ({
    type: 'payout.execution.returned',
    at: at(n),
    reason,
  });

  it('stays approved / completed, credits the amount sent back once, keeps the fee, tells why', () => {
    const done = run(payoutInput(), [approve, processing(), completed()]);
    const { snapshot, effects } = step(done.snapshot, returned());
    expect(statePair(snapshot)).toBe('approved / completed');
    expect(payoutStatusOf(snapshot)).toBe('completed');
    expect(payoutStateKeyOf(snapshot)).toBe('approved.returned');
    expect(journalSummary(effects)).toEqual(['payout_return 100.00']);
    expect(journals(effects).map((j) => j.journalId)).toEqual(['po_1:payout_return']);
    expect(journals(effects).every(isBalanced)).toBe(true);
    expect(emitted(effects).map((e) => [e.eventType, e.data])).toEqual([
      [
        'payout.execution.returned',
        resultData('approved', 'completed', 'completed', {
          returned_at: at(9),
          return_reason: 'bounced by the bank',
        }),
      ],
    ]);
    expect(payoutResourceOf(snapshot)).toMatchObject({
      execution_status: 'completed',
      returned_at: at(9),
      return_reason: 'bounced by the bank',
    });
    expect(restorePayout(persistPayout(snapshot)).value).toEqual(snapshot.value);
  });

  it('with fee_bearer user, what comes back is what was sent: the amount less the fee', () => {
    const done = run(payoutInput({ fee_bearer: 'user' }), [approve, processing(), completed()]);
    expect(journalSummary(step(done.snapshot, returned()).effects)).toEqual([
      'payout_return 98.50',
    ]);
  });

  it('returns at most once, and only once completed', () => {
    const done = run(payoutInput(), [approve, processing(), completed()]);
    const back = step(done.snapshot, returned()).snapshot;
    expectRefused(back, returned('again', 10), 'invalid payout status');
    expectRefused(
      run(payoutInput(), [approve, processing()]).snapshot,
      returned(),
      'invalid payout status',
    );
    expectRefused(run(payoutInput(), [approve]).snapshot, returned(), 'invalid payout status');
  });
});

describe('payout lifecycle rules (docs/spec/decisions.md §2)', () => {
  it('status is the execution_status once it left init, else the review_status, for every state', () => {
    const expected: Record<PayoutStateKey, string> = {
      draft: 'draft',
      'pendingReview.awaitingVerification': 'pending_review',
      'pendingReview.awaitingReview': 'pending_review',
      returned: 'returned',
      rejected: 'rejected',
      'approved.init': 'approved',
      'approved.processing': 'processing',
      'approved.completed': 'completed',
      'approved.returned': 'completed',
      'approved.failed': 'failed',
      'cancelled.draft': 'cancelled',
      'cancelled.returned': 'cancelled',
      'cancelled.pendingReview': 'cancelled',
    };
    for (const [key, status] of Object.entries(expected)) {
      const [parent, child] = key.split('.');
      const value = child === undefined ? parent : { [parent as string]: child };
      const snapshot = payoutMachine.resolveState({
        value: value as PayoutSnapshot['value'],
        context: start(payoutMachine, payoutInput()).snapshot.context,
      });
      expect(payoutStatusOf(snapshot), key).toBe(status);
      expect(payoutResourceOf(snapshot).status, key).toBe(status);
    }
    expect(Object.values(payoutStatePairs).every((p) => allowedPayoutCombinations.includes(p)));
  });

  it('allowed combinations are the interface table plus draft / init and the three cancelled pairs', () => {
    const pairs = allowedPayoutCombinations.map((p) => `${p.review_status}/${p.execution_status}`);
    expect([...pairs].sort()).toEqual(
      [
        'pending_review/init',
        'approved/init',
        'approved/processing',
        'approved/completed',
        'approved/failed',
        'rejected/init',
        'returned/init',
        'draft/init',
        'draft/cancelled',
        'returned/cancelled',
        'pending_review/cancelled',
      ].sort(),
    );
  });

  it('submit:false creates a draft / init payout at revision 1, with no effect', () => {
    const { snapshot, effects } = run(payoutInput({ submit: false, verification_enabled: true }));
    expect(statePair(snapshot)).toBe('draft / init');
    expect(payoutStatusOf(snapshot)).toBe('draft');
    expect(effects).toEqual([]);
    expect(snapshot.context).toMatchObject({ revision: 1, created_at: T0, updated_at: T0 });
    expect(snapshot.context.submitted_at).toBeUndefined();
  });

  it('submit moves a draft to pending_review / init and sends the verification request', () => {
    const draft = run(payoutInput({ submit: false, verification_enabled: true }));
    const { snapshot, effects } = step(draft.snapshot, { type: 'payout.submit', at: at(5) });
    expect(statePair(snapshot)).toBe('pending_review / init');
    expect(snapshot.context).toMatchObject({ revision: 2, submitted_at: at(5), updated_at: at(5) });
    expect(emitted(effects)).toEqual([
      {
        eventType: 'payout.verify.request',
        businessType: 'payout',
        businessId: 'po_1',
        revision: 2,
        occurredAt: at(5),
        data: {
          payout_id: 'po_1',
          type: 'payout.verification',
          account_id: 'acc_1',
          reference: 'ref-1',
          currency: 'USD',
          amount: '100.00',
          status: 'pending_review',
          review_status: 'pending_review',
          execution_status: 'init',
          beneficiary_id: 'ben_1',
          beneficiary_account_id: 'bacc_1',
          beneficiary_name: 'Ada Lovelace',
          network_code: 'WALLETA',
          account_type: null,
          beneficiary_account: {
            network_code: 'WALLETA',
            display_name: 'main',
            fields_masked: { walleta_email: 'a***@example.com' },
          },
          submitted_at: at(5),
          verification_round: 1,
          created_at: T0,
        },
      },
    ]);
  });

  it('submit takes the account settings given with it (auto approval decided at submit time)', () => {
    const draft = run(payoutInput({ submit: false }));
    const { snapshot, effects } = step(draft.snapshot, {
      type: 'payout.submit',
      at: at(1),
      auto_approve: true,
    });
    expect(statePair(snapshot)).toBe('approved / init');
    expect(eventTypes(effects)).toEqual(['payout.review.approved']);
  });

  it('a returned payout can be edited and resubmitted; verification starts over', () => {
    const returned = run(payoutInput({ verification_enabled: true }), [
      answered(null, 1),
      answered(null, 2),
      { type: 'payout.review.return', at: at(3) },
    ]);
    const edited = step(returned.snapshot, {
      type: 'payout.update',
      at: at(4),
      changes: { amount: '90.00', fee: '1.35' },
    });
    expect(statePair(edited.snapshot)).toBe('returned / init');
    expect(edited.effects).toEqual([]);
    const resubmitted = step(edited.snapshot, { type: 'payout.submit', at: at(5) });
    expect(statePair(resubmitted.snapshot)).toBe('pending_review / init');
    expect(resubmitted.snapshot.context.verification_attempts).toBe(0);
    const [request] = emitted(resubmitted.effects);
    expect(request).toMatchObject({
      eventType: 'payout.verify.request',
      revision: 6,
      data: { amount: '90.00', submitted_at: at(5), verification_round: 2 },
    });
  });

  it('issue 19, M2: an answer about another review round decides nothing; one about this round does', () => {
    const first = run(payoutInput({ verification_enabled: true }), []);
    expect(first.snapshot.context.verification_round).toBe(1);
    const [request] = emitted(first.effects);
    expect(request?.data).toMatchObject({ verification_round: 1 });
    const resubmitted = run(payoutInput({ verification_enabled: true }), [
      { type: 'payout.review.return', at: at(1) },
      { type: 'payout.update', at: at(2), changes: { amount: '900.00', fee: '9.50' } },
      { type: 'payout.submit', at: at(3) },
    ]).snapshot;
    expect(resubmitted.context.verification_round).toBe(2);
    for (const verified of [true, false, null]) {
      const stale = step(resubmitted, {
        type: 'payout.verification.answered',
        at: at(4),
        verified,
        attempt: 8,
        round: 1,
        account_status: 'active',
      });
      expect(stale.changed).toBe(false);
      expect(statePair(stale.snapshot)).toBe('pending_review / init');
    }
    const current = step(resubmitted, {
      type: 'payout.verification.answered',
      at: at(4),
      verified: true,
      attempt: 1,
      round: 2,
      account_status: 'active',
    });
    expect(statePair(current.snapshot)).toBe('approved / init');
  });

  it('update applies the changes in draft and returned, bumping the revision', () => {
    const draft = run(payoutInput({ submit: false }));
    const { snapshot, effects, changed } = step(draft.snapshot, {
      type: 'payout.update',
      at: at(1),
      changes: {
        amount: '50.00',
        fee: '1.00',
        fee_bearer: 'user',
        notify_url: 'https://n.example',
      },
    });
    expect(changed).toBe(true);
    expect(effects).toEqual([]);
    expect(statePair(snapshot)).toBe('draft / init');
    expect(snapshot.context).toMatchObject({
      amount: '50.00',
      fee: '1.00',
      fee_bearer: 'user',
      notify_url: 'https://n.example',
      revision: 2,
      updated_at: at(1),
    });
  });

  it('update that changes nothing answers `no changes`', () => {
    const draft = run(payoutInput({ submit: false }));
    expectRefused(draft.snapshot, { type: 'payout.update', at: at(1), changes: {} }, 'no changes');
    expectRefused(
      draft.snapshot,
      {
        type: 'payout.update',
        at: at(1),
        changes: {
          amount: '100.00',
          verification: structuredClone(draft.snapshot.context.verification),
        },
      },
      'no changes',
    );
  });

  it('update outside draft and returned answers `payout not editable`', () => {
    const update: PayoutEvent = { type: 'payout.update', at: at(9), changes: { amount: '1.00' } };
    const states = [
      run(payoutInput()),
      run(payoutInput(), [approve]),
      run(payoutInput(), [approve, processing()]),
      run(payoutInput(), [approve, processing(), completed()]),
      run(payoutInput(), [{ type: 'payout.review.reject', at: at(1) }]),
      run(payoutInput({ submit: false }), [{ type: 'payout.cancel', at: at(1) }]),
    ];
    for (const { snapshot } of states) expectRefused(snapshot, update, 'payout not editable');
  });

  it('cancel in draft, returned or pending_review sets execution_status cancelled and keeps review_status', () => {
    const cancel: PayoutEvent = { type: 'payout.cancel', at: at(9) };
    const cases = [
      [run(payoutInput({ submit: false })), 'draft / cancelled'],
      [run(payoutInput(), [{ type: 'payout.review.return', at: at(1) }]), 'returned / cancelled'],
      [run(payoutInput()), 'pending_review / cancelled'],
      [run(payoutInput({ verification_enabled: true })), 'pending_review / cancelled'],
    ] as const;
    for (const [before, pair] of cases) {
      const { snapshot, effects } = step(before.snapshot, cancel);
      expect(statePair(snapshot)).toBe(pair);
      expect(payoutStatusOf(snapshot)).toBe('cancelled');
      expect(isFinalPayout(snapshot)).toBe(true);
      expect(effects).toEqual([]);
    }
  });

  it('cancel is refused once approved, processing, rejected or final, with the decided messages', () => {
    const cancel: PayoutEvent = { type: 'payout.cancel', at: at(9) };
    expectRefused(run(payoutInput(), [approve]).snapshot, cancel, 'payout already approved');
    expectRefused(
      run(payoutInput(), [approve, processing()]).snapshot,
      cancel,
      'payout already processing',
    );
    expectRefused(
      run(payoutInput(), [{ type: 'payout.review.reject', at: at(1) }]).snapshot,
      cancel,
      'payout rejected',
    );
    for (const done of [
      run(payoutInput(), [approve, processing(), completed()]),
      run(payoutInput(), [approve, processing(), failed()]),
      run(payoutInput({ submit: false }), [cancel]),
    ]) {
      expectRefused(done.snapshot, cancel, 'invalid payout status');
    }
  });

  it('submit is refused outside draft and returned', () => {
    const submit: PayoutEvent = { type: 'payout.submit', at: at(9) };
    expectRefused(run(payoutInput()).snapshot, submit, 'invalid payout status');
    expectRefused(run(payoutInput(), [approve]).snapshot, submit, 'payout already approved');
    expectRefused(
      run(payoutInput(), [approve, processing()]).snapshot,
      submit,
      'payout already processing',
    );
    expectRefused(
      run(payoutInput(), [{ type: 'payout.review.reject', at: at(1) }]).snapshot,
      submit,
      'payout rejected',
    );
    expectRefused(
      run(payoutInput(), [approve, processing(), completed()]).snapshot,
      submit,
      'invalid payout status',
    );
  });

  it('review actions are refused outside pending_review', () => {
    for (const type of [
      'payout.review.approve',
      'payout.review.return',
      'payout.review.reject',
    ] as const) {
      const review: PayoutEvent =
        type === 'payout.review.approve'
          ? { type, at: at(9), account_status: 'active' }
          : { type, at: at(9) };
      expectRefused(run(payoutInput({ submit: false })).snapshot, review, 'invalid payout status');
      expectRefused(run(payoutInput(), [approve]).snapshot, review, 'payout already approved');
      expectRefused(
        run(payoutInput(), [approve, processing()]).snapshot,
        review,
        'payout already processing',
      );
      expectRefused(
        run(payoutInput(), [{ type: 'payout.review.reject', at: at(1) }]).snapshot,
        review,
        'payout rejected',
      );
      expectRefused(
        run(payoutInput(), [approve, processing(), failed()]).snapshot,
        review,
        'invalid payout status',
      );
    }
  });

  it('an operator may decide while the merchant verification is still pending', () => {
    const pending = run(payoutInput({ verification_enabled: true }));
    const { snapshot } = step(pending.snapshot, { type: 'payout.review.reject', at: at(1) });
    expect(statePair(snapshot)).toBe('rejected / init');
    expectRefused(snapshot, answered(true, 1), 'invalid payout status');
  });

  it('execution outcomes out of order answer `invalid payout status`', () => {
    expectRefused(run(payoutInput()).snapshot, processing(), 'invalid payout status');
    expectRefused(run(payoutInput()).snapshot, completed(), 'invalid payout status');
    expectRefused(run(payoutInput()).snapshot, failed(), 'invalid payout status');
    const inFlight = run(payoutInput(), [approve, processing()]).snapshot;
    expectRefused(inFlight, processing(), 'payout already processing');
    const done = run(payoutInput(), [approve, processing(), completed()]).snapshot;
    expectRefused(done, failed(), 'invalid payout status');
    expectRefused(done, completed(), 'invalid payout status');
  });

  it('too little available balance fails execution with `insufficient balance` and holds nothing', () => {
    const ready = run(payoutInput(), [approve]);
    const { snapshot, effects } = step(ready.snapshot, processing('101.49'));
    expect(statePair(snapshot)).toBe('approved / failed');
    expect(snapshot.context.execution_fail_reason).toBe('insufficient balance');
    expect(journals(effects)).toEqual([]);
    expect(emitted(effects).map((e) => [e.eventType, e.data.execution_fail_reason])).toEqual([
      ['payout.execution.processing', undefined],
      ['payout.execution.failed', 'insufficient balance'],
    ]);
  });

  it('an available balance equal to the debit is enough; with fee_bearer user only the amount is held', () => {
    const exact = step(run(payoutInput(), [approve]).snapshot, processing('101.50'));
    expect(statePair(exact.snapshot)).toBe('approved / processing');
    const userPays = run(payoutInput({ fee_bearer: 'user' }), [approve, processing('100.00')]);
    expect(statePair(userPays.snapshot)).toBe('approved / processing');
    expect(journalSummary(userPays.effects)).toEqual(['payout_hold 100.00']);
    const settled = step(userPays.snapshot, completed());
    // The recipient gets amount - fee; the fee goes to the platform; together the hold.
    expect(journalSummary(settled.effects)).toEqual(['payout 98.50', 'payout_fee 1.50']);
  });

  it('a zero fee posts no fee journal', () => {
    const { effects } = run(payoutInput({ fee: '0.00' }), [approve, processing(), completed()]);
    expect(journalSummary(effects)).toEqual(['payout 100.00']);
  });

  it('completed given to approved / init passes through processing: both events, hold then settle', () => {
    const ready = run(payoutInput(), [approve]);
    const { snapshot, effects } = step(ready.snapshot, completed());
    expect(statePair(snapshot)).toBe('approved / completed');
    expect(eventTypes(effects)).toEqual([
      'payout.execution.processing',
      'payout.execution.completed',
    ]);
    expect(journalSummary(effects)).toEqual([
      'payout_hold 101.50',
      'payout 100.00',
      'payout_fee 1.50',
    ]);
    expect(emitted(effects).every((e) => e.revision === 3)).toBe(true);
  });

  it('completed given to approved / init without the funds fails with `insufficient balance`', () => {
    const { snapshot, effects } = step(run(payoutInput(), [approve]).snapshot, completed('5.00'));
    expect(statePair(snapshot)).toBe('approved / failed');
    expect(snapshot.context.execution_fail_reason).toBe('insufficient balance');
    expect(journals(effects)).toEqual([]);
  });

  it('failed given to approved / init passes through processing and moves no money', () => {
    const { snapshot, effects } = step(run(payoutInput(), [approve]).snapshot, failed('no route'));
    expect(statePair(snapshot)).toBe('approved / failed');
    expect(eventTypes(effects)).toEqual(['payout.execution.processing', 'payout.execution.failed']);
    expect(journals(effects)).toEqual([]);
  });

  it('without verification, auto_approve approves at once at creation', () => {
    const { snapshot, effects } = run(payoutInput({ auto_approve: true }));
    expect(statePair(snapshot)).toBe('approved / init');
    expect(eventTypes(effects)).toEqual(['payout.review.approved']);
    expect(effects).toContainEqual({ type: 'requestExecution', payoutId: 'po_1' });
    expect(emitted(effects)[0]).toMatchObject({ revision: 1, occurredAt: T0 });
  });

  it('with verification enabled, the merchant answers first even when auto_approve is on', () => {
    const { snapshot, effects } = run(
      payoutInput({ auto_approve: true, verification_enabled: true }),
    );
    expect(payoutStateKeyOf(snapshot)).toBe('pendingReview.awaitingVerification');
    expect(eventTypes(effects)).toEqual(['payout.verify.request']);
  });

  it('verification answers record the attempt; a stale undecided answer is refused', () => {
    const pending = run(payoutInput({ verification_enabled: true }), [
      answered(null, 1),
      answered(null, 3),
    ]);
    expect(pending.snapshot.context).toMatchObject({ verification_attempts: 3, revision: 3 });
    expectRefused(pending.snapshot, answered(null, 3), 'invalid payout status');
    expectRefused(pending.snapshot, answered(null, 2), 'invalid payout status');
    // A clear decision counts whatever attempt it answers.
    expect(statePair(step(pending.snapshot, answered(false, 2)).snapshot)).toBe('rejected / init');
  });

  it(`still undecided after attempt ${maxVerificationAttempts} the payout is returned`, () => {
    const attempts = Array.from({ length: maxVerificationAttempts - 1 }, (_, i) =>
      answered(null, i + 1),
    );
    const waiting = run(payoutInput({ verification_enabled: true }), attempts);
    expect(statePair(waiting.snapshot)).toBe('pending_review / init');
    expect(waiting.snapshot.context.verification_attempts).toBe(maxVerificationAttempts - 1);
    const { snapshot, effects } = step(waiting.snapshot, answered(null, maxVerificationAttempts));
    expect(statePair(snapshot)).toBe('returned / init');
    expect(emitted(effects).map((e) => [e.eventType, e.data])).toEqual([
      ['payout.review.returned', resultData('returned', 'init', 'returned')],
    ]);
  });

  it('verification answers are refused when verification is not awaited', () => {
    expectRefused(run(payoutInput()).snapshot, answered(true, 1), 'invalid payout status');
    expectRefused(
      run(payoutInput({ submit: false })).snapshot,
      answered(true, 1),
      'invalid payout status',
    );
  });

  it('every accepted event bumps the revision once; events carry it and their own event ids', () => {
    const events = [answered(null, 1), answered(true, 2), processing(), completed()];
    let current = start(payoutMachine, payoutInput({ verification_enabled: true }));
    const all: DomainEvent[] = [...emitted(current.effects)];
    for (const [i, event] of events.entries()) {
      current = step(current.snapshot, event);
      expect(current.snapshot.context.revision).toBe(i + 2);
      for (const e of emitted(current.effects)) {
        expect(e.revision).toBe(i + 2);
        expect(e.occurredAt).toBe(event.at);
      }
      all.push(...emitted(current.effects));
    }
    expect(new Set(all.map(eventIdOf)).size).toBe(all.length);
  });
});

describe('a frozen account moves no money (issue 12, ADR 0033)', () => {
  const frozen = 'frozen' as const;

  it('an approval of a frozen account is refused with `account frozen`; active, it approves', () => {
    const pending = run(payoutInput()).snapshot;
    expectRefused(pending, approveAs(frozen), 'account frozen');
    expect(statePair(step(pending, approveAs('active')).snapshot)).toBe('approved / init');
  });

  it('every execution outcome of a frozen account is refused, before and during processing', () => {
    const ready = run(payoutInput(), [approve]).snapshot;
    const inFlight = run(payoutInput(), [approve, processing()]).snapshot;
    for (const snapshot of [ready, inFlight]) {
      expectRefused(snapshot, completed('1000.00', frozen), 'account frozen');
      expectRefused(snapshot, failed('upstream rejected', frozen), 'account frozen');
    }
    expectRefused(ready, processing('1000.00', frozen), 'account frozen');
    // Without the funds, active, it would fail with `insufficient balance`: frozen, it waits.
    expectRefused(ready, processing('0.00', frozen), 'account frozen');
    expect(statePair(step(ready, processing()).snapshot)).toBe('approved / processing');
    expect(statePair(step(inFlight, completed()).snapshot)).toBe('approved / completed');
  });

  it('a verification answered `true` is refused and records no attempt; `false` and undecided go through', () => {
    const awaiting = run(payoutInput({ verification_enabled: true })).snapshot;
    expectRefused(awaiting, answered(true, 1, frozen), 'account frozen');
    expectRefused(awaiting, answered(true, 5, frozen), 'account frozen');
    const undecided = step(awaiting, answered(null, 1, frozen));
    expect(undecided.changed).toBe(true);
    expect(undecided.snapshot.context.verification_attempts).toBe(1);
    expect(statePair(step(awaiting, answered(false, 1, frozen)).snapshot)).toBe('rejected / init');
    expect(statePair(step(awaiting, answered(true, 1)).snapshot)).toBe('approved / init');
  });

  it('returning or rejecting moves no money and carries no account status', () => {
    const pending = run(payoutInput()).snapshot;
    expect(statePair(step(pending, { type: 'payout.review.return', at: at(1) }).snapshot)).toBe(
      'returned / init',
    );
    expect(statePair(step(pending, { type: 'payout.review.reject', at: at(1) }).snapshot)).toBe(
      'rejected / init',
    );
  });

  it('`account frozen` comes before every other refusal, in every state', () => {
    const states = [
      run(payoutInput({ submit: false })),
      run(payoutInput(), [{ type: 'payout.review.reject', at: at(1) }]),
      run(payoutInput(), [approve, processing(), completed()]),
      run(payoutInput(), [approve, processing(), failed()]),
    ];
    for (const { snapshot } of states) {
      for (const event of [
        approveAs(frozen),
        answered(true, 1, frozen),
        processing('1000.00', frozen),
        completed('1000.00', frozen),
        failed('upstream rejected', frozen),
      ]) {
        expect(refusalKey(snapshot, event), `${event.type} in ${payoutStateKeyOf(snapshot)}`).toBe(
          'account_frozen',
        );
      }
    }
    // Active, the same events answer as the state words them.
    expect(refusalKey(run(payoutInput({ submit: false })).snapshot, approve)).toBe(
      'invalid_payout_status',
    );
  });
});

describe('payout persistence and inspection', () => {
  const rest: readonly PayoutEvent[] = [processing(), completed()];

  it('a snapshot survives getPersistedSnapshot -> JSON -> restore and continues identically', () => {
    const approved = run(payoutInput({ verification_enabled: true }), [answered(true, 1)]);
    const json = JSON.stringify(persistPayout(approved.snapshot));
    const restored = restorePayout(JSON.parse(json));
    expect(payoutStateKeyOf(restored)).toBe('approved.init');
    expect(restored.context).toEqual(approved.snapshot.context);

    let original = approved.snapshot;
    let revived = restored;
    for (const event of rest) {
      const a = step(original, event);
      const b = step(revived, event);
      expect(b.effects).toEqual(a.effects);
      expect(b.snapshot.value).toEqual(a.snapshot.value);
      expect(b.snapshot.context).toEqual(a.snapshot.context);
      original = a.snapshot;
      revived = b.snapshot;
    }
    expect(statePair(revived)).toBe('approved / completed');
  });

  it('a persisted final snapshot stays final after restore', () => {
    const rejected = run(payoutInput(), [{ type: 'payout.review.reject', at: at(1) }]);
    const restored = restorePayout(JSON.parse(JSON.stringify(persistPayout(rejected.snapshot))));
    expect(statePair(restored)).toBe('rejected / init');
    expect(step(restored, approve).changed).toBe(false);
  });

  it('restore refuses another snapshot format version', () => {
    const persisted = persistPayout(run(payoutInput()).snapshot);
    expect(() => restorePayout({ ...persisted, version: 2 } as never)).toThrow(/version/);
  });

  it('createActor(payoutMachine, { snapshot }) resumes a persisted payout', () => {
    const inFlight = run(payoutInput(), [approve, processing()]);
    const persisted: PersistedPayout = JSON.parse(JSON.stringify(persistPayout(inFlight.snapshot)));
    // XState ignores `input` when a snapshot is given, but its options type still requires it.
    const options = { snapshot: persisted.snapshot } as unknown as ActorOptions<PayoutMachine> & {
      input: PayoutInput;
    };
    const actor = createActor(payoutMachine, options);
    actor.start();
    actor.send(completed());
    expect(statePair(actor.getSnapshot())).toBe('approved / completed');
    expect(actor.getSnapshot().context.revision).toBe(4);
    actor.stop();
  });

  it('createActor(payoutMachine, { input, inspect }) reports events, snapshots and effects', async () => {
    const raw: InspectionEvent[] = [];
    const stately: StatelyInspectionEvent[] = [];
    // The same inspector @statelyai/inspect builds for the Stately viewer, on an in-memory adapter.
    const inspector = createInspector({ send: (event) => void stately.push(event) });
    const actor = createActor(payoutMachine, {
      input: payoutInput({ verification_enabled: true }),
      inspect: (event) => {
        raw.push(event);
        inspector.inspect.next?.(event);
      },
    });
    actor.start();
    actor.send(answered(true, 1));
    actor.send(processing());
    actor.stop();

    const sent = raw.flatMap((e) => (e.type === '@xstate.event' ? [e.event.type] : []));
    expect(sent).toEqual(
      expect.arrayContaining(['payout.verification.answered', 'payout.execution.processing']),
    );
    const actions = raw.flatMap((e) =>
      e.type === '@xstate.action' && e.action.type === 'emit'
        ? [(e.action.params as { event: DomainEvent }).event.eventType]
        : [],
    );
    expect(actions).toEqual([
      'payout.verify.request',
      'payout.review.approved',
      'payout.execution.processing',
    ]);
    // The Stately inspector converts each event on the next tick (setTimeout outside a browser).
    await vi.waitFor(() => {
      const values = stately.flatMap((e) =>
        e.type === '@xstate.snapshot'
          ? [JSON.stringify((e.snapshot as { value?: unknown }).value)]
          : [],
      );
      expect(values).toContain(JSON.stringify({ approved: 'processing' }));
    });
    expect(
      stately.some(
        (e) => e.type === '@xstate.event' && e.event?.type === 'payout.execution.processing',
      ),
    ).toBe(true);
  });
});
