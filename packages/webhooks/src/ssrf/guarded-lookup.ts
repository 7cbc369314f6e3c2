/**
 * The DNS half of the SSRF guard. `guardedLookup` replaces `dns.lookup` on the socket that
 * delivers a webhook (`http(s).request({ lookup })`, undici's `connect: { lookup }`): the
 * addresses it hands to the socket are the ones it checked, so a name that resolves to a public
 * address at create time and to 127.0.0.1 a second later (DNS rebinding) is still refused.
 *
 * Node connects to an IP-literal host without calling `lookup`; those are judged by
 * `checkOutboundUrl`, which the dispatcher runs before every attempt.
 */
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { parseIpAddress } from '@payrail/core';
import { type AddressPolicyOptions, addressRefusal } from './address-policy.js';
import { nameRefusal, type OutboundUrlRefusal } from './outbound-url.js';

/** Resolves a name to every address it has, like `dns.lookup(name, { all: true })`. */
export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface GuardedLookupOptions extends AddressPolicyOptions {
  /** Tests inject a fake; default `dns.promises.lookup(name, { all: true })` (hosts file included). */
  readonly resolver?: HostResolver;
  /** A resolution slower than this counts as unresolvable; default 5000 ms. */
  readonly timeoutMs?: number;
}

export type HostRefusal = OutboundUrlRefusal | 'not_an_address' | 'unresolvable';

export type HostVerdict =
  | { readonly ok: true; readonly host: string; readonly addresses: readonly LookupAddress[] }
  | {
      readonly ok: false;
      readonly reason: HostRefusal;
      readonly detail: string;
      /** The forbidden address the host resolved to, when that is the reason. */
      readonly address?: string;
    };

export const systemResolver: HostResolver = (hostname) =>
  dns.lookup(hostname, { all: true, verbatim: true });

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`DNS lookup timed out after ${ms} ms`)), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

const familyOf = (address: string): 4 | 6 => (address.includes(':') ? 6 : 4);

/**
 * Resolves `host` (a name or an IP literal, brackets and a trailing dot allowed) and judges every
 * address it resolves to: refused when any one of them is forbidden, or when it does not resolve.
 */
export const resolveAndCheck = async (
  host: string,
  options: GuardedLookupOptions,
): Promise<HostVerdict> => {
  const bare = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host)
    .toLowerCase()
    .replace(/\.+$/, '');
  const literal = parseIpAddress(bare.split('%')[0] ?? bare);
  if (literal === undefined) {
    const refusal = nameRefusal(bare, options);
    if (refusal !== undefined) return { ok: false, ...refusal };
  }
  let addresses: readonly LookupAddress[];
  if (literal !== undefined) {
    addresses = [{ address: bare, family: familyOf(bare) }];
  } else {
    try {
      addresses = await withTimeout(
        (options.resolver ?? systemResolver)(bare),
        options.timeoutMs ?? 5000,
      );
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { ok: false, reason: 'unresolvable', detail: `${bare} does not resolve: ${why}` };
    }
  }
  if (addresses.length === 0) {
    return { ok: false, reason: 'unresolvable', detail: `${bare} has no address` };
  }
  for (const { address } of addresses) {
    const reason = addressRefusal(address, options);
    if (reason !== undefined) {
      const what = reason === 'not_an_address' ? 'not an address' : `${reason} address`;
      return { ok: false, reason, detail: `${bare} resolves to ${address} (${what})`, address };
    }
  }
  return { ok: true, host: bare, addresses };
};

/** The error a refused connection fails with; `outboundRefusalOf` finds it under fetch's causes. */
export class OutboundTargetRefusedError extends Error {
  readonly code = 'ERR_PAYRAIL_OUTBOUND_REFUSED';
  constructor(
    readonly hostname: string,
    readonly reason: HostRefusal,
    readonly detail: string,
  ) {
    super(`outbound connection refused: ${detail}`);
    this.name = 'OutboundTargetRefusedError';
  }
}

/** The guard's refusal inside `error` or its `cause` chain (undici wraps connect errors). */
export const outboundRefusalOf = (error: unknown): OutboundTargetRefusedError | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof OutboundTargetRefusedError) return current;
    current = typeof current === 'object' && 'cause' in current ? current.cause : undefined;
  }
  return undefined;
};

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The shape `net.connect`, `http.request` and undici's `connect` accept as `lookup`. */
export type GuardedLookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: LookupCallback,
) => void;

const wantedFamily = (family: LookupOptions['family']): 0 | 4 | 6 => {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
};

/**
 * A `dns.lookup` replacement that resolves with `resolveAndCheck` and fails the connection with
 * `OutboundTargetRefusedError` when the name resolves to any forbidden address (or to none).
 */
export const guardedLookup =
  (options: GuardedLookupOptions): GuardedLookupFunction =>
  // `dns.lookup(hostname, callback)` is a caller's other form: the options may be the callback.
  (hostname, lookupOptions: LookupOptions | LookupCallback, callback: LookupCallback) => {
    const opts: LookupOptions = typeof lookupOptions === 'object' ? lookupOptions : {};
    const done = typeof lookupOptions === 'function' ? lookupOptions : callback;
    const fail = (error: NodeJS.ErrnoException) => done(error, opts.all === true ? [] : '', 0);
    resolveAndCheck(hostname, options).then(
      (verdict) => {
        if (!verdict.ok) {
          fail(new OutboundTargetRefusedError(hostname, verdict.reason, verdict.detail));
          return;
        }
        const family = wantedFamily(opts.family);
        const usable = verdict.addresses.filter((a) => family === 0 || a.family === family);
        const first = usable[0];
        if (first === undefined) {
          fail(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
              code: 'ENOTFOUND',
              hostname,
            }),
          );
        } else if (opts.all === true) {
          done(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          done(null, first.address, first.family);
        }
      },
      (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
    );
  };
