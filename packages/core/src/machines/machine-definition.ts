/**
 * A machine's definition as plain JSON, for tools: the Mermaid diagrams of docs/machines.md,
 * visualisers, a host's own checks. It has the keys of XState's `machine.toJSON()`, plus the
 * eventless (`always`) transitions of every state node, which `toJSON()` leaves out although the
 * acquiring order machine is made of little else. Every transition, eventless or not, is written
 * the same way, and a guard or action given as a function keeps its name where `toJSON()` would
 * drop it or write `null`.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { acquiringOrderMachine } from './acquiring-order.machine.js';
import { acquiringRefundMachine } from './acquiring-refund.machine.js';
import { cryptoBatchMachine } from './crypto-batch.machine.js';
import { payoutMachine } from './payout.machine.js';

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** `'accepts'`, `{ type: 'aggregatesTo', params: { status: 'paid' } }`, or `and`/`or`/`not`. */
export type GuardJson =
  | string
  | {
      readonly type: string;
      readonly params?: JsonValue;
      readonly guards?: readonly GuardJson[];
    };

/** An action by name; `params` when they are data (params computed from context are left out). */
export interface ActionJson {
  readonly type: string;
  readonly params?: JsonValue;
}

export interface TransitionJson {
  /** The event type; `''` for an eventless (`always`) transition. */
  readonly eventType: string;
  /** `#` and the id of the state node the transition leaves. */
  readonly source: string;
  /** `#` and the id of each target; absent when the transition stays where it is. */
  readonly target?: readonly string[];
  readonly guard?: GuardJson;
  readonly actions: readonly ActionJson[];
  readonly reenter: boolean;
  readonly description?: string;
}

export interface StateNodeJson {
  /** The node's id, `machine.parent.child` unless the config names one. */
  readonly id: string;
  readonly key: string;
  readonly version?: string;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** Targets the initial child (`#id`); no target for a node without children. */
  readonly initial?: {
    readonly target: readonly string[];
    readonly source: string;
    readonly actions: readonly ActionJson[];
    readonly eventType: null;
  };
  readonly history: boolean | 'shallow' | 'deep';
  readonly states: Readonly<Record<string, StateNodeJson>>;
  /** The node's evented transitions by event type, in the order XState tries them. */
  readonly on: Readonly<Record<string, readonly TransitionJson[]>>;
  /** The same transitions as `on`, as one list. */
  readonly transitions: readonly TransitionJson[];
  /** The eventless transitions, in the order XState tries them. */
  readonly always: readonly TransitionJson[];
  readonly entry: readonly ActionJson[];
  readonly exit: readonly ActionJson[];
  readonly meta?: JsonValue;
  /** The node's place in document order. */
  readonly order: number;
  readonly invoke: readonly JsonValue[];
  readonly description?: string;
  readonly tags: readonly string[];
}

/** The root state node's definition: the whole machine. */
export type MachineDefinition = StateNodeJson;

/** `value` as JSON, or undefined for what JSON cannot say (a function, `undefined`). */
const jsonOf = (value: unknown): JsonValue | undefined => {
  const text = JSON.stringify(value);
  if (text === undefined) return undefined;
  // What JSON.parse reads from a JSON text is a JSON value (its `any` says no more).
  const json: JsonValue = JSON.parse(text);
  return json;
};

const withParams = (params: unknown): { readonly params?: JsonValue } => {
  const json = typeof params === 'function' ? undefined : jsonOf(params);
  return json === undefined ? {} : { params: json };
};

/** XState's built-in actions (`assign`, `enqueueActions`) carry their type; others a name. */
const functionName = (f: object): string => {
  const type = 'type' in f ? f.type : undefined;
  if (typeof type === 'string' && type !== '') return type;
  const name = 'name' in f ? f.name : undefined;
  return typeof name === 'string' && name !== '' ? name : 'inline';
};

/** An action or guard written as an object: `{ type, params }`. */
const objectDefinitionOf = (definition: unknown): ActionJson => {
  const object = typeof definition === 'object' && definition !== null ? definition : {};
  const type = 'type' in object ? object.type : undefined;
  const params = 'params' in object ? object.params : undefined;
  return { type: typeof type === 'string' ? type : 'inline', ...withParams(params) };
};

const actionDefinitionOf = (action: unknown): ActionJson => {
  if (typeof action === 'string') return { type: action };
  if (typeof action === 'function') return { type: functionName(action) };
  return objectDefinitionOf(action);
};

const guardDefinitionOf = (guard: unknown): GuardJson => {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    // and/or/not keep the guards they combine on the function
    const guards = 'guards' in guard ? guard.guards : undefined;
    return {
      type: functionName(guard),
      ...(Array.isArray(guards) ? { guards: guards.map(guardDefinitionOf) } : {}),
    };
  }
  return objectDefinitionOf(guard);
};

const ref = (node: AnyStateNode): string => `#${node.id}`;

const transitionDefinitionOf = (transition: AnyTransitionDefinition): TransitionJson => ({
  eventType: String(transition.eventType),
  source: ref(transition.source),
  ...(transition.target === undefined ? {} : { target: transition.target.map(ref) }),
  ...(transition.guard === undefined ? {} : { guard: guardDefinitionOf(transition.guard) }),
  actions: transition.actions.map(actionDefinitionOf),
  reenter: transition.reenter,
  ...(transition.description === undefined ? {} : { description: transition.description }),
});

const stateNodeDefinitionOf = (node: AnyStateNode): StateNodeJson => {
  const meta = jsonOf(node.meta);
  const version = node.machine.version;
  return {
    id: node.id,
    key: node.key,
    ...(version === undefined ? {} : { version }),
    type: node.type,
    ...(node.initial === undefined
      ? {}
      : {
          initial: {
            target: node.initial.target.map(ref),
            source: ref(node),
            actions: node.initial.actions.map(actionDefinitionOf),
            eventType: null,
          },
        }),
    history: node.history ?? false,
    states: Object.fromEntries(
      Object.entries(node.states).map(([key, child]) => [key, stateNodeDefinitionOf(child)]),
    ),
    on: Object.fromEntries(
      [...node.transitions].map(([eventType, transitions]) => [
        eventType,
        transitions.map(transitionDefinitionOf),
      ]),
    ),
    transitions: [...node.transitions.values()].flat().map(transitionDefinitionOf),
    always: (node.always ?? []).map(transitionDefinitionOf),
    entry: node.entry.map(actionDefinitionOf),
    exit: node.exit.map(actionDefinitionOf),
    ...(meta === undefined ? {} : { meta }),
    order: node.order,
    invoke: node.invoke.flatMap((invoke) => jsonOf(invoke) ?? []),
    ...(node.description === undefined ? {} : { description: node.description }),
    tags: [...node.tags],
  };
};

/** The machine's definition with every transition, eventless ones included, as plain JSON. */
export const machineDefinitionOf = (machine: AnyStateMachine): MachineDefinition =>
  stateNodeDefinitionOf(machine.root);

/** The definitions of payrail's machines, by machine id. */
export const machineDefinitions: Readonly<
  Record<'payout' | 'acquiringOrder' | 'acquiringRefund' | 'cryptoBatch', MachineDefinition>
> = {
  payout: machineDefinitionOf(payoutMachine),
  acquiringOrder: machineDefinitionOf(acquiringOrderMachine),
  acquiringRefund: machineDefinitionOf(acquiringRefundMachine),
  cryptoBatch: machineDefinitionOf(cryptoBatchMachine),
};
