/**
 * The audit trail (issue 19, ADR 0040): every act names its actor, is written in the act's own
 * unit of work (a fault between the two keeps neither), is read by operators across accounts and
 * by a merchant for its own account only, and shows that no principal alone chose and approved a
 * payment (a property over random sequences of principals and acts).
 */
import type { AuditRecordView } from '@payrail/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { depositAddressOf } from '../acquiring/deposit-addresses.store.js';
import type { Caller, Engine } from '../engine.api.js';
import {
  crashBeforeCommit,
  failingAuditInsert,
  messageOf,
  operatorsWorld,
  payoutBody,
  rightOf,
} from '../operators/operators.test-support.js';
import { bootstrapOperator } from '../operators/operators.use-cases.js';

const trailOf = async (engine: Engine, query: Record<string, string> = {}) =>
  rightOf(await engine.admin.audit(bootstrapOperator, { limit: '100', ...query })).items;

describe('the audit trail', () => {
  it('answers who approved a payout: the named operator, from which request and address', async () => {
    const w = await operatorsWorld();
    const alice = await w.operator('alice', 'reviewer');
    const key = w.keyOf('key_maker');
    const { payout } = rightOf(await w.engine.payouts.create(key, payoutBody(1)));
    rightOf(
      await w.engine.admin.reviewPayout({ ...alice, request_id: 'req-42' }, payout.payout_id, {
        action: 'approve',
      }),
    );
    const trail = await trailOf(w.engine, { object_id: payout.payout_id });
    expect(trail.map((r) => [r.action, r.actor_type, r.actor_id, r.actor_name, r.detail])).toEqual([
      ['payout.review', 'operator', alice.operator_id, 'alice', 'approve'],
      ['payout.create', 'api_key', 'key_maker', null, null],
    ]);
    expect(trail[0]).toMatchObject({
      object_type: 'payout',
      account_id: w.merchant.account_id,
      request_id: 'req-42',
      client_ip: '198.51.100.7',
    });
    // Filters: by actor, by action.
    expect((await trailOf(w.engine, { actor_id: alice.operator_id })).map((r) => r.action)).toEqual(
      ['payout.review'],
    );
    expect((await trailOf(w.engine, { action: 'operator.create' }))[0]).toMatchObject({
      actor_id: 'bootstrap',
      object_type: 'operator',
      object_id: alice.operator_id,
    });
  });

  it('records nothing for a refused act or a replay that changes nothing', async () => {
    const w = await operatorsWorld();
    const viewer = await w.operator('vera', 'viewer');
    const key = w.keyOf('key_maker');
    const before = (await trailOf(w.engine)).length;
    const body = { ...payoutBody(1), client_request_id: 'req-1' };
    const { payout } = rightOf(await w.engine.payouts.create(key, body));
    expect(
      messageOf(await w.engine.admin.reviewPayout(viewer, payout.payout_id, { action: 'approve' })),
    ).toBe('forbidden');
    expect(
      messageOf(
        await w.engine.admin.reviewPayout(bootstrapOperator, 'po_nope', { action: 'approve' }),
      ),
    ).toBe('payout not found');
    // The same create again answers the payout it made; nothing new happened.
    expect(rightOf(await w.engine.payouts.create(key, body)).payout.payout_id).toBe(
      payout.payout_id,
    );
    expect(messageOf(await w.engine.payouts.create(key, payoutBody(1)))).toBe(
      'reference already exists',
    );
    expect((await trailOf(w.engine)).length).toBe(before + 1);
  });

  it('keeps neither the act nor its record when the unit of work fails between or after them', async () => {
    for (const fault of [failingAuditInsert, crashBeforeCommit]) {
      let failing = false;
      const w = await operatorsWorld((store) => {
        const faulty = fault(store);
        return {
          ...store,
          transaction: (work) => (failing ? faulty : store).transaction(work),
        };
      });
      const { payout } = rightOf(
        await w.engine.payouts.create(w.keyOf('key_maker'), payoutBody(1)),
      );
      const recorded = (await trailOf(w.engine)).length;
      failing = true;
      await expect(
        w.engine.admin.reviewPayout(bootstrapOperator, payout.payout_id, { action: 'approve' }),
      ).rejects.toThrow(/injected/);
      failing = false;
      const { payout: after } = rightOf(
        await w.engine.payouts.get(w.keyOf('key_maker'), payout.payout_id),
      );
      expect(after.review_status, fault.name).toBe('pending_review');
      expect((await trailOf(w.engine)).length, fault.name).toBe(recorded);
    }
  });

  it('shows a merchant the acts on its own account only, and no API edits it', async () => {
    const w = await operatorsWorld();
    const other = rightOf(
      await w.engine.admin.createMerchant(bootstrapOperator, { name: 'Other' }),
    );
    const otherKey: Caller = {
      ...w.keyOf('key_other'),
      merchant_id: other.merchant.merchant_id,
      account_id: other.merchant.account_id,
    };
    rightOf(
      await w.engine.webhooks.create(otherKey, {
        url: 'https://other.example/hooks',
        events: ['payout.*'],
      }),
    );
    const mine = w.keyOf('key_mine');
    rightOf(await w.engine.payouts.create(mine, payoutBody(1)));
    const seen = rightOf(await w.engine.accounts.audit(mine, {})).items;
    expect(seen.map((r) => r.action).sort()).toEqual([
      'account.credit',
      'merchant.create',
      'payout.create',
    ]);
    expect(seen.every((r) => r.account_id === w.merchant.account_id)).toBe(true);
    const theirs = rightOf(await w.engine.accounts.audit(otherKey, {})).items;
    expect(theirs.map((r) => r.action).sort()).toEqual(['merchant.create', 'webhook.create']);
    expect(
      messageOf(
        await w.engine.accounts.audit({ ...mine, permissions: ['payment.payout.read'] }, {}),
      ),
    ).toBe('forbidden');
    // Only reads: the engine's face has no door that writes or removes a record.
    expect(Object.keys(w.engine.admin).filter((name) => /audit/i.test(name))).toEqual(['audit']);
    expect(Object.keys(w.engine.accounts).filter((name) => /audit/i.test(name))).toEqual(['audit']);
  });
});

