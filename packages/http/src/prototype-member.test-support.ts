/**
 * What the `__proto__` suites share (issue 19, finding L2): the create-time URL guard they run
 * the engine with, and bodies holding members named `__proto__` as `JSON.parse` reads them.
 */
import { type OutboundUrlGuardPort, payrailError } from '@payrail/core';

/** Refuses every host under `internal.example`, as the server's guard refuses private ones. */
export const internalHostGuard: OutboundUrlGuardPort = {
  check: async (url, kind) =>
    new URL(url).hostname.endsWith('internal.example')
      ? payrailError(kind === 'webhook' ? 'invalid_webhook_url' : 'invalid_notify_url')
      : undefined,
};

/**
 * A member named `__proto__` holding `value`, as `JSON.parse` reads one: an own member, which a
 * spread (`{ ...body, ...hidden(x) }`) and `JSON.stringify` keep as a member.
 */
export const hidden = (value: unknown): Record<string, unknown> =>
  JSON.parse(`{"__proto__":${JSON.stringify(value)}}`) as Record<string, unknown>;
