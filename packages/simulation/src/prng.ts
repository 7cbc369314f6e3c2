/**
 * The simulation's one source of randomness (ADR 0036): xoshiro128** seeded through splitmix32,
 * so a seed names one history on every machine and Node version. Nothing in a run may read
 * `Math.random`, the wall clock or Web Crypto; every choice comes from here.
 */

/** A seeded stream of choices. */
export interface Random {
  /** A whole number in [0, 2^32). */
  next(): number;
  /** A whole number in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** An independent stream, derived from this one (for ids, faults, ...). */
  fork(): Random;
}

const splitmix32 = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
};

const rotl = (x: number, k: number): number => ((x << k) | (x >>> (32 - k))) >>> 0;

export const seededRandom = (seed: number): Random => {
  const mix = splitmix32(seed);
  const s: number[] = [mix(), mix(), mix(), mix()];
  // An all-zero state would stay zero; splitmix32 never gives four zeros, but be sure.
  if (!s.some((word) => word !== 0)) s[0] = 1;
  const next = (): number => {
    const [a = 0, b = 0, c = 0, d = 0] = s;
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    const c2 = (c ^ a) >>> 0;
    const d2 = (d ^ b) >>> 0;
    s[1] = (b ^ c2) >>> 0;
    s[0] = (a ^ d2) >>> 0;
    s[2] = (c2 ^ t) >>> 0;
    s[3] = rotl(d2, 11);
    return result;
  };
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor((next() / 2 ** 32) * (max - min + 1)),
    chance: (p) => next() / 2 ** 32 < p,
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[random.int(0, items.length - 1)] as (typeof items)[number];
    },
    fork: () => seededRandom(next()),
  };
  return random;
};
