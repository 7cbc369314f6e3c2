/**
 * API key tokens (docs/spec/decisions.md §7): compact JWTs signed with HS256 whose claims name the key, its
 * merchant, account, environment and version. A token proves only who issued it; whether the
 * key is still usable is the key record's to say (status, expiry, version, whitelist), so the
 * token carries no `exp`: expiry lives in the record, where an operator can see it.
 *
 * Reading a token tells apart the two messages of the interface:
 *  - `malformed`: not a JWT at all (not three dot-separated base64url segments, or a header or
 *    payload that is not a JSON object, or longer than 4096 characters) -> `unauthorized`;
 *  - `invalid`: a JWT, but not one of ours (an algorithm other than HS256, a signature that does
 *    not verify, a missing or mistyped claim, another issuer) -> `invalid api key token`.
 */
import { type Environment, isJsonObject } from '@payrail/core';
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';

const apiKeyTokenIssuer = 'payrail';

/** Shorter secrets make HS256 guessable; the server generates 32 random bytes. */
export const minKeySecretBytes = 32;

const maxTokenLength = 4096;

export interface ApiKeyClaims {
  /** `sub`. */
  readonly key_id: string;
  readonly merchant_id: string;
  readonly account_id: string;
  readonly env: Environment;
  /** The key record's `key_version` when the token was issued. */
  readonly ver: number;
  /** Unix seconds. */
  readonly iat: number;
}

export type TokenReading =
  | { readonly kind: 'malformed' }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'valid'; readonly claims: ApiKeyClaims };

const checkedSecret = (secret: Uint8Array | undefined): Uint8Array => {
  if (!(secret instanceof Uint8Array) || secret.byteLength < minKeySecretBytes) {
    throw new Error(`settings.keySecret must be at least ${minKeySecretBytes} bytes`);
  }
  return secret;
};

export const signApiKeyToken = async (secret: Uint8Array, claims: ApiKeyClaims): Promise<string> =>
  new SignJWT({
    merchant_id: claims.merchant_id,
    account_id: claims.account_id,
    env: claims.env,
    ver: claims.ver,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.key_id)
    .setIssuer(apiKeyTokenIssuer)
    .setIssuedAt(claims.iat)
    .sign(checkedSecret(secret));

const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

const isJwtShaped = (token: string): boolean => {
  if (token.length > maxTokenLength || !compactJws.test(token)) return false;
  try {
    return isJsonObject(decodeProtectedHeader(token)) && isJsonObject(decodeJwt(token));
  } catch {
    return false;
  }
};

const isNonEmptyString = (u: unknown): u is string => typeof u === 'string' && u !== '';

/** The claims of a verified payload (jose's `JWTPayload`: any claim may be anything). */
const claimsOf = (payload: { readonly [claim: string]: unknown }): ApiKeyClaims | undefined => {
  const { sub, merchant_id, account_id, env, ver, iat } = payload;
  if (
    !isNonEmptyString(sub) ||
    !isNonEmptyString(merchant_id) ||
    !isNonEmptyString(account_id) ||
    (env !== 'sandbox' && env !== 'live') ||
    typeof ver !== 'number' ||
    !Number.isSafeInteger(ver) ||
    ver < 1 ||
    typeof iat !== 'number'
  ) {
    return undefined;
  }
  return { key_id: sub, merchant_id, account_id, env, ver, iat };
};

/** What a presented token is; `now` (Unix seconds) is the clock jose judges time claims by. */
export const readApiKeyToken = async (
  secret: Uint8Array,
  token: string,
  now: number,
): Promise<TokenReading> => {
  const key = checkedSecret(secret);
  if (!isJwtShaped(token)) return { kind: 'malformed' };
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: apiKeyTokenIssuer,
      currentDate: new Date(now * 1000),
    });
    const claims = claimsOf(payload);
    return claims === undefined ? { kind: 'invalid' } : { kind: 'valid', claims };
  } catch {
    return { kind: 'invalid' };
  }
};
