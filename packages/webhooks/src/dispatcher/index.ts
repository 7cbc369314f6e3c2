export * from './delivery-log.js';
export * from './dispatcher.js';
export * from './http-transport.js';
export * from './retry-schedule.js';
export * from './verification-answer.js';
export * from './webhook-signature.js';
