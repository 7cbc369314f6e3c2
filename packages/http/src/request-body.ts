/**
 * Reads a JSON request body for the engine. An empty or unparsable body becomes `undefined`, so
 * the core's `requestBody` codec answers `request required` for every transport alike.
 */
import type { Context } from 'hono';
import { bodyTextOf } from './node-body.js';

/**
 * Whether a `__proto__` member holds what a copy could make a prototype of. `JSON.parse` keeps
 * the member as an own member, but a copy by assignment (`Object.assign`, which io-ts's codecs
 * make of an object once one of its fields decodes to a new value) runs the `__proto__` setter,
 * which takes an object, an array or null and ignores anything else.
 */
const couldBecomePrototype = (value: unknown): boolean => typeof value === 'object';

/**
 * Removes every `__proto__` member that could become a prototype, however deep (issue 19, L2):
 * once a copy made it one, its fields read as the object's own, past the checks that look at
 * the body's own members (the create-time URL guard) and into what is stored (a hidden `status`
 * made a webhook inactive). Removed, not refused, because no request defines `__proto__` and a
 * member a request does not define is ignored. Any other `__proto__` cannot become a prototype
 * and is left to the codecs like any member (a `fields` map answers `unknown field __proto__`);
 * `constructor` and `prototype` mean nothing to a copy, which keeps them as members. The walk
 * keeps a list of its own, not the call stack: a body may nest 100,000 deep (`holdsNonText`).
 */
const withoutPrototypeMembers = (parsed: unknown): unknown => {
  const pending: unknown[] = [parsed];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    const member = Object.getOwnPropertyDescriptor(value, '__proto__');
    if (member !== undefined && couldBecomePrototype(member.value)) {
      Reflect.deleteProperty(value, '__proto__');
    }
    for (const item of Object.values(value)) {
      if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
  return parsed;
};

export const readJsonBody = async (c: Context): Promise<unknown> => {
  const text = await bodyTextOf(c);
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return withoutPrototypeMembers(parsed);
};
