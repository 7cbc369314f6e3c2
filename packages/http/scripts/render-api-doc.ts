/**
 * Keeps docs/api.md true to the code. The file's prose is written by hand; each block between
 * `<!-- generated:NAME -->` and `<!-- /generated -->` is rendered here:
 * - `status-codes`: the catalogue's kinds with their HTTP status and code;
 * - `common-errors`: what every merchant or admin call may answer;
 * - `permissions`: which endpoints each API key permission opens;
 * - `endpoint-index` and `endpoints`: every route of the table with its permission (the one the
 *   engine checks, see permissions.engine.test.ts), product, query parameters and body (from the
 *   OpenAPI document, itself built from the codecs that validate), the fields of its answer (from
 *   the real engine's answers in api-walkthrough.ts) and its errors (catalogue messages).
 * `pnpm run docs` writes the file; render-api-doc.test.ts fails when the committed file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  apiKeyPermissions,
  type ErrorKey,
  type ErrorKind,
  errorCatalogue,
  errorPolicies,
  operatorPermissions,
  operatorRoles,
  type PayrailError,
  payrailError,
  roleAllows,
  withoutControlCharacters,
} from '@payrail/core';
import { refusalHeaders } from '../src/envelope.js';
import { toJsonSchema } from '../src/openapi/json-schema.converter.js';
import { errorKeysOf, openApiDocument } from '../src/openapi/openapi.document.js';
import { answersText, pathParameters, type Route } from '../src/routes/route.js';
import { routes } from '../src/routes/route-table.js';
import { type Observations, walkThroughApi } from './api-walkthrough.js';

export const apiDocUrl = new URL('../../../docs/api.md', import.meta.url);

type Schema = Readonly<Record<string, unknown>>;

const escapeCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string): string => `\`${escapeCell(text)}\``;
const methodOf = (route: Route): string => route.method.toUpperCase();
const titleOf = (route: Route): string => `${methodOf(route)} ${route.path}`;
const linkTo = (route: Route): string => `[${titleOf(route)}](#${route.operationId})`;

// ---------------------------------------------------------------------------------------------
// Permissions and products

/**
 * The permission text of a route whose check depends on the body (it replaces the plain list;
 * the doc test checks that it names every permission of the route).
 */
export const permissionNotes: Readonly<Record<string, string>> = {
  createQuickPayout:
    '`payment.payout.create`, and `payment.payout.submit` unless the body has `"submit": false`',
};

/** The product an account must have enabled (`requireProduct` in the engine), by route tag. */
const productByTag: Readonly<Record<string, 'payout' | 'acquiring' | null>> = {
  account: null,
  'payout setup': 'payout',
  payouts: 'payout',
  beneficiaries: 'payout',
  acquiring: 'acquiring',
  'crypto payouts': 'payout',
  webhooks: null,
};

export const productOf = (route: Route): 'payout' | 'acquiring' | null => {
  if (route.scope !== 'merchant') return null;
  const product = productByTag[route.tag];
  if (product === undefined) throw new Error(`api.md: no product known for tag "${route.tag}"`);
  return product;
};

