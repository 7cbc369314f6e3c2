/**
 * The six places where an external property-based tester found `/openapi.json` and the server
 * disagreeing (issue 22), each sent as a request to the real engine on the memory store and
 * judged by the served document with ajv: a request the document admits is never answered as a
 * validation failure (400/51), one it refuses always is, and every refusal's message is one the
 * operation lists under its status (`checkAnswer` also holds every answer of the suite to that).
 * And `forbidden` names what is missing in the headers its 403 documents (ADR 0050).
 */
import { Ajv2020, type Schema as AjvSchema } from 'ajv/dist/2020.js';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type Answer,
  directTronOrder,
  type EngineApp,
  engineApp,
  okData,
  quickPayout,
  refusalOf,
} from '../engine-app.test-support.js';

type Schema = Readonly<Record<string, unknown>>;

interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required: boolean;
  readonly schema: Schema;
}

interface Operation {
  readonly parameters: readonly Parameter[];
  readonly requestBody?: { readonly content: { readonly 'application/json': { schema: Schema } } };
  readonly responses: Readonly<
    Record<
      string,
      {
        readonly headers?: Readonly<Record<string, unknown>>;
        readonly content: {
          readonly 'application/json': {
            readonly examples: Readonly<Record<string, { value: { message: string } }>>;
          };
        };
      }
    >
  >;
}

type Document = { readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>> };

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });

const servedDocument = async (h: EngineApp): Promise<Document> =>
  (await h.app.request('/openapi.json')).json() as Promise<Document>;

const operationOf = (document: Document, method: string, template: string): Operation => {
  const operation = document.paths[template]?.[method];
  if (operation === undefined) throw new Error(`${method} ${template} is not documented`);
  return operation;
};

/** Whether `value` matches `schema` (the document's schemas are synchronous). */
const matches = (schema: Schema, value: unknown): boolean =>
  ajv.compile(schema as AjvSchema)(value);

/** A query value as a client generated from the document sends it: an integer as a number. */
const typedQueryValue = (raw: string, schema: Schema): unknown =>
  schema.type === 'integer' && /^-?[0-9]+$/.test(raw) ? Number(raw) : raw;

/** Whether the document admits the request: each query parameter and the body by its schema. */
const admits = (
  operation: Operation,
  request: { readonly query?: Readonly<Record<string, string>>; readonly body?: unknown },
): boolean => {
  const query = request.query ?? {};
  const parametersAdmitted = operation.parameters
    .filter((parameter) => parameter.in === 'query')
    .every((parameter) => {
      const raw = query[parameter.name];
      if (raw === undefined) return !parameter.required;
      return matches(parameter.schema, typedQueryValue(raw, parameter.schema));
    });
  const bodySchema = operation.requestBody?.content['application/json'].schema;
  return parametersAdmitted && (bodySchema === undefined || matches(bodySchema, request.body));
};

/** Whether the operation lists `message` under `status` (a `<placeholder>` matches any text). */
const lists = (operation: Operation, status: number, message: string): boolean =>
  Object.values(operation.responses[String(status)]?.content['application/json'].examples ?? {})
    .map((example) =>
      example.value.message
        .split(/<[a-z_]+>/)
        .map(escapeRegExp)
        .join('[^]*'),
    )
    .some((pattern) => new RegExp(`^${pattern}$`).test(message));

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const isValidationFailure = (answer: Answer): boolean =>
  answer.status === 400 && answer.body.code === 51;

let h: EngineApp;
let document: Document;
let merchant: ReturnType<EngineApp['as']>;
let accountId: string;

beforeEach(async () => {
  h = engineApp();
  await h.seedCatalogue();
  const acme = await h.merchant('Acme');
  merchant = h.as(acme.token);
  accountId = acme.accountId;
  document = await servedDocument(h);
});

/**
 * Sends one request and checks the document and the server agree on it: admitted and not a
 * validation failure, or refused and one.
 */
const judged = async (
  method: 'get' | 'post' | 'patch',
  template: string,
  path: string,
  request: { readonly query?: Record<string, string>; readonly body?: unknown },
  send: (url: string) => Promise<Answer>,
) => {
  const operation = operationOf(document, method, template);
  const query = new URLSearchParams(request.query ?? {}).toString();
  const answer = await send(query === '' ? path : `${path}?${query}`);
  const admitted = admits(operation, request);
  expect(isValidationFailure(answer), `${method} ${path}?${query}: ${answer.body.message}`).toBe(
    !admitted,
  );
  if (answer.status !== 200) {
    expect(lists(operation, answer.status, answer.body.message), answer.body.message).toBe(true);
  }
  return { admitted, answer: refusalOf(answer) };
};

