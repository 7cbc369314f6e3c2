import { describe, expect, it } from 'vitest';
import { recordTypes } from './ledger.js';
import { statementTally, sumOfStatements, tiesOut } from './statement.js';

describe('a statement tally (ADR 0045)', () => {
  it('totals every record type per bucket, and closes at the opening plus the records', () => {
    const tally = statementTally('USD', { available: '10.00', held: '0.00' });
    tally.add({ bucket: 'available', record_type: 'deposit', amount: '0.10' });
    tally.add({ bucket: 'available', record_type: 'deposit', amount: '0.20' });
    tally.add({ bucket: 'available', record_type: 'payout_hold', amount: '-5.05' });
    tally.add({ bucket: 'held', record_type: 'payout_hold', amount: '5.05' });
    const { available, held } = tally.statements();
    expect(Object.keys(available.totals)).toEqual([...recordTypes]);
    expect(available).toMatchObject({
      opening: '10.00',
      closing: '5.25',
      totals: { deposit: '0.30', payout_hold: '-5.05', payout: '0.00' },
    });
    expect(held).toMatchObject({ opening: '0.00', closing: '5.05' });
    expect(tally.balances()).toEqual({ available: '5.25', held: '5.05' });
    expect(tiesOut({ available, held })).toBe(true);
    expect(tiesOut({ available: { ...available, closing: '5.26' }, held })).toBe(false);
  });

  it('sums statements line by line at the currency scale, and the sum ties out', () => {
    const one = statementTally('USDT', { available: '1', held: '0' });
    one.add({ bucket: 'available', record_type: 'pay_in', amount: '0.000001' });
    const two = statementTally('USDT', { available: '2.5', held: '1' });
    two.add({ bucket: 'held', record_type: 'payout', amount: '-1.000000' });
    const sum = sumOfStatements('USDT', [one.statements(), two.statements()]);
    expect(sum.available).toMatchObject({
      opening: '3.500000',
      closing: '3.500001',
      totals: { pay_in: '0.000001' },
    });
    expect(sum.held).toMatchObject({ opening: '1.000000', closing: '0.000000' });
    expect(tiesOut(sum)).toBe(true);
  });
});
