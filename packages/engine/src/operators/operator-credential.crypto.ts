/**
 * An operator's credential (ADR 0039): `<operator_id>.<secret>`, the secret 32 random bytes in
 * base64url. Only the secret's SHA-256 is stored; a presented credential is checked by hashing its
 * secret and comparing the digests in constant time. Unlike an API key it is not a JWT: nothing
 * but this service reads it, and there are no claims to carry.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const secretBytes = 32;

/** What the credential of `operatorId` is, with the hash to store. */
export const newOperatorCredential = (
  operatorId: string,
): { readonly token: string; readonly hash: string } => {
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(secretBytes))).toString(
    'base64url',
  );
  return { token: `${operatorId}.${secret}`, hash: secretHash(secret) };
};

const secretHash = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

const credentialShape = /^(opr_[A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$/;

/** The operator a presented credential names and its secret; undefined when not one at all. */
export const readOperatorCredential = (
  token: string,
): { readonly operatorId: string; readonly secret: string } | undefined => {
  const match = credentialShape.exec(token);
  return match?.[1] === undefined || match[2] === undefined
    ? undefined
    : { operatorId: match[1], secret: match[2] };
};

/** Whether `secret` hashes to `storedHash`, compared in constant time. */
export const secretMatches = (secret: string, storedHash: string): boolean => {
  const presented = Buffer.from(secretHash(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
};
