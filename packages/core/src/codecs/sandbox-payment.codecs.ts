/**
 * The sandbox provider's "a chain payment was seen" body (docs/spec/decisions.md §8,
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
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { type CryptoCurrency, formatAmount, isPositive, parseAmount } from '../money/money.js';
import { type PayTokenId, payTokenIds, resolvePayToken } from '../money/pay-tokens.js';
import {
  codePointLength,
  decodeWith,
  isBlank,
  type LeafSchema,
  leafFrom,
  oneOfLeaf,
  request,
  requiredField,
} from './codec-toolkit.js';

/** What the sandbox can say about a payment, as a chain provider would. */
export const sandboxPaymentStatuses = ['processing', 'confirming', 'confirmed'] as const;
export type SandboxPaymentStatus = (typeof sandboxPaymentStatuses)[number];

const TokenId = leafFrom<PayTokenId>(
  'PayTokenId',
  (u): u is PayTokenId => E.isRight(resolvePayToken(u)),
  (u) =>
    pipe(
      resolvePayToken(u),
      E.map((token) => token.id),
    ),
  { enum: [...payTokenIds] },
);

/** The currency of the token sent beside the amount; its error comes first when it has none. */
const currencyOfToken = (tokenId: unknown): CryptoCurrency =>
  pipe(
    resolvePayToken(tokenId),
    E.match(
      (): CryptoCurrency => 'USDT',
      (token) => token.currency,
    ),
  );

/** At the token's scale (6 decimals), written out at that scale; greater than zero. */
const Amount = leafFrom<string>(
  'SandboxPaymentAmount',
  (u): u is string => typeof u === 'string',
  (u, sibling) =>
    pipe(
      parseAmount(u, currencyOfToken(sibling('token_id')), { field: 'amount' }),
      E.filterOrElse(isPositive, (): PayrailError => payrailError('amount_must_be_positive')),
      E.map(formatAmount),
    ),
  { type: 'string', pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$', description: 'decimal string' },
);

const Status = oneOfLeaf('SandboxPaymentStatus', sandboxPaymentStatuses, 'invalid_status');

/** An optional text: blank reads as not sent (decodes to `undefined`, so the key is dropped). */
const optionalText = (name: string, ok: (value: string) => boolean, schema: LeafSchema) =>
  leafFrom<string | undefined>(
    name,
    (u): u is string => typeof u === 'string' && !isBlank(u) && ok(u),
    (u) => {
      if (typeof u === 'string' && isBlank(u)) return E.right(undefined);
      return typeof u === 'string' && ok(u)
        ? E.right(u)
        : E.left(payrailError('validation_failed'));
    },
    schema,
  );

/** A provider-style id: letters, digits, `_` and `-`, 1-64 characters. */
const paymentIdShape = /^[A-Za-z0-9_-]{1,64}$/;
const maxTxHashLength = 128;

const isTxHash = (value: string): boolean =>
  codePointLength(value) <= maxTxHashLength && /^[\x21-\x7e]+$/.test(value);

const required = (field: string) => payrailError('field_required', { field });

export const SandboxPaymentRequest = request('SandboxPaymentRequest', {
  format: t.intersection([
    t.type({
      token_id: requiredField(TokenId, required('token_id')),
      amount: requiredField(Amount, required('amount')),
      status: requiredField(Status, required('status')),
    }),
    t.partial({
      tx_hash: optionalText('TxHash', isTxHash, {
        type: 'string',
        maxLength: maxTxHashLength,
        pattern: '^[\\x21-\\x7e]+$',
      }),
      payment_id: optionalText('PaymentId', (value) => paymentIdShape.test(value), {
        type: 'string',
        pattern: paymentIdShape.source,
        description: 'an update of an earlier payment',
      }),
    }),
  ]),
});
export type SandboxPaymentRequest = t.TypeOf<typeof SandboxPaymentRequest>;

export const decodeSandboxPayment: (
  input: unknown,
) => E.Either<PayrailError, SandboxPaymentRequest> = decodeWith(SandboxPaymentRequest);
