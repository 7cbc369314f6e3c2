import { aggregateOrderStatus, Decimal } from '@payrail/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caller, dataOf, seed, testBed } from './acquiring.test-support.js';
import { acquiringUseCases } from './acquiring.use-cases.js';

const statuses = ['processing', 'confirming', 'confirmed'] as const;

/** Payments with the stage each finally reaches, then every stage's event, shuffled and repeated. */
const scenario = fc
  .uniqueArray(
    fc.record({
      id: fc.constantFrom('p1', 'p2', 'p3', 'p4'),
      token: fc.constantFrom('TRON_USDT', 'ETH_USDC'),
      cents: fc.integer({ min: 1, max: 3000 }),
      reached: fc.integer({ min: 0, max: 2 }),
    }),
    { selector: (p) => p.id, minLength: 1, maxLength: 4 },
  )
  .chain((payments) => {
    const events = payments.flatMap((p) =>
      statuses.slice(0, p.reached + 1).map((status) => ({ ...p, status })),
    );
    return fc
      .tuple(
        fc.shuffledSubarray(events, { minLength: events.length }),
        fc.array(fc.nat(), { maxLength: 3 }),
      )
      .map(([shuffled, repeats]) => ({
        payments,
        events: [...shuffled, ...repeats.flatMap((i) => shuffled[i % shuffled.length] ?? [])],
      }));
  });

describe('order payments through the engine', () => {
  it('whatever the order and repetition of provider events: one credit per confirmed payment, the aggregated status, final records', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ payments, events }) => {
        const bed = testBed();
        await seed(bed);
        const uc = acquiringUseCases(bed.deps);
        const me = caller();
        dataOf(
          await uc.acquiring.create(me, {
            out_trade_no: 'ORD-P',
            order_currency: 'USD',
            order_amount: '30.00',
            allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
            expire_seconds: 3600,
            underpay_tolerance: '0.50',
            notify_webhook_id: 'wh_a',
          }),
        );
        for (const event of events) {
          bed.deps.clock.advance(1);
          dataOf(
            await uc.admin.sandboxPayment('ord_1', {
              token_id: event.token,
              amount: new Decimal(event.cents).dividedBy(100).toFixed(2),
              status: event.status,
              payment_id: event.id,
            }),
          );
        }
        const confirmed = payments.filter((p) => p.reached === 2);
        const records = dataOf(await uc.acquiring.payments(me, 'ord_1')).items;
        expect(Object.fromEntries(records.map((r) => [r.payment_id, r.status]))).toEqual(
          Object.fromEntries(
            payments.map((p) => [p.id, ['processing', 'confirming', 'completed'][p.reached]]),
          ),
        );
        expect([...(await bed.oracle.journalIds())].sort()).toEqual(
          confirmed.map((p) => `${p.id}:pay_in`).sort(),
        );
        const credited = (token: string) =>
          confirmed
            .filter((p) => p.token === token)
            .reduce((sum, p) => sum.plus(new Decimal(p.cents).dividedBy(100)), new Decimal(0));
        const balances = await bed.deps.store.transaction((tx) => tx.ledger.balances('acc_a'));
        for (const balance of balances) {
          expect(balance.available).toBe(
            credited(balance.currency === 'USDT' ? 'TRON_USDT' : 'ETH_USDC').toFixed(6),
          );
        }
        const order = dataOf(await uc.acquiring.get(me, 'ord_1')).order as { status: string };
        expect(order.status).toBe(
          aggregateOrderStatus({
            payments: records,
            payAmount: '30',
            underpayTolerance: '0.5',
            expireTime: Number.MAX_SAFE_INTEGER,
            now: 0,
            closed: false,
          }),
        );
        await bed.deps.store.close();
      }),
    );
  });
});
