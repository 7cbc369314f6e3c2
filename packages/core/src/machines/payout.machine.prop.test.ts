import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { payrailError } from '../errors/error-catalogue.js';
import {
  isBalanced,
  type Journal,
  keepsBalancesNonNegative,
  merchantLedgerAccount,
} from '../ledger/ledger.js';
import { type Currency, Decimal, scaleOf } from '../money/money.js';
import { eventIdOf } from '../webhooks/webhook-envelope.js';
import { decide, type Effect, start } from './effects.js';
import {
  allowedPayoutCombinations,
  isFinalPayout,
  type PayoutChanges,
  type PayoutEvent,
  type PayoutInput,
  type PayoutSnapshot,
  type PayoutStateKey,
  type PayoutStatusPair,
  payoutChargesOf,
  payoutMachine,
  payoutRefusalKeyOf,
  payoutRefusalOf,
  payoutStateKeyOf,
  payoutStatePairOf,
  payoutStatusOf,
  persistPayout,
  restorePayout,
} from './payout.machine.js';
import { effectsIn } from './step-equivalence.test-support.js';

const T0 = 1_700_000_000;
/** About 2 s at 1000 runs; the margin covers a CPU shared with other suites. */
const propertyTimeout = 30_000;

/** A minor-unit count as a decimal string at the currency's scale. */
const asAmount = (units: number, currency: Currency): string =>
  new Decimal(units).dividedBy(10 ** scaleOf(currency)).toFixed(scaleOf(currency));

/** Valid (amount, fee) pairs: the fee stays below the amount, so either bearer is valid. */
const amountAndFee = (currency: Currency) =>
  fc
    .tuple(fc.integer({ min: 2, max: 50_000 }), fc.integer({ min: 0, max: 100 }))
    .map(([units, feePercent]) => ({
      amount: asAmount(units, currency),
      fee: asAmount(Math.floor(((units - 1) * feePercent) / 100), currency),
    }));

const verification = fc.record({
  beneficiary_name: fc.constantFrom('Ada', 'Grace'),
  network_code: fc.constant('WALLETA'),
  account_type: fc.constantFrom(null, 'personal'),
  beneficiary_account: fc.record({
    network_code: fc.constant('WALLETA'),
    display_name: fc.constantFrom(null, 'main'),
    fields_masked: fc.constantFrom({ walleta_email: 'a***@x.io' }, { walleta_email: 'g***@x.io' }),
  }),
});

const payoutInputArb = fc.constantFrom<Currency>('USD', 'USDT').chain((currency) =>
  fc
    .record({
      money: amountAndFee(currency),
      fee_bearer: fc.constantFrom('merchant' as const, 'user' as const),
      verification_enabled: fc.boolean(),
      auto_approve: fc.boolean(),
      verification,
      submit: fc.boolean(),
    })
    .map(
      ({ money, ...rest }): PayoutInput => ({
        payout_id: 'po_p',
        account_id: 'acc_p',
        reference: 'ref-p',
        currency,
        ...money,
        notify_url: 'https://a.example/n',
        beneficiary_id: 'ben_p',
        beneficiary_account_id: 'bacc_a',
        at: T0,
        ...rest,
      }),
    ),
);

const changesArb = (currency: Currency): fc.Arbitrary<PayoutChanges> =>
  fc
    .record(
      {
        money: fc.oneof(
          amountAndFee(currency),
          fc.constant({ amount: asAmount(10_000, currency), fee: asAmount(0, currency) }),
        ),
        fee_bearer: fc.constantFrom('merchant' as const, 'user' as const),
        notify_url: fc.constantFrom('https://a.example/n', 'https://b.example/n'),
        beneficiary_account_id: fc.constantFrom('bacc_a', 'bacc_b'),
        verification,
      },
      { requiredKeys: [] },
    )
    .map(({ money, ...rest }) => ({ ...(money ?? {}), ...rest }));

/** The account's status on an event that may move money: mostly active, sometimes frozen. */
const accountStatusArb = fc.constantFrom('active' as const, 'active' as const, 'frozen' as const);

/** The events that may move money, with the account status they carry (ADR 0033). */
const moneyMovingTypes = [
  'payout.review.approve',
  'payout.verification.answered',
  'payout.execution.processing',
  'payout.execution.completed',
  'payout.execution.failed',
] as const;
type MoneyMovingEvent = Extract<PayoutEvent, { readonly type: (typeof moneyMovingTypes)[number] }>;

const isMoneyMoving = (event: PayoutEvent): event is MoneyMovingEvent =>
  moneyMovingTypes.some((type) => type === event.type);

