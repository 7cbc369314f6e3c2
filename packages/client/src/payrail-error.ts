/**
 * What a refused call throws. payrail answers every refusal with the envelope `{code, message,
 * data: null}` and the catalogue's HTTP status (docs/errors.md): a `PayrailError` carries the
 * three as sent, and the catalogue key whose message the answer's message is, found among the
 * errors the OpenAPI document lists for the merchant paths (error-catalogue.generated.ts), with
 * the values of the message's `<placeholders>`. An answer that is not the envelope (a proxy's
 * 502 page) is a `PayrailResponseError`.
 */
import { errorCatalogue } from './error-catalogue.generated.js';

/** A key of the error catalogue (`payout_not_found`, `reference_already_exists`, ...). */
export type PayrailErrorKey = keyof typeof errorCatalogue;

/**
 * The envelope code of a refusal: 51 a bad request, 53 a business rule, 54 the rate limit, 61
 * authentication or permission, 65 not found, 50 an internal error.
 */
export type PayrailErrorCode = 50 | 51 | 53 | 54 | 61 | 65;

const errorCodes: readonly number[] = [50, 51, 53, 54, 61, 65];
const isErrorCode = (value: unknown): value is PayrailErrorCode =>
  typeof value === 'number' && errorCodes.includes(value);

/** `'a <x> b <y>'` -> `'x' | 'y'`. */
type Placeholders<M extends string> = M extends `${string}<${infer P}>${infer Rest}`
  ? P | Placeholders<Rest>
  : never;

/** The values of a key's placeholders: `{ field: 'amount' }` for `<field> required`. */
export type PayrailErrorParams<K extends PayrailErrorKey> = {
  readonly [P in Placeholders<(typeof errorCatalogue)[K]['message']>]: string;
};

interface Template {
  readonly key: PayrailErrorKey;
  readonly status: number;
  readonly code: number;
  readonly message: string;
  /** The message with each placeholder a capture group; the names in their order. */
  readonly pattern: RegExp;
  readonly names: readonly string[];
  /** Characters outside placeholders: the more, the more specific the template. */
  readonly literal: number;
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

const isErrorKey = (key: string): key is PayrailErrorKey => Object.hasOwn(errorCatalogue, key);

const templates: readonly Template[] = Object.keys(errorCatalogue)
  .filter(isErrorKey)
  .map((key) => {
    const { status, code, message } = errorCatalogue[key];
    const parts = message.split(/<([a-z_]+)>/);
    const names = parts.filter((_, index) => index % 2 === 1);
    const source = parts.map((part, index) => (index % 2 === 0 ? escaped(part) : '(.+?)')).join('');
    const literal = parts.filter((_, index) => index % 2 === 0).join('').length;
    return { key, status, code, message, pattern: new RegExp(`^${source}$`), names, literal };
  })
  // Fixed messages first, then the most specific template: `invalid webhook event: <event>`
  // before `invalid <param>`.
  .sort((a, b) => Number(a.names.length > 0) - Number(b.names.length > 0) || b.literal - a.literal);

/** The catalogue key of an answer, and its placeholders' values; none for an unlisted message. */
const catalogueMatch = (
  status: number,
  code: number,
  message: string,
):
  | { readonly key: PayrailErrorKey; readonly params: Readonly<Record<string, string>> }
  | undefined => {
  for (const template of templates) {
    if (template.status !== status || template.code !== code) continue;
    const match = template.pattern.exec(message);
    if (match === null) continue;
    const params = Object.fromEntries(template.names.map((name, i) => [name, match[i + 1] ?? '']));
    return { key: template.key, params };
  }
  return undefined;
};

/** `Retry-After` in seconds (payrail sends seconds; an HTTP date is read too). */
export const retryAfterSeconds = (headers: Headers): number | undefined => {
  const value = headers.get('Retry-After');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
};

/** A refusal in payrail's envelope. */
export class PayrailError extends Error {
  override readonly name = 'PayrailError';
  /** The HTTP status (400, 401, 403, 404, 429, 500). */
  readonly status: number;
  /** The envelope's code. */
  readonly code: PayrailErrorCode;
  /** The catalogue key of `message`, when the document lists the message for a merchant path. */
  readonly key: PayrailErrorKey | undefined;
  /** The values of the message's placeholders (`{ field: 'amount' }`); `{}` for a fixed message. */
  readonly params: Readonly<Record<string, string>>;
  /** The seconds a 429 asks to wait (`Retry-After`). */
  readonly retryAfterSeconds: number | undefined;
  /** With `forbidden`: the permissions the API key lacks (`Payrail-Missing-Permission`). */
  readonly missingPermissions: readonly string[] | undefined;
  /** With `forbidden`: the product the account has not enabled (`Payrail-Product-Not-Enabled`). */
  readonly productNotEnabled: string | undefined;
  /** The call refused: `POST /payment/quickpayout`. */
  readonly operation: string;

