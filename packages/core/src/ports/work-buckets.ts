/**
 * The work buckets of the outbox and the timers (ADR 0053): every message and timer carries the
 * bucket of its account, so claimers can share the work by bucket instead of all scanning every
 * account, and a claim confined to the buckets of one shard is a single-shard query once the
 * schema is distributed (docs/scaling.md). The bucket is FNV-1a (32 bits) of the account id's
 * UTF-8 bytes modulo a fixed count, computed here rather than by the database (PostgreSQL's
 * `hashtext` is not promised to stay the same across versions), so every store and every
 * payrail version files a row in the same bucket. The count never changes: rows already stored
 * keep their bucket.
 */

/** How many buckets there are; buckets are `0 .. workBucketCount - 1`. */
export const workBucketCount = 64;

const fnvOffsetBasis = 0x811c9dc5;
const fnvPrime = 0x01000193;
/** The UTF-8 bytes of one code point (the core runs without Node's or the DOM's encoders). */
const utf8Bytes = (point: number): readonly number[] => {
  if (point < 0x80) return [point];
  if (point < 0x800) return [0xc0 | (point >> 6), 0x80 | (point & 0x3f)];
  if (point < 0x10000) {
    return [0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f)];
  }
  return [
    0xf0 | (point >> 18),
    0x80 | ((point >> 12) & 0x3f),
    0x80 | ((point >> 6) & 0x3f),
    0x80 | (point & 0x3f),
  ];
};

/** FNV-1a, 32 bits, of `text`'s UTF-8 bytes. */
export const fnv1a32 = (text: string): number => {
  let hash = fnvOffsetBasis;
  for (const character of text) {
    for (const byte of utf8Bytes(character.codePointAt(0) ?? 0)) {
      hash ^= byte;
      hash = Math.imul(hash, fnvPrime) >>> 0;
    }
  }
  return hash >>> 0;
};

/** The work bucket of an account's outbox messages and timers. */
export const workBucketOf = (accountId: string): number => fnv1a32(accountId) % workBucketCount;

/** Whether a row of `accountId` falls in `buckets` (no buckets given: every bucket). */
export const inWorkBuckets = (accountId: string, buckets: readonly number[] | undefined): boolean =>
  buckets === undefined || buckets.includes(workBucketOf(accountId));
