export * from './dispatcher/index.js';
export * from './ssrf/index.js';