/**
 * The oracle of ADR 0033, written out independently of the machine: an approval, a verification
 * answered `true` and every execution outcome move money, and a frozen account's payout takes
 * none of them.
 */
const movesFrozenMoney = (event: PayoutEvent): boolean =>
  isMoneyMoving(event) &&
  event.account_status === 'frozen' &&
  (event.type !== 'payout.verification.answered' || event.verified === true);

/** Where the lifecycle takes a money-moving event of an active account (docs/spec/decisions.md §2). */
const takenWhenActive: Readonly<Record<MoneyMovingEvent['type'], readonly PayoutStateKey[]>> = {
  'payout.review.approve': ['pendingReview.awaitingVerification', 'pendingReview.awaitingReview'],
  // A verification answered `true` about the current round: the probes carry no round.
  'payout.verification.answered': ['pendingReview.awaitingVerification'],
  'payout.execution.processing': ['approved.init'],
  'payout.execution.completed': ['approved.init', 'approved.processing'],
  'payout.execution.failed': ['approved.init', 'approved.processing'],
};

/** One event of any kind with a random payload; `at` is set when the sequence runs. */
const eventArb = (currency: Currency): fc.Arbitrary<PayoutEvent> =>
  fc.oneof(
    fc.record(
      {
        type: fc.constant('payout.submit' as const),
        at: fc.constant(0),
        auto_approve: fc.boolean(),
      },
      { requiredKeys: ['type', 'at'] },
    ),
    fc.record({
      type: fc.constant('payout.update' as const),
      at: fc.constant(0),
      changes: changesArb(currency),
    }),
    fc.constant({ type: 'payout.cancel' as const, at: 0 }),
    fc.record({
      type: fc.constant('payout.verification.answered' as const),
      at: fc.constant(0),
      verified: fc.constantFrom(true, false, null, null, null, null),
      attempt: fc.integer({ min: 0, max: 9 }),
      account_status: accountStatusArb,
    }),
    fc.record(
      {
        type: fc.constant('payout.review.approve' as const),
        at: fc.constant(0),
        reason: fc.constantFrom('risk', 'docs missing'),
        account_status: accountStatusArb,
      },
      { requiredKeys: ['type', 'at', 'account_status'] },
    ),
    fc.record(
      {
        type: fc.constantFrom('payout.review.return' as const, 'payout.review.reject' as const),
        at: fc.constant(0),
        reason: fc.constantFrom('risk', 'docs missing'),
      },
      { requiredKeys: ['type', 'at'] },
    ),
    // `available` is replaced by the model's real balance when the event runs.
    fc.record({
      type: fc.constantFrom(
        'payout.execution.processing' as const,
        'payout.execution.completed' as const,
      ),
      at: fc.constant(0),
      available: fc.constant(''),
      account_status: accountStatusArb,
    }),
    fc.record({
      type: fc.constant('payout.execution.failed' as const),
      at: fc.constant(0),
      reason: fc.constantFrom('upstream rejected', 'timeout'),
      account_status: accountStatusArb,
    }),
    // A completed payout coming back (ADR 0043): money in, whatever the account's status.
    fc.record({
      type: fc.constant('payout.execution.returned' as const),
      at: fc.constant(0),
      reason: fc.constantFrom('bounced by the bank', 'account closed'),
    }),
  );

/** A money-moving event of any kind; its account status is set by the property. */
const moneyMovingArb = (currency: Currency): fc.Arbitrary<MoneyMovingEvent> =>
  eventArb(currency).filter(isMoneyMoving);

const scenarioArb = payoutInputArb.chain((input) =>
  fc.record({
    input: fc.constant(input),
    /** What the merchant has available before the payout, in minor units. */
    fundedUnits: fc.integer({ min: 0, max: 120_000 }),
    events: fc.array(eventArb(input.currency), { maxLength: 30 }),
  }),
);

/** The oracle of docs/spec/decisions.md §2, written out independently of the machine. */
const expectedStatus = (pair: PayoutStatusPair): string =>
  ['processing', 'completed', 'failed', 'cancelled'].includes(pair.execution_status)
    ? pair.execution_status
    : pair.review_status;

const isAllowed = (pair: PayoutStatusPair): boolean =>
  allowedPayoutCombinations.some(
    (p) => p.review_status === pair.review_status && p.execution_status === pair.execution_status,
  );

const payoutMessages = [
  'account frozen',
  'payout not editable',
  'no changes',
  'payout already approved',
  'payout already processing',
  'payout rejected',
  'invalid payout status',
];

