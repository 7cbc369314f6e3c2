/**
 * What the API key check may serve from memory (ADR 0029). Every merchant request starts with the
 * key check; read from the store each time, it was a unit of work of its own (a second
 * transaction beside the use case's) plus an HMAC verification on libuv's thread pool.
 *
 * - A token's verified claims, by the token itself. A token carries no expiry (the record
 *   does), so a signature that verified once verifies forever; what a key may do is the
 *   record's to say, and that is read below.
 * - The key record and its account, by key id, for at most `ttlMs` (default 1 s). The checks
 *   that use them (status, expiry, version, whitelist, frozen account) still run on every
 *   request; only the read is saved. A rotation, a disable, a delete or an account change made
 *   through this engine is forgotten at once; made by another process on the same database,
 *   it takes effect here within `ttlMs`.
 *
 * Both maps are bounded: past `maxEntries` the oldest entry goes. Money never moves on what is
 * cached here: every use case that moves money reads the account again in its unit of work.
 */
import type { AccountRecord, ApiKeyRecord } from '@payrail/core';
import type { ApiKeyClaims } from './api-key-token.crypto.js';

export interface KeyRecords {
  readonly key: ApiKeyRecord | undefined;
  readonly account: AccountRecord | undefined;
}

export interface KeyCheckCache {
  claimsOf(token: string): ApiKeyClaims | undefined;
  rememberClaims(token: string, claims: ApiKeyClaims): void;
  recordsOf(keyId: string): KeyRecords | undefined;
  rememberRecords(keyId: string, records: KeyRecords): void;
  /** A key changed (rotated, disabled, deleted): its records are read again. */
  forgetKey(keyId: string): void;
  /** An account changed (status, settings): the records of all its keys are read again. */
  forgetAccount(accountId: string): void;
}

export interface KeyCheckCacheOptions {
  /** How long a key's records may be served from memory; 0 reads the store every time. */
  readonly ttlMs: number;
  /** A monotonic clock in milliseconds; default `performance.now`. */
  readonly nowMs?: () => number;
  /** Entries kept in each map at the most; default 10,000. */
  readonly maxEntries?: number;
}

const boundedSet = <V>(map: Map<string, V>, key: string, value: V, maxEntries: number): void => {
  map.delete(key);
  map.set(key, value);
  if (map.size > maxEntries) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
};

export const createKeyCheckCache = (options: KeyCheckCacheOptions): KeyCheckCache => {
  const { ttlMs, nowMs = () => performance.now(), maxEntries = 10_000 } = options;
  const claims = new Map<string, ApiKeyClaims>();
  const records = new Map<string, KeyRecords & { readonly readAt: number }>();
  return {
    claimsOf: (token) => claims.get(token),
    rememberClaims: (token, verified) => boundedSet(claims, token, verified, maxEntries),
    recordsOf: (keyId) => {
      const entry = records.get(keyId);
      if (entry === undefined) return undefined;
      if (nowMs() - entry.readAt < ttlMs) return entry;
      records.delete(keyId);
      return undefined;
    },
    rememberRecords: (keyId, read) => {
      if (ttlMs > 0) boundedSet(records, keyId, { ...read, readAt: nowMs() }, maxEntries);
    },
    forgetKey: (keyId) => {
      records.delete(keyId);
    },
    forgetAccount: (accountId) => {
      for (const [keyId, entry] of records) {
        if (entry.key?.account_id === accountId) records.delete(keyId);
      }
    },
  };
};
