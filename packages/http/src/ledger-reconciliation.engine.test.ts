/**
 * The ledger is the reconciliation source (ADR 0020, docs/ledger.md): several merchants are
 * driven through HTTP (sandbox credits in two currencies, payouts completed, failed after
 * processing, cancelled, rejected and refused for want of money, paid orders, a crypto batch,
 * and a burst of concurrent calls), then each merchant reads its whole ledger the way a replay
 * job does (`sort_order=asc`, `limit=100`, `offset` paging) and replays the signed amounts per
 * currency and bucket from zero: every record's `balance_after` is the running sum and the sums
 * are exactly `GET /payment/balances`. Amounts are compared as decimal strings at the currency's
 * scale, never as numbers. The deposits list maps one to one onto the `deposit` records. On
 * every store of the http package's list.
 */
import { type Currency, Decimal, formatAmount, isCurrency, scaleOf } from '@payrail/core';
import { permissions } from '@payrail/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type EngineApp, engineApp, quickPayout } from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

interface LedgerRecord {
  readonly transaction_id: string;
  readonly record_type: string;
  readonly currency: string;
  readonly bucket: 'available' | 'held';
  readonly amount: string;
  readonly balance_after: string;
  readonly business_type: string;
  readonly business_id: string;
  readonly reference: string | null;
  readonly created_at: number;
}

interface Funding {
  readonly record_id: string;
  readonly currency: string;
  readonly amount: string;
  readonly status: string;
  readonly created_at: number;
}

const tronAddress = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const evmAddress = '0x52908400098527886E0F7030069857D2E4169EE7';

/** `amount` written with exactly the currency's decimals (a signed decimal string). */
const atScale = (currency: Currency, amount: string): boolean =>
  new RegExp(`^-?(0|[1-9][0-9]*)\\.[0-9]{${scaleOf(currency)}}$`).test(amount);

