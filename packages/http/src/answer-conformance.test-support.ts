/**
 * Holds every answer the engine suites receive to the served `/openapi.json` (ADR 0023): the
 * operation is found by method and path template; a 2xx body must match its success schema
 * (closed objects: an undeclared field fails), any other the error envelope; and the status must
 * be one the operation documents, with a message among those it lists under that status (its
 * examples, `<placeholders>` matching any text). A body that does not match fails the request at
 * once, with the operation, the status and ajv's error paths; statuses, messages and `Payrail-*`
 * headers the document does not list are gathered and reported together when the test file ends,
 * so one run lists all of them.
 */
import { Ajv2020, type AnySchema, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, expect } from 'vitest';

type Document = {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
};
type Operation = {
  readonly operationId: string;
  readonly responses: Readonly<Record<string, unknown>>;
};

interface Compiled {
  readonly operations: readonly {
    readonly method: string;
    readonly template: string;
    readonly pattern: RegExp;
    /** Literal segments: the most specific template wins where two match. */
    readonly literals: number;
    readonly operation: Operation;
  }[];
  readonly validator: (pointer: string) => ValidateFunction;
}

const documentId = 'https://payrail.invalid/openapi.json';

/** A JSON pointer segment (RFC 6901). */
const pointerSegment = (segment: string): string =>
  segment.replace(/~/g, '~0').replace(/\//g, '~1');

const compile = (document: Document): Compiled => {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: false,
    logger: false,
  });
  ajv.addSchema({ ...document, $id: documentId } as AnySchema);
  const validators = new Map<string, ValidateFunction>();
  const validator = (pointer: string): ValidateFunction => {
    const known = validators.get(pointer);
    if (known !== undefined) return known;
    const compiled = ajv.compile({ $ref: `${documentId}#${pointer}` });
    validators.set(pointer, compiled);
    return compiled;
  };
  const operations = Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(
        `^${template
          .split('/')
          .map((segment) =>
            /^\{[a-z_]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
          )
          .join('/')}$`,
      ),
      literals: template.split('/').filter((segment) => !segment.startsWith('{')).length,
      operation,
    })),
  );
  return { operations, validator };
};

// One document for every app of a test file: compiled once, its validators shared.
const compiledByText = new Map<string, Compiled>();

const undocumented = new Set<string>();
afterAll(() => {
  const found = [...undocumented].sort();
  undocumented.clear();
  expect(
    found,
    'statuses and messages the operations do not document (method path: status message)',
  ).toEqual([]);
});

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A documented message as a pattern: each `<placeholder>` matches any text. */
const messagePattern = (template: string): RegExp =>
  new RegExp(
    `^${template
      .split(/<[a-z_]+>/)
      .map(escapeRegExp)
      .join('[^]*')}$`,
  );

/** The messages an operation's response lists, read from its examples' envelopes. */
const documentedMessages = (response: unknown): readonly RegExp[] => {
  const examples = (
    response as { content?: { 'application/json'?: { examples?: Record<string, unknown> } } }
  ).content?.['application/json']?.examples;
  return Object.values(examples ?? {}).flatMap((example) => {
    const message = (example as { value?: { message?: unknown } }).value?.message;
    return typeof message === 'string' ? [messagePattern(message)] : [];
  });
};

export interface ConformingAnswer {
  readonly status: number;
  readonly body: unknown;
  /** When given, each `Payrail-*` header must be one the response documents (ADR 0050). */
  readonly headers?: Headers;
}

/** The `Payrail-*` headers of an answer that its response does not document. */
const undocumentedHeaders = (response: unknown, headers: Headers | undefined): string[] => {
  const documented = Object.keys((response as { headers?: object } | undefined)?.headers ?? {}).map(
    (name) => name.toLowerCase(),
  );
  return [...(headers?.keys() ?? [])].filter(
    (name) => name.toLowerCase().startsWith('payrail-') && !documented.includes(name.toLowerCase()),
  );
};

/**
 * Checks one answer against `documentText` (the served `/openapi.json`); throws on a body that
 * does not match, and hands `record` (by default the report at the end of the file) each status,
 * message or header the operation does not document.
 */
export const checkAnswer = (
  documentText: string,
  method: string,
  url: string,
  answer: ConformingAnswer,
  record: (undocumentedAnswer: string) => void = (line) => undocumented.add(line),
): void => {
  let compiled = compiledByText.get(documentText);
  if (compiled === undefined) {
    compiled = compile(JSON.parse(documentText) as Document);
    compiledByText.set(documentText, compiled);
  }
  const path = url.split('?')[0] ?? url;
  const found = compiled.operations
    .filter((o) => o.method === method.toUpperCase() && o.pattern.test(path))
    .sort((a, b) => b.literals - a.literals)[0];
  const success = answer.status >= 200 && answer.status < 300;
  const where = found === undefined ? `${method} ${path}` : `${found.operation.operationId}`;
  if (found === undefined && success) {
    throw new Error(`${where} answered ${answer.status} but no operation documents it`);
  }
  const pointer =
    found !== undefined && String(answer.status) in found.operation.responses
      ? `/paths/${pointerSegment(found.template)}/${found.method.toLowerCase()}/responses/${answer.status}/content/application~1json/schema`
      : '/components/schemas/ErrorEnvelope';
  if (found !== undefined && !success) {
    const message = String((answer.body as { message?: unknown } | null)?.message);
    const response = found.operation.responses[String(answer.status)];
    if (!documentedMessages(response).some((pattern) => pattern.test(message))) {
      record(`${found.method} ${found.template}: ${answer.status} ${message}`);
    }
    for (const header of undocumentedHeaders(response, answer.headers)) {
      record(`${found.method} ${found.template}: ${answer.status} header ${header}`);
    }
  }
  const validate = compiled.validator(pointer);
  if (!validate(answer.body)) {
    const errors = (validate.errors ?? [])
      .map((e) => `  ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
      .join('\n');
    throw new Error(
      `${where} answered ${answer.status} with a body its schema refuses (${pointer}):\n${errors}\n` +
        `body: ${JSON.stringify(answer.body).slice(0, 2000)}`,
    );
  }
};