  constructor(answer: {
    readonly status: number;
    readonly code: PayrailErrorCode;
    /** Exactly as the server sent it. */
    readonly message: string;
    readonly operation: string;
    /** The answer's headers, which say more of some refusals. */
    readonly headers?: Headers;
  }) {
    super(answer.message);
    const match = catalogueMatch(answer.status, answer.code, answer.message);
    const headers = answer.headers ?? new Headers();
    this.status = answer.status;
    this.code = answer.code;
    this.key = match?.key;
    this.params = match?.params ?? {};
    this.retryAfterSeconds = retryAfterSeconds(headers);
    this.missingPermissions = headers
      .get('Payrail-Missing-Permission')
      ?.split(',')
      .map((permission) => permission.trim())
      .filter((permission) => permission !== '');
    this.productNotEnabled = headers.get('Payrail-Product-Not-Enabled') ?? undefined;
    this.operation = answer.operation;
  }
}

/** An answer that is not payrail's envelope: a proxy's or a load balancer's page, say. */
export class PayrailResponseError extends Error {
  override readonly name = 'PayrailResponseError';
  readonly status: number;
  /** The answer's body, as text. */
  readonly body: string;
  readonly operation: string;

  constructor(answer: {
    readonly status: number;
    readonly body: string;
    readonly operation: string;
  }) {
    super(`${answer.operation} answered HTTP ${answer.status} without payrail's envelope`);
    this.status = answer.status;
    this.body = answer.body;
    this.operation = answer.operation;
  }
}

/** The error a refused answer throws, from its status, headers and parsed body. */
export const errorOfAnswer = (
  response: Response,
  body: unknown,
  operation: string,
): PayrailError | PayrailResponseError => {
  const envelope = typeof body === 'object' && body !== null ? body : {};
  const code = 'code' in envelope ? envelope.code : undefined;
  const message = 'message' in envelope ? envelope.message : undefined;
  if (isErrorCode(code) && typeof message === 'string') {
    return new PayrailError({
      status: response.status,
      code,
      message,
      operation,
      headers: response.headers,
    });
  }
  return new PayrailResponseError({
    status: response.status,
    body: typeof body === 'string' ? body : JSON.stringify(body ?? ''),
    operation,
  });
};

/**
 * Whether `error` is a refusal of payrail, and with `key` that catalogue error (its `params`
 * typed by the message's placeholders):
 * `if (isPayrailError(error, 'reference_already_exists')) ...`.
 */
export function isPayrailError(error: unknown): error is PayrailError;
export function isPayrailError<K extends PayrailErrorKey>(
  error: unknown,
  key: K,
): error is PayrailError & { readonly key: K; readonly params: PayrailErrorParams<K> };
export function isPayrailError(error: unknown, key?: PayrailErrorKey): boolean {
  return error instanceof PayrailError && (key === undefined || error.key === key);
}

/** Whether `error` is a refusal of payrail with envelope code `code` (53: a business rule). */
export const hasErrorCode = <C extends PayrailErrorCode>(
  error: unknown,
  code: C,
): error is PayrailError & { readonly code: C } =>
  error instanceof PayrailError && error.code === code;