const refused = (code: number, message: string) => ({
  status: 400,
  code,
  message,
  data: null,
});

describe('the document and the server agree (issue 22, six disagreements)', () => {
  it('1. payout networks of a method the account cannot use: listed `payout method not found`', async () => {
    for (const query of [{ method_id: '999' }, { method_id: '1', currency: 'USDT' }]) {
      expect(
        await judged(
          'get',
          '/payment/payout-networks',
          '/payment/payout-networks',
          { query },
          (url) => merchant.get(url),
        ),
      ).toEqual({ admitted: true, answer: refused(53, 'payout method not found') });
    }
  });

  it('2. a beneficiary with a channel its method does not list: listed `payout channel not found`', async () => {
    const body = {
      method_id: 1,
      channel_id: 'CH_UNKNOWN',
      name: 'Jane Doe',
      fields: { payee_id: 'payee1001', country: 'US' },
    };
    expect(
      await judged('post', '/payment/beneficiaries', '/payment/beneficiaries', { body }, (url) =>
        merchant.post(url, body),
      ),
    ).toEqual({ admitted: true, answer: refused(53, 'payout channel not found') });
  });

  it('3. start_at, end_at and offset: the documented maximum is the last value taken', async () => {
    const list = (query: Record<string, string>) =>
      judged('get', '/payment/payouts', '/payment/payouts', { query }, (url) => merchant.get(url));
    for (const [name, largest] of [
      ['start_at', 253_402_300_799],
      ['end_at', 253_402_300_799],
      ['offset', Number.MAX_SAFE_INTEGER],
    ] as const) {
      expect((await list({ [name]: String(largest) })).admitted, name).toBe(true);
      expect(await list({ [name]: String(largest + 1) })).toEqual({
        admitted: false,
        answer: refused(51, `invalid ${name}`),
      });
    }
  });

  it('4. acquiring texts refuse control characters, as the schema’s pattern says', async () => {
    const { webhook } = okData(
      await merchant.post('/payment/webhooks', {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      }),
    );
    const create = (body: Record<string, unknown>) =>
      judged('post', '/payment/acquiring/orders', '/payment/acquiring/orders', { body }, (url) =>
        merchant.post(url, body),
      );
    const order = directTronOrder('INV-1', webhook.webhook_id);
    expect(await create({ ...order, out_trade_no: 'INV\u0007-2' })).toEqual({
      admitted: false,
      answer: refused(51, 'Validation Failed'),
    });
    expect(await create({ ...order, out_trade_no: 'INV-3', remark: 'red \u001b[31m' })).toEqual({
      admitted: false,
      answer: refused(51, 'Validation Failed'),
    });
    const accepted = await create({ ...order, remark: 'café ☕ 東京' });
    expect(accepted.admitted).toBe(true);
    const orderId = (await merchant.get('/payment/acquiring/orders')).body.data.items[0].order_id;
    const close = (reason: string) =>
      judged(
        'post',
        '/payment/acquiring/orders/{order_id}/close',
        `/payment/acquiring/orders/${orderId}/close`,
        { body: { reason } },
        (url) => merchant.post(url, { reason }),
      );
    expect(await close('bell\u0007')).toEqual({
      admitted: false,
      answer: refused(51, 'Validation Failed'),
    });
    expect(await close('customer cancelled')).toMatchObject({
      admitted: true,
      answer: { status: 200 },
    });
  });

  it('5. a batch without items is an empty draft; `items: []` is refused, by both', async () => {
    const schema = operationOf(document, 'post', '/payment/crypto-payouts/batches').requestBody
      ?.content['application/json'].schema as { properties: { items: Schema }; required: string[] };
    expect(schema.required).not.toContain('items');
    expect(schema.properties.items).not.toHaveProperty('default');
    expect(schema.properties.items).toMatchObject({ minItems: 1, maxItems: 500 });
    const create = (body: Record<string, unknown>) =>
      judged(
        'post',
        '/payment/crypto-payouts/batches',
        '/payment/crypto-payouts/batches',
        { body },
        (url) => merchant.post(url, body),
      );
    const empty = await create({ currency: 'USDT', method_id: 2 });
    expect(empty).toMatchObject({ admitted: true, answer: { status: 200 } });
    expect(empty.answer.data.batch).toMatchObject({ status: 'draft', item_count: 0 });
    expect(await create({ currency: 'USDT', method_id: 2, items: [] })).toEqual({
      admitted: false,
      answer: refused(51, 'items length must be between 1 and 500'),
    });
  });

  it('6. PATCH an API key with `{}`: well formed, `no changes`; a bad status refused by both', async () => {
    const { keyId } = await h.issueKey(accountId, { permissions: ['payment.account.read'] });
    const patch = (body: unknown) =>
      judged('patch', '/admin/api-keys/{key_id}', `/admin/api-keys/${keyId}`, { body }, (url) =>
        h.as('operator-token-for-tests').patch(url, body),
      );
    expect(await patch({})).toEqual({ admitted: true, answer: refused(53, 'no changes') });
    expect(await patch({ status: 'active' })).toEqual({
      admitted: true,
      answer: refused(53, 'no changes'),
    });
    expect(await patch({ status: 'bogus' })).toEqual({
      admitted: false,
      answer: refused(51, 'invalid status'),
    });
    expect(await patch({ status: 'disabled' })).toMatchObject({
      admitted: true,
      answer: { status: 200 },
    });
  });
});

