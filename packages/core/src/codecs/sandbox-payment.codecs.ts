/**
 * The sandbox provider's "a chain payment was seen" body (decisions §8,
 * `POST /admin/sandbox/acquiring/orders/{order_id}/payments`):
 * `{token_id, amount, status: processing | confirming | confirmed, tx_hash?, payment_id?}`.
 * A new payment_id records a new payment; repeating one updates that payment.
 *
 * Precedence, first failure wins: body not an object (`request required`); token_id
 * (`token_id required`, then `invalid pay currency: <id>` / `unsupported network/currency: ...`);
 * amount (`amount required`, the decimal format at the token's scale, `amount must be greater than
 * zero`); status (`status required`, `invalid status`); tx_hash and payment_id
 * (`Validation Failed`). Blank optional texts count as not sent.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { formatAmount, isPositive, parseAmount } from '../money/money.js';
import { type PayTokenId, resolvePayToken } from '../money/pay-tokens.js';
import {
  codecFromCheck,
  codePointLength,
  isBlank,
  isJsonObject,
  type JsonObject,
  presentValue,
} from './beneficiary.codecs.js';
import { decodeWith, requestBody } from './codec-toolkit.js';

/** What the sandbox can say about a payment, as a chain provider would. */
export const sandboxPaymentStatuses = ['processing', 'confirming', 'confirmed'] as const;
export type SandboxPaymentStatus = (typeof sandboxPaymentStatuses)[number];

export interface SandboxPaymentRequest {
  readonly token_id: PayTokenId;
  /** At the token's scale (6 decimals). */
  readonly amount: string;
  readonly status: SandboxPaymentStatus;
  readonly tx_hash?: string;
  readonly payment_id?: string;
}

/** A provider-style id: letters, digits, `_` and `-`, 1-64 characters. */
const paymentIdShape = /^[A-Za-z0-9_-]{1,64}$/;
const maxTxHashLength = 128;

type Check<A> = E.Either<PayrailError, A>;

const isMissing = (u: unknown): boolean => u === undefined || (typeof u === 'string' && isBlank(u));

const checkTokenId = (u: unknown): Check<PayTokenId> => {
  if (isMissing(u)) return E.left(payrailError('field_required', { field: 'token_id' }));
  return pipe(
    resolvePayToken(u),
    E.map((token) => token.id),
  );
};

const checkAmount = (u: unknown, tokenId: PayTokenId): Check<string> => {
  if (isMissing(u)) return E.left(payrailError('field_required', { field: 'amount' }));
  const currency = tokenId.slice(tokenId.lastIndexOf('_') + 1) as 'USDT' | 'USDC';
  return pipe(
    parseAmount(u, currency, { field: 'amount' }),
    E.filterOrElse(isPositive, (): PayrailError => payrailError('amount_must_be_positive')),
    E.map(formatAmount),
  );
};

const isSandboxPaymentStatus = (u: unknown): u is SandboxPaymentStatus =>
  (sandboxPaymentStatuses as readonly unknown[]).includes(u);

const checkStatus = (u: unknown): Check<SandboxPaymentStatus> => {
  if (isMissing(u)) return E.left(payrailError('field_required', { field: 'status' }));
  return isSandboxPaymentStatus(u) ? E.right(u) : E.left(payrailError('invalid_status'));
};

const checkOptionalText = (
  u: unknown,
  ok: (value: string) => boolean,
): Check<string | undefined> => {
  if (isMissing(u)) return E.right(undefined);
  return typeof u === 'string' && ok(u) ? E.right(u) : E.left(payrailError('validation_failed'));
};

const isTxHash = (value: string): boolean =>
  codePointLength(value) <= maxTxHashLength && /^[\x21-\x7e]+$/.test(value);

const checkSandboxPayment = (u: JsonObject): Check<SandboxPaymentRequest> => {
  const v = (key: string) => presentValue(u, key);
  return pipe(
    checkTokenId(v('token_id')),
    E.bindTo('token_id'),
    E.bind('amount', ({ token_id }) => checkAmount(v('amount'), token_id)),
    E.bind('status', () => checkStatus(v('status'))),
    E.bind('tx_hash', () => checkOptionalText(v('tx_hash'), isTxHash)),
    E.bind('payment_id', () =>
      checkOptionalText(v('payment_id'), (value) => paymentIdShape.test(value)),
    ),
    E.map(({ tx_hash, payment_id, ...required }) => ({
      ...required,
      ...(tx_hash === undefined ? {} : { tx_hash }),
      ...(payment_id === undefined ? {} : { payment_id }),
    })),
  );
};

export const SandboxPaymentRequest = requestBody(
  codecFromCheck<SandboxPaymentRequest>('SandboxPaymentRequest', (u) =>
    isJsonObject(u) ? checkSandboxPayment(u) : E.left(payrailError('request_required')),
  ),
);

export const decodeSandboxPayment: (
  input: unknown,
) => E.Either<PayrailError, SandboxPaymentRequest> = decodeWith(SandboxPaymentRequest);
