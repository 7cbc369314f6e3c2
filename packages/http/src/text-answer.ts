/**
 * A text answer streamed as the engine reads it (a CSV statement, ADR 0045): each chunk is asked
 * for when the body is read (a pull stream, so the socket's backpressure reaches the store's page
 * reads and a long export never sits in memory whole), encoded as UTF-8, with 200, the media type,
 * a file name for the download and no caching. Refusals never get here: they come before the
 * first chunk, as the use case's outcome, and are the envelope. A failure after the first byte
 * cannot be one: it is logged, the stream errors and the connection is cut, so the body lacks its
 * last lines (a CSV statement's closing rows), which is how a client tells a cut export from a
 * whole one.
 */
import type { TextExport } from '@payrail/engine';
import type { Context } from 'hono';

export const textAnswer = (
  c: Context,
  exported: TextExport,
  onError: (error: unknown) => void,
): Response => {
  const chunks = exported.chunks[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      try {
        const next = await chunks.next();
        if (next.done === true) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        onError(error);
        controller.error(error);
      }
    },
    // The client left: stop reading pages.
    cancel: async () => {
      await chunks.return?.();
    },
  });
  c.header('Cache-Control', 'no-store');
  c.header('Content-Disposition', `attachment; filename="${exported.filename}"`);
  return c.body(body, 200, {
    'Content-Type': `${exported.media_type}; charset=utf-8; header=present`,
  });
};