describe('`forbidden` names what is missing (ADR 0050)', () => {
  const forbidden = { status: 403, code: 61, message: 'forbidden', data: null };
  const documentedHeaders = (method: string, template: string): string[] =>
    Object.keys(operationOf(document, method, template).responses['403']?.headers ?? {});

  it('a key without the permissions: the ones it lacks, in Payrail-Missing-Permission', async () => {
    const reader = h.as(
      (await h.issueKey(accountId, { permissions: ['payment.payout.read'] })).token,
    );
    const both = await reader.post('/payment/quickpayout', quickPayout('INV-1'));
    expect(refusalOf(both)).toEqual(forbidden);
    expect(both.headers.get('Payrail-Missing-Permission')).toBe(
      'payment.payout.create, payment.payout.submit',
    );
    const creator = h.as(
      (await h.issueKey(accountId, { permissions: ['payment.payout.create'] })).token,
    );
    const submit = await creator.post('/payment/quickpayout', quickPayout('INV-2'));
    expect(refusalOf(submit)).toEqual(forbidden);
    expect(submit.headers.get('Payrail-Missing-Permission')).toBe('payment.payout.submit');
    expect(submit.headers.get('Payrail-Product-Not-Enabled')).toBeNull();
    expect(documentedHeaders('post', '/payment/quickpayout')).toEqual([
      'Payrail-Missing-Permission',
      'Payrail-Product-Not-Enabled',
    ]);
  });

  it('an account without the product: which one, in Payrail-Product-Not-Enabled', async () => {
    await h.admin('PATCH', `/admin/accounts/${accountId}`, {
      products: { payout: true, acquiring: false },
    });
    const answer = await merchant.get('/payment/acquiring/orders');
    expect(refusalOf(answer)).toEqual(forbidden);
    expect(answer.headers.get('Payrail-Product-Not-Enabled')).toBe('acquiring');
    expect(answer.headers.get('Payrail-Missing-Permission')).toBeNull();
    expect((await merchant.get('/payment/payouts')).status).toBe(200);
  });

  it("an operator whose role lacks the route's permission: that permission", async () => {
    const { operator } = await h.admin('POST', '/admin/operators', {
      name: 'vera',
      role: 'viewer',
    });
    const viewer = h.as(operator.token);
    const answer = await viewer.post('/admin/merchants', { name: 'Other' });
    expect(refusalOf(answer)).toEqual(forbidden);
    expect(answer.headers.get('Payrail-Missing-Permission')).toBe('admin.merchants.write');
    expect(documentedHeaders('post', '/admin/merchants')).toEqual(['Payrail-Missing-Permission']);
    // What the role holds answers as before, with no such header.
    const read = await viewer.get('/admin/routes');
    expect(read.status).toBe(200);
    expect(read.headers.get('Payrail-Missing-Permission')).toBeNull();
  });
});
