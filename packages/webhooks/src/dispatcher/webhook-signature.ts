/**
 * Standard Webhooks signing (docs/spec/decisions.md §5), through the `standardwebhooks` package's own
 * `Webhook#sign`, so what we send is what every Standard Webhooks library verifies:
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` with the key that
 * follows `whsec_`.
 */
import { Webhook } from 'standardwebhooks';

export type SignatureHeaders = {
  readonly 'webhook-id': string;
  /** Unix seconds, as text. */
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
};

export interface SignatureInput {
  /** `whsec_...`. */
  readonly secret: string;
  /** The event id the receiver deduplicates on. */
  readonly id: string;
  /** Unix seconds of the attempt. */
  readonly timestamp: number;
  /** The exact bytes sent. */
  readonly body: string;
}

export const signatureHeadersOf = (input: SignatureInput): SignatureHeaders => ({
  'webhook-id': input.id,
  'webhook-timestamp': String(input.timestamp),
  'webhook-signature': new Webhook(input.secret).sign(
    input.id,
    new Date(input.timestamp * 1000),
    input.body,
  ),
});
