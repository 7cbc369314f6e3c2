import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { machineDefinitionOf } from './machine-definition.js';
import { toMermaid } from './machine-diagram.js';

describe('toMermaid', () => {
  it('draws states, the initial state, guarded and targetless transitions and final states', () => {
    const machine = setup({ guards: { funded: () => true } }).createMachine({
      id: 'demo',
      initial: 'idle',
      states: {
        idle: {
          on: { 'demo.start': { target: 'busy', guard: 'funded' }, 'demo.touch': { actions: [] } },
        },
        busy: {
          initial: 'working',
          states: { working: { on: { 'demo.finish': '#demo.done' } } },
        },
        done: { type: 'final' },
      },
    });
    const diagram = toMermaid(machineDefinitionOf(machine));
    expect(diagram.split('\n')[0]).toBe('stateDiagram-v2');
    expect(diagram).toContain('[*] --> demo_idle');
    expect(diagram).toContain('demo_idle --> demo_busy: demo.start [funded]');
    expect(diagram).toContain('state "busy" as demo_busy {');
    expect(diagram).toContain('demo_busy_working --> demo_done: demo.finish');
    expect(diagram).toContain('demo_done --> [*]');
    expect(diagram).toContain('demo_idle --> demo_idle: demo.touch');
  });
});
