/**
 * What every action of the simulation is made of: the context a step runs in, the action's
 * shape, and the few helpers that pick what it acts on and write its log line. The actions live
 * in `simulation.ts` (merchants, payouts, orders, batches, time), `refund-actions.ts` (refunds and
 * resolutions) and `statement-actions.ts` (statements and the settlement report).
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Model, SimMerchant, SimOrder } from './model.js';
import type { Random } from './prng.js';
import type { World } from './world.js';

/** The fault rates one seed runs with, each drawn from the seed. */
export interface FaultRates {
  /** Provider events delivered twice (0-50 %). */
  readonly duplicate: number;
  /** Provider events delivered out of order (0-50 %). */
  readonly reorder: number;
  /** Webhook deliveries that get no answer (0-30 %). */
  readonly lost: number;
  /** Webhook deliveries answered 5xx (0-30 %). */
  readonly failing: number;
  /** Webhook deliveries that take virtual seconds, up to past the claim's lease (0-30 %). */
  readonly slow: number;
  /** Steps whose unit of work aborts at a random statement (0-15 %). */
  readonly abort: number;
  /** Steps that restart the engine and the dispatcher over the store (0-8 %). */
  readonly restart: number;
}

export interface Context {
  readonly world: World;
  readonly model: Model;
  readonly random: Random;
  readonly rates: FaultRates;
  /** Counts for unique names (references, order numbers, ...). */
  serial: number;
}

/**
 * What an action did, for the log; `undefined`: the action does not apply now. A line starting
 * with `VIOLATION` fails the step (an answer the model did not expect).
 */
export type ActionResult = string | undefined;

export interface Action {
  readonly name: string;
  readonly weight: number;
  /** Runs several units of work (so an abort may leave earlier ones committed). */
  readonly compound?: boolean;
  run(ctx: Context): Promise<ActionResult>;
}

export type Answer<T> = E.Either<{ readonly message: string }, T>;

/** `ok <detail>` or `refused <message>`, for the log. */
export const said = <T>(answer: Answer<T>, detail: (value: T) => string): string =>
  E.isRight(answer) ? `ok ${detail(answer.right)}` : `refused: ${answer.left.message}`;

export const pickMerchant = (ctx: Context): SimMerchant | undefined =>
  ctx.model.merchants.length === 0 ? undefined : ctx.random.pick(ctx.model.merchants);

/**
 * Mostly one of the items the action applies to (`fits`), so histories get deep; sometimes any
 * item, so the refusals are exercised too.
 */
export const pickWhere = <T>(
  ctx: Context,
  items: Iterable<T>,
  fits: (item: T) => boolean,
): T | undefined => {
  const all = [...items];
  if (all.length === 0) return undefined;
  const fitting = all.filter(fits);
  return fitting.length > 0 && ctx.random.chance(0.85)
    ? ctx.random.pick(fitting)
    : ctx.random.pick(all);
};

/**
 * Like `pickWhere`, for an action that has little to do until its items exist in a state it
 * moves (a refund to review, an exception to resolve): when none fits, only now and then
 * (`otherwise`) any item, for its refusal or its duplicate, else nothing, and another action is
 * drawn.
 */
export const pickApplicable = <T>(
  ctx: Context,
  items: Iterable<T>,
  fits: (item: T) => boolean,
  otherwise = 0.2,
): T | undefined => {
  const all = [...items];
  const fitting = all.filter(fits);
  if (fitting.length === 0) {
    return all.length > 0 && ctx.random.chance(otherwise) ? ctx.random.pick(all) : undefined;
  }
  return ctx.random.chance(0.9) ? ctx.random.pick(fitting) : ctx.random.pick(all);
};

/** An order that payments and time can still move. */
export const live = (o: SimOrder) =>
  !['completed', 'underpaid', 'expired', 'closed'].includes(o.status);

export const pickOrder = (ctx: Context, filter: (o: SimOrder) => boolean = live) =>
  pickWhere(ctx, ctx.model.orders.values(), filter);

export const amountOf = (random: Random, scale: number, max: number): string => {
  const whole = random.int(1, max);
  const cents = random.int(0, 10 ** scale - 1);
  return `${whole}.${String(cents).padStart(scale, '0')}`;
};
