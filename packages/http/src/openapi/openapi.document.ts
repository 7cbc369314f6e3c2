/**
 * `/openapi.json`: an OpenAPI 3.1 document of every route, built from the route table. Bodies and
 * list queries are described from the codecs the engine validates with (`toJsonSchema`,
 * `queryParametersOf`); each operation lists the catalogue messages it may answer, by status.
 */
import {
  type ErrorKey,
  errorCatalogue,
  errorEnvelope,
  type PayrailError,
  payrailError,
} from '@payrail/core';
import { refusalHeaders } from '../envelope.js';
import { answersText, pathParameters, type Route } from '../routes/route.js';
import { toJsonSchema } from './json-schema.converter.js';
import { type JsonSchema, objectSchema } from './json-schema.js';
import { queryParametersOf } from './query-parameters.js';

/**
 * The catalogue error of `key`, its `<placeholders>` left as they are written. Cast: for any key
 * at once `payrailError` wants every placeholder's value, and here none is filled on purpose.
 */
const catalogueError = (key: ErrorKey): PayrailError =>
  (payrailError as (key: ErrorKey, params: object) => PayrailError)(key, {});

const isErrorKey = (name: string): name is ErrorKey => Object.hasOwn(errorCatalogue, name);

const keysOfGroup = (group: string): ErrorKey[] =>
  Object.keys(errorCatalogue)
    .filter(isErrorKey)
    .filter((key) => errorCatalogue[key].group === group);

const merchantErrors: readonly ErrorKey[] = [
  ...keysOfGroup('authentication'),
  'account_not_found',
  'account_frozen',
  'rate_limit_exceeded',
];
const bodyErrors: readonly ErrorKey[] = ['request_required', 'validation_failed', 'field_required'];
const statusFilterErrors: Readonly<Record<string, ErrorKey>> = {
  status: 'invalid_status',
  review_status: 'invalid_review_status',
  execution_status: 'invalid_execution_status',
};

/**
 * Every catalogue message an operation may answer: its scope's credential checks, its body and
 * query codecs' failures, its groups and single messages (the 404 of its path id among them).
 */
export const errorKeysOf = (route: Route): ErrorKey[] => {
  const keys: ErrorKey[] = [];
  if (route.scope === 'merchant') keys.push(...merchantErrors);
  // An operator's role may not cover the route (ADR 0039): `forbidden`.
  if (route.scope === 'admin') keys.push('unauthorized', 'forbidden');
  // Every scope is limited per client address before anything else (issue 12, finding 6).
  if (route.scope !== 'merchant') keys.push('rate_limit_exceeded');
  // The body limit runs before any route: a body over it is `Validation Failed`, on every
  // method that carries one, whether or not the route reads it.
  if (route.method !== 'get') keys.push('validation_failed');
  if (route.body !== undefined) keys.push(...bodyErrors);
  if (route.query !== undefined) {
    keys.push('invalid_query_param');
    for (const parameter of queryParametersOf(route.query)) {
      const own = statusFilterErrors[parameter.name];
      if (own !== undefined) keys.push(own);
    }
  }
  for (const group of route.errorGroups ?? []) keys.push(...keysOfGroup(group));
  // Anything unexpected, and a database that cannot be reached (ADR 0051).
  keys.push(...(route.errors ?? []), 'internal_error', 'service_unavailable');
  return [...new Set(keys)];
};

/** A success: `{code: 0, message: "success", data}`, nothing else (closed like its `data`). */
const envelopeOf = (data: JsonSchema): JsonSchema =>
  objectSchema(
    { code: { const: 0 }, message: { const: 'success' }, data },
    ['code', 'message', 'data'],
    { additionalProperties: false },
  );

const errorEnvelopeRef = { $ref: '#/components/schemas/ErrorEnvelope' };

const retryAfter = {
  'Retry-After': {
    description: 'seconds until the key may send again',
    schema: { type: 'integer' },
  },
};

const retryAfterUnavailable = {
  'Retry-After': {
    description: 'seconds until the request may be sent again (with the same idempotency key)',
    schema: { type: 'integer' },
  },
};

/** What a `forbidden` names beside its envelope (ADR 0050), by the scope of the route. */
const forbiddenHeaders = (route: Route) => ({
  [refusalHeaders.missingPermission]: {
    description:
      route.scope === 'admin'
        ? "with `forbidden`: the operator permission the operator's role lacks"
        : 'with `forbidden`: the permissions the API key lacks, comma-separated',
    schema: { type: 'string' },
  },
  ...(route.scope === 'merchant'
    ? {
        [refusalHeaders.productNotEnabled]: {
          description: 'with `forbidden`: the product the account has not enabled',
          schema: { type: 'string', enum: ['payout', 'acquiring'] },
        },
      }
    : {}),
});

