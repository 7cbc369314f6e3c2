/**
 * Every address in a forbidden range is refused in every textual form a URL parser or a resolver
 * accepts, and the form never changes the verdict. The ranges are written out again here, apart
 * from the policy, so the policy is checked against an independent list.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from './address-policy.js';
import { resolveAndCheck } from './guarded-lookup.js';
import { checkOutboundUrl } from './outbound-url.js';

const strict = { allowInsecure: false };
const insecure = { allowInsecure: true };

// ---------------------------------------------------------------------------------------------
// IPv4

const forbiddenIpv4: readonly (readonly [base: string, prefix: number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const ipv4Value = (dotted: string): number =>
  dotted.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);

const inIpv4Range = (base: string, prefix: number) =>
  fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((host) => ipv4Value(base) + host);

const anyForbiddenIpv4 = fc.oneof(
  ...forbiddenIpv4.map(([base, prefix]) => inIpv4Range(base, prefix)),
);
const loopbackIpv4 = inIpv4Range('127.0.0.0', 8);
const anyIpv4 = fc.integer({ min: 0, max: 2 ** 32 - 1 });

const hex = (n: number): string => n.toString(16);
const octal = (n: number): string => `0${n.toString(8)}`;
const octetsOf = (v: number): [number, number, number, number] => [
  Math.floor(v / 2 ** 24),
  Math.floor(v / 2 ** 16) % 256,
  Math.floor(v / 2 ** 8) % 256,
  v % 256,
];
const percentEncoded = (text: string): string =>
  [...text].map((ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`).join('');
const fullWidth = (text: string): string =>
  [...text].map((ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0)).join('');

/** The bare address texts (what a resolver could answer) of one IPv4 address. */
const ipv4AddressTexts = (v: number): string[] => {
  const [a, b, c, d] = octetsOf(v);
  const dotted = `${a}.${b}.${c}.${d}`;
  const high = hex(Math.floor(v / 65536));
  const low = hex(v % 65536);
  return [
    dotted,
    `::ffff:${dotted}`,
    `::ffff:${high}:${low}`,
    `0:0:0:0:0:FFFF:${high.toUpperCase()}:${low.toUpperCase()}`,
    `64:ff9b::${dotted}`,
    `64:ff9b::${high}:${low}`,
    `2002:${high}:${low}::1`,
    `2002:${high}:${low}:abcd:0:0:0:1`,
  ];
};

/** The URL hosts of one IPv4 address: every spelling the WHATWG parser reads as it. */
const ipv4UrlHosts = (v: number): string[] => {
  const [a, b, c, d] = octetsOf(v);
  const dotted = `${a}.${b}.${c}.${d}`;
  return [
    dotted,
    `${dotted}.`,
    String(v),
    `0x${hex(v)}`,
    `0X${hex(v).toUpperCase()}`,
    octal(v),
    [a, b, c, d].map(octal).join('.'),
    [a, b, c, d].map((o) => `0x${hex(o)}`).join('.'),
    `${a}.${b}.${c * 256 + d}`,
    `${a}.${b * 65536 + c * 256 + d}`,
    `${a}.0x${hex(b)}.${octal(c)}.${d}`,
    percentEncoded(dotted),
    fullWidth(dotted),
    dotted.replaceAll('.', '\u3002'),
    ...ipv4AddressTexts(v)
      .slice(1)
      .map((text) => `[${text}]`),
  ];
};

const urlsOf = (host: string): string[] => [
  `https://${host}/hook`,
  `https://${host}:8443/hook?x=1`,
];

const verdictKey = (url: string, options: { allowInsecure: boolean }) => {
  const verdict = checkOutboundUrl(url, options);
  return verdict.ok ? 'ok' : verdict.reason;
};

