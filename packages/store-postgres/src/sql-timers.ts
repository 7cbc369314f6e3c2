/** Durable timers on one table, claimed like the outbox: `FOR UPDATE SKIP LOCKED` and a lease. */
import type { ClaimOptions, TimerPort, TimerRecord } from '@payrail/core';
import { type SqlSession, selectOne } from './sql-executor.js';
import type { UnitContext } from './sql-unit-of-work.js';

const timerColumns = 'timer_id, name, business_type, business_id, account_id, due_at';

const timerOf = (row: TimerRecord): TimerRecord => ({
  timer_id: row.timer_id,
  name: row.name,
  business_type: row.business_type,
  business_id: row.business_id,
  account_id: row.account_id,
  due_at: row.due_at,
});

/** Moving a timer drops its claim; setting it again at the same time keeps it. */
const setTimer = async (
  context: UnitContext,
  timers: string,
  timer: TimerRecord,
): Promise<void> => {
  const { text, params } = context.writingWork(
    `INSERT INTO ${timers} AS t (${timerColumns})
       VALUES ($1, $2, $3, $4, $5, $6::bigint)
     ON CONFLICT (timer_id) DO UPDATE SET
       name = excluded.name,
       business_type = excluded.business_type,
       business_id = excluded.business_id,
       account_id = excluded.account_id,
       due_at = excluded.due_at,
       claimed_by = CASE WHEN t.due_at = excluded.due_at THEN t.claimed_by END,
       claimed_until = CASE WHEN t.due_at = excluded.due_at THEN t.claimed_until END`,
    [
      timer.timer_id,
      timer.name,
      timer.business_type,
      timer.business_id,
      timer.account_id,
      timer.due_at,
    ],
  );
  await context.session.query(text, params);
};

const claimDue = async (
  session: SqlSession,
  timers: string,
  { worker, now, limit, leaseSeconds }: ClaimOptions,
): Promise<TimerRecord[]> => {
  if (limit <= 0) return [];
  const { rows } = await session.query<TimerRecord>(
    `WITH due AS (
       SELECT timer_id FROM ${timers}
        WHERE due_at <= $1::bigint
          AND (claimed_until IS NULL OR claimed_until <= $1::bigint)
        ORDER BY due_at, timer_id
        LIMIT $2
        FOR UPDATE SKIP LOCKED)
     UPDATE ${timers} AS t
        SET claimed_by = $3, claimed_until = $1::bigint + $4::bigint
       FROM due
      WHERE t.timer_id = due.timer_id
     RETURNING t.timer_id, t.name, t.business_type, t.business_id, t.account_id, t.due_at`,
    [now, limit, worker, leaseSeconds],
  );
  return [...rows]
    .sort((a, b) => a.due_at - b.due_at || (a.timer_id < b.timer_id ? -1 : 1))
    .map(timerOf);
};

export const sqlTimers = (context: UnitContext): TimerPort => {
  const { session } = context;
  const timers = context.table('timers');
  const selectById = `SELECT ${timerColumns} FROM ${timers} WHERE timer_id = $1`;

  return {
    set: (timer: TimerRecord) => context.run(() => setTimer(context, timers, timer)),

    clear: (timerId: string) =>
      context.run(async () => {
        await session.query(`DELETE FROM ${timers} WHERE timer_id = $1`, [timerId]);
      }),

    claimDue: (options: ClaimOptions) => context.run(() => claimDue(session, timers, options)),

    complete: (timerId: string, worker: string) =>
      context.run(async () => {
        const { rows } = await session.query(
          `DELETE FROM ${timers} WHERE timer_id = $1 AND claimed_by = $2 RETURNING 1 AS completed`,
          [timerId, worker],
        );
        return rows.length > 0;
      }),

    get: (timerId: string) => context.run(() => selectOne(session, selectById, [timerId], timerOf)),

    nextDueAt: () =>
      context.run(async () => {
        const { rows } = await session.query<{ next: number | null }>(
          `SELECT min(GREATEST(due_at, claimed_until)) AS next FROM ${timers}`,
        );
        return rows[0]?.next ?? undefined;
      }),
  };
};
