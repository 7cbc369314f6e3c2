/**
 * Which driver errors mean "the database cannot be reached" rather than "this statement is
 * wrong" (ADR 0051). The store throws those as the core's `StoreUnavailable`, so the HTTP
 * adapter answers 503 with `Retry-After` and never 500, and the multi-host pool looks for the
 * primary again. Read from the error's `code` (an errno name or a SQLSTATE) and, for
 * node-postgres's own errors, which have none, its message.
 */
import { StoreUnavailable } from '@payrail/core';
import { errorCodeOf } from './error-code.js';

/** Node's errors for a host that cannot be reached or a socket that broke. */
const networkCodes: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  // A Unix socket that is gone: the embedded default's server stopped.
  'ENOENT',
]);

/**
 * SQLSTATEs of a server that is going away: 57P01 admin_shutdown (a fast shutdown, a terminated
 * backend), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, or a standby not yet
 * accepting connections). Class 08 (connection exception) is matched whole.
 */
const serverCodes: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03']);

/**
 * SQLSTATE 25006 read_only_sql_transaction: in a unit of work that may write, a write on a server
 * that was demoted to a standby (the primary is elsewhere now). In a read-only unit of work
 * (`BEGIN READ ONLY`, a store's `read`) it is the unit's own write refused, on whatever server:
 * an error of the code, never a reason to run the read elsewhere.
 */
const demotedPrimaryCode = '25006';

/**
 * The unit of work an error came from: `read-write` (the default: a unit of work, a lone
 * statement, a connection being made) or `read-only` (`BEGIN READ ONLY`).
 */
export type UnitAccess = 'read-write' | 'read-only';

/** node-postgres's own errors for a lost or never-made connection, which carry no code. */
const driverMessages: readonly RegExp[] = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Query read timeout/,
  /^timeout expired/,
];

/**
 * Whether `error` says the database could not be reached, or stopped answering, or (in a unit
 * of work that may write) is no longer the primary.
 */
export const isConnectionLoss = (error: unknown, access: UnitAccess = 'read-write'): boolean => {
  const code = errorCodeOf(error);
  if (code !== undefined && (networkCodes.has(code) || serverCodes.has(code))) return true;
  if (code === demotedPrimaryCode) return access === 'read-write';
  if (code?.startsWith('08') === true) return true;
  if (error instanceof AggregateError) {
    return error.errors.some((inner) => isConnectionLoss(inner, access));
  }
  return error instanceof Error && driverMessages.some((pattern) => pattern.test(error.message));
};

/** `error` as `StoreUnavailable` when it is a lost connection; any other error unchanged. */
export const classifyDriverError = (error: unknown, access: UnitAccess = 'read-write'): unknown =>
  !(error instanceof StoreUnavailable) && isConnectionLoss(error, access)
    ? new StoreUnavailable(
        `the database cannot be reached: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      )
    : error;

/** Runs `operation`, throwing a lost connection as `StoreUnavailable`. */
export const classifyingLoss = async <T>(
  operation: () => Promise<T>,
  access: UnitAccess = 'read-write',
): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    throw classifyDriverError(error, access);
  }
};
