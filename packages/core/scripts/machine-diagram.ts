/**
 * Renders an XState machine as a Mermaid `stateDiagram-v2`, read from the machine's own
 * definition (`machine.root`), so the diagram in docs/machines.md cannot drift from the code.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

const idOf = (node: AnyStateNode): string => node.id.replace(/[^A-Za-z0-9_]/g, '_');

const guardLabel = (guard: unknown): string => {
  if (guard === undefined) return '';
  if (typeof guard === 'string') return ` [${guard}]`;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) {
    const { type, params } = guard as { type: unknown; params?: unknown };
    const detail =
      typeof params === 'object' && params !== null
        ? Object.values(params).filter((v) => ['string', 'number', 'boolean'].includes(typeof v))
        : [];
    return ` [${String(type)}${detail.length > 0 ? `: ${detail.join(', ')}` : ''}]`;
  }
  return ' [guarded]';
};

const eventLabel = (eventType: string): string => (eventType === '' ? 'always' : eventType);

const renderTransitions = (node: AnyStateNode, indent: string, lines: string[]): void => {
  const transitions = [...node.transitions.values()].flat();
  for (const t of [...transitions, ...(node.always ?? [])]) {
    // A targetless transition (an update that stays put) is drawn as a self-loop.
    const targets = t.target ?? (String(t.eventType) === '' ? [] : [node]);
    for (const target of targets) {
      lines.push(
        `${indent}${idOf(node)} --> ${idOf(target)}: ${eventLabel(String(t.eventType))}${guardLabel(t.guard)}`,
      );
    }
  }
};

const renderChildren = (node: AnyStateNode, indent: string, lines: string[]): void => {
  const children = Object.values(node.states) as AnyStateNode[];
  const initial = node.initial?.target?.[0];
  if (initial) lines.push(`${indent}[*] --> ${idOf(initial)}`);
  for (const child of children) {
    if (Object.keys(child.states).length > 0) {
      lines.push(`${indent}state "${child.key}" as ${idOf(child)} {`);
      renderChildren(child, `${indent}  `, lines);
      lines.push(`${indent}}`);
    } else {
      lines.push(`${indent}state "${child.key}" as ${idOf(child)}`);
    }
    if (child.type === 'final') lines.push(`${indent}${idOf(child)} --> [*]`);
  }
  for (const child of children) renderTransitions(child, indent, lines);
};

export const toMermaid = (machine: AnyStateMachine): string => {
  const lines = ['stateDiagram-v2'];
  renderChildren(machine.root, '  ', lines);
  if (machine.root.transitions.size > 0) {
    // Events the machine handles in every state hang off the root, drawn as "any state".
    lines.push(`  state "any state" as ${idOf(machine.root)}`);
    renderTransitions(machine.root, '  ', lines);
  }
  return lines.join('\n');
};
