/**
 * Reads a JSON request body for the engine. An empty or unparsable body becomes `undefined`, so
 * the core's `requestBody` codec answers `request required` for every transport alike.
 */
import type { Context } from 'hono';

export const readJsonBody = async (c: Context): Promise<unknown> => {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};
