import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { testKeySecret, testNow } from './access.test-support.js';
import { type ApiKeyClaims, readApiKeyToken, signApiKeyToken } from './api-key-token.crypto.js';

const claims: ApiKeyClaims = {
  key_id: 'key_0001',
  merchant_id: 'mch_0001',
  account_id: 'acc_0001',
  env: 'sandbox',
  ver: 1,
  iat: testNow,
};

const base64url = (json: unknown): string =>
  Buffer.from(JSON.stringify(json)).toString('base64url');

/** A token signed with `secret` whose payload is exactly `payload`. */
const signed = (
  payload: Record<string, unknown>,
  secret: Uint8Array = testKeySecret,
  alg = 'HS256',
): Promise<string> => new SignJWT(payload).setProtectedHeader({ alg }).sign(secret);

const wire = {
  sub: 'key_0001',
  merchant_id: 'mch_0001',
  account_id: 'acc_0001',
  env: 'sandbox',
  ver: 1,
  iat: testNow,
  iss: 'payrail',
};

describe('signApiKeyToken', () => {
  it('signs HS256 with the claims of docs/spec/decisions.md §7', async () => {
    const token = await signApiKeyToken(testKeySecret, claims);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(decodeJwt(token)).toEqual(wire);
  });

  it('refuses a secret shorter than 32 bytes', async () => {
    await expect(signApiKeyToken(new Uint8Array(31), claims)).rejects.toThrow(/32 bytes/);
    await expect(readApiKeyToken(new Uint8Array(0), 'a.b.c', testNow)).rejects.toThrow(/32 bytes/);
  });
});

describe('readApiKeyToken', () => {
  it('reads back the claims of a token it signed', async () => {
    const token = await signApiKeyToken(testKeySecret, { ...claims, env: 'live', ver: 7 });
    expect(await readApiKeyToken(testKeySecret, token, testNow + 10 ** 8)).toEqual({
      kind: 'valid',
      claims: { ...claims, env: 'live', ver: 7 },
    });
  });

  const header = base64url({ alg: 'HS256', typ: 'JWT' });
  const payload = base64url(wire);
  it.each([
    ['an opaque string', 'sk_live_abcdef'],
    ['two segments', `${header}.${payload}`],
    ['four segments', `${header}.${payload}.c.d`],
    ['an empty header', `.${payload}.c2ln`],
    ['characters outside base64url', `${header}.${payload}.a+b/c=`],
    ['a header that is not JSON', `${base64url('x').slice(0, 2)}abc.${payload}.c2ln`],
    ['a header that is a JSON array', `${base64url([1])}.${payload}.c2ln`],
    ['a payload that is not JSON', `${header}.bm90IGpzb24.c2ln`],
    ['a payload that is a JSON string', `${header}.${base64url('hello')}.c2ln`],
    ['a token longer than 4096 characters', `${header}.${'A'.repeat(4100)}.c2ln`],
  ])('%s is malformed', async (_, token) => {
    expect(await readApiKeyToken(testKeySecret, token, testNow)).toEqual({ kind: 'malformed' });
  });

  it.each([
    ['signed with another secret', () => signed(wire, new Uint8Array(32).fill(8))],
    ['signed with HS512', () => signed(wire, testKeySecret, 'HS512')],
    ['unsigned (alg none)', async () => `${base64url({ alg: 'none' })}.${payload}.`],
    [
      'with a tampered payload',
      async () => {
        const [h, , s] = (await signed(wire)).split('.');
        return `${h}.${base64url({ ...wire, account_id: 'acc_9999' })}.${s}`;
      },
    ],
    ['of another issuer', () => signed({ ...wire, iss: 'someone' })],
    ['without an issuer', () => signed({ ...wire, iss: undefined })],
    ['without a key id', () => signed({ ...wire, sub: undefined })],
    ['with an empty key id', () => signed({ ...wire, sub: '' })],
    ['without a merchant', () => signed({ ...wire, merchant_id: undefined })],
    ['with a numeric account', () => signed({ ...wire, account_id: 42 })],
    ['of an unknown environment', () => signed({ ...wire, env: 'production' })],
    ['with a version 0', () => signed({ ...wire, ver: 0 })],
    ['with a fractional version', () => signed({ ...wire, ver: 1.5 })],
    ['with a string version', () => signed({ ...wire, ver: '1' })],
    ['without iat', () => signed({ ...wire, iat: undefined })],
    ['with an exp in the past', () => signed({ ...wire, exp: testNow - 1 })],
  ])('a JWT %s is invalid', async (_, make) => {
    expect(await readApiKeyToken(testKeySecret, await make(), testNow)).toEqual({
      kind: 'invalid',
    });
  });
});