const permissionText = (route: Route): string => {
  switch (route.scope) {
    case 'admin':
      return `operator: ${code(route.permission)}`;
    case 'checkout':
      return 'none (the order id)';
    case 'upstream':
      return "the provider's signature (and source addresses)";
    case 'merchant': {
      if (route.permissions.length === 0) return 'any key';
      return permissionNotes[route.operationId] ?? route.permissions.map(code).join(' + ');
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Errors

const catalogueError = (key: ErrorKey): PayrailError =>
  (payrailError as (key: ErrorKey, params: object) => PayrailError)(key, {});

/** What every merchant call may answer, before and besides its own errors. */
const commonMerchantErrors: readonly ErrorKey[] = [
  ...(Object.keys(errorCatalogue) as ErrorKey[]).filter(
    (key) => errorCatalogue[key].group === 'authentication',
  ),
  'account_not_found',
  'account_frozen',
  'rate_limit_exceeded',
  'internal_error',
  'service_unavailable',
];
const commonAdminErrors: readonly ErrorKey[] = [
  'unauthorized',
  'forbidden',
  'rate_limit_exceeded',
  'internal_error',
  'service_unavailable',
];

const errorTable = (keys: readonly ErrorKey[]): string[] => {
  const byAnswer = new Map<string, string[]>();
  for (const key of keys) {
    const error = catalogueError(key);
    const answer = `${error.httpStatus} | ${error.code}`;
    byAnswer.set(answer, [...(byAnswer.get(answer) ?? []), code(error.message)]);
  }
  return [
    '| HTTP | code | message |',
    '|---|---|---|',
    ...[...byAnswer.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([answer, messages]) => `| ${answer} | ${messages.join(', ')} |`),
  ];
};

const ownErrorsOf = (route: Route): ErrorKey[] => {
  const common = new Set<ErrorKey>(
    route.scope === 'merchant'
      ? commonMerchantErrors
      : route.scope === 'admin'
        ? commonAdminErrors
        : ['rate_limit_exceeded', 'internal_error', 'service_unavailable'],
  );
  return errorKeysOf(route).filter((key) => !common.has(key));
};

const kindMeanings: Readonly<Record<ErrorKind, string>> = {
  request: 'body missing or not JSON',
  validation: 'a field or query parameter breaks a rule (required, length, format, enum, range)',
  business:
    'a business rule, configuration, state conflict or duplicate; an id inside a body that does not resolve',
  authentication: 'credential missing or bad',
  permission: 'credential fine, access refused (permission, product, IP, frozen account)',
  not_found: 'the object in the path is unknown or belongs to another merchant',
  rate_limit: 'too many requests for this key (`Retry-After` says when to come back)',
  internal: 'anything unexpected (no detail is shown)',
  unavailable:
    'the database cannot be reached right now, e.g. during a failover (`Retry-After` says when to come back; repeat with the same idempotency key)',
};

const renderStatusCodes = (): string =>
  [
    '| HTTP | code | kind | when | retry the same request |',
    '|---|---|---|---|---|',
    '| 200 | 0 | success | `message` is `success`; `data` holds the answer | — |',
    ...(Object.entries(errorPolicies) as [ErrorKind, (typeof errorPolicies)[ErrorKind]][]).map(
      ([kind, policy]) =>
        `| ${policy.httpStatus} | ${policy.code} | ${kind} | ${kindMeanings[kind]} | ${policy.retryable ? 'yes, with backoff' : 'no: fix the request or the setup'} |`,
    ),
  ].join('\n');

const unknownPathLine = (): string => {
  const error = catalogueError('route_not_found');
  return `A path no route has answers HTTP ${error.httpStatus}, code ${error.code}, ${code(error.message)}.`;
};

const renderCommonErrors = (): string =>
  [
    'Every `/payment/*` call may answer these, before its own errors:',
    '',
    ...errorTable(commonMerchantErrors),
    '',
    'Every `/admin/*` call may answer these:',
    '',
    ...errorTable(commonAdminErrors),
    '',
    `${code(catalogueError('forbidden').message)} names what is missing in a header (the message stays the interface's word and \`data\` stays \`null\`, ADR 0050): ${code(refusalHeaders.missingPermission)} lists the permissions the API key, or the operator's role, lacks (\`payment.payout.create, payment.payout.submit\`; \`admin.merchants.write\`), and ${code(refusalHeaders.productNotEnabled)} names the product the account has not enabled (\`payout\` or \`acquiring\`).`,
    '',
    `The checkout calls and \`POST /upstream/acquiring/{provider}\` may answer ${code(catalogueError('rate_limit_exceeded').message)} (429/54, limited per client address), ${code(catalogueError('internal_error').message)} (500/50) and ${code(catalogueError('service_unavailable').message)} (503/50, with \`Retry-After\`) besides their own errors.`,
    '',
    unknownPathLine(),
  ].join('\n');

// ---------------------------------------------------------------------------------------------
// Requests

const joinValues = (values: readonly unknown[]): string =>
  values.map((value) => code(String(value))).join(', ');

const typeOfSchema = (schema: Schema): string => {
  if (Array.isArray(schema.enum)) {
    const kinds = new Set(schema.enum.map((value) => typeof value));
    return kinds.size === 1 ? ([...kinds][0] ?? 'string') : 'string';
  }
  if (schema.const !== undefined) return typeof schema.const;
  switch (schema.type) {
    case 'array':
      return `array of ${typeOfSchema((schema.items ?? {}) as Schema)}`;
    case 'object':
      return schema.properties === undefined &&
        typeof schema.additionalProperties === 'object' &&
        schema.additionalProperties !== null
        ? `object of ${typeOfSchema(schema.additionalProperties as Schema)}`
        : 'object';
    case 'string':
      return schema.pattern === '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$' ? 'decimal string' : 'string';
    default:
      return typeof schema.type === 'string' ? schema.type : 'any';
  }
};

const range = (min: unknown, max: unknown, unit: string): string | undefined => {
  if (min === undefined && max === undefined) return undefined;
  if (min !== undefined && max !== undefined)
    return min === max ? `${unit} ${min}` : `${unit} ${min}–${max}`;
  return min !== undefined ? `${unit} ≥ ${min}` : `${unit} ≤ ${max}`;
};

const rulesOf = (schema: Schema): string => {
  const rules: string[] = [];
  if (Array.isArray(schema.enum)) rules.push(`one of ${joinValues(schema.enum)}`);
  if (schema.pattern === withoutControlCharacters) rules.push('no control characters');
  else if (typeof schema.pattern === 'string' && typeOfSchema(schema) !== 'decimal string')
    rules.push(`pattern ${code(schema.pattern)}`);
  if (typeof schema.format === 'string') rules.push(`format ${code(schema.format)}`);
  const length = range(schema.minLength, schema.maxLength, 'length');
  if (length !== undefined) rules.push(length);
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    rules.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) rules.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) rules.push(`≤ ${schema.maximum}`);
  const items = range(schema.minItems, schema.maxItems, 'items');
  if (items !== undefined) rules.push(items);
  if (schema.uniqueItems === true) rules.push('no repeats');
  if (typeof schema.minProperties === 'number')
    rules.push(`at least ${schema.minProperties} field${schema.minProperties === 1 ? '' : 's'}`);
  if (schema.default !== undefined)
    rules.push(
      `default ${code(typeof schema.default === 'string' ? schema.default : JSON.stringify(schema.default))}`,
    );
  if (typeof schema.description === 'string' && schema.description !== 'decimal string')
    rules.push(escapeCell(schema.description));
  const element = schema.items as Schema | undefined;
  if (schema.type === 'array' && element !== undefined && element.properties === undefined) {
    const inner = rulesOf(element);
    if (inner !== '') rules.push(`each: ${inner}`);
  }
  return rules.join('; ');
};

const bodyRows = (schema: Schema, prefix: string): string[] => {
  const properties = (schema.properties ?? {}) as Readonly<Record<string, Schema>>;
  const required = new Set((schema.required ?? []) as readonly string[]);
  return Object.entries(properties).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    const row = `| ${code(path)} | ${typeOfSchema(property)} | ${required.has(name) ? 'yes' : 'no'} | ${rulesOf(property)} |`;
    const element = property.items as Schema | undefined;
    const nested =
      property.properties !== undefined
        ? bodyRows(property, `${path}.`)
        : property.type === 'array' && element?.properties !== undefined
          ? bodyRows(element, `${path}[].`)
          : [];
    return [row, ...nested];
  });
};

