/**
 * The webhook dispatcher (docs/spec/decisions.md §5): drains the transactional outbox, signs each message
 * with the Standard Webhooks scheme, POSTs it, and settles it in the unit of work that writes
 * the delivery log.
 *
 * - Claims: `outbox.claim` hands out at most the oldest pending message per (destination,
 *   business object), leased to this worker, so events of one object leave in order and several
 *   dispatchers (processes) on one database never hold the same message. A failing head holds
 *   back the later events of its object until it succeeds or fails for good.
 * - Attempts: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; success is any 2xx within
 *   the timeout (15 s). After the eighth failure the message fails and its delivery is `failed`.
 * - Time: due times, leases and the log's `at` come from the engine's clock (the sandbox's test
 *   clock makes retries due); `webhook-timestamp` comes from the wall clock, because receivers
 *   reject timestamps far from their own time.
 * - Verification requests: the answer `{verified}` goes to the engine (`callbacks`); an undecided
 *   answer is retried on the same schedule, and the engine returns the payout after the last.
 */
import type {
  Clock,
  DeliveryAttempt,
  IdGenerator,
  OutboxMessage,
  Store,
  StoreTransaction,
  WebhookDeliveryRecord,
} from '@payrail/core';
import {
  deliveredEventIdOf,
  type Engine,
  type LoopScheduler,
  openSecret,
  startWorkLoop,
  type WorkLoop,
} from '@payrail/engine';
import * as E from 'fp-ts/lib/Either.js';
import { type DeliveryTarget, recordAttempt } from './delivery-log.js';
import { httpTransport, type OutboundResponse, type Transport } from './http-transport.js';
import { deliveryTimeoutMs, maxDeliveryAttempts, nextAttemptAt } from './retry-schedule.js';
import { verificationDecisionOf } from './verification-answer.js';
import { signatureHeadersOf } from './webhook-signature.js';

/** The event whose answer decides a payout's merchant verification. */
const verificationRequestType = 'payout.verify.request';

export interface DispatcherOptions {
  readonly store: Store;
  /** The engine's clock (the sandbox's test clock included): due times, leases, the log. */
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Where verification answers go: `engine.callbacks`. */
  readonly callbacks: Engine['callbacks'];
  /**
   * The engine's `settings.keySecret`: webhook and notify secrets are stored sealed under a key
   * derived from it (ADR 0041), and opened here to sign.
   */
  readonly keySecret: Uint8Array;
  /** Sandbox with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1: http and loopback targets are allowed. */
  readonly allowInsecure: boolean;
  /** Names this dispatcher's claims; unique per process (e.g. `<host>:<pid>`). */
  readonly worker: string;
  /** Default: `httpTransport({ allowInsecure })`, Node's http(s) behind the SSRF guard. */
  readonly transport?: Transport;
  /** Per attempt, answer included; default 15 000 ms. */
  readonly timeoutMs?: number;
  /** The `webhook-timestamp` clock; default the wall clock. */
  readonly signingClock?: Clock;
  /** Messages claimed (and sent in parallel) per round; default 16. */
  readonly batchSize?: number;
  /** How long a claim lasts; default 60 s, well past the timeout plus DNS. */
  readonly leaseSeconds?: number;
  /** Rounds per `runOnce` at most, so a busy outbox still lets the loop breathe; default 20. */
  readonly maxRounds?: number;
  /** Operator lines: failures by message, never a body, a header or a secret. */
  readonly log?: (line: string) => void;
  /** Told of each attempt once it is settled (metrics); what it throws is ignored. */
  readonly onAttempt?: (attempt: ObservedAttempt) => void;
}

/** An attempt as an observer sees it: no URL, no body, no merchant. */
export interface ObservedAttempt {
  readonly destination: 'webhook' | 'notify_url';
  /** Delivered; to be tried again on the schedule; or given up (sent or not). */
  readonly outcome: 'delivered' | 'retry' | 'failed';
  /** The POST's seconds, answer included; undefined when nothing was sent. */
  readonly seconds: number | undefined;
}

