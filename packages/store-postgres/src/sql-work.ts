/**
 * The work a unit of work leaves for the workers, on two tables: the transactional outbox and
 * the durable timers. Both are written with the unit's `NOTIFY` riding on the statement
 * (`writingWork`), and both are claimed alike: `FOR UPDATE SKIP LOCKED`, so several workers
 * (several server processes) share the rows without waiting on each other and never receive the
 * same row, and a claim is a lease that lapses, so a crashed worker's rows return.
 */
import type {
  ClaimOptions,
  NewOutboxMessage,
  OutboxMessage,
  OutboxPort,
  TimerPort,
  TimerRecord,
} from '@payrail/core';
import { outboxDestinationKey, workBucketCount, workBucketOf } from '@payrail/core';
import { type SqlSession, type SqlValue, selectOne } from './sql-executor.js';
import type { UnitContext } from './sql-unit-of-work.js';

// The outbox: events to deliver, each queue (destination and business object) in order.

const outboxColumns = `outbox_id, event_id, account_id, business_type, business_id, event_type,
  destination, payload, status, attempts, available_at, created_at`;

type OutboxRow = OutboxMessage & { readonly seq?: number };

/** The port's message: the row without the lease and the sequence. */
const messageOf = (row: OutboxRow): OutboxMessage => ({
  outbox_id: row.outbox_id,
  event_id: row.event_id,
  account_id: row.account_id,
  business_type: row.business_type,
  business_id: row.business_id,
  event_type: row.event_type,
  destination: row.destination,
  payload: row.payload,
  status: row.status,
  attempts: row.attempts,
  available_at: row.available_at,
  created_at: row.created_at,
});

/** Rows per INSERT: 12 parameters each stays far below PostgreSQL's 65535. */
const enqueueChunk = 500;

/** The outbox table in the unit of work's schema. */
interface OutboxTable {
  readonly context: UnitContext;
  /** The qualified table name. */
  readonly outbox: string;
  /** `o` is the oldest pending message of its queue (destination and business object). */
  readonly isQueueHead: string;
}

const outboxTableOf = (context: UnitContext): OutboxTable => {
  const outbox = context.table('outbox');
  return {
    context,
    outbox,
    isQueueHead: `NOT EXISTS (
      SELECT 1 FROM ${outbox} p
       WHERE p.status = 'pending'
         AND p.account_id = o.account_id
         AND p.bucket = o.bucket
         AND p.destination_key = o.destination_key
         AND p.business_type = o.business_type
         AND p.business_id = o.business_id
         AND (p.created_at, p.seq) < (o.created_at, o.seq))`,
  };
};

