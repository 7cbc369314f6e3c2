/** A versioned schema change: applied once per schema, in id order, recorded in `payrail_migrations`. */
export interface Migration {
  /** `NNNN-title`, sorting in the order migrations apply. */
  readonly id: string;
  /** Plain SQL run with `search_path` set to the store's schema. */
  readonly sql: string;
}