export interface DispatcherLoopOptions {
  /**
   * The longest sleep between passes; default 60 000 ms. The loop sleeps until the next message
   * is due (`OutboxPort.nextAvailableAt`) or the store tells of a new one (`Store.onWork`); this
   * is only the safety net for a lost notification (ADR 0030). Passes never overlap.
   */
  readonly intervalMs?: number;
  /** The pause after a failed pass; default 500 ms. */
  readonly retryMs?: number;
  /** Tests drive the sleeps by hand. */
  readonly scheduler?: LoopScheduler;
}

export interface Dispatcher {
  /**
   * Claims due messages, attempts each, and settles them, round after round until nothing is
   * due; answers how many attempts were made. Runs never overlap: a call made during a run
   * starts when it ends (so a run after the test clock moved sees the new time).
   */
  runOnce(): Promise<number>;
  /** Runs passes in the background until `stop()`. */
  start(options?: DispatcherLoopOptions): void;
  /** Plans the next pass again now (after the sandbox's test clock moved); no-op when not started. */
  wake(): void;
  /**
   * No new pass or round starts; attempts in flight get `graceMs` (default 5000) to finish, then
   * are cut and recorded as failed attempts (retried on the schedule). Resolves once all is
   * settled.
   */
  stop(graceMs?: number): Promise<void>;
}

const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

type Resolved =
  | { readonly kind: 'send'; readonly target: DeliveryTarget; readonly secret: string }
  | { readonly kind: 'skip'; readonly target: DeliveryTarget; readonly reason: string };

/**
 * Where a message goes and with which secret: a webhook's url and secret, or the payout's
 * notify_url and the account's notify_secret, opened from the stored (sealed) value. A webhook
 * deleted or made inactive after the event was queued gets nothing: the message is given up and
 * its delivery is `failed` with the reason (redeliverable once the webhook is active again). A
 * secret that does not open (another key secret) throws: the message stays claimed and is tried
 * again after its lease, and the loop logs the failure.
 */
const resolveTarget = async (
  tx: StoreTransaction,
  message: OutboxMessage,
  keySecret: Uint8Array,
): Promise<Resolved> => {
  const destination = message.destination;
  if (destination.kind === 'webhook') {
    const webhook = await tx.webhooks.get(destination.webhookId, message.account_id);
    const target = { webhookId: destination.webhookId, url: webhook?.url ?? '' };
    if (webhook === undefined || webhook.status === 'deleted') {
      return { kind: 'skip', target, reason: 'webhook deleted' };
    }
    if (webhook.status !== 'active') return { kind: 'skip', target, reason: 'webhook inactive' };
    return { kind: 'send', target, secret: openSecret(keySecret, webhook.secret) };
  }
  const target = { webhookId: null, url: destination.url };
  const account = await tx.accounts.get(message.account_id);
  return account === undefined
    ? { kind: 'skip', target, reason: 'merchant account not found' }
    : { kind: 'send', target, secret: openSecret(keySecret, account.notify_secret) };
};

const isSuccess = (code: number | null): boolean => code !== null && code >= 200 && code <= 299;

/** The log's words for an answer that is not a success. */
const failureOf = (response: OutboundResponse): string | null => {
  if (response.error !== null) return response.error;
  const code = response.statusCode;
  if (isSuccess(code)) return null;
  return code !== null && code >= 300 && code <= 399
    ? `HTTP ${code}: redirects are not followed`
    : `HTTP ${code ?? 'none'}`;
};

/** How an attempt ends: delivered, tried again later, or given up. */
interface Verdict {
  readonly delivered: boolean;
  /** Give up even though attempts remain (the payout no longer awaits an answer). */
  readonly giveUp: boolean;
  readonly error: string | null;
}

const statusOf: Readonly<Record<Settlement, WebhookDeliveryRecord['status']>> = {
  complete: 'succeeded',
  retry: 'pending',
  fail: 'failed',
};

