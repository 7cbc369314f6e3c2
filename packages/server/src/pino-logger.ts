/**
 * The server's log (issue 22, ADR 0047): pino, one JSON record a line on stdout, or, for a person
 * at a terminal, one readable line a record (`09:41:07.412 INFO  payrail listening on ...`),
 * formatted here from the same record. pino's `redact` censors any field named like a credential,
 * a second guard behind the records themselves, which are never given one.
 */
import {
  type DestinationStream,
  type Logger,
  type LoggerOptions,
  pino,
  stdTimeFunctions,
} from 'pino';
import type { LogFormat, LogLevel } from './payrail-logger.js';

/**
 * Fields no record should carry, censored wherever they appear (one level deep too): a host's
 * logger or a future record that passed a header, a body or a credential by mistake.
 */
const redactedPaths = [
  'authorization',
  'headers',
  'body',
  'token',
  'secret',
  'password',
  'notify_secret',
  'api_key',
  'query',
].flatMap((name) => [name, `*.${name}`]);

export const redactedValue = '[redacted]';

export interface ServerLoggerOptions {
  readonly level: LogLevel;
  readonly format: LogFormat;
  /** Where each line goes; default stdout (for JSON, written off the event loop: see below). */
  readonly write?: (line: string) => void;
  /** Pretty only: colour the level (a terminal that is not told NO_COLOR). */
  readonly color?: boolean;
}

const pinoOptions = (level: LogLevel): LoggerOptions => ({
  level,
  base: { pid: process.pid },
  timestamp: stdTimeFunctions.isoTime,
  // `"level":"info"` rather than pino's 30: what a reader and most collectors expect.
  formatters: { level: (label) => ({ level: label }) },
  redact: { paths: redactedPaths, censor: redactedValue },
});

const stdout = (line: string): void => {
  process.stdout.write(line);
};

/**
 * The most log text held while stdout is not read (a stalled collector): beyond it, lines are
 * dropped rather than held without limit until the process runs out of memory. A synchronous
 * write would stop the whole server instead; the log is not where money is recorded.
 */
const maxBufferedLog = 16 * 1024 * 1024;

/**
 * Stdout for JSON lines, written asynchronously (pino's `sonic-boom`, issue 24): a line is
 * appended to a buffer and written by libuv's thread pool, so the event loop serving requests
 * never waits on the write syscall (one a request, for the access log: 5-8 % of a read's CPU in
 * the profile of docs/performance.md). Lines logged while a write is under way go out together
 * in the next one, so under load the lines of many requests share a write; when idle a line is
 * written at once, never held back by a threshold or a timer. Order is kept, and pino writes
 * what is left synchronously when the process exits (`process.exit` included).
 */
const asyncStdout = (): DestinationStream =>
  pino.destination({ dest: 1, sync: false, maxLength: maxBufferedLog });

export const createServerLogger = (options: ServerLoggerOptions): Logger =>
  createServerLog(options).logger;

/** The server's log, and a way to put a line of its own on the same stream, in order. */
export interface ServerLog {
  readonly logger: Logger;
  /**
   * Writes `line` (a secret generated for this run, shown once to a person) as a line of its
   * own, after every record logged before it: on the stream the records go to, never as one.
   */
  readonly say: (line: string) => void;
}

export const createServerLog = (options: ServerLoggerOptions): ServerLog => {
  const color = options.color === true;
  if (options.format === 'json') {
    const destination = options.write === undefined ? asyncStdout() : { write: options.write };
    return {
      logger: pino(pinoOptions(options.level), destination),
      say: (line) => destination.write(`${line}\n`),
    };
  }
  const write = options.write ?? stdout;
  return {
    logger: pino(pinoOptions(options.level), {
      write: (line: string) => write(prettyLine(line, color)),
    }),
    say: (line) => write(`${line}\n`),
  };
};

/** The terminal's colour of each level, when it has colours. */
const levelColors: Readonly<Record<string, string>> = {
  fatal: '\u001b[41m',
  error: '\u001b[31m',
  warn: '\u001b[33m',
  info: '\u001b[32m',
  debug: '\u001b[90m',
  trace: '\u001b[90m',
};

/** What the pretty line shows apart from the fields: the time, the level, the message. */
const shownApart = new Set(['time', 'level', 'msg', 'pid', 'hostname']);

const fieldValue = (value: unknown): string =>
  typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);

/** `09:41:07.412` of an ISO time, in the machine's time zone. */
const clockTime = (iso: unknown): string => {
  const at = typeof iso === 'string' ? new Date(iso) : new Date();
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
};

/**
 * One record as a person reads it: `09:41:07.412 INFO  request request_id=abc-123 status=200`.
 * Every other field follows as `name=value`, unless the message already says it.
 */
export const prettyLine = (json: string, color = false): string => {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json);
  } catch {
    return json;
  }
  const level = String(record.level ?? 'info');
  const label = level.toUpperCase().padEnd(5);
  const shown = color ? `${levelColors[level] ?? ''}${label}\u001b[0m` : label;
  const message = String(record.msg ?? '');
  // A field the message already says (`payrail listening on <url>`) is not said twice.
  const fields = Object.entries(record)
    .filter(([name]) => !shownApart.has(name))
    .filter(([, value]) => !(typeof value === 'string' && message.includes(value)))
    .map(([name, value]) => `${name}=${fieldValue(value)}`);
  return `${[clockTime(record.time), shown, message, ...fields].join(' ')}\n`;
};
