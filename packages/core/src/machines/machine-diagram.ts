/**
 * Renders a machine definition as a Mermaid `stateDiagram-v2`. docs/machines.md draws each
 * machine from `machineDefinitions`, so its diagrams cannot drift from the code; a host can draw
 * its own with `toMermaid(machineDefinitionOf(machine))`.
 */
import type { GuardJson, StateNodeJson, TransitionJson } from './machine-definition.js';

/** A Mermaid state name from a node id or a `#id` reference. */
const nameOf = (id: string): string => id.replace(/^#/, '').replace(/[^A-Za-z0-9_]/g, '_');

const guardLabel = (guard: GuardJson | undefined): string => {
  if (guard === undefined) return '';
  if (typeof guard === 'string') return ` [${guard}]`;
  const { type, params } = guard;
  const detail =
    typeof params === 'object' && params !== null && !Array.isArray(params)
      ? Object.values(params).filter((v) => ['string', 'number', 'boolean'].includes(typeof v))
      : [];
  return ` [${type}${detail.length > 0 ? `: ${detail.join(', ')}` : ''}]`;
};

const eventLabel = (eventType: string): string => (eventType === '' ? 'always' : eventType);

const renderTransitions = (node: StateNodeJson, indent: string, lines: string[]): void => {
  const transitions: readonly TransitionJson[] = [...node.transitions, ...node.always];
  for (const t of transitions) {
    // A targetless transition (an update that stays put) is drawn as a self-loop.
    const targets = t.target ?? (t.eventType === '' ? [] : [node.id]);
    for (const target of targets) {
      lines.push(
        `${indent}${nameOf(node.id)} --> ${nameOf(target)}: ${eventLabel(t.eventType)}${guardLabel(t.guard)}`,
      );
    }
  }
};

const renderChildren = (node: StateNodeJson, indent: string, lines: string[]): void => {
  const children = Object.values(node.states);
  const initial = node.initial?.target[0];
  if (initial) lines.push(`${indent}[*] --> ${nameOf(initial)}`);
  for (const child of children) {
    if (Object.keys(child.states).length > 0) {
      lines.push(`${indent}state "${child.key}" as ${nameOf(child.id)} {`);
      renderChildren(child, `${indent}  `, lines);
      lines.push(`${indent}}`);
    } else {
      lines.push(`${indent}state "${child.key}" as ${nameOf(child.id)}`);
    }
    if (child.type === 'final') lines.push(`${indent}${nameOf(child.id)} --> [*]`);
  }
  for (const child of children) renderTransitions(child, indent, lines);
};

/** The machine as a Mermaid state diagram, eventless transitions labelled `always`. */
export const toMermaid = (definition: StateNodeJson): string => {
  const lines = ['stateDiagram-v2'];
  renderChildren(definition, '  ', lines);
  if (definition.transitions.length > 0) {
    // Events the machine handles in every state hang off the root, drawn as "any state".
    lines.push(`  state "any state" as ${nameOf(definition.id)}`);
    renderTransitions(definition, '  ', lines);
  }
  return lines.join('\n');
};