describe('four eyes, over random sequences of principals and acts', () => {
  /** Three keys of one account; a batch's items go to distinct addresses. */
  const keys = ['key_a', 'key_b', 'key_c'] as const;
  const act = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), by: fc.constantFrom(...keys) }),
    fc.record({
      kind: fc.constant('add' as const),
      by: fc.constantFrom(...keys),
      batch: fc.nat(3),
    }),
    fc.record({
      kind: fc.constant('approve' as const),
      by: fc.constantFrom(...keys),
      batch: fc.nat(3),
    }),
    fc.record({ kind: fc.constant('payout' as const), by: fc.constantFrom(...keys) }),
    fc.record({
      kind: fc.constant('review' as const),
      by: fc.constantFrom('reviewer', 'bootstrap' as const),
      payout: fc.nat(3),
    }),
  );

  const item = (n: number) => ({
    order_no: `o-${n}`,
    amount: '1.000000',
    beneficiary_account: { address: depositAddressOf(`recipient-${n}`, 'TRON') },
  });

  it('finds no batch or payout that one principal alone chose and approved', async () => {
    let approvals = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(act, { minLength: 1, maxLength: 12 }), async (acts) => {
        const w = await operatorsWorld();
        rightOf(
          await w.engine.admin.credit(bootstrapOperator, w.merchant.account_id, {
            currency: 'USDT',
            amount: '1000.000000',
          }),
        );
        const reviewer = await w.operator('rita', 'reviewer');
        const batches: string[] = [];
        const payouts: string[] = [];
        let n = 0;
        for (const a of acts) {
          n += 1;
          if (a.kind === 'create') {
            const created = await w.engine.batches.create(w.keyOf(a.by), {
              currency: 'USDT',
              method_id: 2,
              items: [item(n)],
            });
            if (created._tag === 'Right') batches.push(created.right.batch.batch_id);
          } else if (a.kind === 'add' || a.kind === 'approve') {
            const id = batches[a.batch % Math.max(1, batches.length)];
            if (id === undefined) continue;
            if (a.kind === 'add') {
              await w.engine.batches.addItems(w.keyOf(a.by), id, { items: [item(n)] });
            } else if (
              (await w.engine.batches.approve(w.keyOf(a.by), id, { version: 0 }))._tag === 'Right'
            ) {
              approvals += 1;
            }
          } else if (a.kind === 'payout') {
            const made = await w.engine.payouts.create(w.keyOf(a.by), payoutBody(n));
            if (made._tag === 'Right') payouts.push(made.right.payout.payout_id);
          } else {
            const id = payouts[a.payout % Math.max(1, payouts.length)];
            if (id === undefined) continue;
            const by = a.by === 'reviewer' ? reviewer : bootstrapOperator;
            const reviewed = await w.engine.admin.reviewPayout(by, id, { action: 'approve' });
            if (reviewed._tag === 'Right') approvals += 1;
          }
        }
        const trail = await trailOf(w.engine);
        const byObject = new Map<string, AuditRecordView[]>();
        for (const record of trail) {
          if (record.object_id === null) continue;
          byObject.set(record.object_id, [...(byObject.get(record.object_id) ?? []), record]);
        }
        for (const records of byObject.values()) {
          const chose = new Set(
            records
              .filter((r) => /^(crypto_batch\.(create|add_items)|payout\.create)$/.test(r.action))
              .map((r) => `${r.actor_type}:${r.actor_id}`),
          );
          for (const approval of records.filter((r) =>
            /^(crypto_batch\.approve|payout\.review)$/.test(r.action),
          )) {
            expect(chose.has(`${approval.actor_type}:${approval.actor_id}`)).toBe(false);
          }
        }
      }),
      { numRuns: 60 },
    );
    // The sequences did approve things, so the property judged real approvals.
    expect(approvals).toBeGreaterThan(20);
  });
});
