/**
 * Statements (ADR 0045): a merchant asks one currency over a random period (reaching now, ended,
 * empty, in the future, or upside down), an operator asks the settlement report of a random day;
 * each answer must tie out (`statement-checks.ts`). A statement of a period that had ended is
 * remembered, and after every step it must still say the same (`invariants.ts`).
 */
import { payrailError } from '@payrail/core';
import { bootstrapOperator } from '@payrail/engine';
import * as E from 'fp-ts/lib/Either.js';
import { type Action, pickMerchant } from './action-kit.js';
import type { Random } from './prng.js';
import { settlementProblems, statementProblems } from './statement-checks.js';
import { simulationEpoch } from './world.js';

/** How many ended statements the model keeps asking again. */
const rememberedStatements = 2;

/** A period `[start_at, end_at)` of one of the kinds a merchant asks, around the history so far. */
const periodOf = (random: Random, now: number) => {
  const since = now - simulationEpoch;
  const someTime = () => simulationEpoch - 100 + random.int(0, since + 100);
  switch (random.pick(['to now', 'to now', 'ended', 'ended', 'empty', 'upside down', 'future'])) {
    case 'to now':
      return { start: someTime(), end: now + random.int(1, 3000) };
    case 'ended': {
      const start = someTime();
      return { start, end: start + random.int(0, now - start) };
    }
    case 'empty': {
      const at = someTime();
      return { start: at, end: at };
    }
    case 'upside down': {
      const end = someTime();
      return { start: end + random.int(1, 500), end };
    }
    default: {
      const start = now + random.int(2, 1000);
      return { start, end: start + random.int(0, 1000) };
    }
  }
};

const statementRead: Action = {
  name: 'statement.read',
  weight: 2,
  run: async (ctx) => {
    const merchant = pickMerchant(ctx);
    if (merchant === undefined) return undefined;
    const now = ctx.world.clock.now();
    const currency = ctx.random.pick(['USD', 'USDT', 'USDC']);
    const { start, end } = periodOf(ctx.random, now);
    const query = {
      currency,
      start_at: String(start),
      end_at: String(end),
      // A short page now and then, so the records are read over several.
      limit: ctx.random.chance(0.3) ? '3' : '100',
      offset: '0',
    };
    const answer = await ctx.world.engine.statements.statement(merchant.callers[0], query);
    const line = `${merchant.accountId} ${currency} [${start}, ${end})`;
    if (start > end) {
      const expected = payrailError('invalid_query_param', { param: 'end_at' }).message;
      return E.isLeft(answer) && answer.left.message === expected
        ? `${line} -> refused: ${expected}`
        : `VIOLATION: statement ${line}: the model expected '${expected}'`;
    }
    if (E.isLeft(answer)) return `VIOLATION: statement ${line} refused: ${answer.left.message}`;
    const problems = await statementProblems(ctx.world, merchant, query, answer.right, now);
    if (problems.length > 0) return `VIOLATION: ${problems.join('; ')}`;
    const s = answer.right.statement;
    if (s.end_at <= now) {
      ctx.model.statements.push({ merchant, query, answer: s });
      if (ctx.model.statements.length > rememberedStatements) ctx.model.statements.shift();
    }
    return (
      `${line} -> ok available ${s.available.opening}..${s.available.closing}, ` +
      `held ${s.held.opening}..${s.held.closing}, ${answer.right.records.total} records`
    );
  },
};

const settlementReport: Action = {
  name: 'report.settlement',
  weight: 1,
  run: async (ctx) => {
    if (ctx.model.merchants.length === 0) return undefined;
    const now = ctx.world.clock.now();
    const at = simulationEpoch - 86_400 + ctx.random.int(0, now - simulationEpoch + 2 * 86_400);
    const date = new Date(at * 1000).toISOString().slice(0, 10);
    const answer = await ctx.world.engine.admin.settlementReport(bootstrapOperator, {
      date,
      limit: '100',
      offset: '0',
    });
    if (E.isLeft(answer)) return `VIOLATION: report of ${date} refused: ${answer.left.message}`;
    const dayStart = Date.parse(`${date}T00:00:00Z`) / 1000;
    const problems = await settlementProblems(
      ctx.world,
      ctx.model.merchants,
      dayStart,
      answer.right,
      now,
    );
    if (problems.length > 0) return `VIOLATION: ${problems.join('; ')}`;
    const rows = answer.right.accounts.items.map((r) => `${r.currency} ${r.available.closing}`);
    return `${date} -> ok ${rows.length} rows${rows.length === 0 ? '' : `: ${rows.join(', ')}`}`;
  },
};

/** The statement actions, for the simulation's table. */
export const statementActions: readonly Action[] = [statementRead, settlementReport];