// ---------------------------------------------------------------------------------------------
// Responses: the shape of what the walkthrough saw

interface Shape {
  /** How many values were seen here (null included). */
  count: number;
  /** How many of them were objects: a child seen fewer times is not always present. */
  objects: number;
  readonly types: Set<string>;
  readonly strings: string[];
  readonly numbers: number[];
  example: unknown;
  readonly children: Map<string, Shape>;
  element?: Shape;
}

const emptyShape = (): Shape => ({
  count: 0,
  objects: 0,
  types: new Set(),
  strings: [],
  numbers: [],
  example: undefined,
  children: new Map(),
});

/**
 * Values never printed as they are: each is shown once, or differs on every run (an audit
 * record's id is drawn from the wall clock and random bits, a request's id is a new UUID).
 */
const redactedExamples: Readonly<Record<string, string>> = {
  token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.…',
  secret: 'whsec_…',
  notify_secret: 'whsec_…',
  audit_id: 'aud_…',
  request_id: '…',
};

/** What the document shows of `value` at `key`: an operator's credential keeps its id only. */
const shownExample = (key: string, value: unknown): unknown => {
  if (typeof value !== 'string' || !(key in redactedExamples)) return value;
  const operatorCredential = key === 'token' ? /^(opr_[^.]+)\./.exec(value) : null;
  return operatorCredential === null ? redactedExamples[key] : `${operatorCredential[1]}.…`;
};

