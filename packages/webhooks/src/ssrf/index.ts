export * from './address-policy.js';
export * from './guarded-lookup.js';
export * from './outbound-url.js';
export * from './outbound-url-guard.js';