/** The review round a verification request was sent for (`verification_round`), if it names one. */
const roundOf = (message: OutboxMessage): number | undefined => {
  const round = message.payload.verification_round;
  return typeof round === 'number' ? round : undefined;
};

/** What the dispatcher's steps share: its options with every default filled in. */
interface Dispatch {
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly callbacks: Engine['callbacks'];
  readonly keySecret: Uint8Array;
  readonly worker: string;
  readonly transport: Transport;
  readonly timeoutMs: number;
  readonly signingClock: Clock;
  readonly batchSize: number;
  readonly leaseSeconds: number;
  readonly maxRounds: number;
  readonly log: (line: string) => void;
  readonly onAttempt: ((attempt: ObservedAttempt) => void) | undefined;
  /** Cuts the attempts in flight once `stop()`'s grace is over. */
  readonly aborter: AbortController;
  /** Set by `stop()`: no new round starts. */
  stopped: boolean;
}

const dispatchOf = (options: DispatcherOptions): Dispatch => ({
  store: options.store,
  clock: options.clock,
  ids: options.ids,
  callbacks: options.callbacks,
  keySecret: options.keySecret,
  worker: options.worker,
  transport: options.transport ?? httpTransport({ allowInsecure: options.allowInsecure }),
  timeoutMs: options.timeoutMs ?? deliveryTimeoutMs,
  signingClock: options.signingClock ?? systemClock,
  batchSize: options.batchSize ?? 16,
  leaseSeconds: options.leaseSeconds ?? 60,
  maxRounds: options.maxRounds ?? 20,
  log: options.log ?? (() => undefined),
  onAttempt: options.onAttempt,
  aborter: new AbortController(),
  stopped: false,
});

/**
 * An undecided answer the engine refused: either this attempt was already recorded (a crash
 * between the engine's unit of work and ours replays it) and the payout still waits, or the
 * payout moved on and the request is given up.
 */
const judgeRefusedRetry = async (
  dispatch: Dispatch,
  message: OutboxMessage,
  error: string,
): Promise<Verdict> => {
  const payout = await dispatch.store.transaction((tx) =>
    tx.payouts.get(message.business_id, message.account_id),
  );
  const awaiting = payout?.review_status === 'pending_review' && payout.execution_status === 'init';
  return awaiting
    ? { delivered: false, giveUp: false, error }
    : {
        delivered: false,
        giveUp: true,
        error: `${error}; the payout no longer awaits verification`,
      };
};

/** The verification answer, handed to the engine; undecided answers are asked again. */
const judgeVerification = async (
  dispatch: Dispatch,
  message: OutboxMessage,
  attempt: number,
  response: OutboundResponse,
): Promise<Verdict> => {
  const decision = isSuccess(response.statusCode) ? verificationDecisionOf(response) : null;
  const answer = await dispatch.callbacks.verificationAnswered(
    message.business_id,
    decision,
    attempt,
    roundOf(message),
  );
  if (decision !== null) {
    // The merchant answered; a payout that moved on meanwhile (an operator decided, it was
    // cancelled) keeps its state, and the request is done either way.
    return {
      delivered: true,
      giveUp: false,
      error: E.isLeft(answer) ? `answer not applied: ${answer.left.message}` : null,
    };
  }
  const error = failureOf(response) ?? 'no verification decision in the answer';
  if (E.isRight(answer)) return { delivered: false, giveUp: false, error };
  return judgeRefusedRetry(dispatch, message, error);
};

type Settlement = 'complete' | 'retry' | 'fail';

const outcomeOf: Readonly<Record<Settlement, ObservedAttempt['outcome']>> = {
  complete: 'delivered',
  retry: 'retry',
  fail: 'failed',
};

/** Tells the observer of a settled attempt, if there is one. */
const observe = (
  { onAttempt }: Dispatch,
  message: OutboxMessage,
  settlement: Settlement,
  seconds: number | undefined,
): void => {
  try {
    onAttempt?.({ destination: message.destination.kind, outcome: outcomeOf[settlement], seconds });
  } catch {
    // Measuring must never stop a delivery.
  }
};