/** The headers an error answer of `status` carries besides the envelope. */
const headersOf = (route: Route, status: number, errors: readonly PayrailError[]) => {
  if (status === 429) return retryAfter;
  if (status === 503) return retryAfterUnavailable;
  if (status === 403 && errors.some((error) => error.key === 'forbidden')) {
    return forbiddenHeaders(route);
  }
  return undefined;
};

const errorResponses = (route: Route, keys: readonly ErrorKey[]) => {
  const byStatus = new Map<number, PayrailError[]>();
  for (const key of keys) {
    const error = catalogueError(key);
    byStatus.set(error.httpStatus, [...(byStatus.get(error.httpStatus) ?? []), error]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, errors]) => {
        const headers = headersOf(route, status, errors);
        return [
          String(status),
          {
            description: errors.map((error) => `\`${error.message}\``).join(', '),
            ...(headers === undefined ? {} : { headers }),
            content: {
              'application/json': {
                schema: errorEnvelopeRef,
                examples: Object.fromEntries(
                  errors.map((error) => [error.key, { value: errorEnvelope(error) }]),
                ),
              },
            },
          },
        ];
      }),
  );
};

/** The envelope of the route's answer codec, or the streamed text of a text route (ADR 0045). */
const successResponse = (route: Route) => {
  if (answersText(route)) {
    const { description, mediaType, example } = route.response;
    return {
      description,
      headers: {
        'Content-Disposition': {
          description: 'attachment, with the file name',
          schema: { type: 'string' },
        },
      },
      content: { [mediaType]: { schema: { type: 'string' }, example } },
    };
  }
  return {
    description: route.response.description,
    content: { 'application/json': { schema: envelopeOf(toJsonSchema(route.response.codec)) } },
  };
};

const securityOf = (route: Route) => {
  switch (route.scope) {
    case 'merchant':
      return [{ bearerApiKey: [] }, { headerApiKey: [] }];
    case 'admin':
      return [{ operatorToken: [] }];
    case 'checkout':
    case 'upstream':
      return [];
  }
};

const operationOf = (route: Route) => ({
  operationId: route.operationId,
  summary: route.summary,
  tags: [route.tag],
  security: securityOf(route),
  ...(route.scope === 'merchant' ? { 'x-permissions': [...route.permissions] } : {}),
  ...(route.scope === 'admin' ? { 'x-operator-permission': route.permission } : {}),
  parameters: [
    ...pathParameters(route.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    })),
    ...(route.query === undefined
      ? []
      : queryParametersOf(route.query).map((parameter) => ({
          name: parameter.name,
          in: 'query',
          required: parameter.required,
          description: parameter.description,
          schema: parameter.schema,
        }))),
  ],
  ...(route.body === undefined
    ? {}
    : {
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: toJsonSchema(route.body),
              ...(route.example === undefined
                ? {}
                : { examples: { [route.operationId]: { value: route.example } } }),
            },
          },
        },
      }),
  responses: {
    '200': successResponse(route),
    ...errorResponses(route, errorKeysOf(route)),
  },
});

export interface OpenApiOptions {
  /**
   * Where clients reach the API (`servers`); unknown, the document's own origin (`/`), which
   * is right wherever `/openapi.json` itself was fetched from.
   */
  readonly publicUrl?: string;
}

export const openApiDocument = (table: readonly Route[], options: OpenApiOptions = {}) => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of table) {
    paths[route.path] = { ...paths[route.path], [route.method]: operationOf(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'payrail',
      version: '0.1.0',
      description:
        'Merchant payment API: payouts, acquiring orders, crypto batches, webhooks; the admin API; the checkout calls. Every answer is `{code, message, data}`; success is HTTP 200 with code 0.',
    },
    servers: [{ url: options.publicUrl ?? '/' }],
    tags: [...new Set(table.map((route) => route.tag))].map((name) => ({ name })),
    components: {
      securitySchemes: {
        bearerApiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        headerApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        operatorToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "an operator's credential (`<operator_id>.<secret>`), or PAYRAIL_ADMIN_TOKEN (the bootstrap operator, ADR 0039)",
        },
      },
      schemas: {
        ErrorEnvelope: objectSchema(
          {
            code: { type: 'integer', enum: [50, 51, 53, 54, 61, 65] },
            message: { type: 'string', description: 'the catalogue message, exact' },
            data: { type: 'null' },
          },
          ['code', 'message', 'data'],
        ),
      },
    },
    paths,
  };
};

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
