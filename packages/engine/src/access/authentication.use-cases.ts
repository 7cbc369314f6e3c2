/**
 * `auth.authenticate`: a presented token against its key record (interface "Authentication",
 * docs/spec/decisions.md §1 and §7). The checks run in this order and the first failure answers:
 *
 *  1. no token, or a blank one                                  -> `unauthorized`
 *  2. not a JWT at all (see api-key-token.crypto.ts)                   -> `unauthorized`
 *  3. a JWT that is not one of ours (signature, alg, claims)    -> `invalid api key token`
 *  4. the token names the other environment                     -> `api key not found`
 *  5. no key record, a deleted one, or one of the other env     -> `api key not found`
 *  6. the record names another merchant or account than the token -> `invalid api key token`
 *  7. the key is disabled                                       -> `api key disabled`
 *  8. now >= expires_at                                         -> `api key expired`
 *  9. the token's `ver` is not the record's key_version (rotated) -> `api key version mismatch`
 * 10. the key's account does not exist                          -> `account not found`
 * 11. the whitelist is not empty and the address is outside it  -> `ip not allowed: <ip>`, or
 *     `ip not allowed` when the address seen is not an IP address (nothing to show)
 * 12. the account is frozen                                     -> `account frozen`
 *
 * Every 401 (credential missing or bad) comes before every 403 (credential fine, access
 * refused), as docs/spec/decisions.md §1 sorts them. The token is never logged or echoed. Checks 2-3 and the
 * records behind 5-12 may come from the `KeyCheckCache` (ADR 0029); the checks themselves run on
 * every request.
 */
import { type AccountRecord, isIpAllowed, parseIpAddress, payrailError } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { type Outcome, unitOfWork } from '../command/command.handler.js';
import type { AuthenticationRequest, Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { type ApiKeyClaims, readApiKeyToken } from './api-key-token.crypto.js';
import type { KeyCheckCache, KeyRecords } from './key-check.cache.js';

const callerOf = (
  key: { readonly key_id: string; readonly permissions: readonly string[] },
  account: AccountRecord,
  env: Caller['env'],
): Caller => ({
  merchant_id: account.merchant_id,
  account_id: account.account_id,
  key_id: key.key_id,
  permissions: [...key.permissions],
  env,
  account,
});

/** The store's word on a key and its account, in one unit of work. */
const readRecords = (deps: EngineDeps, keyId: string): Promise<Outcome<KeyRecords>> =>
  unitOfWork(deps.store, async (tx) => {
    const key = await tx.apiKeys.get(keyId);
    const account =
      key === undefined ? undefined : await tx.accounts.get(key.account_id, key.merchant_id);
    return { key, account };
  });

/** Checks 5-12 on the records, in the order the header lists them. */
const callerFrom = (
  { key, account }: KeyRecords,
  claims: ApiKeyClaims,
  request: { readonly ip: string; readonly now: number; readonly environment: Caller['env'] },
): Outcome<Caller> => {
  const { ip, now, environment } = request;
  if (key === undefined || key.status === 'deleted' || key.env !== environment) {
    return E.left(payrailError('api_key_not_found'));
  }
  if (key.merchant_id !== claims.merchant_id || key.account_id !== claims.account_id) {
    return E.left(payrailError('invalid_api_key_token'));
  }
  if (key.status === 'disabled') return E.left(payrailError('api_key_disabled'));
  if (now >= key.expires_at) return E.left(payrailError('api_key_expired'));
  if (claims.ver !== key.key_version) return E.left(payrailError('api_key_version_mismatch'));
  if (account === undefined || account.merchant_id !== key.merchant_id) {
    return E.left(payrailError('account_not_found'));
  }
  if (!isIpAllowed(ip, key.ip_whitelist)) {
    return E.left(
      parseIpAddress(ip) === undefined
        ? payrailError('ip_not_allowed')
        : payrailError('ip_not_allowed_seen', { ip }),
    );
  }
  if (account.status === 'frozen') return E.left(payrailError('account_frozen'));
  return E.right(callerOf(key, account, environment));
};

export const authenticator =
  (deps: EngineDeps, cache: KeyCheckCache) =>
  async ({ token, ip }: AuthenticationRequest): Promise<Outcome<Caller>> => {
    const environment = deps.settings.environment;
    if (token === undefined || token.trim() === '') return E.left(payrailError('unauthorized'));
    const now = deps.clock.now();
    let claims = cache.claimsOf(token);
    if (claims === undefined) {
      const reading = await readApiKeyToken(deps.settings.keySecret, token, now);
      if (reading.kind === 'malformed') return E.left(payrailError('unauthorized'));
      if (reading.kind === 'invalid') return E.left(payrailError('invalid_api_key_token'));
      claims = reading.claims;
      cache.rememberClaims(token, claims);
    }
    if (claims.env !== environment) return E.left(payrailError('api_key_not_found'));
    let records = cache.recordsOf(claims.key_id);
    if (records === undefined) {
      const read = await readRecords(deps, claims.key_id);
      if (E.isLeft(read)) return read;
      records = read.right;
      if (records.key !== undefined) cache.rememberRecords(claims.key_id, records);
    }
    return callerFrom(records, claims, { ip, now, environment });
  };