const settle = async (
  dispatch: Dispatch,
  message: OutboxMessage,
  target: DeliveryTarget,
  settlement: Settlement,
  attempt: Omit<DeliveryAttempt, 'attempt'> & { readonly sent?: boolean },
  retryAt: number,
): Promise<void> => {
  const { sent = true, ...entry } = attempt;
  await record(dispatch, message, target, settlement, entry, retryAt);
  observe(dispatch, message, settlement, sent ? entry.latency_ms / 1000 : undefined);
};

const record = (
  { store, ids, worker }: Dispatch,
  message: OutboxMessage,
  target: DeliveryTarget,
  settlement: Settlement,
  attempt: Omit<DeliveryAttempt, 'attempt'>,
  retryAt: number,
): Promise<unknown> =>
  store.transaction(async (tx) => {
    const held =
      settlement === 'complete'
        ? await tx.outbox.complete(message.outbox_id, worker)
        : settlement === 'retry'
          ? await tx.outbox.retry(message.outbox_id, worker, retryAt)
          : await tx.outbox.fail(message.outbox_id, worker);
    // A worker whose lease lapsed logs what it sent but decides nothing: the holder will.
    return recordAttempt(tx, ids, {
      message,
      target,
      status: held ? statusOf[settlement] : undefined,
      attempt,
      at: attempt.at,
    });
  });

/** Gives the message up without sending it, the log saying why. */
const failUnsent = (
  dispatch: Dispatch,
  message: OutboxMessage,
  target: DeliveryTarget,
  at: number,
  reason: string,
): Promise<unknown> => {
  const entry = {
    at,
    status_code: null,
    latency_ms: 0,
    error: `not sent: ${reason}`,
    response_body: '',
    sent: false,
  };
  return settle(dispatch, message, target, 'fail', entry, at);
};

/**
 * Why a verification request whose review round ended (the payout was returned, cancelled or
 * decided) is not sent again: an answer to it could only be about a version that is gone.
 */
const endedRoundOf = async (
  { callbacks }: Dispatch,
  message: OutboxMessage,
): Promise<string | undefined> => {
  const round = message.event_type === verificationRequestType ? roundOf(message) : undefined;
  if (round === undefined) return undefined;
  const open = await callbacks.verificationRequestOpen(
    message.business_id,
    message.account_id,
    round,
  );
  return open ? undefined : `verification round ${round} of the payout has ended`;
};

/** The message, signed and POSTed to its target. */
const send = (
  dispatch: Dispatch,
  message: OutboxMessage,
  resolved: Extract<Resolved, { readonly kind: 'send' }>,
): Promise<OutboundResponse> => {
  const body = JSON.stringify(message.payload);
  return dispatch.transport({
    url: resolved.target.url,
    headers: signatureHeadersOf({
      secret: resolved.secret,
      id: deliveredEventIdOf(message.event_id),
      timestamp: dispatch.signingClock.now(),
      body,
    }),
    body,
    timeoutMs: dispatch.timeoutMs,
    signal: dispatch.aborter.signal,
  });
};

/** Sends the message once and settles it by its answer: delivered, retried or failed. */
const attemptOne = async (dispatch: Dispatch, message: OutboxMessage): Promise<void> => {
  const { store, clock, keySecret } = dispatch;
  const attempt = message.attempts + 1;
  const resolved = await store.transaction((tx) => resolveTarget(tx, message, keySecret));
  const at = clock.now();
  if (resolved.kind === 'skip') {
    await failUnsent(dispatch, message, resolved.target, at, resolved.reason);
    return;
  }
  const ended = await endedRoundOf(dispatch, message);
  if (ended !== undefined) {
    await failUnsent(dispatch, message, resolved.target, at, ended);
    return;
  }
  const response = await send(dispatch, message, resolved);
  const verdict: Verdict =
    message.event_type === verificationRequestType
      ? await judgeVerification(dispatch, message, attempt, response)
      : {
          delivered: isSuccess(response.statusCode),
          giveUp: false,
          error: failureOf(response),
        };
  const retryAt = nextAttemptAt(attempt, clock.now());
  const settlement = verdict.delivered
    ? 'complete'
    : verdict.giveUp || retryAt === undefined || attempt >= maxDeliveryAttempts
      ? 'fail'
      : 'retry';
  const entry = {
    at,
    status_code: response.statusCode,
    latency_ms: response.latencyMs,
    error: verdict.error,
    response_body: response.body,
  };
  await settle(dispatch, message, resolved.target, settlement, entry, retryAt ?? at);
};

