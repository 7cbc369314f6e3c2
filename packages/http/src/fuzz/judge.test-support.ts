/**
 * How a fuzzed answer is judged: a 2xx only as the route's documented success (its schema,
 * closed objects), anything else a 4xx whose `{code, message, data: null}` envelope carries a
 * message the route documents (`errorKeysOf`, the same list `/openapi.json` shows), with the
 * catalogue's status and code for it; never a 5xx, never a stack, always JSON. The tally feeds
 * the summary line.
 */
import { type ErrorKey, errorCatalogue, errorPolicies } from '@payrail/core';
import { checkAnswer } from '../answer-conformance.test-support.js';
import { errorKeysOf, openApiDocument } from '../openapi/openapi.document.js';
import type { Route } from '../routes/route.js';
import { routes } from '../routes/route-table.js';
import { describeRequest, type FuzzRequest } from './mutations.test-support.js';

const documentText = JSON.stringify(openApiDocument(routes));

interface Documented {
  readonly key: ErrorKey;
  readonly pattern: RegExp;
  readonly status: number;
  readonly code: number;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const entryOf = (key: ErrorKey): Documented => {
  const { message, kind } = errorCatalogue[key];
  const policy = errorPolicies[kind];
  return {
    key,
    pattern: new RegExp(
      `^${message
        .split(/<[a-z_]+>/)
        .map(escapeRegExp)
        .join('[^]*')}$`,
    ),
    status: policy.httpStatus,
    code: policy.code,
  };
};

/** Every catalogue message, most specific (fewest placeholders, longest) first. */
const catalogue: readonly Documented[] = (Object.keys(errorCatalogue) as ErrorKey[])
  .map(entryOf)
  .sort((a, b) => b.pattern.source.length - a.pattern.source.length);

const documentedOf = (route: Route): readonly Documented[] => errorKeysOf(route).map(entryOf);

/** The statuses `/openapi.json` documents for each operation. */
const statusesOf = (route: Route): ReadonlySet<number> =>
  new Set(
    Object.keys(
      (openApiDocument(routes).paths as Record<string, Record<string, { responses: object }>>)[
        route.path
      ]?.[route.method]?.responses ?? {},
    ).map(Number),
  );

const documentedByRoute = new Map<Route, readonly Documented[]>();
const statusesByRoute = new Map<Route, ReadonlySet<number>>();

export const tally = {
  endpoints: new Set<string>(),
  inProcess: 0,
  socket: 0,
  serverErrors: 0,
  undocumented: 0,
  storedByRefused: 0,
  accepted: 0,
  /** Answers by route and message (or `success`), for the report. */
  answers: new Map<string, Map<string, number>>(),
};

export const summaryLine = (): string =>
  `fuzz: ${tally.endpoints.size} endpoints, ${tally.inProcess} requests in process, ` +
  `${tally.socket} over sockets, ${tally.serverErrors} 5xx, ${tally.undocumented} undocumented ` +
  `statuses, ${tally.storedByRefused} stored by refused requests`;

const fail = (request: FuzzRequest, what: string, status: number, text: string): never => {
  throw new Error(
    `${what}\n  request: ${describeRequest(request)}\n  answer: ${status} ${text.slice(0, 600)}`,
  );
};

/**
 * Judges one answer to `request` on `route`; throws with the request and the answer when it is
 * not what the route documents. `wrote` names what a refused request wrote (nothing, if right).
 */
export const judge = (
  route: Route,
  request: FuzzRequest,
  answer: { readonly status: number; readonly contentType: string | null; readonly text: string },
  wrote: readonly string[],
): void => {
  const { status, text } = answer;
  const key = `${route.method.toUpperCase()} ${route.path}`;
  if (status >= 500) {
    tally.serverErrors += 1;
    fail(request, `${key} answered a 5xx`, status, text);
  }
  if (!/^application\/json\b/.test(answer.contentType ?? '')) {
    fail(request, `${key} answered ${answer.contentType} instead of JSON`, status, text);
  }
  if (/\n\s+at |\bat \S+ \(|\.[cm]?[jt]s:\d+:\d+\)|node:internal\//.test(text)) {
    fail(request, `${key} answered something like a stack`, status, text);
  }
  let body: { code?: unknown; message?: unknown; data?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    fail(request, `${key} answered a body that is not JSON`, status, text);
    return;
  }
  if (
    body === null ||
    typeof body !== 'object' ||
    Object.keys(body).sort().join() !== 'code,data,message'
  ) {
    fail(request, `${key} answered without the {code, message, data} envelope`, status, text);
  }
  // The served document's schema for this status (closed objects; a 2xx's own schema).
  checkAnswer(documentText, request.method, request.path, { status, body });
  const counts = tally.answers.get(key) ?? new Map<string, number>();
  tally.answers.set(key, counts);
  if (status >= 200 && status < 300) {
    tally.accepted += 1;
    counts.set('success', (counts.get('success') ?? 0) + 1);
    if (body.code !== 0 || body.message !== 'success') {
      fail(request, `${key} answered a 2xx that is not a success envelope`, status, text);
    }
    return;
  }
  const message = String(body.message);
  counts.set(message, (counts.get(message) ?? 0) + 1);
  let documented = documentedByRoute.get(route);
  if (documented === undefined) {
    documented = documentedOf(route);
    documentedByRoute.set(route, documented);
  }
  const statuses = statusesByRoute.get(route) ?? statusesOf(route);
  statusesByRoute.set(route, statuses);
  if (!statuses.has(status)) {
    tally.undocumented += 1;
    fail(request, `${key} answered a status its operation does not document`, status, text);
  }
  // The message is the catalogue's, with the catalogue's status and code for it, and data null.
  const entry = catalogue.find((d) => d.pattern.test(message));
  if (entry === undefined || entry.status !== status || entry.code !== body.code) {
    fail(request, `${key} answered a message, code or status not the catalogue's`, status, text);
  }
  if (body.data !== null) fail(request, `${key} answered an error with data`, status, text);
  // The message is one its operation in `/openapi.json` lists (a gap of the list is a failure:
  // the document must name every message the route answers).
  if (!documented.some((d) => d.pattern.test(message) && d.status === status)) {
    fail(
      request,
      `${key} answered ${entry?.key ?? 'a message'}, which its operation does not list`,
      status,
      text,
    );
  }
  if (wrote.length > 0) {
    tally.storedByRefused += 1;
    fail(request, `${key} refused the request but stored: ${wrote.join(', ')}`, status, text);
  }
};

/** The route of the table a fuzz target names (`METHOD template`). */
export const routeOf = (key: string): Route => {
  const found = routes.find((r) => `${r.method.toUpperCase()} ${r.path}` === key);
  if (found === undefined) throw new Error(`no route ${key}`);
  return found;
};

/** Every mutating route of the table, `METHOD template`. */
export const mutatingRoutes: readonly string[] = routes
  .filter((r) => r.method !== 'get')
  .map((r) => `${r.method.toUpperCase()} ${r.path}`);
