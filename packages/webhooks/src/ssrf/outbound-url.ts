/**
 * The lexical half of the SSRF guard: what a webhook or notify_url may look like, judged without
 * DNS. The URL is read by the WHATWG parser, the one `fetch`, `undici` and `new URL` use, so the
 * host judged here is the host a request connects to: `http://2130706433`, `0x7f000001`,
 * `0177.0.0.1`, `127.1`, `127.0.0.1.`, `%31%32%37.0.0.1` and `[::ffff:7f00:1]` all arrive as the
 * loopback address they are. The dispatcher connects to `verdict.url`, never to the raw text.
 */
import { type IpAddress, parseIpAddress } from '@payrail/core';
import {
  type AddressClass,
  type AddressPolicyOptions,
  refusalOfAddress,
} from './address-policy.js';

export interface OutboundUrlOptions extends AddressPolicyOptions {}

/** Why a URL is refused: an address class, or a rule on the URL itself. */
export type OutboundUrlRefusal =
  | AddressClass
  | 'malformed'
  | 'scheme'
  | 'credentials'
  | 'port'
  | 'localhost'
  | 'internal_name'
  | 'forbidden_address';

export type OutboundUrlVerdict =
  | {
      readonly ok: true;
      /** The parsed URL to connect to (the WHATWG reading of the text). */
      readonly url: URL;
      /** The host without brackets or a trailing dot: a lower-case name or a canonical address. */
      readonly host: string;
      /** Present when the host is an IP literal; a name must still pass `guardedLookup`. */
      readonly address?: IpAddress;
    }
  | {
      readonly ok: false;
      readonly reason: OutboundUrlRefusal;
      /** One line for logs and the delivery record, e.g. `loopback address 127.0.0.1`. */
      readonly detail: string;
    };

/** Names that always mean the local machine or the cloud's metadata service. */
const metadataNames = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Special-use or private-use suffixes that never name a host on the public internet. */
const internalSuffixes = ['local', 'internal', 'localdomain', 'arpa', 'lan', 'intranet'];

const nameLabel = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

const refused = (reason: OutboundUrlRefusal, detail: string): OutboundUrlVerdict => ({
  ok: false,
  reason,
  detail,
});

/** The refusal of a DNS name (already lower-case, trailing dot removed), or `undefined`. */
export const nameRefusal = (
  name: string,
  options: OutboundUrlOptions,
): { readonly reason: OutboundUrlRefusal; readonly detail: string } | undefined => {
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return options.allowInsecure
      ? undefined
      : { reason: 'localhost', detail: `local name ${name}` };
  }
  if (metadataNames.has(name))
    return { reason: 'metadata', detail: `metadata service name ${name}` };
  const labels = name.split('.');
  if (name.length > 253 || !labels.every((label) => nameLabel.test(label))) {
    return { reason: 'malformed', detail: `not a DNS name: ${name}` };
  }
  // A single label resolves through the resolver's search domains: an internal host.
  if (labels.length < 2) return { reason: 'internal_name', detail: `single-label name ${name}` };
  if (internalSuffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) {
    return { reason: 'internal_name', detail: `internal name ${name}` };
  }
  return undefined;
};

const describe = (cls: AddressClass, host: string): string =>
  `${cls.replace('_', '-')} address ${host}`;

/**
 * Whether `text` may be a webhook or notify_url target, without DNS: https (http only when
 * `allowInsecure`), no credentials, a port 1-65535, a public DNS name or a public IP literal.
 * A name that passes must still resolve only to allowed addresses (`resolveAndCheck` at create
 * time, `guardedLookup` at connect time).
 */
export const checkOutboundUrl = (text: string, options: OutboundUrlOptions): OutboundUrlVerdict => {
  if (typeof text !== 'string' || text.length > 2048 || /[\s\p{Cc}\\]/u.test(text)) {
    return refused('malformed', 'not a URL');
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refused('malformed', 'not a URL');
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'https' && !(scheme === 'http' && options.allowInsecure)) {
    return refused('scheme', `scheme ${scheme} not allowed`);
  }
  if (url.username !== '' || url.password !== '' || /^[a-z][a-z0-9+.-]*:\/*[^/?#]*@/i.test(text)) {
    return refused('credentials', 'credentials in the URL');
  }
  if (url.port === '0') return refused('port', 'port 0');
  const bracketed = url.hostname.startsWith('[');
  const host = bracketed ? url.hostname.slice(1, -1) : url.hostname.replace(/\.+$/, '');
  if (host === '') return refused('malformed', 'no host');
  if (!bracketed && !/^[0-9.]+$/.test(host)) {
    const refusal = nameRefusal(host, options);
    return refusal === undefined
      ? { ok: true, url, host }
      : refused(refusal.reason, refusal.detail);
  }
  const address = parseIpAddress(host);
  if (address === undefined) return refused('malformed', `not an address: ${host}`);
  const cls = refusalOfAddress(address, options);
  return cls === undefined ? { ok: true, url, host, address } : refused(cls, describe(cls, host));
};