/** Claims and attempts round after round until nothing is due; answers the attempts made. */
const pass = async (dispatch: Dispatch): Promise<number> => {
  const { store, clock, worker, batchSize, leaseSeconds } = dispatch;
  let attempts = 0;
  const failures: unknown[] = [];
  for (let round = 0; round < dispatch.maxRounds && !dispatch.stopped; round += 1) {
    const now = clock.now();
    const claimed = await store.transaction((tx) =>
      tx.outbox.claim({ worker, now, limit: batchSize, leaseSeconds }),
    );
    if (claimed.length === 0) break;
    const results = await Promise.allSettled(
      claimed.map((message) => attemptOne(dispatch, message)),
    );
    const rejected: unknown[] = results.flatMap((result) =>
      result.status === 'rejected' ? [result.reason] : [],
    );
    failures.push(...rejected);
    attempts += claimed.length;
    // Unsettled messages stay leased; a round that settled nothing would not get further.
    if (rejected.length === claimed.length) break;
  }
  // A message whose settlement failed stays claimed and is attempted again after its lease.
  if (failures.length > 0) throw failures[0];
  return attempts;
};

const summaryOf = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** The background loop of passes; a repeated failure is logged once a minute. */
const startLoop = (
  { store, clock, log }: Dispatch,
  runOnce: () => Promise<number>,
  options: DispatcherLoopOptions,
): WorkLoop => {
  let lastFailure: { summary: string; at: number } | undefined;
  return startWorkLoop({
    run: runOnce,
    nextDueAt: () => store.transaction((tx) => tx.outbox.nextAvailableAt()),
    clock,
    ...(store.onWork === undefined ? {} : { onWork: store.onWork.bind(store) }),
    maxSleepMs: options.intervalMs ?? 60_000,
    retryMs: options.retryMs ?? 500,
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    succeeded: () => {
      if (lastFailure !== undefined) log('webhook dispatcher recovered');
      lastFailure = undefined;
    },
    failed: (error) => {
      // A repeated failure (a database outage) is logged once a minute, not every pass.
      const summary = summaryOf(error);
      const at = Date.now();
      if (lastFailure?.summary !== summary || at - lastFailure.at >= 60_000) {
        log(`webhook dispatcher failed: ${summary}`);
        lastFailure = { summary, at };
      }
    },
  });
};

export const createDispatcher = (options: DispatcherOptions): Dispatcher => {
  const dispatch = dispatchOf(options);
  const passOnce = (): Promise<number> => pass(dispatch);
  let running: Promise<unknown> = Promise.resolve();
  const runOnce = (): Promise<number> => {
    const run = running.then(passOnce, passOnce);
    running = run.catch(() => undefined);
    return run;
  };
  let loop: WorkLoop | undefined;
  return {
    runOnce,
    start: (loopOptions = {}) => {
      if (dispatch.stopped || loop !== undefined) return;
      loop = startLoop(dispatch, runOnce, loopOptions);
    },
    wake: () => loop?.wake(),
    stop: async (graceMs = 5000) => {
      dispatch.stopped = true;
      const cut = setTimeout(() => dispatch.aborter.abort(), graceMs);
      try {
        await Promise.all([loop?.stop(), running]);
      } finally {
        clearTimeout(cut);
      }
    },
  };
};
