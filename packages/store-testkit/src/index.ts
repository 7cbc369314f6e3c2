/**
 * @payrail/store-testkit: the conformance suite every payrail store passes. Call
 * `runStoreConformance` from a test file with the runner's `describe`/`it`, a factory for a fresh
 * store with its oracle, and the store's capabilities.
 */
export { runStoreConformance } from './conformance.js';
export * from './harness.js';