const observe = (shape: Shape, value: unknown, key: string): void => {
  shape.count += 1;
  const shown = shownExample(key, value);
  if (shown === null) {
    shape.types.add('null');
  } else if (Array.isArray(shown)) {
    shape.types.add('array');
    shape.element ??= emptyShape();
    for (const item of shown) observe(shape.element, item, key);
    if (shape.example === undefined && shown.length > 0 && typeof shown[0] !== 'object')
      shape.example = shown;
  } else if (typeof shown === 'object') {
    shape.types.add('object');
    shape.objects += 1;
    for (const [child, inner] of Object.entries(shown as Record<string, unknown>)) {
      let childShape = shape.children.get(child);
      if (childShape === undefined) {
        childShape = emptyShape();
        shape.children.set(child, childShape);
      }
      observe(childShape, inner, child);
    }
  } else {
    shape.types.add(typeof shown);
    if (typeof shown === 'string') shape.strings.push(shown);
    if (typeof shown === 'number') shape.numbers.push(shown);
    shape.example ??= shown;
  }
};

const shapeOf = (values: readonly unknown[]): Shape => {
  const shape = emptyShape();
  for (const value of values) observe(shape, value, '');
  return shape;
};

const isTimeKey = (key: string): boolean =>
  key.endsWith('_at') || key === 'expire_time' || key === 'now';

/** The object a list answer's items are, for the field notes (`items[].status` of webhooks). */
export const listItemNames: Readonly<Record<string, string>> = {
  listAccounts: 'account',
  listBalances: 'balance',
  listDeposits: 'deposit',
  listWithdrawals: 'withdrawal',
  listLedger: 'ledger_record',
  listPayoutMethods: 'payout_method',
  listPayoutNetworks: 'payout_network',
  listPayouts: 'payout',
  listPayoutDeliveries: 'delivery',
  listBeneficiaries: 'beneficiary',
  listBeneficiaryAccounts: 'beneficiary_account',
  listOrders: 'order',
  listOrderPayments: 'payment',
  listOrderRefunds: 'refund',
  listBatchItems: 'batch_item',
  listWebhooks: 'webhook',
  listWebhookDeliveries: 'delivery',
  listAudit: 'audit_record',
  adminListOperators: 'operator',
  adminListAudit: 'audit_record',
  adminListApiKeys: 'api_key',
  adminListPayoutMethods: 'payout_method',
  adminListPayoutNetworks: 'payout_network',
  adminListRoutes: 'route',
};

/**
 * What a field means, where its name does not say it, keyed by the field's path with a list's
 * `items[]` read as its object (`payout.status` covers `items[].status` of the payout list).
 * The longest key that ends the path wins. A key no answer has fails the doc test.
 */
