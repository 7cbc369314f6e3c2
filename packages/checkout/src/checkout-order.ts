/**
 * What the page reads of the checkout call's answer (`data.order` of
 * `GET /checkout/api/orders/{order_id}`). The page is an adapter that takes the answer as JSON,
 * exactly as the browser does, so it checks the shape instead of trusting a type: with the core's
 * `CheckoutOrderView`, the codec the engine answers with and the OpenAPI document is generated
 * from, so the page's idea of the answer is declared once (issue 20).
 */
import { CheckoutOrderView, isJsonObject } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';

/** `data.order` of the checkout call, as the core's answer codec declares it. */
export type CheckoutOrder = CheckoutOrderView;

/** One token the payer may choose. */
export type CheckoutToken = CheckoutOrder['pay_tokens'][number];

class UnexpectedAnswer extends Error {
  constructor(field: string) {
    super(`checkout order answer: unexpected ${field}`);
    this.name = 'UnexpectedAnswer';
  }
}

/** io-ts's failures of the codec (the checkout has no io-ts of its own to name them by). */
type Failures = Extract<ReturnType<typeof CheckoutOrderView.decode>, E.Left<unknown>>['left'];

/**
 * Where the first failure is, below `data.order` (`pay_tokens.0.network`), or `data` when the
 * order itself is not an object. io-ts's context also holds the steps of its combinators (an
 * intersection's or a union's member, keyed by its index), which read the same value as the step
 * before them; a field or an item is a value of its own (JSON has no cycles).
 */
const fieldOf = (errors: Failures): string => {
  const context = errors[0]?.context ?? [];
  const path = context
    .filter((entry, i) => i > 0 && entry.actual !== context[i - 1]?.actual)
    .map((entry) => entry.key);
  return path.length === 0 ? 'data' : path.join('.');
};

/** `data.order` of a checkout answer; throws on anything else (the page answers 500). */
export const checkoutOrderOf = (data: unknown): CheckoutOrder => {
  const decoded = CheckoutOrderView.decode(isJsonObject(data) ? data.order : undefined);
  if (E.isLeft(decoded)) throw new UnexpectedAnswer(fieldOf(decoded.left));
  return decoded.right;
};

/** An http(s) URL or nothing: a `javascript:` or `data:` link never reaches an `href`. */
export const webUrlOf = (raw: string | undefined): URL | undefined => {
  if (raw === undefined || !URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
};
