import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BusinessType, DomainEvent } from '../machines/effects.js';
import {
  eventIdOf,
  isEnvelopeless,
  matchesEventPattern,
  toWebhookEnvelope,
  webhookBodyOf,
} from './webhook-envelope.js';

const completed: DomainEvent = {
  eventType: 'payout.execution.completed',
  businessType: 'payout',
  businessId: 'po_123',
  revision: 4,
  occurredAt: 1_700_000_000,
  data: { payout_id: 'po_123', status: 'completed', amount: '100.00' },
};

describe('toWebhookEnvelope', () => {
  it('carries exactly the envelope fields of the interface, version v1', () => {
    const envelope = toWebhookEnvelope(completed);
    expect(Object.keys(envelope).sort()).toEqual([
      'business_id',
      'business_type',
      'data',
      'event_id',
      'event_type',
      'occurred_at',
      'version',
    ]);
    expect(envelope).toEqual({
      event_id: eventIdOf(completed),
      event_type: 'payout.execution.completed',
      business_type: 'payout',
      business_id: 'po_123',
      occurred_at: 1_700_000_000,
      version: 'v1',
      data: completed.data,
    });
  });

  it('keeps occurred_at an integer of Unix seconds and amounts as strings through JSON', () => {
    const wire = JSON.parse(JSON.stringify(toWebhookEnvelope(completed)));
    expect(Number.isInteger(wire.occurred_at)).toBe(true);
    expect(wire.data.amount).toBe('100.00');
  });
});

describe('eventIdOf', () => {
  it('is evt_ + 32 hex digits, the same for the same transition', () => {
    const id = eventIdOf(completed);
    expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
    const replayed: DomainEvent = { ...completed, occurredAt: 1, data: {} };
    expect(eventIdOf(replayed)).toBe(id);
  });

  const businessType = fc.constantFrom<BusinessType>('payout', 'acquiring', 'crypto_batch');
  const key = fc.record({
    businessType,
    businessId: fc.string({ unit: 'binary', maxLength: 30 }),
    eventType: fc.string({ maxLength: 30 }),
    revision: fc.nat(),
  });

  it('is deterministic (property)', () => {
    fc.assert(
      fc.property(key, (k) => {
        expect(eventIdOf({ ...k })).toBe(eventIdOf(k));
      }),
    );
  });

  it('differs when the business type, id, event type or revision differs (property)', () => {
    fc.assert(
      fc.property(key, key, (a, b) => {
        fc.pre(
          a.businessType !== b.businessType ||
            a.businessId !== b.businessId ||
            a.eventType !== b.eventType ||
            a.revision !== b.revision,
        );
        expect(eventIdOf(a)).not.toBe(eventIdOf(b));
      }),
    );
  });

  it('differs when only one part changes (property)', () => {
    fc.assert(
      fc.property(key, fc.nat(3), (k, part) => {
        const changed = [
          { ...k, businessType: k.businessType === 'payout' ? 'acquiring' : 'payout' },
          { ...k, businessId: `${k.businessId}x` },
          { ...k, eventType: `${k.eventType}.x` },
          { ...k, revision: k.revision + 1 },
        ][part] as typeof k;
        expect(eventIdOf(changed)).not.toBe(eventIdOf(k));
      }),
    );
  });

  it('cannot be forged by moving characters between the id and the event type', () => {
    expect(
      eventIdOf({ ...completed, businessId: 'po_1', eventType: '2payout.review.approved' }),
    ).not.toBe(
      eventIdOf({ ...completed, businessId: 'po_12', eventType: 'payout.review.approved' }),
    );
    expect(eventIdOf({ ...completed, businessId: 'po_1', revision: 12 })).not.toBe(
      eventIdOf({ ...completed, businessId: 'po_11', revision: 2 }),
    );
  });
});

describe('events without envelope', () => {
  const verify: DomainEvent = {
    ...completed,
    eventType: 'payout.verify.request',
    data: { payout_id: 'po_123', type: 'payout.verify', amount: '100.00' },
  };

  it('payout.verify.request is posted as its bare payload', () => {
    expect(isEnvelopeless(verify)).toBe(true);
    expect(webhookBodyOf(verify)).toBe(verify.data);
  });

  it('every result event goes in the envelope', () => {
    for (const eventType of [
      'payout.review.approved',
      'payout.review.returned',
      'payout.review.rejected',
      'payout.execution.processing',
      'payout.execution.completed',
      'payout.execution.failed',
      'acquiring.order.updated',
      'acquiring.payment.updated',
    ]) {
      const event = { ...completed, eventType };
      expect(isEnvelopeless(event)).toBe(false);
      expect(webhookBodyOf(event)).toEqual(toWebhookEnvelope(event));
    }
  });
});

describe('matchesEventPattern', () => {
  it.each([
    ['acquiring.*', 'acquiring.order.updated', true],
    ['acquiring.*', 'acquiring.payment.updated', true],
    ['acquiring.*', 'acquiringx.foo', false],
    ['acquiring.*', 'acquiring', false],
    ['acquiring.*', 'payout.review.approved', false],
    ['acquiring.order.updated', 'acquiring.order.updated', true],
    ['acquiring.order.updated', 'acquiring.payment.updated', false],
    ['acquiring.order.updated', 'acquiring.order.updated.x', false],
    ['acquiring.order.*', 'acquiring.order.updated', true],
    ['acquiring.order.*', 'acquiring.payment.updated', false],
    ['payout.*', 'payout.execution.completed', true],
    ['*', 'acquiring.order.updated', true],
    ['*', 'payout.review.approved', true],
  ])('%s covers %s: %s', (pattern, eventType, covered) => {
    expect(matchesEventPattern(pattern, eventType)).toBe(covered);
  });
});
