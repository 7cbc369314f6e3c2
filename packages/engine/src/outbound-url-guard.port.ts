/**
 * The create-time SSRF check of outbound URLs (decisions §5): a port, because where a name
 * resolves is I/O and the guard lives in `@payrail/webhooks`. The server always passes one;
 * without it only the codecs' lexical rules apply. The same guard runs again on the address
 * actually connected to at delivery time.
 */
import { isJsonObject, type PayrailError, payrailError, presentValue } from '@payrail/core';

/** Which field a URL came from: it names the refusal. */
export type OutboundUrlKind = 'notify_url' | 'webhook';

export interface OutboundUrlGuardPort {
  /** `invalid notify_url` / `invalid webhook url`, or `undefined` when the URL may be stored. */
  check(url: string, kind: OutboundUrlKind): Promise<PayrailError | undefined>;
}

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
