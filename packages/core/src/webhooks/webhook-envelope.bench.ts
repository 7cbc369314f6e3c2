/** The deterministic event id: a SHA-256 per outbox row. */
import { bench, describe } from 'vitest';
import { eventIdOf } from './webhook-envelope.js';

describe('webhook envelope', () => {
  let revision = 0;
  bench('eventIdOf', () => {
    revision += 1;
    eventIdOf({
      businessType: 'payout',
      businessId: 'po_0123456789abcdef01234567',
      eventType: 'payout.execution.completed',
      revision,
    });
  });
});
