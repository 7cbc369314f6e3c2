/** Time and ids come from ports, so the core and the engine stay deterministic under test. */
export interface Clock {
  /** Unix seconds. */
  now(): number;
}

export interface IdGenerator {
  /** A new unique id with a readable prefix: `po_...`, `ord_...`. */
  next(prefix: string): string;
}
