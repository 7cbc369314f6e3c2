/**
 * Issue 19, L5: on PostgreSQL, duplicate completion reports racing a balance shortfall answered
 * `internal error` (500). Two approved payouts share a balance that pays only one; each is
 * reported `completed` twice at once. The report of the payout that loses the balance fails its
 * ledger hold (`insufficient_balance`, a conflict), and so does its duplicate once the first
 * rolled back; the first's rerun fails the payout for want of funds while the duplicate's rerun
 * still read it approved, so the duplicate met a second conflict (`version_conflict`) in a row,
 * which the policy let escape. Every report must answer what a repeat answers when nothing races
 * (success, or `invalid payout status` for a completion of a failed or already completed payout
 * on the sandbox's call), and the money must end exactly right: one payout completed, the other
 * failed with `insufficient balance`, nothing held. Through the sandbox's execution call and the
 * executor's door (`engine.executions.report`), on every store of the http package's list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  type EngineApp,
  engineApp,
  operatorToken,
  quickPayout,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

/** Rounds per door: the race is a matter of scheduling, so each round is a fresh chance. */
const rounds = 8;

/** What an answer tells the test: success, a catalogue refusal, or the unexpected. */
type Told = 'success' | 'invalid payout status' | `unexpected: ${string}`;

const toldByHttp = (answer: Answer): Told => {
  if (answer.body.code === 0) return 'success';
  if (answer.status === 400 && answer.body.message === 'invalid payout status') {
    return 'invalid payout status';
  }
  return `unexpected: ${answer.status} ${answer.body.message}`;
};

describe.each(storesUnderTest)(
  'duplicate completion reports racing a balance shortfall (real engine, $name)',
  (under) => {
    let h: EngineApp;
    let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
    let merchants = 0;

    beforeAll(async () => {
      store = await under.open();
      h = engineApp({ store });
      await h.seedCatalogue();
    });

    afterAll(async () => {
      await store.close?.();
    });

    /** A merchant whose 30.00 USD pays one payout of 25.00 (25.75 with the fee), not two. */
    const twoApprovedPayouts = async () => {
      merchants += 1;
      const m = await h.merchant(`Race ${merchants}`);
      const as = h.as(m.token);
      await h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
        currency: 'USD',
        amount: '30.00',
      });
      const approved = async (n: number) => {
        const answer = await as.post('/payment/quickpayout', quickPayout(`RACE${merchants}N${n}`));
        expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ code: 0 });
        const payoutId = answer.body.data.payout.payout_id as string;
        await h.admin('POST', `/admin/payouts/${payoutId}/review`, { action: 'approve' });
        return payoutId;
      };
      return { as, payoutIds: [await approved(1), await approved(2)] };
    };

    const sandboxCompletion = async (payoutId: string): Promise<Told> =>
      toldByHttp(
        await h.call(
          'POST',
          `/admin/sandbox/payouts/${payoutId}/execution`,
          { Authorization: `Bearer ${operatorToken}` },
          { outcome: 'completed' },
        ),
      );

    const executorCompletion = async (payoutId: string): Promise<Told> => {
      try {
        const outcome = await h.engine.executions.report(payoutId, { status: 'completed' });
        if (outcome._tag === 'Right') return 'success';
        return outcome.left.message === 'invalid payout status'
          ? 'invalid payout status'
          : `unexpected: ${outcome.left.message}`;
      } catch (error) {
        return `unexpected: ${String(error)}`;
      }
    };

    /** What each payout ended as, and the merchant's USD balance. */
    const ending = async (as: ReturnType<EngineApp['as']>, payoutIds: readonly string[]) => {
      const payouts = [];
      for (const payoutId of payoutIds) {
        const { payout } = (await as.get(`/payment/payouts/${payoutId}`)).body.data;
        payouts.push([payout.status, payout.execution_fail_reason ?? null]);
      }
      const { items } = (await as.get('/payment/balances?currency=USD')).body.data;
      const ledger = (await as.get('/payment/ledger?currency=USD&limit=100')).body.data;
      return {
        payouts: payouts.sort(([a], [b]) => String(a).localeCompare(String(b))),
        balance: items,
        records: ledger.total as number,
      };
    };

    it.each([
      ['the sandbox execution call', sandboxCompletion],
      ['the executor door', executorCompletion],
    ] as const)(
      'via %s: no report answers 500, each answers as a repeat does unraced, and the money ends exactly right',
      async (_, report) => {
        const expectedEnding = {
          payouts: [
            ['completed', null],
            ['failed', 'insufficient balance'],
          ],
          balance: [{ currency: 'USD', available: '4.25', held: '0.00', total: '4.25' }],
          // The deposit, then the completed payout's hold (two records), payout and fee.
          records: 5,
        };
        // The same four reports one after another: what each round must answer, in some order.
        const unraced = await twoApprovedPayouts();
        const [a, b] = unraced.payoutIds as [string, string];
        const expected = [await report(a), await report(b), await report(a), await report(b)];
        expect(await ending(unraced.as, unraced.payoutIds)).toEqual(expectedEnding);
        expect(expected.filter((t) => t.startsWith('unexpected'))).toEqual([]);

        for (let round = 0; round < rounds; round += 1) {
          const { as, payoutIds } = await twoApprovedPayouts();
          const [first, second] = payoutIds as [string, string];
          const told = await Promise.all([
            report(first),
            report(second),
            report(first),
            report(second),
          ]);
          expect({ round, told: told.sort() }).toEqual({ round, told: [...expected].sort() });
          expect(await ending(as, payoutIds)).toEqual(expectedEnding);
        }
      },
    );
  },
);