const fieldNotes: Readonly<Record<string, string>> = {
  total: 'records matching the filters, all pages together',
  limit: 'page size used',
  offset: 'records skipped',
  'payout.payout_id': 'the service id of the payout: store it',
  'payout.client_request_id': 'echo; absent when the create request had none',
  'payout.reference': 'echo of your business number',
  'payout.status':
    'one field for both axes: execution_status when it is processing, completed, failed or cancelled, else review_status',
  'payout.risk_status':
    'creation answers only: `pending`, `passed` (approved at creation) or `rejected`',
  'payout.execution_fail_reason': 'only once execution failed, e.g. `insufficient balance`',
  'order.platform_order_no': "the service's order number",
  'order.checkout_type': '`hosted` unless the request chose another',
  'order.pay_amount': 'what the payer pays, in the chosen token (1 USD = 1 USDT or USDC)',
  'order.paid_amount_total': 'confirmed payments only',
  'order.remaining_amount': 'pay_amount minus paid_amount_total, not below 0',
  'order.overpaid_amount': 'paid_amount_total minus pay_amount, not below 0',
  'order.checkout_url': 'the hosted checkout page; `""` for a direct-mode order',
  'order.redirect_automatically':
    'once completed, the hosted page goes to redirect_url by itself after a few seconds',
  'order.expire_time': 'created_at + expire_seconds; the order expires then',
  'order.selected_token': '`null` until the payer chooses a token',
  payment_address:
    'once a token is selected (at once in direct mode): where the payer sends the tokens',
  'payment.status':
    '`pending`, `processing`, `confirming`, `completed`, `failed`, `late` or `expired`',
  'payment.required_confirmations': "the network's confirmation count for `completed`",
  'account.status': '`active` or `frozen` (a frozen account is refused every call)',
  'account.verification_enabled':
    'payouts send `payout.verify.request` to notify_url before review',
  'account.auto_approve': 'submitted payouts are approved without an operator',
  'account.products': 'product access: payout and acquiring endpoints answer `forbidden` when off',
  'account.default_pay_tokens': 'used when an order omits allowed_pay_currencies',
  'merchant.notify_secret':
    'signs payout callbacks (Standard Webhooks); shown here and on rotation only',
  'account.notify_secret': 'the new secret for payout callbacks',
  'api_key.token': 'the API key itself: shown on issue and rotation only, never listed',
  'api_key.version': 'rotation bumps it; an older token answers `api key version mismatch`',
  'api_key.status': '`active`, `disabled` or `deleted`',
  'api_key.ip_whitelist': 'addresses or CIDR blocks; empty allows every address',
  'operator.token':
    "the operator's credential, `<operator_id>.<secret>`: shown on create and rotation only, never listed",
  'audit_record.request_id':
    "the act's request: its `X-Request-Id` as the client sent it, else the id the service gave it",
  'webhook.secret': '`whsec_` signing secret: on create and rotate-secret only',
  'webhook.status': '`active`, `inactive` or `deleted`',
  'webhook.events': 'patterns such as `acquiring.*` or `acquiring.order.updated`',
  'delivery.status': '`pending`, `succeeded` or `failed`',
  'delivery.attempts': 'one entry per delivery attempt',
  'ledger_record.transaction_id':
    'the movement (journal) id: store it; a hold or a release is two records with one id, and (transaction_id, bucket) names a record',
  'ledger_record.record_type':
    '`deposit`, `payout_hold`, `payout_release`, `payout`, `payout_fee`, `pay_in` or `withdrawal`',
  'ledger_record.bucket': '`available` or `held`: the balance this record moved',
  'ledger_record.amount': 'signed: into the bucket positive, out of it negative',
  'ledger_record.balance_after':
    "the bucket's balance in this currency right after this record, whatever the filters",
  'ledger_record.business_type': '`deposit`, `payout`, `acquiring` or `withdrawal`',
  'ledger_record.business_id':
    'deposit or withdrawal record_id, payout_id or the pay-in payment_id',
  'ledger_record.reference': "the payout's reference; `null` for other records",
  'balance.available': 'spendable now',
  'balance.held': 'held for payouts in execution',
  'balance.total': 'available + held',
  'beneficiary_account.fields_masked':
    'receiving-account fields, masked (`j***@example.com`, `***5678`)',
  'deposit.record_id': 'a completed deposit is one `deposit` ledger record with this business_id',
  'deposit.network': '`SANDBOX` for a sandbox credit',
  'withdrawal.record_id':
    'a completed withdrawal is one `withdrawal` ledger record with this business_id',
  'batch.status': '`draft`, `approved` or `submitted`',
  'batch.created_by_key_id': 'four eyes: approval needs another key',
  'batch.version': 'bumped by every change; an approval must name it (ADR 0057)',
  'clock.now': 'the test clock after the move',
};

const notesFor = (notePath: string): string | undefined => {
  let best: string | undefined;
  for (const key of Object.keys(fieldNotes)) {
    if (
      (notePath === key || notePath.endsWith(`.${key}`)) &&
      (best === undefined || key.length > best.length)
    )
      best = key;
  }
  return best === undefined ? undefined : fieldNotes[best];
};

/** The values a field may take, when its schema lists them. */
const enumOf = (schema: Schema): readonly unknown[] => {
  const values = schema.enum;
  return Array.isArray(values) ? values : [];
};

const exampleOf = (shape: Shape): string => {
  if (shape.example === undefined) return '';
  const text = JSON.stringify(shape.example);
  return code(text.length > 44 ? `${text.slice(0, 43)}…` : text);
};

interface FieldRow {
  readonly path: string;
  readonly notePath: string;
  readonly type: string;
  readonly sometimes: boolean;
  readonly note: string | undefined;
  readonly values: readonly unknown[];
  readonly example: string;
}

/** The object members of a schema (a nullable object's too). */
const objectOf = (schema: Schema): Schema | undefined => {
  if (schema.properties !== undefined) return schema;
  const members = schema.anyOf as readonly Schema[] | undefined;
  return members?.map(objectOf).find((member) => member !== undefined);
};

