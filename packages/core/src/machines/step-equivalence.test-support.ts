/**
 * The machines' pure step (`start`/`decide` on one cached actor scope, issue 24) against
 * XState's own `initialTransition`/`transition`, which build a new actor scope per call: the
 * same persisted snapshots, the same effects, the same "ignored" answer.
 */
import { expect } from 'vitest';
import {
  type AnyStateMachine,
  type EventFromLogic,
  type InputFrom,
  initialTransition,
  type SnapshotFrom,
  transition,
} from 'xstate';
import { decide, start } from './effects.js';

const effectTypes: readonly string[] = [
  'emit',
  'post',
  'setTimer',
  'clearTimer',
  'requestExecution',
];

/** XState's executable actions that carry an effect, as plain data: `{type, ...params}`. */
export const effectsIn = (actions: readonly { type: string; params?: unknown }[]): unknown[] =>
  actions
    .filter((action) => effectTypes.includes(action.type))
    .map((action) => JSON.parse(JSON.stringify({ type: action.type, ...(action.params ?? {}) })));

/** Starts `machine` both ways and compares; answers the snapshot to step from. */
export const expectStartAsXState = <M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
): SnapshotFrom<M> => {
  const first = start(machine, input);
  const [expected, actions] = initialTransition(machine, input);
  expect(machine.getPersistedSnapshot(first.snapshot)).toEqual(
    machine.getPersistedSnapshot(expected),
  );
  expect(first.effects).toEqual(effectsIn(actions));
  return first.snapshot;
};

/** Steps `machine` from `snapshot` by `event` both ways and compares; answers the next snapshot. */
export const expectStepAsXState = <M extends AnyStateMachine>(
  machine: M,
  snapshot: SnapshotFrom<M>,
  event: EventFromLogic<M>,
): ReturnType<typeof decide<M>> => {
  const [expected, actions] = transition(machine, snapshot, event);
  const next = decide(machine, snapshot, event);
  expect(next.changed).toBe(expected !== snapshot);
  expect(machine.getPersistedSnapshot(next.snapshot)).toEqual(
    machine.getPersistedSnapshot(expected),
  );
  expect(next.effects).toEqual(effectsIn(actions));
  return next;
};
