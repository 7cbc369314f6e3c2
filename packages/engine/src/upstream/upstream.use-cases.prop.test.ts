/**
 * Duplicates and reordering of upstream events change nothing (issue 5, point 4): whatever the
 * order in which a provider delivers a set of events, however often it repeats them and however
 * it groups them into requests, the orders end with the same status, amounts, payment records
 * and `pay_in` journals as when every event arrived once, in chain order.
 */
import { Decimal, type PayTokenId } from '@payrail/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caller, dataOf } from '../acquiring/acquiring.test-support.js';
import {
  type DirectOrder,
  directOrder,
  type EventKind,
  fromLoopback,
  upstreamBed,
  upstreamEvent,
} from './upstream.test-support.js';

/** The steps a payment goes through on chain, by where it ends. */
const pathTo: Readonly<Record<string, readonly EventKind[]>> = {
  detected: ['detected'],
  confirming: ['detected', 'confirming'],
  confirmed: ['detected', 'confirming', 'confirmed'],
  failed: ['detected', 'failed'],
};
const recordStatusOf: Readonly<Record<string, string>> = {
  detected: 'processing',
  confirming: 'confirming',
  confirmed: 'completed',
  failed: 'failed',
};

const orders = [
  { out_trade_no: 'ORD-T', token: 'TRON_USDT' },
  { out_trade_no: 'ORD-E', token: 'ETH_USDC' },
] as const;

const scenario = fc
  .uniqueArray(
    fc.record({
      id: fc.constantFrom('p1', 'p2', 'p3', 'p4', 'p5'),
      order: fc.constantFrom(0, 1),
      cents: fc.integer({ min: 1, max: 4000 }),
      end: fc.constantFrom('detected', 'confirming', 'confirmed', 'failed'),
    }),
    { selector: (p) => p.id, minLength: 1, maxLength: 5 },
  )
  .chain((payments) => {
    const events = payments.flatMap((p) => (pathTo[p.end] ?? []).map((kind) => ({ ...p, kind })));
    return fc
      .tuple(
        fc.shuffledSubarray(events, { minLength: events.length }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 20 }),
      )
      .map(([shuffled, repeats, cuts]) => {
        // Repeats are copies of delivered events put anywhere after their original.
        const delivered = [...shuffled];
        for (const r of repeats) {
          const copy = shuffled[r % shuffled.length];
          if (copy !== undefined) delivered.splice((r % delivered.length) + 1, 0, copy);
        }
        const requests: (typeof delivered)[] = [];
        for (let at = 0, i = 0; at < delivered.length; i += 1) {
          const size = cuts[i % cuts.length] ?? 1;
          requests.push(delivered.slice(at, at + size));
          at += size;
        }
        return { payments, inChainOrder: events, requests };
      });
  });

type Delivery = { id: string; order: number; cents: number; kind: EventKind };

/** What the merchant and the ledger can tell of the orders after the requests. */
const outcomeOf = async (requests: readonly (readonly Delivery[])[]) => {
  const bed = await upstreamBed();
  const placed: (DirectOrder & { token: PayTokenId })[] = [];
  for (const { out_trade_no, token } of orders) {
    placed.push({ ...(await directOrder(bed, out_trade_no, token)), token });
  }
  for (const request of requests) {
    const events = request.map((d) => {
      const order = placed[d.order];
      if (order === undefined) throw new Error('no such order');
      return upstreamEvent(order.address, d.kind, {
        payment_id: d.id,
        token_id: order.token,
        amount: new Decimal(d.cents).dividedBy(100).toFixed(2),
      });
    });
    dataOf(await bed.engine.upstream.receive('test', fromLoopback(events)));
  }
  const me = caller();
  const views = [];
  for (const { order_id } of placed) {
    views.push({
      order: dataOf(await bed.engine.acquiring.get(me, order_id)).order,
      payments: dataOf(await bed.engine.acquiring.payments(me, order_id)).items,
    });
  }
  const postings = [...(await bed.oracle.postings())].sort((a, b) =>
    `${a.journal_id}/${a.ledgerAccount}/${a.currency}/${a.amount}`.localeCompare(
      `${b.journal_id}/${b.ledgerAccount}/${b.currency}/${b.amount}`,
    ),
  );
  return { views, journals: [...(await bed.oracle.journalIds())].sort(), postings };
};

describe('upstream events: duplicates and reordering', () => {
  it('any permutation, duplication and grouping leaves the orders, records and journals as in chain order', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ payments, inChainOrder, requests }) => {
        const expected = await outcomeOf(inChainOrder.map((event) => [event]));
        const actual = await outcomeOf(requests);
        expect(actual).toEqual(expected);

        // And the common outcome is the right one, independently of the engine's own join.
        expect(expected.journals).toEqual(
          payments
            .filter((p) => p.end === 'confirmed')
            .map((p) => `${p.id}:pay_in`)
            .sort(),
        );
        const statuses = Object.fromEntries(
          expected.views.flatMap((view) => view.payments.map((r) => [r.payment_id, r.status])),
        );
        expect(statuses).toEqual(
          Object.fromEntries(payments.map((p) => [p.id, recordStatusOf[p.end]])),
        );
      }),
    );
  });
});