/** A field's type in words, from its schema: the request wording, plus null and Unix seconds. */
const answerTypeOf = (schema: Schema, key: string): string => {
  const members = schema.anyOf as readonly Schema[] | undefined;
  if (members !== undefined) {
    return members
      .map((member) => answerTypeOf(member, key))
      .sort((x, y) => (x === 'null' ? 1 : y === 'null' ? -1 : 0))
      .join(' or ');
  }
  if (schema.type === 'integer' && isTimeKey(key)) return 'integer (Unix seconds)';
  if (schema.type === 'array' && schema.items !== undefined) {
    return `array of ${answerTypeOf(schema.items as Schema, key)}`;
  }
  return typeOfSchema(schema);
};

/** What the walkthrough saw at a path, for the example column only. */
const observedAt = (shape: Shape | undefined, key: string, list: boolean): Shape | undefined => {
  const child = shape?.children.get(key);
  return list ? child?.element : child;
};

/**
 * The rows of an answer's fields, read from the route's response codec (through its JSON
 * Schema): every declared field, `not in every answer` where the codec makes it optional. The
 * walkthrough's real answers give the example column only.
 */
const fieldRows = (route: Route, observations: Observations): FieldRow[] => {
  if (answersText(route)) return [];
  const observed = shapeOf(observations.get(route.operationId) ?? []);
  const itemName = listItemNames[route.operationId];
  const rows: FieldRow[] = [];
  const walk = (
    schema: Schema,
    shape: Shape | undefined,
    segments: readonly string[],
    noteSegments: readonly string[],
  ) => {
    const object = objectOf(schema);
    if (object === undefined) return;
    const properties = (object.properties ?? {}) as Readonly<Record<string, Schema>>;
    const required = new Set((object.required as readonly string[] | undefined) ?? []);
    for (const [key, child] of Object.entries(properties)) {
      const path = [...segments, key];
      const noted =
        noteSegments.length === 0 && key === 'items' && itemName !== undefined
          ? [itemName]
          : [...noteSegments, key];
      const seen = observedAt(shape, key, false);
      rows.push({
        path: path.join('.'),
        notePath: noted.join('.'),
        type: answerTypeOf(child, key),
        sometimes: !required.has(key),
        note: notesFor(noted.join('.')),
        values: enumOf(child),
        example: seen === undefined ? '' : exampleOf(seen),
      });
      walk(child, seen, path, noted);
      const items = child.items as Schema | undefined;
      if (items !== undefined)
        walk(items, observedAt(shape, key, true), [...segments, `${key}[]`], noted);
    }
  };
  walk(toJsonSchema(route.response.codec), observed, [], []);
  return rows;
};

const renderFieldRow = (row: FieldRow): string => {
  const notes = [
    ...(row.note === undefined ? [] : [row.note]),
    ...(row.values.length > 0 && row.note?.includes('`') !== true
      ? [`one of ${joinValues(row.values)}`]
      : []),
    ...(row.sometimes && row.note === undefined ? ['not in every answer'] : []),
  ];
  return `| ${code(row.path)} | ${row.type} | ${notes.join('; ')} | ${row.example} |`;
};

/** Field-note keys no answer has (they would document a field that does not exist). */
export const unusedFieldNotes = (observations: Observations): string[] => {
  const used = new Set<string>();
  for (const route of routes) {
    for (const row of fieldRows(route, observations)) {
      for (const key of Object.keys(fieldNotes)) {
        if (row.notePath === key || row.notePath.endsWith(`.${key}`)) used.add(key);
      }
    }
  }
  return Object.keys(fieldNotes).filter((key) => !used.has(key));
};

// ---------------------------------------------------------------------------------------------
// Endpoints

interface Operation {
  readonly parameters: readonly {
    readonly name: string;
    readonly in: string;
    readonly description?: string;
    readonly required?: boolean;
    readonly schema: Schema;
  }[];
  readonly requestBody?: { readonly content: { readonly 'application/json': { schema: Schema } } };
}

const operationOf = (document: ReturnType<typeof openApiDocument>, route: Route): Operation => {
  const operation = (document.paths[route.path] as Record<string, Operation> | undefined)?.[
    route.method
  ];
  if (operation === undefined) throw new Error(`api.md: ${titleOf(route)} is not in the document`);
  return operation;
};

const scopeTitles: Readonly<Record<Route['scope'], string>> = {
  merchant: 'Merchant API (`/payment`, API key)',
  admin: "Admin API (`/admin`, an operator's credential)",
  checkout: 'Checkout calls (`/checkout/api`, no credential)',
  upstream: "Upstream providers (`/upstream`, the provider's signature and source addresses)",
};

