/**
 * How a use case asks the create-time SSRF guard (`OutboundUrlGuardPort`, docs/spec/decisions.md §5) about a
 * URL of a request body. The server always passes a guard; without one only the codecs' lexical
 * rules apply.
 */
import {
  isJsonObject,
  type OutboundUrlGuardPort,
  type OutboundUrlKind,
  type PayrailError,
  payrailError,
  presentValue,
} from '@payrail/core';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { hasPermissions, type Permission } from './access-control.policy.js';

const refusalOfKind = (kind: OutboundUrlKind): PayrailError =>
  kind === 'notify_url' ? payrailError('invalid_notify_url') : payrailError('invalid_webhook_url');

/** Who asks, and the permissions the use case will require of them. */
interface UrlAsker {
  readonly caller: Caller;
  readonly permissions: readonly Permission[];
}

/**
 * The guard's verdict on `body[field]`, asked BEFORE the unit of work (DNS never holds a
 * transaction open) and applied after the codec accepted the body, so the codec's precedence of
 * errors is kept. The guard is asked only for a caller whose key holds the use case's
 * `permissions` (issue 12: a caller without them never causes a lookup; the unit of work answers
 * it `forbidden`). A field that is not a string is the codec's to judge; a guard that throws
 * refuses (fail closed).
 */
export const outboundUrlRefusal = async (
  guard: OutboundUrlGuardPort | undefined,
  body: unknown,
  field: string,
  kind: OutboundUrlKind,
  asker: UrlAsker,
): Promise<PayrailError | undefined> => {
  if (!hasPermissions(asker.caller, asker.permissions)) return undefined;
  const value = isJsonObject(body) ? presentValue(body, field) : undefined;
  if (guard === undefined || typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    return await guard.check(value, kind);
  } catch {
    return refusalOfKind(kind);
  }
};

/** The refusal of a body's `notify_url` (payouts and batches), for a caller with `permissions`. */
export const notifyUrlRefusal = (
  deps: Pick<EngineDeps, 'outboundUrlGuard'>,
  body: unknown,
  caller: Caller,
  permissions: readonly Permission[],
): Promise<PayrailError | undefined> =>
  outboundUrlRefusal(deps.outboundUrlGuard, body, 'notify_url', 'notify_url', {
    caller,
    permissions,
  });
