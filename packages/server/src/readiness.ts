/**
 * What `/readyz` answers (docs/observability.md): payrail is ready when each check is `ok`:
 *
 * - `store`: the store answers a query (the outbox's backlog; a store that cannot tell it, a
 *   unit of work reading the next timer), within 2 s;
 * - `migrations`: the schema has every migration this payrail applies (a PostgreSQL store); one
 *   recorded by a later payrail does not fail it, so that a rolling upgrade whose new process
 *   migrated first leaves the old ones serving until they are replaced;
 * - `timer_loop` and `webhook_dispatcher`: both run in this process (`start()` was called and
 *   `stop()` was not);
 * - `outbox_backlog`: fewer messages wait for delivery than the bound (0: no bound);
 * - `serving`: the server is not shutting down (`drain()`).
 *
 * A check that cannot be made (the store does not answer) is `failing`. The answer names checks
 * only: no error, no host, no query.
 */
import type { Store } from '@payrail/core';
import type { CheckState, Readiness } from '@payrail/http';
import { isPostgresStore } from '@payrail/store-postgres';

export interface ReadinessSources {
  /** The host's store, as it was given (not the engine's wrappers). */
  readonly store: Store;
  readonly loops: () => { readonly timerLoop: boolean; readonly dispatcher: boolean };
  readonly serving: () => boolean;
  /** `/readyz` fails from this many pending outbox messages on; 0: no bound. */
  readonly maxOutboxBacklog: number;
  /** How long a store check may take before it fails; default 2000 ms. */
  readonly timeoutMs?: number;
}

/** The store's answers; a rejection is a store that does not answer. */
interface StoreAnswers {
  readonly pending: number | undefined;
  readonly migrationsCurrent: boolean;
}

const withinMs = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
};

const askStore = async (store: Store): Promise<StoreAnswers> => {
  if (!isPostgresStore(store)) {
    await store.transaction((tx) => tx.timers.nextDueAt());
    return { pending: undefined, migrationsCurrent: true };
  }
  const [backlog, migrations] = await Promise.all([store.outboxBacklog(), store.migrationState()]);
  return { pending: backlog.pending, migrationsCurrent: migrations.pending.length === 0 };
};

const state = (ok: boolean): CheckState => (ok ? 'ok' : 'failing');

/**
 * The readiness of one payrail; calls made while one is under way share its answer. A store
 * question still unanswered past the timeout is not asked again until it settles: a database that
 * drops packets leaves one query waiting, not one more per probe.
 */
export const readinessOf = (sources: ReadinessSources): (() => Promise<Readiness>) => {
  let inFlight: Promise<Readiness> | undefined;
  let asking: Promise<StoreAnswers> | undefined;
  const ask = (): Promise<StoreAnswers> => {
    asking ??= askStore(sources.store).finally(() => {
      asking = undefined;
    });
    return asking;
  };
  const evaluate = async (): Promise<Readiness> => {
    const answers = await withinMs(ask(), sources.timeoutMs ?? 2000).catch(() => undefined);
    const loops = sources.loops();
    const { maxOutboxBacklog } = sources;
    const backlogOk =
      answers !== undefined &&
      (maxOutboxBacklog === 0 ||
        answers.pending === undefined ||
        answers.pending < maxOutboxBacklog);
    const checks: Record<string, CheckState> = {
      store: state(answers !== undefined),
      migrations: state(answers?.migrationsCurrent === true),
      timer_loop: state(loops.timerLoop),
      webhook_dispatcher: state(loops.dispatcher),
      outbox_backlog: state(backlogOk),
      serving: state(sources.serving()),
    };
    return { ready: Object.values(checks).every((check) => check === 'ok'), checks };
  };
  return () => {
    inFlight ??= evaluate().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
};
