/**
 * The timer loop's tests over a store (`timer-loop.test.ts` on the memory store,
 * `timer-loop.pgbouncer.int.test.ts` behind PgBouncer): a timer to set, and a loop over the
 * store as the server runs one (ADR 0030), which claims what is due and plans its next pass from
 * the store's next due time and its work notices.
 */
import type { Store, TimerRecord } from '@payrail/core';
import { startTimerLoop, type TimerLoop, type TimerLoopOptions } from './timer-loop.js';

/** An order's expiry timer of account `acc_1`, due at `dueAt` (Unix seconds). */
export const expiryTimer = (id: string, dueAt: number): TimerRecord => ({
  timer_id: `order.expiry:${id}`,
  name: 'order.expiry',
  business_type: 'acquiring',
  business_id: id,
  account_id: 'acc_1',
  due_at: dueAt,
});

export interface ClaimingLoopOptions
  extends Required<Pick<TimerLoopOptions, 'clock' | 'onWork' | 'intervalMs'>>,
    Pick<TimerLoopOptions, 'scheduler'> {
  /** Told of each timer the loop claimed and completed, in order. */
  readonly fired: (timer: TimerRecord) => void;
}

/**
 * A loop over `store` that claims the timers due at `clock`'s second and completes each, and
 * plans its next pass from the store's next due time (woken earlier by `onWork`). Logs nothing.
 */
export const claimingTimerLoop = (store: Store, options: ClaimingLoopOptions): TimerLoop => {
  const { clock, fired, scheduler } = options;
  return startTimerLoop({
    run: async () => {
      const due = await store.transaction((tx) =>
        tx.timers.claimDue({ worker: 'w', now: clock.now(), limit: 100, leaseSeconds: 60 }),
      );
      for (const timer of due) {
        await store.transaction((tx) => tx.timers.complete(timer.timer_id, 'w'));
        fired(timer);
      }
      return due.length;
    },
    nextDueAt: () => store.transaction((tx) => tx.timers.nextDueAt()),
    clock,
    onWork: options.onWork,
    intervalMs: options.intervalMs,
    log: () => undefined,
    ...(scheduler === undefined ? {} : { scheduler }),
  });
};