const groupsOf = (table: readonly Route[]): [string, Route[]][] => {
  const groups = new Map<string, Route[]>();
  for (const route of table) {
    const title = `${scopeTitles[route.scope]}: ${route.tag}`;
    groups.set(title, [...(groups.get(title) ?? []), route]);
  }
  return [...groups.entries()];
};

const renderEndpointIndex = (): string =>
  [
    '| endpoint | permission | product | what it does |',
    '|---|---|---|---|',
    ...routes.map(
      (route) =>
        `| ${linkTo(route)} | ${permissionText(route)} | ${productOf(route) ?? '—'} | ${escapeCell(route.summary)} |`,
    ),
  ].join('\n');

const renderPermissions = (): string => {
  const merchant = routes.filter((route) => route.scope === 'merchant');
  const rows = apiKeyPermissions.map((permission) => {
    const opened = merchant.filter(
      (route) => route.scope === 'merchant' && route.permissions.includes(permission),
    );
    return `| ${code(permission)} | ${opened.map(linkTo).join('<br>') || '—'} |`;
  });
  const open = merchant.filter(
    (route) => route.scope === 'merchant' && route.permissions.length === 0,
  );
  return [
    '| permission | endpoints it opens |',
    '|---|---|',
    ...rows,
    `| any permission | ${open.map(linkTo).join('<br>')} |`,
  ].join('\n');
};

/** The envelope's `data` and its fields, from the codec; examples from the walkthrough. */
const answerLines = (route: Route, observations: Observations): string[] => {
  const answer = route.response.description;
  return [
    '',
    `Answer: ${answer.startsWith('data.') ? code(answer) : `\`data\`, ${escapeCell(answer)}`}.`,
    '',
    '| field | type | notes | example |',
    '|---|---|---|---|',
    ...fieldRows(route, observations).map(renderFieldRow),
  ];
};

/** A streamed text answer (ADR 0045): its media type, and the walkthrough's text as the example. */
const textAnswerLines = (route: Route, observations: Observations): string[] => {
  if (!answersText(route)) return [];
  const [seen] = observations.get(route.operationId) ?? [];
  const example = typeof seen === 'string' ? seen : route.response.example;
  return [
    '',
    `Answer: ${code(route.response.mediaType)}, streamed (not the envelope; a refusal is), ${escapeCell(route.response.description)}. The walkthrough's:`,
    '',
    '```csv',
    example.replace(/\r\n/g, '\n').trimEnd(),
    '```',
  ];
};

const renderEndpoint = (
  document: ReturnType<typeof openApiDocument>,
  route: Route,
  observations: Observations,
): string => {
  const operation = operationOf(document, route);
  const lines = [`<a id="${route.operationId}"></a>`, '', `#### ${titleOf(route)}`, ''];
  lines.push(`${escapeCell(route.summary)}.`, '');
  lines.push(
    route.scope === 'merchant'
      ? `- Permission: ${permissionText(route)}`
      : `- Credential: ${route.scope === 'admin' ? `an operator whose role holds ${code(route.permission)} (or the admin token, ADR 0039)` : route.scope === 'upstream' ? "the provider's signature over the raw body (the sandbox provider's: Standard Webhooks headers), and the caller's address must be one of the provider's sources" : 'none (the order id is the capability)'}`,
  );
  const product = productOf(route);
  if (product !== null) lines.push(`- Product: ${product}`);
  const params = pathParameters(route.path);
  if (params.length > 0) lines.push(`- Path: ${params.map(code).join(', ')}`);
  const query = operation.parameters.filter((parameter) => parameter.in === 'query');
  if (query.length > 0) {
    const required = query.filter((parameter) => parameter.required === true).map((p) => p.name);
    const which =
      required.length === 0
        ? 'all optional'
        : required.length === query.length
          ? 'all required'
          : `required: ${required.map(code).join(', ')}; the others optional`;
    lines.push('', `Query parameters (${which}):`, '');
    lines.push('| parameter | type | rules | meaning |', '|---|---|---|---|');
    for (const parameter of query) {
      lines.push(
        `| ${code(parameter.name)} | ${typeOfSchema(parameter.schema)} | ${rulesOf(parameter.schema)} | ${escapeCell(parameter.description ?? '')} |`,
      );
    }
  }
  const body = operation.requestBody?.content['application/json'].schema;
  if (body !== undefined) {
    lines.push(
      '',
      `Body (JSON)${typeof body.description === 'string' ? `: ${escapeCell(body.description)}` : ''}:`,
      '',
    );
    const rows = bodyRows(body, '');
    lines.push('| field | type | required | rules |', '|---|---|---|---|');
    lines.push(...(rows.length > 0 ? rows : ['| (any JSON object) | object | yes | |']));
  }
  if (answersText(route)) {
    lines.push(...textAnswerLines(route, observations));
  } else {
    lines.push(...answerLines(route, observations));
  }
  const own = ownErrorsOf(route);
  if (own.length > 0) {
    lines.push('', 'Errors, besides the [common ones](#common-errors):', '', ...errorTable(own));
  }
  return lines.join('\n');
};

