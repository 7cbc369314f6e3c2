/**
 * Which IP addresses an outbound webhook may connect to (docs/spec/decisions.md §5, docs/webhooks.md "Where
 * webhooks may be sent"). IPv4 is an allow-by-default list of special-purpose ranges that are
 * refused; IPv6 is allowed only inside global unicast 2000::/3, minus its special ranges, and the
 * IPv4 address embedded in an IPv4-mapped, NAT64 or 6to4 address is judged as that IPv4 address.
 *
 * The sandbox with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 (`allowInsecure`) lets loopback through and
 * nothing else: a receiver on the developer's own machine, never the metadata service, a LAN or a
 * container network.
 */
import { type IpAddress, ipInRange, parseIpAddress, parseIpRange } from '@payrail/core';

/** Why an address (or a host naming one) is refused; stable words for logs and tests. */
export type AddressClass =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'this_network'
  | 'broadcast'
  | 'reserved'
  | 'unique_local'
  | 'documentation'
  | 'benchmarking'
  | 'metadata'
  | 'not_global';

export interface AddressPolicyOptions {
  /** Sandbox with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1: loopback targets are allowed. */
  readonly allowInsecure: boolean;
}

type Rule = readonly [range: string, cls: AddressClass];

const rangesOf = (rules: readonly Rule[]) =>
  rules.map(([text, cls]) => {
    const range = parseIpRange(text);
    if (range === undefined) throw new Error(`bad range in the SSRF policy: ${text}`);
    return { range, cls };
  });

/** Most specific first: the first match names the class. */
const ipv4Rules = rangesOf([
  ['169.254.169.254/32', 'metadata'], // AWS, GCP, Azure, OCI, DigitalOcean instance metadata
  ['100.100.100.200/32', 'metadata'], // Alibaba Cloud instance metadata
  ['0.0.0.0/32', 'unspecified'],
  ['255.255.255.255/32', 'broadcast'],
  ['0.0.0.0/8', 'this_network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // 6to4 relay anycast, deprecated
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

/** Checked before the global-unicast rule, so that these name their class. */
const ipv6Rules = rangesOf([
  ['fd00:ec2::254/128', 'metadata'], // AWS instance metadata over IPv6
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'private'], // deprecated site-local
  ['fc00::/7', 'unique_local'],
  ['ff00::/8', 'multicast'],
  ['64:ff9b:1::/48', 'private'], // local-use NAT64
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['2001::/23', 'reserved'], // IETF protocol assignments: Teredo, ORCHID, benchmarking, ...
]);

const globalUnicast = parseIpRange('2000::/3');
const nat64 = parseIpRange('64:ff9b::/96');
const sixToFour = parseIpRange('2002::/16');

/** The IPv4 address a NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:AABB:CCDD::`) address carries. */
const embeddedIpv4 = (address: IpAddress): IpAddress | undefined => {
  if (address.version !== 6) return undefined;
  if (nat64 !== undefined && ipInRange(address, nat64)) {
    return { version: 4, value: address.value & 0xffffffffn };
  }
  if (sixToFour !== undefined && ipInRange(address, sixToFour)) {
    return { version: 4, value: (address.value >> 80n) & 0xffffffffn };
  }
  return undefined;
};

/**
 * The class that makes `address` unfit as a webhook target, or `undefined` for a public address.
 * An IPv4-mapped IPv6 address arrives here already as IPv4 (the core's parser unmaps it).
 */
export const classifyAddress = (address: IpAddress): AddressClass | undefined => {
  if (address.version === 4) return ipv4Rules.find(({ range }) => ipInRange(address, range))?.cls;
  const special = ipv6Rules.find(({ range }) => ipInRange(address, range))?.cls;
  if (special !== undefined) return special;
  const embedded = embeddedIpv4(address);
  if (embedded !== undefined) return classifyAddress(embedded);
  if (globalUnicast === undefined || !ipInRange(address, globalUnicast)) return 'not_global';
  return undefined;
};

/** The classes the sandbox's PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 lets through. */
const insecureAllowedClasses: ReadonlySet<AddressClass> = new Set(['loopback']);

/** The reason `address` is refused under `options`, or `undefined` when it may be connected to. */
export const refusalOfAddress = (
  address: IpAddress,
  options: AddressPolicyOptions,
): AddressClass | undefined => {
  const cls = classifyAddress(address);
  if (cls === undefined) return undefined;
  return options.allowInsecure && insecureAllowedClasses.has(cls) ? undefined : cls;
};

/**
 * Whether a resolved address (as `dns.lookup` or a socket reports it: dotted IPv4 or IPv6 text,
 * an optional `%zone`) must not be connected to. Text that is not an address is forbidden.
 */
export const isForbiddenAddress = (ip: string, options: AddressPolicyOptions): boolean =>
  addressRefusal(ip, options) !== undefined;

/** Like `isForbiddenAddress`, with the reason. */
export const addressRefusal = (
  ip: string,
  options: AddressPolicyOptions,
): AddressClass | 'not_an_address' | undefined => {
  const zone = ip.indexOf('%');
  const address = parseIpAddress(zone < 0 ? ip : ip.slice(0, zone));
  if (address === undefined) return 'not_an_address';
  return refusalOfAddress(address, options);
};