describe.each(storesUnderTest)(
  'the ledger reconciles to the balances (real engine, $name)',
  (under) => {
    let h: EngineApp;
    let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;

    beforeAll(async () => {
      store = await under.open();
      h = engineApp({ store });
      await h.seedCatalogue();
    });

    afterAll(async () => {
      await store.close?.();
    });

    const ok = (answer: Answer) => {
      expect(answer.body.message).toBe('success');
      return answer.body.data;
    };

    const advance = (seconds: number) =>
      h.admin('POST', '/admin/sandbox/clock/advance', { seconds });

    const merchantNamed = async (name: string) => {
      const m = await h.merchant(name);
      const webhook = ok(
        await h.as(m.token).post('/payment/webhooks', {
          url: 'https://merchant.example/hooks',
          events: ['acquiring.*'],
        }),
      ).webhook;
      // Four eyes on crypto batches: a second key approves what the first created.
      const approver = await h.issueKey(m.accountId, { permissions: [...permissions] });
      return {
        ...m,
        as: h.as(m.token),
        approverAs: h.as(approver.token),
        webhookId: webhook.webhook_id as string,
        refs: 0,
      };
    };
    type Merchant = Awaited<ReturnType<typeof merchantNamed>>;

    const credit = (m: Merchant, currency: string, amount: string) =>
      h.admin('POST', `/admin/accounts/${m.accountId}/credit`, { currency, amount });

    const execute = (payoutId: string, outcome: string) =>
      h.admin('POST', `/admin/sandbox/payouts/${payoutId}/execution`, {
        outcome,
        ...(outcome === 'failed' ? { reason: 'recipient wallet closed' } : {}),
      });

    type Fate =
      | 'completed'
      | 'failed after processing'
      | 'cancelled'
      | 'rejected'
      | 'left approved'
      | 'refused for want of money';

    /** A USD quick payout taken to its fate; answers its id. */
    const payout = async (m: Merchant, amount: string, fate: Fate): Promise<string> => {
      m.refs += 1;
      const body = { ...quickPayout(`P${m.refs}`), amount };
      const { payout: created } = ok(await m.as.post('/payment/quickpayout', body));
      const id: string = created.payout_id;
      if (fate === 'cancelled') {
        ok(await m.as.post(`/payment/payouts/${id}/cancel`));
        return id;
      }
      await h.admin('POST', `/admin/payouts/${id}/review`, {
        action: fate === 'rejected' ? 'reject' : 'approve',
      });
      if (fate === 'completed') {
        await execute(id, 'processing');
        await execute(id, 'completed');
      } else if (fate === 'failed after processing') {
        await execute(id, 'processing');
        await execute(id, 'failed');
      } else if (fate === 'refused for want of money') {
        const { payout: failed } = await execute(id, 'processing');
        expect(failed.execution_fail_reason).toBe('insufficient balance');
      }
      return id;
    };

    /** An order paid in full in TRON_USDT: a `pay_in` of `amount` USDT. */
    const payIn = async (m: Merchant, amount: string) => {
      m.refs += 1;
      const { order } = ok(
        await m.as.post('/payment/acquiring/orders', {
          out_trade_no: `ord-${m.merchantId}-${m.refs}`,
          order_currency: 'USD',
          order_amount: amount,
          expire_seconds: 600,
          underpay_tolerance: '0',
          notify_webhook_id: m.webhookId,
          allowed_pay_currencies: ['TRON_USDT'],
        }),
      );
      await h.admin('POST', `/admin/sandbox/acquiring/orders/${order.order_id}/payments`, {
        token_id: 'TRON_USDT',
        amount: new Decimal(amount).toFixed(6),
        status: 'confirmed',
        tx_hash: `${m.accountId}-${m.refs}`,
      });
    };

    /** A USDT crypto batch of two items: approved, then one completed and one failed after processing. */
    const cryptoBatch = async (m: Merchant) => {
      m.refs += 1;
      const { batch } = ok(
        await m.as.post('/payment/crypto-payouts/batches', {
          currency: 'USDT',
          method_id: 2,
          items: [
            {
              order_no: `b${m.refs}-1`,
              amount: '12.5',
              beneficiary_account: { address: tronAddress },
            },
            { order_no: `b${m.refs}-2`, amount: '3', beneficiary_account: { address: evmAddress } },
          ],
        }),
      );
      ok(
        await m.approverAs.post(`/payment/crypto-payouts/batches/${batch.batch_id}/approve`, {
          version: batch.version,
        }),
      );
      const { items } = ok(
        await m.as.get(`/payment/crypto-payouts/batches/${batch.batch_id}/items`),
      );
      const [first, second] = items.map((item: { payout_id: string }) => item.payout_id);
      for (const id of [first, second]) {
        await h.admin('POST', `/admin/payouts/${id}/review`, { action: 'approve' });
        await execute(id, 'processing');
      }
      await execute(first, 'completed');
      await execute(second, 'failed');
    };

    /** Every page of a list, as a replay job reads it: ascending, 100 at a time, by offset. */
    const allPages = async <T>(m: Merchant, path: string): Promise<T[]> => {
      const items: T[] = [];
      for (;;) {
        const separator = path.includes('?') ? '&' : '?';
        const page = ok(await m.as.get(`${path}${separator}limit=100&offset=${items.length}`));
        items.push(...page.items);
        if (page.items.length === 0 || items.length >= page.total) {
          expect(items.length).toBe(page.total);
          return items;
        }
      }
    };

    /**
     * What a merchant's reconciliation job does, asserted: replay each currency's records from
     * zero; each `balance_after` is the running sum of its bucket, and the sums are the balances.
     */
    const reconciles = async (m: Merchant) => {
      const ledger = await allPages<LedgerRecord>(m, '/payment/ledger?sort_order=asc');
      const { items: balances } = ok(await m.as.get('/payment/balances'));
      for (const balance of balances as {
        currency: Currency;
        available: string;
        held: string;
        total: string;
      }[]) {
        const { currency } = balance;
        const records = await allPages<LedgerRecord>(
          m,
          `/payment/ledger?sort_order=asc&currency=${currency}`,
        );
        // A currency's pages show the records of the whole ledger, balance_after included.
        expect(records).toEqual(ledger.filter((r) => r.currency === currency));
        const sums = { available: new Decimal(0), held: new Decimal(0) };
        for (const [i, record] of records.entries()) {
          const where = `${m.merchantId} ${currency} record ${i} ${record.transaction_id} ${record.bucket}`;
          expect(atScale(currency, record.amount), where).toBe(true);
          expect(atScale(currency, record.balance_after), where).toBe(true);
          sums[record.bucket] = sums[record.bucket].plus(record.amount);
          expect(record.balance_after, where).toBe(
            formatAmount({ currency, value: sums[record.bucket] }),
          );
        }
        expect(
          [balance.available, balance.held, balance.total],
          `${m.merchantId} ${currency}`,
        ).toEqual([
          formatAmount({ currency, value: sums.available }),
          formatAmount({ currency, value: sums.held }),
          formatAmount({ currency, value: sums.available.plus(sums.held) }),
        ]);
      }
      // Every currency of the ledger is one the balances answer.
      for (const record of ledger) {
        expect(isCurrency(record.currency)).toBe(true);
        expect(balances.map((b: { currency: string }) => b.currency)).toContain(record.currency);
      }
      return ledger;
    };

    /** Each completed deposit is one `deposit` record of its amount into available; nothing else is. */
    const depositsMatch = async (m: Merchant, ledger: readonly LedgerRecord[]) => {
      const deposits = await allPages<Funding>(m, '/payment/deposits');
      const completed = deposits.filter((d) => d.status === 'completed');
      const depositRecords = ledger.filter((r) => r.record_type === 'deposit');
      expect(
        depositRecords
          .map((r) => [r.business_id, r.currency, r.bucket, r.amount, r.created_at])
          .sort(),
      ).toEqual(
        completed.map((d) => [d.record_id, d.currency, 'available', d.amount, d.created_at]).sort(),
      );
      for (const record of depositRecords) {
        expect(record.transaction_id).toBe(`${record.business_id}:deposit`);
      }
      // No withdrawal was recorded, so none shows and no record takes money out for one.
      expect(ok(await m.as.get('/payment/withdrawals')).total).toBe(0);
      expect(ledger.filter((r) => r.record_type === 'withdrawal')).toEqual([]);
    };

    it('every merchant replays its whole ledger from zero to the balances', async () => {
      const busy = await merchantNamed('Busy');
      const mixed = await merchantNamed('Mixed');
      const quiet = await merchantNamed('Quiet');

      // Busy: more than a page of USD records, every payout fate, pay-ins and a crypto batch.
      await credit(busy, 'USD', '1000.00');
      await credit(busy, 'USDT', '50.000000');
      const fates: Fate[] = [
        'completed',
        'failed after processing',
        'cancelled',
        'rejected',
        'left approved',
      ];
      for (let i = 0; i < 15; i += 1) {
        await payout(
          busy,
          `${10 + i}.${String(i * 7).padStart(2, '0')}`,
          fates[i % fates.length] ?? 'completed',
        );
        await credit(busy, 'USD', `${i + 1}.01`);
        await credit(busy, 'USD', '0.99');
        if (i % 3 === 0) await advance(1);
      }
      await payIn(busy, '10.00');
      await cryptoBatch(busy);
      for (let i = 0; i < 50; i += 1) await credit(busy, 'USD', '2.50');
      // A payout the balance cannot cover: its execution fails and moves nothing.
      await payout(busy, '99999.00', 'refused for want of money');

      // Mixed: two currencies, a payout left held, and a burst of concurrent calls.
      await credit(mixed, 'USD', '300.00');
      await credit(mixed, 'USDT', '20.000000');
      const held = await payout(mixed, '40.00', 'left approved');
      await execute(held, 'processing');
      await payIn(mixed, '5.50');
      await advance(2);
      const [settles, fails, stays] = await Promise.all([
        payout(mixed, '11.00', 'left approved'),
        payout(mixed, '12.00', 'left approved'),
        payout(mixed, '13.00', 'left approved'),
      ]);
      await Promise.all([
        ...[settles, fails, stays].map((id) => execute(id, 'processing')),
        credit(mixed, 'USD', '7.77'),
        credit(mixed, 'USD', '8.88'),
        credit(mixed, 'USDT', '1.000001'),
      ]);
      await Promise.all([
        execute(settles, 'completed'),
        execute(fails, 'failed'),
        credit(mixed, 'USD', '0.01'),
      ]);
      await cryptoBatch(mixed);

      // Quiet: credits only, in both currencies, some in the same second.
      await credit(quiet, 'USDT', '0.000001');
      await credit(quiet, 'USD', '0.01');
      await credit(quiet, 'USD', '123456.78');

      const busyLedger = await reconciles(busy);
      expect(busyLedger.filter((r) => r.currency === 'USD').length).toBeGreaterThan(100);
      expect(new Set(busyLedger.map((r) => r.record_type))).toEqual(
        new Set(['deposit', 'payout_hold', 'payout', 'payout_fee', 'payout_release', 'pay_in']),
      );
      await depositsMatch(busy, busyLedger);
      const mixedLedger = await reconciles(mixed);
      expect(mixedLedger.some((r) => r.bucket === 'held' && r.balance_after !== '0.00')).toBe(true);
      await depositsMatch(mixed, mixedLedger);
      await depositsMatch(quiet, await reconciles(quiet));
    }, 300_000);
  },
);
