/**
 * IP addresses and CIDR ranges of API key whitelists (docs/spec/decisions.md §7), without Node's `net`: the
 * codec that validates a whitelist and the engine that matches a caller's address share one
 * reading of what an address is.
 *
 * Accepted: dotted-quad IPv4 (no leading zeros, so `010.0.0.1` is not read as octal), IPv6 in
 * any RFC 4291 text form (`::` compression, an IPv4 tail), no zone ids (`fe80::1%eth0`); a range
 * is `<address>/<prefix>` with prefix 0-32 or 0-128, host bits allowed (`10.1.2.3/8` is
 * `10.0.0.0/8`). An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is the IPv4 address, so a
 * dual-stack socket's view of a client matches the IPv4 entry an operator wrote.
 */

export interface IpAddress {
  readonly version: 4 | 6;
  readonly value: bigint;
}

export interface IpRange {
  readonly version: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
}

const bitsOf = (version: 4 | 6): number => (version === 4 ? 32 : 128);

const octet = /^(0|[1-9][0-9]{0,2})$/;

const parseIpv4 = (text: string): bigint | undefined => {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!octet.test(part)) return undefined;
    const byte = Number(part);
    if (byte > 255) return undefined;
    value = (value << 8n) | BigInt(byte);
  }
  return value;
};

const hextet = /^[0-9a-fA-F]{1,4}$/;

/** The 16-bit groups of one side of `::` (an IPv4 tail counts as two groups). */
const groupsOf = (text: string, tailAllowed: boolean): bigint[] | undefined => {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: bigint[] = [];
  for (const [i, part] of parts.entries()) {
    if (tailAllowed && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else if (hextet.test(part)) {
      groups.push(BigInt(Number.parseInt(part, 16)));
    } else {
      return undefined;
    }
  }
  return groups;
};

const parseIpv6 = (text: string): bigint | undefined => {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const [head = '', tail] = halves;
  const left = groupsOf(head, tail === undefined);
  const right = tail === undefined ? [] : groupsOf(tail, true);
  if (left === undefined || right === undefined) return undefined;
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const groups = [...left, ...Array<bigint>(tail === undefined ? 0 : missing).fill(0n), ...right];
  return groups.reduce((value, group) => (value << 16n) | group, 0n);
};

const mappedPrefix = 0xffffn << 32n;

/** `::ffff:a.b.c.d` as the IPv4 address it maps. */
const unmapped = (address: IpAddress): IpAddress =>
  address.version === 6 && address.value >> 32n === 0xffffn
    ? { version: 4, value: address.value & 0xffffffffn }
    : address;

/** An address, or `undefined` when `text` is not one. */
export const parseIpAddress = (text: string): IpAddress | undefined => {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === undefined ? undefined : unmapped({ version: 6, value });
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { version: 4, value };
};

const prefixPattern = /^(0|[1-9][0-9]{0,2})$/;

const maskOf = (version: 4 | 6, prefix: number): bigint => {
  const bits = BigInt(bitsOf(version));
  const all = (1n << bits) - 1n;
  return (all >> BigInt(prefix)) ^ all;
};

/** A CIDR range, or a single address as its /32 or /128; `undefined` when malformed. */
export const parseIpRange = (text: string): IpRange | undefined => {
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  const raw = addressText.includes(':') ? parseIpv6(addressText) : parseIpv4(addressText);
  if (raw === undefined) return undefined;
  const version: 4 | 6 = addressText.includes(':') ? 6 : 4;
  let prefix = bitsOf(version);
  if (prefixText !== undefined) {
    if (!prefixPattern.test(prefixText)) return undefined;
    prefix = Number(prefixText);
    if (prefix > bitsOf(version)) return undefined;
  }
  // A range inside ::ffff:0:0/96 is the IPv4 range it maps, like the addresses in it.
  if (version === 6 && prefix >= 96 && (raw & (((1n << 96n) - 1n) << 32n)) === mappedPrefix) {
    return { version: 4, network: raw & 0xffffffffn & maskOf(4, prefix - 96), prefix: prefix - 96 };
  }
  return { version, network: raw & maskOf(version, prefix), prefix };
};

/** Whether `text` is an address or a CIDR range a whitelist may hold. */
export const isIpRange = (text: unknown): text is string =>
  typeof text === 'string' && parseIpRange(text) !== undefined;

export const ipInRange = (address: IpAddress, range: IpRange): boolean =>
  address.version === range.version &&
  (address.value & maskOf(range.version, range.prefix)) === range.network;

/**
 * Whether `ip` is allowed by `whitelist`: an empty whitelist allows every address; otherwise the
 * address must parse and fall in one entry (an entry that does not parse matches nothing).
 */
export const isIpAllowed = (ip: string, whitelist: readonly string[]): boolean => {
  if (whitelist.length === 0) return true;
  const address = parseIpAddress(ip);
  if (address === undefined) return false;
  return whitelist.some((entry) => {
    const range = parseIpRange(entry);
    return range !== undefined && ipInRange(address, range);
  });
};
