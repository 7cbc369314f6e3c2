/**
 * Effects as data. A machine decides; it never acts. Each transition returns the effects it
 * wants carried out, and the engine commits them in one unit of work with the new snapshot:
 *
 * - `emit`: an event for the transactional outbox (a webhook, or the verification request);
 * - `post`: a ledger journal;
 * - `setTimer` / `clearTimer`: a durable timer, identified by name per business object;
 * - `requestExecution`: hand an approved payout to the payout executor port.
 *
 * In a machine each effect is a named action whose `params` are the effect minus its `type`;
 * the default implementations do nothing, and a host that runs live actors may `provide()` its
 * own. `decide` and `start` step the machine as XState's pure `transition` / `initialTransition`
 * do and read the effects off the actions it would execute, so nothing is executed in the core.
 */
import {
  type ActorScope,
  type AnyActorScope,
  type AnyStateMachine,
  createActor,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';
import type { Journal } from '../ledger/ledger.js';

export type BusinessType = 'payout' | 'acquiring' | 'acquiring_refund' | 'crypto_batch';

/** An event bound for the outbox, before it is wrapped in the webhook envelope. */
export interface DomainEvent {
  /** Dotted event type: `payout.review.approved`, `acquiring.order.updated`, ... */
  readonly eventType: string;
  readonly businessType: BusinessType;
  readonly businessId: string;
  /** The object's transition counter when the event arose: with the ids above it makes the
   *  event id deterministic, so replaying a transition yields the same event. */
  readonly revision: number;
  /** Unix seconds. */
  readonly occurredAt: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Durable timers a machine sets. (Verification retries ride on the outbox's retry schedule.) */
export type TimerName = 'order.expiry' | 'refund.execute';

export type Effect =
  | { readonly type: 'emit'; readonly event: DomainEvent }
  | { readonly type: 'post'; readonly journal: Journal }
  | {
      readonly type: 'setTimer';
      readonly timer: TimerName;
      readonly businessId: string;
      /** Unix seconds. */
      readonly dueAt: number;
    }
  | { readonly type: 'clearTimer'; readonly timer: TimerName; readonly businessId: string }
  | { readonly type: 'requestExecution'; readonly payoutId: string };

export type EffectType = Effect['type'];
export type EffectParams<T extends EffectType> = Omit<Extract<Effect, { type: T }>, 'type'>;

const effectTypes: readonly EffectType[] = [
  'emit',
  'post',
  'setTimer',
  'clearTimer',
  'requestExecution',
];

/**
 * No-op implementations of every effect action, for `setup({ actions: effectActions })`.
 * The params carry the effect; the engine reads them from `transition`'s result.
 */
export const effectActions = {
  emit: (_: unknown, _params: EffectParams<'emit'>) => {},
  post: (_: unknown, _params: EffectParams<'post'>) => {},
  setTimer: (_: unknown, _params: EffectParams<'setTimer'>) => {},
  clearTimer: (_: unknown, _params: EffectParams<'clearTimer'>) => {},
  requestExecution: (_: unknown, _params: EffectParams<'requestExecution'>) => {},
};

const isEffectType = (type: string): type is EffectType =>
  effectTypes.some((effectType) => effectType === type);

/**
 * The effect an action of an effect's type carries. XState types an action's params as
 * `unknown`; `effectActions` declares them as the effect minus its type, which is what the
 * machines give, so the action and its params are the effect (the one thing the types cannot
 * join across XState's `transition`).
 */
const effectOf = (type: EffectType, params: unknown): Effect =>
  ({ type, ...(typeof params === 'object' ? params : {}) }) as Effect;

/** Reads the effects off XState's executable actions, in the order XState would run them. */
const effectsOf = (
  actions: readonly { readonly type: string; readonly params?: unknown }[],
): readonly Effect[] =>
  actions.flatMap((action) =>
    isEffectType(action.type) ? [effectOf(action.type, action.params)] : [],
  );

export interface Decision<TMachine extends AnyStateMachine> {
  readonly snapshot: SnapshotFrom<TMachine>;
  readonly effects: readonly Effect[];
  /** False when the machine ignored the event: the snapshot is unchanged, no effect. */
  readonly changed: boolean;
}

/** An executable action as an actor scope hands it over: its type and params. */
type ExecutableAction = Parameters<AnyActorScope['actionExecutor']>[0];

/** A machine's inert actor scope, built once, and the actions of the step it is running. */
interface StepScope {
  readonly scope: AnyActorScope;
  readonly actions: ExecutableAction[];
}

const stepScopes = new WeakMap<AnyStateMachine, StepScope>();

/**
 * An inert actor scope like the one `transition` / `initialTransition` build, built once per
 * machine instead of once per step (issue 24). XState builds it on every call, with an actor and
 * a fresh actor system (about a third of a step's time, upstream issue 5632); what a step needs
 * of it is what it does with the actions, which this scope collects as `transition` does. This
 * one keeps the actor's own system, not a fresh one: its actor is never started, no action is
 * executed, and the machines invoke and spawn nothing, so nothing is ever registered in it and
 * one step leaves nothing behind for the next (a machine that spawned would need XState's fresh
 * system per step). A step is synchronous, so one scope serves every step of its machine in
 * turn. `step-equivalence.test-support.ts` pins the payout and order machines to `transition`.
 */
const stepScopeOf = (machine: AnyStateMachine): StepScope => {
  const cached = stepScopes.get(machine);
  if (cached !== undefined) return cached;
  const self = createActor(machine);
  const actions: ExecutableAction[] = [];
  const scope: ActorScope<SnapshotFrom<AnyStateMachine>, EventFromLogic<AnyStateMachine>> = {
    self,
    id: '',
    sessionId: '',
    logger: () => {},
    defer: () => {},
    emit: () => {},
    stopChild: () => {},
    system: self.system,
    actionExecutor: (action) => {
      actions.push(action);
    },
  };
  const built = { scope, actions };
  stepScopes.set(machine, built);
  return built;
};

/**
 * Runs one step on the machine's scope and answers the snapshot it reached and the actions it
 * would execute. A machine's `transition` is typed by `StateMachine`'s own parameters, which a
 * caller generic in the machine cannot name; what it returns is the machine's snapshot, as
 * XState's `transition` declares it (`SnapshotFrom<T>`), whence the one assertion.
 */
const step = <TMachine extends AnyStateMachine>(
  machine: TMachine,
  run: (scope: AnyActorScope) => unknown,
): [SnapshotFrom<TMachine>, readonly ExecutableAction[]] => {
  const { scope, actions } = stepScopeOf(machine);
  actions.length = 0;
  try {
    return [run(scope) as SnapshotFrom<TMachine>, actions.splice(0)];
  } finally {
    actions.length = 0;
  }
};

/** The initial snapshot of a machine for `input`, with the effects of entering it. */
export const start = <TMachine extends AnyStateMachine>(
  machine: TMachine,
  input: InputFrom<TMachine>,
): Decision<TMachine> => {
  const [snapshot, actions] = step(machine, (scope) => machine.getInitialSnapshot(scope, input));
  return { snapshot, effects: effectsOf(actions), changed: true };
};

/** One pure step: the next snapshot and the effects to commit with it. */
export const decide = <TMachine extends AnyStateMachine>(
  machine: TMachine,
  snapshot: SnapshotFrom<TMachine>,
  event: EventFromLogic<TMachine>,
): Decision<TMachine> => {
  const [next, actions] = step(machine, (scope) => machine.transition(snapshot, event, scope));
  return { snapshot: next, effects: effectsOf(actions), changed: next !== snapshot };
};
