/**
 * What a log line may carry of a request (issue 12, finding 6): a client's path could hold CR, LF
 * or other control characters (`%0d%0a` decodes to them) and so forge a line of its own; written
 * as `\uXXXX` escapes, a field stays on its line.
 */

/** C0 and C1 controls, DEL, and the two Unicode line and paragraph separators. */
const unsafe = /[\p{Cc}\u2028\u2029]/gu;

/** `value` on one line: each control character as its `\uXXXX` escape. */
export const logField = (value: string): string =>
  value.replace(unsafe, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