const enqueueRows = async (
  { context, outbox }: OutboxTable,
  messages: readonly NewOutboxMessage[],
): Promise<void> => {
  const params: SqlValue[] = [];
  const rows = messages.map((m) => {
    params.push(
      m.outbox_id,
      m.event_id,
      m.account_id,
      m.business_type,
      m.business_id,
      m.event_type,
      outboxDestinationKey(m.destination),
      JSON.stringify(m.destination),
      JSON.stringify(m.payload),
      m.available_at,
      m.created_at,
      workBucketOf(m.account_id),
    );
    const n = params.length - 12;
    const p = (i: number): string => `$${n + i}`;
    return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}::jsonb,
        ${p(9)}::jsonb, 'pending', 0, ${p(10)}::bigint, ${p(11)}::bigint, ${p(12)}::smallint)`;
  });
  // Rows are inserted in list order, so `seq` keeps the enqueue order.
  const written = context.writingWork(
    `INSERT INTO ${outbox} (outbox_id, event_id, account_id, business_type, business_id,
          event_type, destination_key, destination, payload, status, attempts, available_at,
          created_at, bucket)
        VALUES ${rows.join(', ')}
        ON CONFLICT DO NOTHING`,
    params,
  );
  await context.session.query(written.text, written.params);
};

const enqueue = async (
  target: OutboxTable,
  messages: readonly NewOutboxMessage[],
): Promise<void> => {
  for (let i = 0; i < messages.length; i += enqueueChunk) {
    await enqueueRows(target, messages.slice(i, i + enqueueChunk));
  }
};

/**
 * `<alias>.bucket IN (...) AND ` for a claim given buckets (the integers are checked, then
 * written into the statement, so the claim of every bucket keeps its one plan); `''` for a claim
 * given none; `undefined` when the buckets given hold none of the work buckets.
 */
const bucketCondition = (
  alias: string,
  buckets: readonly number[] | undefined,
): string | undefined => {
  if (buckets === undefined) return '';
  const valid = [...new Set(buckets)].filter(
    (bucket) => Number.isInteger(bucket) && bucket >= 0 && bucket < workBucketCount,
  );
  return valid.length === 0 ? undefined : `${alias}.bucket IN (${valid.join(', ')}) AND `;
};

/**
 * A message is claimable when it is the oldest pending one of its queue (destination and
 * business object), due, and not under an active lease. The head test reads without
 * SKIP LOCKED, so a head locked by another claimer hides its whole queue instead of letting
 * the next message overtake it; the lock then skips heads another claimer holds, and
 * PostgreSQL re-checks a row that changed meanwhile before this claim takes it.
 */
const claim = async (
  { context, outbox, isQueueHead }: OutboxTable,
  { worker, now, limit, leaseSeconds, buckets }: ClaimOptions,
): Promise<OutboxMessage[]> => {
  const inBuckets = bucketCondition('o', buckets);
  if (limit <= 0 || inBuckets === undefined) return [];
  const { rows } = await context.session.query<OutboxRow>(
    `WITH heads AS (
       SELECT o.outbox_id, o.account_id, o.bucket FROM ${outbox} o
        WHERE ${inBuckets}o.status = 'pending'
          AND o.available_at <= $1::bigint
          AND (o.claimed_until IS NULL OR o.claimed_until <= $1::bigint)
          AND ${isQueueHead}
        ORDER BY o.created_at, o.seq
        LIMIT $2
        FOR UPDATE OF o SKIP LOCKED)
     UPDATE ${outbox} AS m
        SET claimed_by = $3, claimed_until = $1::bigint + $4::bigint
       FROM heads
      WHERE m.outbox_id = heads.outbox_id AND m.account_id = heads.account_id
        AND m.bucket = heads.bucket
     RETURNING m.seq, ${outboxColumns
       .split(',')
       .map((column) => `m.${column.trim()}`)
       .join(', ')}`,
    [now, limit, worker, leaseSeconds],
  );
  return [...rows]
    .sort((a, b) => a.created_at - b.created_at || (a.seq ?? 0) - (b.seq ?? 0))
    .map(messageOf);
};

/** Ends the worker's claim with `assignments`; false when the worker does not hold it. */
const settle = async (
  { context, outbox }: OutboxTable,
  outboxId: string,
  worker: string,
  assignments: string,
  extra: readonly SqlValue[] = [],
): Promise<boolean> => {
  const { rows } = await context.session.query(
    `UPDATE ${outbox}
          SET ${assignments}, attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL
        WHERE outbox_id = $1 AND claimed_by = $2 AND status = 'pending'
        RETURNING 1 AS settled`,
    [outboxId, worker, ...extra],
  );
  return rows.length > 0;
};

/** Over the heads of the queues only, as `claim` sees them (the same NOT EXISTS test). */
const nextAvailableAt = async ({
  context,
  outbox,
  isQueueHead,
}: OutboxTable): Promise<number | undefined> => {
  const { rows } = await context.session.query<{ next: number | null }>(
    `SELECT min(GREATEST(o.available_at, o.claimed_until)) AS next FROM ${outbox} o
            WHERE o.status = 'pending'
              AND ${isQueueHead}`,
  );
  return rows[0]?.next ?? undefined;
};

export const sqlOutbox = (context: UnitContext): OutboxPort => {
  const target = outboxTableOf(context);
  const selectById = `SELECT ${outboxColumns} FROM ${target.outbox} WHERE outbox_id = $1`;
  return {
    enqueue: (messages: readonly NewOutboxMessage[]) =>
      context.run(() => enqueue(target, messages)),
    claim: (options: ClaimOptions) => context.run(() => claim(target, options)),
    complete: (outboxId: string, worker: string) =>
      context.run(() => settle(target, outboxId, worker, `status = 'delivered'`)),
    retry: (outboxId: string, worker: string, availableAt: number) =>
      context.run(() =>
        settle(target, outboxId, worker, 'available_at = $3::bigint', [availableAt]),
      ),
    fail: (outboxId: string, worker: string) =>
      context.run(() => settle(target, outboxId, worker, `status = 'failed'`)),
    get: (outboxId: string) =>
      context.run(() => selectOne(context.session, selectById, [outboxId], messageOf)),
    nextAvailableAt: () => context.run(() => nextAvailableAt(target)),
  };
};

// Timers: one row per timer id, due at a time; moving one drops its claim.

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
    `INSERT INTO ${timers} AS t (${timerColumns}, bucket)
       VALUES ($1, $2, $3, $4, $5, $6::bigint, $7::smallint)
     ON CONFLICT (timer_id, account_id, bucket) DO UPDATE SET
       name = excluded.name,
       business_type = excluded.business_type,
       business_id = excluded.business_id,
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
      workBucketOf(timer.account_id),
    ],
  );
  await context.session.query(text, params);
};

const claimDue = async (
  session: SqlSession,
  timers: string,
  { worker, now, limit, leaseSeconds, buckets }: ClaimOptions,
): Promise<TimerRecord[]> => {
  const inBuckets = bucketCondition('d', buckets);
  if (limit <= 0 || inBuckets === undefined) return [];
  const { rows } = await session.query<TimerRecord>(
    `WITH due AS (
       SELECT d.timer_id, d.account_id, d.bucket FROM ${timers} d
        WHERE ${inBuckets}d.due_at <= $1::bigint
          AND (d.claimed_until IS NULL OR d.claimed_until <= $1::bigint)
        ORDER BY d.due_at, d.timer_id
        LIMIT $2
        FOR UPDATE SKIP LOCKED)
     UPDATE ${timers} AS t
        SET claimed_by = $3, claimed_until = $1::bigint + $4::bigint
       FROM due
      WHERE t.timer_id = due.timer_id AND t.account_id = due.account_id
        AND t.bucket = due.bucket
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
