/**
 * The period rule of statements and reports (ADR 0045): `[start_at, end_at)`, from the period's
 * first second to the second after its last, so consecutive periods share a bound and every
 * record falls in exactly one. The ledger holds nothing after now, so a bound past now reads as
 * now + 1: a statement "to the end of the month" asked mid-month covers what was posted so far,
 * and says so in the period it answers.
 */

export interface Period {
  /** The first second of the period, inclusive. */
  readonly start_at: number;
  /** The second after the period's last, exclusive. */
  readonly end_at: number;
}

/** The period as read: both bounds at most now + 1, `start_at` never after `end_at`. */
export const periodAsRead = (requested: Period, now: number): Period => {
  const end_at = Math.min(requested.end_at, now + 1);
  return { start_at: Math.min(requested.start_at, end_at), end_at };
};
