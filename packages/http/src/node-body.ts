/**
 * A request's body read straight from Node's request under `@hono/node-server` (issue 24). Asked
 * for its body (`c.req.raw.body`, `c.req.text()`), the adapter builds a whole WHATWG `Request`
 * around Node's stream (undici's `Request`, a `ReadableStream`, an `AbortSignal`): about a tenth
 * of a create payout's CPU in the profile of docs/performance.md. Read here, the bytes come off
 * Node's stream as they arrive (`bodyTextOf` is what the routes read); nothing else changes: the
 * same limit, refused the same way, the same `Connection: close` after a body left unread.
 * Served any other way (`app.request` in tests, another runtime), `nodeRequestOf` answers
 * undefined and Hono reads the body as before.
 */
import { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** What `@hono/node-server` binds of Node's request (`c.env.incoming`; `server` when nested). */
interface NodeRequestBindings {
  readonly incoming?: unknown;
  readonly server?: NodeRequestBindings;
}

/** Node's HTTP/1 request behind `c`, when `@hono/node-server` serves it (not an HTTP/2 one). */
export const nodeRequestOf = (c: Context): IncomingMessage | undefined => {
  const env: NodeRequestBindings | undefined = c.env;
  const incoming = (env?.server ?? env)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : undefined;
};

/** A body read whole, or the limit passed (the rest of it is left on the connection). */
export type NodeBody = { readonly bytes: Buffer } | 'too large';

const reads = new WeakMap<IncomingMessage, Promise<NodeBody>>();
const utf8 = new TextDecoder();

/** Reads `incoming` to its end, unless it passes `maxBytes`: then it stops reading. */
const readBody = (incoming: IncomingMessage, maxBytes: number): Promise<NodeBody> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        incoming.pause();
        resolve('too large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      resolve({ bytes: Buffer.concat(chunks, size) });
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    // Closed before its end (the client left, or Node's request timeout cut it off).
    const onClose = (): void => {
      stop();
      reject(new Error('the request was closed before its body ended'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });

/**
 * The body of a Node request, read once (later calls answer the same read). A declared length
 * over `maxBytes` is refused unread.
 */
export const nodeBodyOf = (incoming: IncomingMessage, maxBytes: number): Promise<NodeBody> => {
  const started = reads.get(incoming);
  if (started !== undefined) return started;
  const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
  const read: Promise<NodeBody> =
    declared > maxBytes ? Promise.resolve('too large') : readBody(incoming, maxBytes);
  reads.set(incoming, read);
  return read;
};

/**
 * The request's body as text, as `c.req.text()` answers it (UTF-8, a leading byte order mark
 * dropped): under Node from Node's stream, else from Hono.
 */
export const bodyTextOf = async (c: Context): Promise<string> => {
  const incoming = nodeRequestOf(c);
  if (incoming === undefined) return c.req.text();
  const body = await nodeBodyOf(incoming, Number.POSITIVE_INFINITY);
  return body === 'too large' ? '' : utf8.decode(body.bytes);
};

/** Whether `incoming`'s body was read whole here. */
export const nodeBodyRead = async (incoming: IncomingMessage): Promise<boolean> => {
  const started = reads.get(incoming);
  return started !== undefined && (await started) !== 'too large';
};
