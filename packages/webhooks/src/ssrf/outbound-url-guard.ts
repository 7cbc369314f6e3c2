/**
 * The create-time guard the engine calls through its `outboundUrlGuard` port. By default it is
 * the lexical check only: https (unless insecure webhooks are allowed), a host name, and an
 * address literal that is not loopback, private, link-local or metadata. It does no DNS: a
 * lookup on the request path costs a thread of libuv's pool per create (one domain name took
 * payout creation from 142 to 10 requests a second, docs/performance.md). A name is judged where
 * it counts, by `guardedLookup` on the address actually connected to at delivery (docs/spec/decisions.md §5),
 * which also closes the rebinding window a create-time lookup leaves open.
 *
 * `resolveNames: true` adds the create-time lookup back, for a host that prefers refusing a
 * name that resolves to a forbidden address at once over the request's latency. A name that
 * does not resolve yet is then accepted (a merchant may register a URL before its DNS is live)
 * unless `refuseUnresolvable` is set too.
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
  /** Resolve a host name at create time and refuse a forbidden address; default false. */
  readonly resolveNames?: boolean;
  /** With `resolveNames`, refuse a name that does not resolve at create time; default false. */
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
    if (!lexical.ok || lexical.address !== undefined || options.resolveNames !== true) {
      return lexical;
    }
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
