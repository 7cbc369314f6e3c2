/**
 * The create-time guard the engine calls through its `outboundUrlGuard` port: the lexical check,
 * then where the name resolves now. A name that does not resolve yet is accepted (a merchant may
 * register a URL before its DNS is live); the check that counts is `guardedLookup` at delivery.
 */
import {
  type OutboundUrlGuardPort,
  type OutboundUrlKind,
  type PayrailError,
  payrailError,
} from '@payrail/core';
import { type GuardedLookupOptions, type HostVerdict, resolveAndCheck } from './guarded-lookup.js';
import { checkOutboundUrl, type OutboundUrlVerdict } from './outbound-url.js';

/** Which field the URL came from: it names the refusal (`invalid notify_url`, `invalid webhook url`). */
export type { OutboundUrlKind };

export interface OutboundUrlGuardOptions extends GuardedLookupOptions {
  /** Refuse a name that does not resolve at create time; default false. */
  readonly refuseUnresolvable?: boolean;
}

/** The engine's `outboundUrlGuard` port, with the verdict behind it for logs and tests. */
export interface OutboundUrlGuard extends OutboundUrlGuardPort {
  /** The catalogue error to answer, or `undefined` when the URL may be stored. */
  check(url: string, kind?: OutboundUrlKind): Promise<PayrailError | undefined>;
  /** The verdict behind `check`, with its reason (logs, tests). */
  inspect(url: string): Promise<OutboundUrlVerdict | HostVerdict>;
}

export const createOutboundUrlGuard = (options: OutboundUrlGuardOptions): OutboundUrlGuard => {
  const inspect = async (url: string): Promise<OutboundUrlVerdict | HostVerdict> => {
    const lexical = checkOutboundUrl(url, options);
    if (!lexical.ok || lexical.address !== undefined) return lexical;
    const resolved = await resolveAndCheck(lexical.host, options);
    if (!resolved.ok && resolved.reason === 'unresolvable' && options.refuseUnresolvable !== true) {
      return lexical;
    }
    return resolved.ok ? lexical : resolved;
  };
  return {
    inspect,
    check: async (url, kind = 'webhook') => {
      const verdict = await inspect(url);
      if (verdict.ok) return undefined;
      return kind === 'notify_url'
        ? payrailError('invalid_notify_url')
        : payrailError('invalid_webhook_url');
    },
  };
};
