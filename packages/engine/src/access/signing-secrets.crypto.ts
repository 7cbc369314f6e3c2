/**
 * Webhook signing secrets (docs/spec/decisions.md §5): `whsec_` + base64 of 24 random bytes, the form every
 * Standard Webhooks library reads. From Web Crypto, never from the id port: ids may be counters
 * in tests, secrets must never be guessable.
 */
const signingSecretBytes = 24;

export const newSigningSecret = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(signingSecretBytes));
  return `whsec_${Buffer.from(bytes).toString('base64')}`;
};
