export * from './codecs/addresses.js';
export * from './errors/error-catalogue.js';
export * from './ledger/ledger.js';
export * from './machines/effects.js';
export * from './money/fees.js';
export * from './money/money.js';
export * from './money/pay-tokens.js';
export * from './webhooks/webhook-envelope.js';
