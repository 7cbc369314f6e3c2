/**
 * What a thrown error says about itself, read without trusting its shape: Node's system errors
 * and both PostgreSQL drivers' errors carry a `code` (an errno name, a SQLSTATE), and the
 * drivers name the violated constraint in `constraint`.
 */

/** The error's `code` (`ENOENT`, `23505`, ...), when it has one. */
export const errorCodeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;

/** The constraint a PostgreSQL error names, when it names one. */
export const constraintOf = (error: unknown): string | undefined =>
  typeof error === 'object' &&
  error !== null &&
  'constraint' in error &&
  typeof error.constraint === 'string'
    ? error.constraint
    : undefined;
