/**
 * @payrail/client: payrail's merchant SDK (docs/sdk.md). `createPayrailClient` calls the merchant
 * API with types generated from payrail's OpenAPI document; `PayrailError` and its narrowing
 * helpers type refusals by catalogue key and code; `verifyWebhook` checks a delivery and answers
 * its event. Runs in Node 20 and in browsers.
 */

/** @public The client, its options, and the types of what its calls answer (docs/sdk.md). */
export {
  type AnswerOf,
  createPayrailClient,
  type ItemOf,
  type PagedPath,
  type PayrailClient,
  type PayrailClientOptions,
} from './payrail-client.js';
/** @public What a refused call throws, and the helpers that narrow it (docs/sdk.md). */
export {
  hasErrorCode,
  isPayrailError,
  PayrailError,
  type PayrailErrorCode,
  type PayrailErrorKey,
  type PayrailErrorParams,
  PayrailResponseError,
} from './payrail-error.js';
/** @public How calls are retried (docs/sdk.md). */
export type { RetryOptions } from './retrying-fetch.js';
/** @public Verifying a delivery and the events it holds (docs/sdk.md). */
export {
  type PayoutVerificationRequest,
  type PayrailEventType,
  type PayrailWebhook,
  type PayrailWebhookEvent,
  type VerifyOptions,
  verifyWebhook,
  type WebhookFailure,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhook-verification.js';
