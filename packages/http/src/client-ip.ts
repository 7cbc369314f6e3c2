/**
 * The client address (docs/spec/decisions.md §7): the socket's, unless the operator configured trusted
 * proxies; only a request that arrives from one of them has its `X-Forwarded-For` read.
 */
import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';

/** Reads the address a request came from. */
export type ClientIpResolver = (c: Context) => string;

/** Where app.request() tests and unknown runtimes land: there is no socket to read. */
const fallbackAddress = '127.0.0.1';

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is `10.0.0.1`, as whitelists spell it. */
export const normalizeAddress = (address: string): string => {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(trimmed);
  return mapped?.[1] ?? trimmed;
};

interface NodeBindings {
  readonly incoming?: { readonly socket?: { readonly remoteAddress?: string } };
  readonly server?: NodeBindings;
}

/** The socket address under `@hono/node-server` (`c.env.incoming`), else `127.0.0.1`. */
export const socketAddress: ClientIpResolver = (c) => {
  const env: NodeBindings | undefined = c.env;
  const address = (env?.server ?? env)?.incoming?.socket?.remoteAddress;
  return address === undefined ? fallbackAddress : normalizeAddress(address);
};

/** A list of addresses (`10.0.0.1`) and CIDR blocks (`10.0.0.0/8`, `fd00::/8`). */
export const addressList = (entries: readonly string[]): ((address: string) => boolean) => {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.trim().split('/');
    const family = isIP(address);
    if (family === 0) throw new Error(`not an IP address or CIDR block: ${entry}`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
};

/** What a hop of `X-Forwarded-For` that names no address makes the client: matched by no list. */
export const unknownClient = 'unknown';

/**
 * The address a proxy wrote for a hop: a bare address, or one with a port (`203.0.113.9:4711`,
 * `[2001:db8::1]:443`), as some proxies append it; anything else (`unknown`, an obfuscated
 * identifier, garbage) is `undefined`.
 */
const hopAddress = (hop: string): string | undefined => {
  const bare = normalizeAddress(hop);
  if (isIP(bare) !== 0) return bare;
  const withPort = /^(?:\[([^\]]+)\]|(\d{1,3}(?:\.\d{1,3}){3}))(?::\d{1,5})?$/.exec(bare);
  const address = normalizeAddress(withPort?.[1] ?? withPort?.[2] ?? '');
  return isIP(address) === 0 ? undefined : address;
};

/**
 * With trusted proxies: walks `X-Forwarded-For` from the right (the hop nearest to us) and answers
 * the first address that is not a trusted proxy, so a client cannot spoof its address by sending
 * the header itself. A hop that names no address ends the walk: the client is `unknown`, never
 * the entry a client wrote to its left (issue 19, M3). Without trusted proxies, or from an
 * untrusted peer, the socket address.
 */
export const clientIpResolver = (
  trustedProxies: readonly string[] = [],
  socket: ClientIpResolver = socketAddress,
): ClientIpResolver => {
  if (trustedProxies.length === 0) return socket;
  const isTrusted = addressList(trustedProxies);
  return (c) => {
    const peer = socket(c);
    if (!isTrusted(peer)) return peer;
    const header = c.req.header('X-Forwarded-For');
    if (header === undefined) return peer;
    const hops = header.split(',');
    let nearest = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const address = hopAddress(hops[i] ?? '');
      if (address === undefined) return unknownClient;
      if (!isTrusted(address)) return address;
      nearest = address;
    }
    return nearest;
  };
};

/**
 * Calls `warn` once, at the first request that carries `X-Forwarded-For` or `Forwarded` from a
 * peer that is not a trusted proxy: a proxy in front that the operator did not list makes every
 * client look like the proxy, so API keys' ip_whitelist and providers' sources cannot tell them
 * apart. Only the peer's address is told, never the header (a client writes it). Afterwards a
 * request costs one flag test.
 */
export const untrustedForwardingWatch = (
  trustedProxies: readonly string[],
  socket: ClientIpResolver,
  warn: (peer: string) => void,
): ((c: Context) => void) => {
  const isTrusted = trustedProxies.length === 0 ? () => false : addressList(trustedProxies);
  let warned = false;
  return (c) => {
    if (warned) return;
    if (c.req.header('X-Forwarded-For') === undefined && c.req.header('Forwarded') === undefined) {
      return;
    }
    const peer = socket(c);
    if (isTrusted(peer)) return;
    warned = true;
    warn(peer);
  };
};
