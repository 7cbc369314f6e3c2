/**
 * How a use case asks the create-time SSRF guard (`OutboundUrlGuardPort`, decisions §5) about a
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

const refusalOfKind = (kind: OutboundUrlKind): PayrailError =>
  kind === 'notify_url' ? payrailError('invalid_notify_url') : payrailError('invalid_webhook_url');

/**
 * The guard's verdict on `body[field]`, asked BEFORE the unit of work (DNS never holds a
 * transaction open) and applied after the codec accepted the body, so the codec's precedence of
 * errors is kept. A field that is not a string is the codec's to judge; a guard that throws
 * refuses (fail closed).
 */
export const outboundUrlRefusal = async (
  guard: OutboundUrlGuardPort | undefined,
  body: unknown,
  field: string,
  kind: OutboundUrlKind,
): Promise<PayrailError | undefined> => {
  const value = isJsonObject(body) ? presentValue(body, field) : undefined;
  if (guard === undefined || typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    return await guard.check(value, kind);
  } catch {
    return refusalOfKind(kind);
  }
};
