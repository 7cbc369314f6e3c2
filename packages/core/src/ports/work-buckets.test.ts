/**
 * The work bucket of an account is stored with every outbox message and timer, so it must never
 * change: FNV-1a is pinned by its published test values, and a few accounts' buckets by value.
 */
import { describe, expect, it } from 'vitest';
import { fnv1a32, inWorkBuckets, workBucketCount, workBucketOf } from './work-buckets.js';

describe('work buckets', () => {
  it('hash with FNV-1a 32 (its reference values)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    expect(fnv1a32('é€😀')).toBe(0x04a2e806);
  });

  it('file an account in the same bucket for good', () => {
    expect(workBucketCount).toBe(64);
    expect(['acc_1', 'acc_2', 'scope_a', 'é'].map(workBucketOf)).toEqual([42, 23, 7, 1]);
  });

  it('spread accounts over every bucket', () => {
    const seen = new Set(Array.from({ length: 2000 }, (_, i) => workBucketOf(`acc_${i}`)));
    expect(seen.size).toBe(workBucketCount);
  });

  it('select rows by bucket; no buckets selects all', () => {
    const bucket = workBucketOf('acc_1');
    expect(inWorkBuckets('acc_1', [bucket])).toBe(true);
    expect(inWorkBuckets('acc_1', [(bucket + 1) % workBucketCount])).toBe(false);
    expect(inWorkBuckets('acc_1', [])).toBe(false);
    expect(inWorkBuckets('acc_1', undefined)).toBe(true);
  });
});