/** A merchant ledger in memory: what the engine would read and post within its unit of work. */
class ModelLedger {
  private readonly totals = new Map<string, Decimal>();
  readonly journalIds = new Set<string>();

  constructor(accountId: string, currency: Currency, funded: string) {
    this.totals.set(
      `${merchantLedgerAccount(accountId, 'available')}|${currency}`,
      new Decimal(funded),
    );
  }

  balance(ledgerAccount: string, currency: Currency): Decimal {
    return this.totals.get(`${ledgerAccount}|${currency}`) ?? new Decimal(0);
  }

  post(journal: Journal): void {
    expect(isBalanced(journal), journal.journalId).toBe(true);
    expect(this.journalIds.has(journal.journalId), `${journal.journalId} posted twice`).toBe(false);
    expect(keepsBalancesNonNegative(journal, (a, c) => this.balance(a, c))).toBe(true);
    this.journalIds.add(journal.journalId);
    for (const p of journal.postings) {
      const key = `${p.ledgerAccount}|${p.currency}`;
      this.totals.set(key, this.balance(p.ledgerAccount, p.currency).plus(p.amount));
    }
  }
}

const journalsOf = (effects: readonly Effect[]) =>
  effects.flatMap((e) => (e.type === 'post' ? [e.journal] : []));
const emittedOf = (effects: readonly Effect[]) =>
  effects.flatMap((e) => (e.type === 'emit' ? [e.event] : []));

/** What the engine sends: the event with its time and, for execution, the real balance. */
const concrete = (
  event: PayoutEvent,
  index: number,
  ledger: ModelLedger,
  input: PayoutInput,
): PayoutEvent => {
  const at = T0 + 10 * (index + 1);
  if (event.type === 'payout.execution.processing' || event.type === 'payout.execution.completed') {
    const available = ledger.balance(
      merchantLedgerAccount(input.account_id, 'available'),
      input.currency,
    );
    return { ...event, at, available: available.toFixed(scaleOf(input.currency)) };
  }
  return { ...event, at };
};

