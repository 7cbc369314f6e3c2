/**
 * @payrail/core/testing: the fast-check arbitraries and fixtures payrail's own property tests
 * use, for hosts that property-test their integration (docs/testing.md). Needs fast-check, an
 * optional peer dependency; nothing in `@payrail/core` itself imports this entry.
 */
export * from './accepted-payout.arbitraries.js';
export * from './acquiring.arbitraries.js';
export * from './crypto-batch.arbitraries.js';
export * from './non-text.arbitraries.js';
export * from './payout.arbitraries.js';
export * from './payout.fixtures.js';
