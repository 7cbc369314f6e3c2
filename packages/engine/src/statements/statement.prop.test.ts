/**
 * Every statement ties out, whatever the ledger and the periods (ADR 0045): random journals of
 * every kind the core builds (some refused for want of money, some dated before records already
 * written) are posted to a merchant's buckets at random seconds; the ledger is then cut at random
 * bounds. Every statement ties out (opening + Σ totals = closing, per bucket, to the smallest
 * unit), consecutive periods chain (the closing of one is the opening of the next), each bound's
 * balance is `balances?at=` of the second before it, and the CSV of a period replays to its
 * closing rows, which are the JSON statement's.
 */
import {
  type Currency,
  Decimal,
  depositJournal,
  isStoreFailure,
  type Journal,
  money,
  payInJournal,
  payoutHoldJournal,
  payoutReleaseJournal,
  payoutReturnJournal,
  payoutSettleJournals,
  tiesOut,
  withdrawalJournal,
} from '@payrail/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  csvRows,
  replayCsv,
  rightOf,
  start,
  statementWorld,
  textOf,
} from './statement.test-support.js';
import { periodRecords, type Reader } from './statement-records.store.js';

type Kind = 'deposit' | 'hold' | 'release' | 'settle' | 'payIn' | 'withdrawal' | 'return';
interface Post {
  readonly kind: Kind;
  readonly currency: Currency;
  readonly cents: number;
  readonly fee: number;
  /** Seconds after `start`. */
  readonly second: number;
}

const post: fc.Arbitrary<Post> = fc.record({
  kind: fc.constantFrom<Kind>(
    'deposit',
    'deposit',
    'hold',
    'release',
    'settle',
    'payIn',
    'withdrawal',
    'return',
  ),
  currency: fc.constantFrom<Currency>('USD', 'USDT'),
  cents: fc.integer({ min: 1, max: 20_000 }),
  fee: fc.integer({ min: 0, max: 300 }),
  second: fc.nat(40),
});

const amount = (currency: Currency, cents: number) =>
  money(currency, new Decimal(cents).dividedBy(100));

const journalsOf = (accountId: string, p: Post, n: number): readonly Journal[] => {
  const head = { accountId, businessId: `b${n}` };
  const value = amount(p.currency, p.cents);
  switch (p.kind) {
    case 'deposit':
      return [depositJournal(head, value)];
    case 'hold':
      return [payoutHoldJournal(head, value)];
    case 'release':
      return [payoutReleaseJournal(head, value)];
    case 'settle':
      return payoutSettleJournals(head, value, amount(p.currency, p.fee));
    case 'payIn':
      return [payInJournal(head, value)];
    case 'withdrawal':
      return [withdrawalJournal(head, value)];
    case 'return':
      return [payoutReturnJournal(head, value)];
  }
};

/** Posts each journal in a unit of work of its own; a refused one (too little money) is life. */
const postAll = async (
  w: Awaited<ReturnType<typeof statementWorld>>,
  accountId: string,
  posts: readonly Post[],
) => {
  for (const [n, p] of posts.entries()) {
    for (const journal of journalsOf(accountId, p, n)) {
      await w.store
        .transaction((tx) => tx.ledger.post(journal, start + p.second))
        .catch((error: unknown) => {
          if (!isStoreFailure(error)) throw error;
        });
    }
  }
};

describe('statements tie out over any ledger and any periods (memory store)', () => {
  it('each ties out, consecutive ones chain, each bound is balances?at=, a CSV replays', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(post, { maxLength: 24 }),
        fc.uniqueArray(fc.nat(60), { minLength: 2, maxLength: 6 }),
        fc.constantFrom<Currency>('USD', 'USDT'),
        async (posts, cuts, currency) => {
          const w = await statementWorld();
          const who = await w.merchant('Acme');
          await postAll(w, who.account_id, posts);
          w.tick(45);
          const bounds = [...cuts].sort((a, b) => a - b).map((cut) => start - 5 + cut);
          const statements = [];
          for (const [i, from] of bounds.slice(0, -1).entries()) {
            const to = bounds[i + 1] ?? from;
            const query = { currency, start_at: String(from), end_at: String(to), limit: '1' };
            statements.push(rightOf(await w.engine.statements.statement(who, query)).statement);
          }
          for (const [i, statement] of statements.entries()) {
            expect(tiesOut(statement), JSON.stringify(statement)).toBe(true);
            const next = statements[i + 1];
            if (next !== undefined) {
              expect([next.available.opening, next.held.opening]).toEqual([
                statement.available.closing,
                statement.held.closing,
              ]);
            }
            const { items } = rightOf(
              await w.engine.accounts.balances(who, { currency, at: String(statement.end_at - 1) }),
            );
            expect([items[0]?.available, items[0]?.held]).toEqual([
              statement.available.closing,
              statement.held.closing,
            ]);
          }
          const last = statements.at(-1);
          if (last === undefined) return;
          const query = { currency, start_at: String(last.start_at), end_at: String(last.end_at) };
          const rows = csvRows(
            await textOf(rightOf(await w.engine.statements.statementCsv(who, query))),
          );
          const { closing, mismatches } = replayCsv(rows);
          expect(mismatches).toEqual([]);
          expect([closing.get('available'), closing.get('held')]).toEqual([
            last.available.closing,
            last.held.closing,
          ]);
        },
      ),
    );
  });

  it('reads a period page by page exactly as one read of it, ties within a second included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(post, { maxLength: 24 }),
        fc.nat(45),
        fc.nat(45),
        fc.integer({ min: 1, max: 4 }),
        async (posts, a, b, pageSize) => {
          const w = await statementWorld();
          const who = await w.merchant('Acme');
          await postAll(w, who.account_id, posts);
          const period = { start_at: start + Math.min(a, b), end_at: start + Math.max(a, b) };
          const of = { accountId: who.account_id, currency: 'USD' as const, period };
          const paged = [];
          const read: Reader = (work) => w.store.transaction(work);
          for await (const page of periodRecords(read, of, pageSize)) paged.push(...page);
          const whole = await w.store.transaction((tx) =>
            tx.ledger.entries({
              accountId: who.account_id,
              currency: 'USD',
              createdFrom: period.start_at,
              createdTo: period.end_at - 1,
              sort: 'asc',
              limit: 1000,
              offset: 0,
            }),
          );
          expect(paged).toEqual(period.end_at > period.start_at ? whole.items : []);
        },
      ),
    );
  });
});
