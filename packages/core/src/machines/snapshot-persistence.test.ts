import { describe, expect, it } from 'vitest';
import { poolItem } from '../testing/crypto-batch.arbitraries.js';
import { payoutInput } from '../testing/payout.fixtures.js';
import { acquiringOrderMachine } from './acquiring-order.machine.js';
import { persistOrder, restoreOrder } from './acquiring-order.persistence.js';
import { cryptoBatchMachine } from './crypto-batch.machine.js';
import { persistBatch, restoreBatch } from './crypto-batch.persistence.js';
import { decide, start } from './effects.js';
import { payoutMachine, payoutStateKeyOf, persistPayout, restorePayout } from './payout.machine.js';
import { CorruptSnapshotError } from './snapshot-persistence.js';

const T0 = 1_700_000_000;

/** Stored JSON as a store hands it back: parsed from text, nothing shared with the writer. */
const stored = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value));

const payout = () =>
  decide(payoutMachine, start(payoutMachine, payoutInput()).snapshot, {
    type: 'payout.submit',
    at: T0 + 1,
  }).snapshot;

const order = () =>
  start(acquiringOrderMachine, {
    order_id: 'ord_1',
    platform_order_no: 'PO1',
    out_trade_no: 'M-1',
    account_id: 'acc_1',
    order_currency: 'USD',
    order_amount: '10.00',
    pay_amount: '10',
    allowed_pay_currencies: ['TRON_USDT'],
    underpay_tolerance: '0',
    expire_time: T0 + 900,
    notify_webhook_id: 'wh_1',
    checkout_type: 'hosted',
    mode: 'checkout',
    at: T0,
  }).snapshot;

const batch = () =>
  start(cryptoBatchMachine, {
    batch_id: 'bat_1',
    account_id: 'acc_1',
    currency: 'USDT',
    method_id: 7,
    items: [poolItem(0, '1.5')],
    created_by_key_id: 'key_1',
    submit: false,
    at: T0,
  }).snapshot;

/** The error a restore throws, for asserting its message. */
const failureOf = (restore: () => unknown): CorruptSnapshotError => {
  try {
    restore();
  } catch (error) {
    if (error instanceof CorruptSnapshotError) return error;
    throw error;
  }
  throw new Error('restore accepted a corrupt snapshot');
};

describe('payout persistence', () => {
  it('round-trips through JSON with the route it was priced on', () => {
    const routing = { route_id: 'rt_1', method_id: 1, channel_id: null, channel_account_id: null };
    const json = stored(persistPayout(payout(), routing));
    expect(json.routing).toEqual(routing);
    const restored = restorePayout(json);
    expect(payoutStateKeyOf(restored)).toBe('pendingReview.awaitingReview');
    expect(restored.context).toEqual(payout().context);
  });

  it('a corrupt snapshot fails with a CorruptSnapshotError naming what is wrong', () => {
    const json = stored(persistPayout(payout()));
    const snapshot = json.snapshot as Record<string, unknown>;
    const context = snapshot.context as Record<string, unknown>;
    const { amount: _, ...noAmount } = context;
    expect(
      failureOf(() => restorePayout({ ...json, snapshot: { ...snapshot, context: noAmount } }))
        .message,
    ).toBe('payout snapshot is corrupt: snapshot.context.amount: expected string');
    expect(
      failureOf(() =>
        restorePayout({
          ...json,
          snapshot: { ...snapshot, context: { ...context, currency: 'EUR' } },
        }),
      ).message,
    ).toBe('payout snapshot is corrupt: snapshot.context.currency: expected Currency');
    expect(
      failureOf(() => restorePayout({ ...json, snapshot: { ...snapshot, value: 'paid' } })).message,
    ).toMatch(/^payout snapshot is corrupt: snapshot\.value/);
    expect(failureOf(() => restorePayout({ ...json, version: 9 })).message).toBe(
      'payout snapshot is corrupt: unsupported payout snapshot version: 9',
    );
    expect(failureOf(() => restorePayout('{}')).message).toBe(
      'payout snapshot is corrupt: (root): expected { version: number }',
    );
  });
});

describe('acquiring order persistence', () => {
  it('round-trips through JSON', () => {
    const restored = restoreOrder(stored(persistOrder(order())));
    expect(restored.value).toBe('pending');
    expect(restored.context).toEqual(order().context);
  });

  it('upgrades a version 1 order (no redirect_automatically) on the way in', () => {
    const json = stored(persistOrder(order()));
    const snapshot = json.snapshot as Record<string, unknown>;
    const { redirect_automatically: _, ...v1Context } = snapshot.context as Record<string, unknown>;
    const restored = restoreOrder({ version: 1, snapshot: { ...snapshot, context: v1Context } });
    expect(restored.context.redirect_automatically).toBe(false);
  });

  it('a corrupt order fails with a CorruptSnapshotError', () => {
    const json = stored(persistOrder(order()));
    const snapshot = json.snapshot as Record<string, unknown>;
    const context = snapshot.context as Record<string, unknown>;
    expect(
      failureOf(() =>
        restoreOrder({ ...json, snapshot: { ...snapshot, context: { ...context, payments: [] } } }),
      ).message,
    ).toMatch(/^acquiring order snapshot is corrupt: snapshot\.context\.payments/);
    expect(
      failureOf(() => restoreOrder({ ...json, snapshot: { ...snapshot, value: 'paid' } })).message,
    ).toBe('acquiring order snapshot is corrupt: snapshot.value: expected OrderStatus');
    expect(failureOf(() => restoreOrder({ ...json, version: 4 })).message).toBe(
      'acquiring order snapshot is corrupt: unsupported order snapshot version: 4',
    );
  });
});

describe('crypto batch persistence', () => {
  it('round-trips through JSON with its notify_url', () => {
    const restored = restoreBatch(stored(persistBatch(batch(), 'https://m.example/cb')));
    expect(restored.notifyUrl).toBe('https://m.example/cb');
    expect(restored.snapshot.value).toBe('draft');
    expect(restored.snapshot.context).toEqual(batch().context);
  });

  it('a corrupt batch fails with a CorruptSnapshotError', () => {
    const json = stored(persistBatch(batch(), null));
    const snapshot = json.snapshot as Record<string, unknown>;
    const context = snapshot.context as Record<string, unknown>;
    expect(
      failureOf(() =>
        restoreBatch({
          ...json,
          snapshot: { ...snapshot, context: { ...context, items: 'none' } },
        }),
      ).message,
    ).toMatch(/^crypto batch snapshot is corrupt: snapshot\.context\.items/);
    const { notify_url: _, ...noNotifyUrl } = json;
    expect(failureOf(() => restoreBatch(noNotifyUrl)).message).toMatch(
      /^crypto batch snapshot is corrupt: notify_url/,
    );
  });
});
