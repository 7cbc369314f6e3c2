/**
 * Webhook and notify secrets at rest (issue 19, ADR 0041): a `WebhookRecord.secret` or an
 * `AccountRecord.notify_secret` is stored sealed with AES-256-GCM under a key derived from the
 * engine's `settings.keySecret` with HKDF-SHA256 (its own info label, so it is never the key that
 * signs API key tokens). A sealed value reads `enc:v1:<base64url iv>.<base64url ciphertext+tag>`
 * with a random 12-byte IV.
 *
 * A stored value without the `enc:v1:` prefix is a secret written before secrets were sealed (or
 * a fixture) and opens as itself, so such records keep signing. A sealed value that does not open
 * (altered, or sealed under another key secret) throws: nothing is signed with a guess.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { minKeySecretBytes } from './api-key-token.crypto.js';

const sealedPrefix = 'enc:v1:';
const hkdfInfo = 'payrail secrets at rest v1';
const cipher = 'aes-256-gcm';
const keyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;

const unreadable = (): never => {
  throw new Error(
    'a stored secret could not be opened: it was sealed under another key secret, or altered',
  );
};

const keyOf = (keySecret: Uint8Array): Buffer => {
  if (!(keySecret instanceof Uint8Array) || keySecret.byteLength < minKeySecretBytes) {
    throw new Error(`settings.keySecret must be at least ${minKeySecretBytes} bytes`);
  }
  return Buffer.from(hkdfSync('sha256', keySecret, new Uint8Array(0), hkdfInfo, keyBytes));
};

/** `clear` sealed for the store under `keySecret`; a new IV each time. */
export const sealSecret = (keySecret: Uint8Array, clear: string): string => {
  const iv = randomBytes(ivBytes);
  const sealer = createCipheriv(cipher, keyOf(keySecret), iv, { authTagLength: tagBytes });
  const sealed = Buffer.concat([sealer.update(clear, 'utf8'), sealer.final(), sealer.getAuthTag()]);
  return `${sealedPrefix}${iv.toString('base64url')}.${sealed.toString('base64url')}`;
};

/** Bytes of base64url text written as `toString('base64url')` writes it; else undefined. */
const bytesOf = (text: string | undefined): Buffer | undefined => {
  if (text === undefined) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
};

/**
 * The clear secret of a stored value: a sealed one opened under `keySecret` (throws when it does
 * not open), any other as it is (written before secrets were sealed).
 */
export const openSecret = (keySecret: Uint8Array, stored: string): string => {
  if (!stored.startsWith(sealedPrefix)) return stored;
  const key = keyOf(keySecret);
  const parts = stored.slice(sealedPrefix.length).split('.');
  const iv = parts.length === 2 ? bytesOf(parts[0]) : undefined;
  const sealed = parts.length === 2 ? bytesOf(parts[1]) : undefined;
  if (
    iv === undefined ||
    sealed === undefined ||
    iv.length !== ivBytes ||
    sealed.length < tagBytes
  ) {
    return unreadable();
  }
  try {
    const opener = createDecipheriv(cipher, key, iv, { authTagLength: tagBytes });
    opener.setAuthTag(sealed.subarray(sealed.length - tagBytes));
    return Buffer.concat([
      opener.update(sealed.subarray(0, sealed.length - tagBytes)),
      opener.final(),
    ]).toString('utf8');
  } catch {
    return unreadable();
  }
};