const renderEndpoints = (observations: Observations): string => {
  const document = openApiDocument(routes);
  return groupsOf(routes)
    .map(([title, group]) =>
      [`### ${title}`, ...group.map((route) => renderEndpoint(document, route, observations))].join(
        '\n\n',
      ),
    )
    .join('\n\n');
};

// ---------------------------------------------------------------------------------------------
// The file

export const generatedBlockNames = [
  'status-codes',
  'common-errors',
  'permissions',
  'endpoint-index',
  'endpoints',
] as const;

export type GeneratedBlocks = Readonly<Record<(typeof generatedBlockNames)[number], string>>;

export const renderGeneratedBlocks = (observations: Observations): GeneratedBlocks => {
  const missing = routes.filter((route) => !observations.has(route.operationId));
  if (missing.length > 0) {
    throw new Error(
      `api.md: the walkthrough never got an answer from ${missing.map(titleOf).join(', ')}`,
    );
  }
  return {
    'status-codes': renderStatusCodes(),
    'common-errors': renderCommonErrors(),
    permissions: renderPermissions(),
    'endpoint-index': renderEndpointIndex(),
    endpoints: renderEndpoints(observations),
  };
};

const generatedBlock = /<!-- generated:([a-z-]+) -->\n[\s\S]*?<!-- \/generated -->/g;

/** `current` with every generated block rendered again; the prose around them is kept. */
export const renderApiDoc = (current: string, blocks: GeneratedBlocks): string =>
  current.replace(generatedBlock, (_whole, name: string) => {
    const block = blocks[name as keyof GeneratedBlocks];
    if (block === undefined) throw new Error(`docs/api.md names an unknown block: ${name}`);
    return `<!-- generated:${name} -->\n${block}\n<!-- /generated -->`;
  });

const renderCurrentApiDoc = async (current: string): Promise<string> =>
  renderApiDoc(current, renderGeneratedBlocks(await walkThroughApi()));

// ---------------------------------------------------------------------------------------------
// docs/server.md: the operators' role matrix (ADR 0039)

export const serverDocUrl = new URL('../../../docs/server.md', import.meta.url);

/**
 * Which role holds each operator permission, and the admin routes it opens: from
 * `operatorRoleMatrix` and the routes' permissions (the ones the engine's doors check).
 */
const renderRoleMatrix = (): string => {
  const adminRoutes = routes.filter((route) => route.scope === 'admin');
  const header = ['permission', ...operatorRoles, 'bootstrap, once an admin exists', 'opens'];
  const rows = operatorPermissions.map((permission) => {
    const opens = adminRoutes.filter((route) => route.permission === permission).map(titleOf);
    return [
      code(permission),
      ...operatorRoles.map((role) => (roleAllows(role, permission) ? 'yes' : '')),
      ['admin.read', 'admin.operators.write'].includes(permission) ? 'yes' : '',
      opens.map(code).join(', '),
    ];
  });
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
};

/** `current` (docs/server.md) with its role matrix rendered again. */
export const renderServerDoc = (current: string): string =>
  current.replace(generatedBlock, (_whole, name: string) => {
    if (name !== 'operator-roles')
      throw new Error(`docs/server.md names an unknown block: ${name}`);
    return `<!-- generated:${name} -->\n${renderRoleMatrix()}\n<!-- /generated -->`;
  });

const main = async (): Promise<void> => {
  const current = readFileSync(apiDocUrl, 'utf8');
  writeFileSync(apiDocUrl, await renderCurrentApiDoc(current));
  process.stdout.write(`wrote ${fileURLToPath(apiDocUrl)}\n`);
  writeFileSync(serverDocUrl, renderServerDoc(readFileSync(serverDocUrl, 'utf8')));
  process.stdout.write(`wrote ${fileURLToPath(serverDocUrl)}\n`);
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
