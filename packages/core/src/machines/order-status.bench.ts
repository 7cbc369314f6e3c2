/** docs/spec/decisions.md §4's aggregation over an order's payment records, as the record count grows. */
import { bench, describe } from 'vitest';
import { aggregateOrderStatus, type PaymentRecord } from './order-status.js';

type Payment = Pick<PaymentRecord, 'status' | 'amount'>;

/** `n` records of 0.5, every third still confirming: never enough to complete 1000. */
const payments = (n: number): readonly Payment[] =>
  Array.from({ length: n }, (_, i) => ({
    status: i % 3 === 2 ? 'confirming' : 'completed',
    amount: '0.500000',
  }));

const aggregate = (records: readonly Payment[]) =>
  aggregateOrderStatus({
    payments: records,
    payAmount: '1000.000000',
    underpayTolerance: '0.000000',
    expireTime: 1_767_226_500,
    now: 1_767_225_600,
    closed: false,
  });

describe('aggregateOrderStatus', () => {
  for (const n of [1, 10, 100]) {
    const records = payments(n);
    const expected = n >= 3 ? 'confirming' : 'partial_paid';
    if (aggregate(records) !== expected) throw new Error(`${n} records do not aggregate`);
    bench(`${n} payment record${n === 1 ? '' : 's'}`, () => {
      aggregate(records);
    });
  }
});