describe('IPv4 in a forbidden range', () => {
  it('is refused in every URL spelling', () => {
    fc.assert(
      fc.property(anyForbiddenIpv4, (v) => {
        for (const host of ipv4UrlHosts(v)) {
          for (const url of urlsOf(host)) {
            expect(checkOutboundUrl(url, strict), url).toMatchObject({ ok: false });
          }
        }
      }),
    );
  });

  it('is refused as a resolved address in every text a resolver could give', () => {
    fc.assert(
      fc.property(anyForbiddenIpv4, (v) => {
        for (const text of ipv4AddressTexts(v))
          expect(isForbiddenAddress(text, strict), text).toBe(true);
      }),
    );
  });

  it('is refused when a name resolves to it, whatever else the name resolves to', async () => {
    await fc.assert(
      fc.asyncProperty(anyForbiddenIpv4, fc.nat(7), async (v, pick) => {
        const texts = ipv4AddressTexts(v);
        const text = texts[pick % texts.length] ?? '';
        const verdict = await resolveAndCheck('hooks.merchant.com', {
          allowInsecure: false,
          resolver: async () => [
            { address: '93.184.216.34', family: 4 },
            { address: text, family: text.includes(':') ? 6 : 4 },
          ],
        });
        expect(verdict).toMatchObject({ ok: false, address: text });
      }),
    );
  });

  it('has one verdict whatever the spelling, for any address', () => {
    fc.assert(
      fc.property(anyIpv4, fc.boolean(), (v, allowInsecure) => {
        const options = { allowInsecure };
        const [a, b, c, d] = octetsOf(v);
        const expected = verdictKey(`https://${a}.${b}.${c}.${d}/hook`, options);
        for (const host of ipv4UrlHosts(v)) {
          for (const url of urlsOf(host)) expect(verdictKey(url, options), url).toBe(expected);
        }
      }),
    );
  });

  it('is let through in the insecure sandbox only when it is loopback', () => {
    fc.assert(
      fc.property(loopbackIpv4, (v) => {
        for (const host of ipv4UrlHosts(v)) {
          expect(checkOutboundUrl(`http://${host}:8080/hook`, insecure), host).toMatchObject({
            ok: true,
          });
        }
      }),
    );
    fc.assert(
      fc.property(
        anyForbiddenIpv4.filter((v) => octetsOf(v)[0] !== 127),
        (v) => {
          for (const host of ipv4UrlHosts(v)) {
            expect(checkOutboundUrl(`http://${host}/hook`, insecure), host).toMatchObject({
              ok: false,
            });
          }
        },
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// IPv6

const groupsOf = (value: bigint): number[] =>
  Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(16 * (7 - i))) & 0xffffn));

const compressed = (groups: readonly number[]): string => {
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const text = groups.map(hex);
  if (best.length < 2) return text.join(':');
  return `${text.slice(0, best.start).join(':')}::${text.slice(best.start + best.length).join(':')}`;
};

const ipv6Texts = (value: bigint): string[] => {
  const groups = groupsOf(value);
  const [, , , , , , g6 = 0, g7 = 0] = groups;
  const tail = `${Math.floor(g6 / 256)}.${g6 % 256}.${Math.floor(g7 / 256)}.${g7 % 256}`;
  return [
    compressed(groups),
    compressed(groups).toUpperCase(),
    groups.map(hex).join(':'),
    groups.map((g) => hex(g).padStart(4, '0')).join(':'),
    `${groups.slice(0, 6).map(hex).join(':')}:${tail}`,
  ];
};

const inIpv6Range = (base: bigint, prefix: number) =>
  fc.bigInt({ min: 0n, max: (1n << BigInt(128 - prefix)) - 1n }).map((host) => base + host);

const forbiddenIpv6 = fc.oneof(
  fc.constantFrom(0n, 1n),
  inIpv6Range(0xfe80n << 112n, 10),
  inIpv6Range(0xfc00n << 112n, 7),
  inIpv6Range(0xff00n << 112n, 8),
  inIpv6Range(0x20010db8n << 96n, 32),
  inIpv6Range(0x2001n << 112n, 23),
  inIpv6Range(0x3fffn << 112n, 20),
  // outside global unicast 2000::/3 (and away from the mapped and NAT64 ranges under ::/16)
  fc
    .tuple(
      fc.oneof(fc.integer({ min: 0x0100, max: 0x1fff }), fc.integer({ min: 0x4000, max: 0xffff })),
      fc.bigInt({ min: 0n, max: (1n << 112n) - 1n }),
    )
    .map(([top, rest]) => (BigInt(top) << 112n) | rest),
);

describe('IPv6 in a forbidden range', () => {
  it('is refused in every spelling, as a URL host and as a resolved address', () => {
    fc.assert(
      fc.property(forbiddenIpv6, (value) => {
        for (const text of ipv6Texts(value)) {
          expect(isForbiddenAddress(text, strict), text).toBe(true);
          for (const url of urlsOf(`[${text}]`)) {
            expect(checkOutboundUrl(url, strict), url).toMatchObject({ ok: false });
          }
        }
      }),
    );
  });

  it('has one verdict whatever the spelling, for any address', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
        fc.boolean(),
        (value, allowInsecure) => {
          const options = { allowInsecure };
          const [first = '', ...others] = ipv6Texts(value);
          const expected = verdictKey(`https://[${first}]/`, options);
          expect(isForbiddenAddress(first, options)).toBe(expected !== 'ok');
          for (const text of others) {
            expect(verdictKey(`https://[${text}]/`, options), text).toBe(expected);
            expect(isForbiddenAddress(text, options), text).toBe(expected !== 'ok');
          }
        },
      ),
    );
  });
});
