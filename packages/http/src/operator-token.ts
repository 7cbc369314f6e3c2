/**
 * The operator token of the admin API (docs/spec/decisions.md §8), compared in constant time: both sides are
 * hashed first, so neither the content nor the length of the configured token leaks by timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export const operatorTokenMatches = (configured: string, presented: string | undefined): boolean =>
  presented !== undefined &&
  configured !== '' &&
  timingSafeEqual(digest(configured), digest(presented));
