export * from './harness.js';
export { runStoreConformance } from './conformance.js';
