/**
 * The conformance suite every payrail store passes, in the manner of next-auth's adapter tests
 * and keyv's test-suite: one function, the runner's `describe`/`it`, a factory for a fresh
 * store, and capability flags with reasons. Assertions use `node:assert/strict` only, so any
 * runner will do; every test opens its own store and closes it.
 */
import { collectionsConformance } from './collections.conformance.js';
import { concurrencyConformance } from './concurrency.conformance.js';
import { suiteContext } from './conformance-context.js';
import { durabilityConformance } from './durability.conformance.js';
import { environmentConformance } from './environment.conformance.js';
import type { ConformanceOptions } from './harness.js';
import { idempotencyConformance } from './idempotency.conformance.js';
import { ledgerConformance } from './ledger.conformance.js';
import { modelConformance } from './model.conformance.js';
import { outboxConformance } from './outbox.conformance.js';
import { timersConformance } from './timers.conformance.js';
import { unitOfWorkConformance } from './unit-of-work.conformance.js';
import { wakeConformance } from './wake.conformance.js';
import { workBucketsConformance } from './work-buckets.conformance.js';

/**
 * What the suite leaves out and why, shown in the title of the suite itself: a runner has no
 * honest way to report "not applicable" for tests that were never registered.
 */
const leftOut = (options: ConformanceOptions): readonly string[] => [
  ...(options.capabilities.durable.supported
    ? []
    : [`durability not applicable: ${options.capabilities.durable.reason}`]),
  ...(options.createModel === undefined ? ['model-based run not configured (no createModel)'] : []),
];

export const runStoreConformance = (options: ConformanceOptions): void => {
  const { describe, capabilities } = options;
  if (capabilities.durable.supported && options.reopen === undefined) {
    throw new Error(`${options.name}: a durable store must pass reopen to the conformance suite`);
  }
  const notes = leftOut(options);
  const title = `store conformance: ${options.name}${notes.length > 0 ? ` [${notes.join('; ')}]` : ''}`;
  const ctx = suiteContext(options);
  describe(title, () => {
    collectionsConformance(ctx);
    describe('ledger', () => ledgerConformance(ctx));
    describe('outbox', () => outboxConformance(ctx));
    describe('timers', () => timersConformance(ctx));
    describe('claims by work bucket', () => workBucketsConformance(ctx));
    describe('idempotency', () => idempotencyConformance(ctx));
    describe('unit of work', () => unitOfWorkConformance(ctx));
    describe('next due times and onWork', () => wakeConformance(ctx));
    describe('environment', () => environmentConformance(ctx));
    const how = capabilities.concurrentTransactions.supported
      ? 'units of work run at the same time'
      : `units of work serialized: ${capabilities.concurrentTransactions.reason}; same answers required`;
    describe(`concurrency (${how})`, () => concurrencyConformance(ctx));
    if (options.reopen !== undefined && capabilities.durable.supported) {
      const reopen = options.reopen;
      describe('durability', () => durabilityConformance(options, reopen));
    }
    if (options.createModel !== undefined) {
      const createModel = options.createModel;
      describe('model-based run against the reference store', () =>
        modelConformance(options, createModel));
    }
  });
};
