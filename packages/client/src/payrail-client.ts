/**
 * `createPayrailClient`: the merchant API (`/payment/...`) through openapi-fetch, typed by the
 * types openapi-typescript generated from payrail's OpenAPI document (ADR 0048). A call answers
 * the envelope's `data`, typed; a refusal throws a `PayrailError`; reads and creates that carry
 * their idempotency id are retried on network failures and 5xx, every call on 429; lists are
 * walked page by page with `paginate`.
 */
import createClient, {
  type FetchOptions,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { idempotencyMiddleware } from './idempotency.middleware.js';
import type { paths } from './payrail-api.generated.js';
import { errorOfAnswer } from './payrail-error.js';
import { type Fetch, type RetryOptions, retryingFetch } from './retrying-fetch.js';

export interface PayrailClientOptions {
  /** Where payrail answers, e.g. `https://payrail.example.com` (the paths start at `/payment`). */
  readonly baseUrl: string;
  /** The merchant's API key token, sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /** Sends the requests; default the platform's `fetch`. */
  readonly fetch?: Fetch;
  /** How calls are retried (see `RetryOptions`); `false` never retries. */
  readonly retry?: RetryOptions | false;
  /** Headers sent with every call besides the key's (`X-Request-Id`, ...). */
  readonly headers?: Readonly<Record<string, string>>;
}

type Method = 'get' | 'post' | 'patch' | 'delete';
type PathOf<M extends Method> = PathsWithMethod<paths, M>;
type InitOf<M extends Method, P extends PathOf<M>> = MaybeOptionalInit<paths[P], M>;

/** The call's options (path and query parameters, body, `parseAs`, `signal`), when it has any. */
type InitArgs<Init> =
  RequiredKeysOf<Init> extends never
    ? [(Init & { [key: string]: unknown })?]
    : [Init & { [key: string]: unknown }];

/** The envelope's `data`; the text itself for a text answer read with `parseAs: 'text'`. */
type DataOf<T> = T extends { readonly code: 0; readonly data: infer D } ? D : T;

/** What `method` on `path` answers. */
export type AnswerOf<M extends Method, P extends PathOf<M>, Init = object> = DataOf<
  NonNullable<FetchResponse<Extract<paths[P][M], Record<string, unknown>>, Init, MediaType>['data']>
>;

type CallOf<M extends Method> = <P extends PathOf<M>, Init extends InitOf<M, P>>(
  path: P,
  ...init: InitArgs<Init>
) => Promise<AnswerOf<M, P, Init>>;

/** The lists that page with `limit` and `offset`: `{items, total, limit, offset}`. */
export type PagedPath = {
  [P in PathOf<'get'>]: paths[P]['get'] extends {
    readonly parameters: { readonly query?: { readonly offset?: number } };
  }
    ? AnswerOf<'get', P> extends { readonly items: readonly unknown[]; readonly total: number }
      ? P
      : never
    : never;
}[PathOf<'get'>];

/** An item of a paged list. */
export type ItemOf<P extends PagedPath> =
  AnswerOf<'get', P> extends { readonly items: readonly (infer I)[] } ? I : never;

export interface PayrailClient {
  /** Reads: `await client.GET('/payment/payouts/{payout_id}', { params: { path: { payout_id } } })`. */
  readonly GET: CallOf<'get'>;
  /** Creates and acts: `await client.POST('/payment/quickpayout', { body })`. */
  readonly POST: CallOf<'post'>;
  readonly PATCH: CallOf<'patch'>;
  readonly DELETE: CallOf<'delete'>;
  /**
   * Every item of a list, page by page (`limit` is the page size, default 100; `offset` where to
   * start): `for await (const payout of client.paginate('/payment/payouts', { params: { query:
   * { status: 'completed' } } }))`. Lists are newest first: fix `end_at` for a set that does not
   * grow while you walk it.
   */
  readonly paginate: <P extends PagedPath, Init extends InitOf<'get', P>>(
    path: P,
    ...init: InitArgs<Init>
  ) => AsyncGenerator<ItemOf<P>, void, undefined>;
}

/**
 * What the calls are made with: any path, any parameters and body. The typed face above says
 * what each path takes and answers; openapi-fetch builds the request from them alike.
 */
interface AnyOperation {
  readonly parameters: {
    readonly query?: Readonly<Record<string, unknown>>;
    readonly path?: Readonly<Record<string, unknown>>;
  };
  readonly requestBody?: { readonly content: { readonly 'application/json': unknown } };
  readonly responses: {
    readonly 200: { readonly content: { readonly 'application/json': unknown } };
  };
}
type AnyPaths = Readonly<Record<string, Readonly<Record<Method, AnyOperation>>>>;
type AnyInit = FetchOptions<AnyOperation>;

/** payrail's largest page (docs/api.md §8). */
const largestPage = 100;

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A page's items and total; a list answer is always one. */
const pageOf = (
  answer: unknown,
): { readonly items: readonly unknown[]; readonly total: number } => {
  if (isRecord(answer) && Array.isArray(answer.items) && typeof answer.total === 'number') {
    return { items: answer.items, total: answer.total };
  }
  throw new TypeError('a paged list answered without items and total');
};

export const createPayrailClient = (options: PayrailClientOptions): PayrailClient => {
  const base: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
  const repeatable = new WeakSet<Request>();
  const raw = createClient<AnyPaths>({
    baseUrl: options.baseUrl,
    fetch:
      options.retry === false
        ? base
        : retryingFetch(base, options.retry ?? {}, (request) => repeatable.has(request)),
    headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
  });
  raw.use(idempotencyMiddleware(repeatable));

  /** The call's answer: the envelope's data, or the refusal thrown. */
  const settle = async (
    operation: string,
    answer: { readonly data?: unknown; readonly error?: unknown; readonly response: Response },
  ): Promise<unknown> => {
    if (!answer.response.ok) throw errorOfAnswer(answer.response, answer.error, operation);
    const { data } = answer;
    return isRecord(data) && data.code === 0 && 'data' in data ? data.data : data;
  };

  const call =
    (method: 'get' | 'post' | 'patch' | 'delete') =>
    async (path: string, init?: AnyInit): Promise<unknown> =>
      settle(`${method.toUpperCase()} ${path}`, await raw.request(method, path, init));

  const GET = call('get');
  async function* paginate(path: string, init: AnyInit = {}) {
    const params = init.params ?? {};
    const query = params.query ?? {};
    const limit = typeof query.limit === 'number' ? query.limit : largestPage;
    let offset = typeof query.offset === 'number' ? query.offset : 0;
    for (;;) {
      const page = pageOf(
        await GET(path, { ...init, params: { ...params, query: { ...query, limit, offset } } }),
      );
      yield* page.items;
      offset += page.items.length;
      if (page.items.length === 0 || offset >= page.total) return;
    }
  }
  // The typed face of the untyped calls above: openapi-fetch builds each request from the same
  // path, parameters and body, so what `paths` says of a call is what it answers.
  return {
    GET,
    POST: call('post'),
    PATCH: call('patch'),
    DELETE: call('delete'),
    paginate,
  } as PayrailClient;
};
