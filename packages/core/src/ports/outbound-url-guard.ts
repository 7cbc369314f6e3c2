/**
 * The create-time SSRF check of outbound URLs (docs/spec/decisions.md §5): a port, because where a name
 * resolves is I/O and the guard lives in `@payrail/webhooks`. Without one only the codecs'
 * lexical rules apply; the same guard runs again on the address actually connected to at delivery
 * time.
 */
import type { PayrailError } from '../errors/error-catalogue.js';

/** Which field a URL came from: it names the refusal. */
export type OutboundUrlKind = 'notify_url' | 'webhook';

export interface OutboundUrlGuardPort {
  /** `invalid notify_url` / `invalid webhook url`, or `undefined` when the URL may be stored. */
  check(url: string, kind: OutboundUrlKind): Promise<PayrailError | undefined>;
}
