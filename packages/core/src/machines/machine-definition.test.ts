import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, type AnyStateNode, and, assign, not, setup } from 'xstate';
import { acquiringOrderMachine } from './acquiring-order.machine.js';
import { cryptoBatchMachine } from './crypto-batch.machine.js';
import {
  type MachineDefinition,
  machineDefinitionOf,
  machineDefinitions,
  type StateNodeJson,
} from './machine-definition.js';
import { payoutMachine } from './payout.machine.js';

const stateNodesOf = (node: AnyStateNode): AnyStateNode[] => [
  node,
  ...(Object.values(node.states) as AnyStateNode[]).flatMap(stateNodesOf),
];

const definitionsById = (definition: StateNodeJson): Map<string, StateNodeJson> => {
  const all = (node: StateNodeJson): StateNodeJson[] => [
    node,
    ...Object.values(node.states).flatMap(all),
  ];
  return new Map(all(definition).map((node) => [node.id, node]));
};

/** Each state node's eventless transitions as the machine itself holds them. */
const alwaysOfMachine = (machine: AnyStateMachine) =>
  stateNodesOf(machine.root).map((node) => ({
    id: node.id,
    always: (node.always ?? []).map((t) => ({
      target: t.target?.map((target: AnyStateNode) => `#${target.id}`),
      guard: t.guard,
    })),
  }));

const alwaysOfDefinition = (definition: MachineDefinition, machine: AnyStateMachine) => {
  const byId = definitionsById(definition);
  return stateNodesOf(machine.root).map((node) => ({
    id: node.id,
    always: (byId.get(node.id)?.always ?? []).map((t) => ({ target: t.target, guard: t.guard })),
  }));
};

const countOf = (nodes: readonly { readonly always: readonly unknown[] }[]): number =>
  nodes.reduce((sum, node) => sum + node.always.length, 0);

describe('machineDefinitionOf', () => {
  it('has the acquiring order machine as event transitions, not a complete graph of eventless ones', () => {
    const definition = machineDefinitionOf(acquiringOrderMachine);
    const expected = alwaysOfMachine(acquiringOrderMachine);
    expect(alwaysOfDefinition(definition, acquiringOrderMachine)).toEqual(expected);
    expect(countOf(expected)).toBe(0);
    expect(definition.states.pending?.on['order.status.completed']).toEqual([
      {
        eventType: 'order.status.completed',
        source: '#acquiringOrder.pending',
        target: ['#acquiringOrder.completed'],
        guard: { type: 'derives', params: { status: 'completed' } },
        actions: [],
        reenter: false,
      },
    ]);
    const moves = new Set(
      Object.values(definition.states).flatMap((node) =>
        node.transitions.flatMap((t) => (t.target ?? []).map((to) => `${t.source} -> ${to}`)),
      ),
    );
    // a confirmed amount never goes back, and only a close closes
    expect(moves).not.toContain('#acquiringOrder.partial_paid -> #acquiringOrder.pending');
    expect(moves).not.toContain('#acquiringOrder.pending -> #acquiringOrder.underpaid');
    // from a final status only an operator's resolution moves (ADR 0044): five edges
    const resolutions = [...moves].filter((move) =>
      /#acquiringOrder\.(underpaid|expired|closed) ->/.test(move),
    );
    expect(resolutions.sort()).toEqual([
      '#acquiringOrder.closed -> #acquiringOrder.completed',
      '#acquiringOrder.expired -> #acquiringOrder.closed',
      '#acquiringOrder.expired -> #acquiringOrder.completed',
      '#acquiringOrder.underpaid -> #acquiringOrder.closed',
      '#acquiringOrder.underpaid -> #acquiringOrder.completed',
    ]);
    expect(moves.size - resolutions.length).toBeLessThan(4 * 7);
    expect(definition.states.completed?.transitions).toEqual([]);
  });

  it("has every eventless transition of the payout machine's state nodes, in order", () => {
    const definition = machineDefinitionOf(payoutMachine);
    const expected = alwaysOfMachine(payoutMachine);
    expect(alwaysOfDefinition(definition, payoutMachine)).toEqual(expected);
    expect(countOf(expected)).toBeGreaterThan(0);
    expect(definition.states.created?.always.map(({ target, guard }) => [target, guard])).toEqual([
      [['#payout.pendingReview'], 'submittedOnCreate'],
      [['#payout.draft'], undefined],
    ]);
    expect(definition.states.pendingReview?.states.screening?.always.map((t) => t.target)).toEqual([
      ['#payout.pendingReview.awaitingVerification'],
      ['#payout.approved'],
      ['#payout.pendingReview.awaitingReview'],
    ]);
  });

  it('keeps the states and evented transitions machine.toJSON() gives', () => {
    for (const machine of [payoutMachine, acquiringOrderMachine, cryptoBatchMachine]) {
      const fromXState: StateNodeJson = JSON.parse(JSON.stringify(machine.toJSON()));
      const ours = definitionsById(machineDefinitionOf(machine));
      const theirs = definitionsById(fromXState);
      expect([...ours.keys()]).toEqual([...theirs.keys()]);
      for (const [id, node] of theirs) {
        const edges = (n: StateNodeJson | undefined) =>
          n?.transitions.map((t) => [t.eventType, t.source, t.target, t.guard]);
        expect(edges(ours.get(id)), id).toEqual(edges(node));
        expect(Object.keys(ours.get(id)?.on ?? {}), id).toEqual(Object.keys(node.on));
        expect(ours.get(id)?.initial?.target, id).toEqual(node.initial?.target);
        expect(ours.get(id)?.type, id).toBe(node.type);
      }
    }
  });

  it('is plain JSON: a JSON round trip gives it back unchanged', () => {
    for (const definition of Object.values(machineDefinitions)) {
      expect(JSON.parse(JSON.stringify(definition))).toEqual(definition);
    }
  });

  it('names guards and actions given as functions, where toJSON() drops them', () => {
    const machine = setup({
      guards: { ready: () => true, paused: () => false },
    }).createMachine({
      id: 'demo',
      context: { n: 0 },
      initial: 'idle',
      states: {
        idle: {
          always: {
            guard: and(['ready', not('paused')]),
            target: 'busy',
            actions: assign({ n: 1 }),
          },
        },
        busy: {
          on: {
            'demo.stop': {
              guard: function enough() {
                return true;
              },
              target: 'idle',
            },
          },
        },
      },
    });
    const definition = machineDefinitionOf(machine);
    expect(definition.states.idle?.always).toEqual([
      {
        eventType: '',
        source: '#demo.idle',
        target: ['#demo.busy'],
        guard: { type: 'and', guards: ['ready', { type: 'not', guards: ['paused'] }] },
        actions: [{ type: 'xstate.assign' }],
        reenter: false,
      },
    ]);
    expect(definition.states.busy?.on['demo.stop']?.[0]?.guard).toEqual({ type: 'enough' });
  });
});

describe('machineDefinitions', () => {
  it("holds payrail's three machines by id", () => {
    const machines = {
      payout: payoutMachine,
      acquiringOrder: acquiringOrderMachine,
      cryptoBatch: cryptoBatchMachine,
    };
    for (const [id, machine] of Object.entries(machines)) {
      expect(machineDefinitions[id as keyof typeof machines]).toEqual(machineDefinitionOf(machine));
      expect(machineDefinitions[id as keyof typeof machines].id).toBe(id);
    }
  });
});
