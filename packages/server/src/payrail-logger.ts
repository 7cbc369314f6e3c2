/**
 * What payrail writes its log to (issue 22, ADR 0047): leveled records, each a message and a few
 * fields. A pino logger fits as it is (the server's own, `pino-logger.ts`); a host may pass one
 * of its own, or a function of a line, as before. No record is ever given a token, a secret, a
 * header, a body or a stack.
 */
import type { AccessLogEntry, InternalErrorLog } from '@payrail/http';
import { errorSummary } from './timer-loop.js';

/** `PAYRAIL_LOG_LEVEL`'s values, the most severe first; `silent` logs nothing. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
/** `PAYRAIL_LOG_FORMAT`: JSON lines, or readable lines for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/** A leveled logger: pino's fits, or any object with these four. */
export interface PayrailLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** `createPayrail`'s and `startPayrail`'s `log`: lines, or a leveled logger. */
export type PayrailLog = ((line: string) => void) | PayrailLogger;

/** Lines, the record's message alone: what `log` did before records had levels. */
const lineLogger = (write: (line: string) => void): PayrailLogger => ({
  debug: () => undefined,
  info: (_, message) => write(message),
  warn: (_, message) => write(message),
  error: (_, message) => write(message),
});

/** Operator lines on stderr, timestamped: `createPayrail`'s default. */
const stderrLine = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} payrail: ${line}\n`);
};

/** What the wiring logs with: the logger, and the access log when the host gave a leveled one. */
export interface Logging {
  readonly logger: PayrailLogger;
  /** Every request's access entry; only for a leveled logger (a line per request is noise). */
  readonly logRequest: ((entry: AccessLogEntry) => void) | undefined;
}

export const loggingOf = (log: PayrailLog | undefined): Logging => {
  if (log === undefined || typeof log === 'function') {
    return { logger: lineLogger(log ?? stderrLine), logRequest: undefined };
  }
  return { logger: log, logRequest: accessLine(log) };
};

/** The probes a load balancer or Prometheus sends every few seconds. */
const probeRoutes: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * A request's access line: a 5xx at error (the server's failure, which an alert on errors
 * sees), an answered probe at debug (one every few seconds would bury the rest), else info.
 */
const accessLine =
  (logger: PayrailLogger) =>
  (entry: AccessLogEntry): void => {
    if (entry.status >= 500) logger.error(entry, 'request');
    else if (entry.route !== undefined && probeRoutes.has(entry.route)) {
      logger.debug(entry, 'request');
    } else logger.info(entry, 'request');
  };

/**
 * The lines of a background part (the timer loop, the webhook dispatcher, the embedded database,
 * the inspector sender), which say what happened in words: `... failed: ...` at error, `... is
 * away ...` at warn, the rest (`... recovered`, `... is back`, a stopped orphan) at info.
 */
export const loopLog =
  (logger: PayrailLogger, component: string) =>
  (line: string): void => {
    if (/ failed: /.test(line)) logger.error({ component }, line);
    else if (/ is away\b/.test(line)) logger.warn({ component }, line);
    else logger.info({ component }, line);
  };

/** A request that failed unexpectedly: its id, method, route and path, the error's message. */
export const logInternalError =
  (logger: PayrailLogger) =>
  ({ method, path, error, request_id, route }: InternalErrorLog): void =>
    logger.error(
      {
        request_id,
        method,
        ...(route === undefined ? {} : { route }),
        path,
        err: errorSummary(error),
      },
      `${method} ${path} failed: ${errorSummary(error)}`,
    );