describe('payout machine, model-based', () => {
  it(
    "steps exactly as XState's own transition(): the same snapshots and the same effects (issue 24's cached actor scope)",
    () => {
      /** What a step decided, as the engine persists and commits it. */
      fc.assert(
        fc.property(scenarioArb, ({ input, fundedUnits, events }) => {
          const ledger = new ModelLedger(
            input.account_id,
            input.currency,
            asAmount(fundedUnits, input.currency),
          );
          const first = start(payoutMachine, input);
          const [xstateFirst, firstActions] = initialTransition(payoutMachine, input);
          expect(persistPayout(first.snapshot)).toEqual(persistPayout(xstateFirst));
          expect(first.effects).toEqual(effectsIn(firstActions));
          let snapshot = first.snapshot;
          for (const [index, generated] of events.entries()) {
            const event = concrete(generated, index, ledger, input);
            const [expected, actions] = transition(payoutMachine, snapshot, event);
            const next = decide(payoutMachine, snapshot, event);
            expect(next.changed).toBe(expected !== snapshot);
            expect(persistPayout(next.snapshot)).toEqual(persistPayout(expected));
            expect(next.effects).toEqual(effectsIn(actions));
            for (const effect of next.effects)
              if (effect.type === 'post') ledger.post(effect.journal);
            snapshot = next.snapshot;
          }
        }),
      );
    },
    propertyTimeout,
  );

  it(
    'keeps every invariant of the lifecycle and the money over random event sequences',
    () => {
      fc.assert(
        fc.property(scenarioArb, ({ input, fundedUnits, events }) => {
          const funded = asAmount(fundedUnits, input.currency);
          const ledger = new ModelLedger(input.account_id, input.currency, funded);
          const available = merchantLedgerAccount(input.account_id, 'available');
          const held = merchantLedgerAccount(input.account_id, 'held');
          const eventIds = new Set<string>();

          const check = (snapshot: PayoutSnapshot, effects: readonly Effect[]) => {
            const pair = payoutStatePairOf(snapshot);
            expect(isAllowed(pair)).toBe(true);
            expect(payoutStatusOf(snapshot)).toBe(expectedStatus(pair));
            for (const journal of journalsOf(effects)) ledger.post(journal);
            expect(ledger.balance(held, input.currency).isNegative()).toBe(false);
            expect(ledger.balance(available, input.currency).isNegative()).toBe(false);
            const emitted = emittedOf(effects);
            for (const event of emitted) {
              expect(event.revision).toBe(snapshot.context.revision);
              expect(event.data.status).toBe(
                expectedStatus(event.data as unknown as PayoutStatusPair),
              );
              // execution_fail_reason rides on failure events only, and always says why.
              expect(event.data.execution_fail_reason === undefined).toBe(
                event.data.execution_status !== 'failed',
              );
              const id = eventIdOf(event);
              expect(eventIds.has(id)).toBe(false);
              eventIds.add(id);
            }
            // The last event emitted describes where the payout came to rest.
            const last = emitted.at(-1);
            if (last !== undefined) {
              expect([last.data.review_status, last.data.execution_status]).toEqual([
                pair.review_status,
                pair.execution_status,
              ]);
            }
            if (isFinalPayout(snapshot)) {
              expect(ledger.balance(held, input.currency).isZero()).toBe(true);
              const charges = payoutChargesOf(snapshot.context);
              // Completed spends the debit; a return gives back what was sent, the fee stays.
              const spent =
                pair.execution_status !== 'completed'
                  ? new Decimal(0)
                  : payoutStateKeyOf(snapshot) === 'approved.returned'
                    ? charges.debit.value.minus(charges.credit.value)
                    : charges.debit.value;
              expect(ledger.balance(available, input.currency).toString()).toBe(
                new Decimal(funded).minus(spent).toString(),
              );
            }
          };

          const first = start(payoutMachine, input);
          expect(first.snapshot.context.revision).toBe(1);
          check(first.snapshot, first.effects);

          let snapshot = first.snapshot;
          for (const [index, generated] of events.entries()) {
            const event = concrete(generated, index, ledger, input);
            const wasFinal = isFinalPayout(snapshot);
            const stateBefore = payoutStateKeyOf(snapshot);
            const refusal = payoutRefusalOf(snapshot, event);
            const next = decide(payoutMachine, snapshot, event);

            // The refusal and the machine agree: refused exactly when the machine ignores it.
            expect(refusal === undefined).toBe(next.changed);
            if (refusal !== undefined) expect(payoutMessages).toContain(refusal.message);
            // A frozen account's payout moves no money, and says so before anything else.
            if (movesFrozenMoney(event)) {
              expect(refusal).toEqual(payrailError('account_frozen'));
            } else if (refusal !== undefined) {
              expect(refusal.key).not.toBe('account_frozen');
            }
            if (next.changed) {
              expect(next.snapshot.context.revision).toBe(snapshot.context.revision + 1);
              expect(next.snapshot.context.updated_at).toBe(event.at);
            } else {
              expect(next.snapshot).toBe(snapshot);
              expect(next.effects).toEqual([]);
            }
            // Final for the interface is final, but for one return of a completed payout.
            const returning =
              stateBefore === 'approved.completed' && event.type === 'payout.execution.returned';
            if (wasFinal && !returning) {
              expect(next.changed).toBe(false);
              expect(payoutStateKeyOf(next.snapshot)).toBe(stateBefore);
            }
            if (returning) expect(payoutStateKeyOf(next.snapshot)).toBe('approved.returned');
            check(next.snapshot, next.effects);
            snapshot = next.snapshot;
          }
        }),
      );
    },
    propertyTimeout,
  );

  it(
    'a snapshot persisted as JSON at any point continues exactly like the live one',
    () => {
      fc.assert(
        fc.property(scenarioArb, fc.nat(), ({ input, fundedUnits, events }, cutSeed) => {
          const cut = events.length === 0 ? 0 : cutSeed % events.length;
          const funded = asAmount(fundedUnits, input.currency);
          const live = new ModelLedger(input.account_id, input.currency, funded);
          const revivedLedger = new ModelLedger(input.account_id, input.currency, funded);
          let a = start(payoutMachine, input).snapshot;
          let b = a;
          for (const [index, generated] of events.entries()) {
            if (index === cut) b = restorePayout(JSON.parse(JSON.stringify(persistPayout(b))));
            const stepA = decide(payoutMachine, a, concrete(generated, index, live, input));
            const stepB = decide(
              payoutMachine,
              b,
              concrete(generated, index, revivedLedger, input),
            );
            expect(stepB.changed).toBe(stepA.changed);
            expect(stepB.effects).toEqual(stepA.effects);
            for (const j of journalsOf(stepA.effects)) live.post(j);
            for (const j of journalsOf(stepB.effects)) revivedLedger.post(j);
            a = stepA.snapshot;
            b = stepB.snapshot;
          }
          expect(b.value).toEqual(a.value);
          expect(b.context).toEqual(a.context);
        }),
      );
    },
    propertyTimeout,
  );

  it(
    'in every reachable state, for every event: can() false <=> refused with the wording table',
    () => {
      fc.assert(
        fc.property(
          scenarioArb,
          fc.array(
            payoutInputArb.chain((input) => eventArb(input.currency)),
            {
              minLength: 1,
              maxLength: 8,
            },
          ),
          ({ input, fundedUnits, events }, probes) => {
            const ledger = new ModelLedger(
              input.account_id,
              input.currency,
              asAmount(fundedUnits, input.currency),
            );
            let snapshot = start(payoutMachine, input).snapshot;
            const visit = (at: number) => {
              const state = payoutStateKeyOf(snapshot);
              for (const [index, probe] of [...probes, ...events].entries()) {
                const event = concrete(probe, at + index, ledger, input);
                const refusal = payoutRefusalOf(snapshot, event);
                if (snapshot.can(event)) {
                  expect(refusal).toBeUndefined();
                  expect(decide(payoutMachine, snapshot, event).changed).toBe(true);
                } else {
                  expect(refusal).toEqual(payrailError(payoutRefusalKeyOf(event, state)));
                  expect(decide(payoutMachine, snapshot, event).changed).toBe(false);
                }
              }
            };
            visit(0);
            for (const [index, generated] of events.entries()) {
              const step = decide(
                payoutMachine,
                snapshot,
                concrete(generated, index, ledger, input),
              );
              for (const journal of journalsOf(step.effects)) ledger.post(journal);
              snapshot = step.snapshot;
              visit(index + 1);
            }
          },
        ),
        { numRuns: 100 },
      );
    },
    propertyTimeout,
  );

  it(
    'ADR 0033: in every reachable state a frozen money-moving event is refused with `account frozen` and changes nothing; the same event of an active account goes where the lifecycle takes it',
    () => {
      fc.assert(
        fc.property(
          scenarioArb,
          fc.array(
            payoutInputArb.chain((input) => moneyMovingArb(input.currency)),
            { minLength: 1, maxLength: 8 },
          ),
          ({ input, fundedUnits, events }, probes) => {
            const ledger = new ModelLedger(
              input.account_id,
              input.currency,
              asAmount(fundedUnits, input.currency),
            );
            let snapshot = start(payoutMachine, input).snapshot;
            const visit = (at: number) => {
              const state = payoutStateKeyOf(snapshot);
              for (const [index, probe] of probes.entries()) {
                const event = concrete(probe, at + index, ledger, input);
                if (!isMoneyMoving(event)) throw new TypeError(`${event.type} moves no money`);
                const frozen: PayoutEvent = { ...event, account_status: 'frozen' };
                const active: PayoutEvent = { ...event, account_status: 'active' };
                const onFrozen = decide(payoutMachine, snapshot, frozen);
                const onActive = decide(payoutMachine, snapshot, active);
                const movesMoney =
                  event.type !== 'payout.verification.answered' || event.verified === true;
                if (movesMoney) {
                  expect(snapshot.can(frozen)).toBe(false);
                  expect(payoutRefusalOf(snapshot, frozen)).toEqual(payrailError('account_frozen'));
                  expect(onFrozen.changed).toBe(false);
                  expect(onFrozen.snapshot).toBe(snapshot);
                  expect(onFrozen.effects).toEqual([]);
                  // Active, it is taken exactly where the lifecycle takes it, or worded as before.
                  expect(onActive.changed).toBe(takenWhenActive[event.type].includes(state));
                  const refusal = payoutRefusalOf(snapshot, active);
                  if (onActive.changed) expect(refusal).toBeUndefined();
                  else expect(refusal?.key).not.toBe('account_frozen');
                } else {
                  // A verification answered `false` or undecided moves no money: frozen or not.
                  expect(onFrozen.changed).toBe(onActive.changed);
                  expect(onFrozen.snapshot.value).toEqual(onActive.snapshot.value);
                  expect(onFrozen.snapshot.context).toEqual(onActive.snapshot.context);
                  expect(onFrozen.effects).toEqual(onActive.effects);
                  expect(payoutRefusalOf(snapshot, frozen)).toEqual(
                    payoutRefusalOf(snapshot, active),
                  );
                }
              }
            };
            visit(0);
            for (const [index, generated] of events.entries()) {
              const step = decide(
                payoutMachine,
                snapshot,
                concrete(generated, index, ledger, input),
              );
              for (const journal of journalsOf(step.effects)) ledger.post(journal);
              snapshot = step.snapshot;
              visit(index + 1);
            }
          },
        ),
        { numRuns: 100 },
      );
    },
    propertyTimeout,
  );
});
