/**
 * The server's log (ADR 0047): JSON lines that parse, with the level as a word and an ISO time;
 * the level setting obeyed; a credential passed by mistake censored; and one readable line per
 * record for a person at a terminal.
 */
import { describe, expect, it } from 'vitest';
import { createServerLogger, prettyLine, redactedValue } from './pino-logger.js';

const capture = (options: { level?: 'info' | 'warn'; format?: 'json' | 'pretty' } = {}) => {
  const lines: string[] = [];
  const logger = createServerLogger({
    level: options.level ?? 'info',
    format: options.format ?? 'json',
    write: (line) => lines.push(line),
  });
  return { logger, lines };
};

describe('the JSON log', () => {
  it('writes one record a line, each parsing as JSON, with level, time, pid and message', () => {
    const { logger, lines } = capture();
    logger.info({ request_id: 'abc-123', status: 200 }, 'request');
    logger.error({ err: 'Error: boom' }, 'GET /x failed: Error: boom');
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(
      true,
    );
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        pid: process.pid,
        request_id: 'abc-123',
        status: 200,
        msg: 'request',
      },
      expect.objectContaining({ level: 'error', err: 'Error: boom' }),
    ]);
  });

  it('logs nothing below its level', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.info({}, 'quiet');
    logger.warn({}, 'loud');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['loud']);
  });

  it('censors a credential a record was given by mistake, at the top and one level down', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        token: 'tok-1',
        headers: { authorization: 'Bearer tok-2' },
        req: { authorization: 'Bearer tok-3', body: '{"secret":"tok-4"}', query: 'token=tok-5' },
        webhook: { secret: 'whsec_tok-6', url: 'https://example.com' },
      },
      'careless',
    );
    const text = lines.join('');
    for (const n of [1, 2, 3, 4, 5, 6]) expect(text).not.toContain(`tok-${n}`);
    expect(JSON.parse(text)).toMatchObject({
      token: redactedValue,
      headers: redactedValue,
      req: { authorization: redactedValue, body: redactedValue, query: redactedValue },
      webhook: { secret: redactedValue, url: 'https://example.com' },
    });
  });
});

describe('the readable log', () => {
  it('is one line a record: time, level, message, then the fields the message does not say', () => {
    const { logger, lines } = capture({ format: 'pretty' });
    logger.info({ url: 'http://127.0.0.1:8080' }, 'payrail listening on http://127.0.0.1:8080');
    logger.info(
      {
        request_id: 'abc-123',
        route: '/payment/payouts/:payout_id',
        status: 200,
        duration_ms: 3.1,
      },
      'request',
    );
    logger.warn({ peer: '10.0.0.1', note: 'two words' }, 'untrusted proxy');
    expect(lines).toEqual([
      expect.stringMatching(
        /^\d\d:\d\d:\d\d\.\d{3} INFO {2}payrail listening on http:\/\/127\.0\.0\.1:8080\n$/,
      ),
      expect.stringMatching(
        /^\d\d:\d\d:\d\d\.\d{3} INFO {2}request request_id=abc-123 route=\/payment\/payouts\/:payout_id status=200 duration_ms=3\.1\n$/,
      ),
      expect.stringMatching(/ WARN {2}untrusted proxy peer=10\.0\.0\.1 note="two words"\n$/),
    ]);
  });

  it('colours the level only when told to, and passes a line that is not a record through', () => {
    const line = JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: 'boom' });
    expect(prettyLine(line, true)).toContain('\u001b[31mERROR\u001b[0m boom');
    expect(prettyLine(line)).not.toContain('\u001b');
    expect(prettyLine('not json\n')).toBe('not json\n');
  });
});

describe('the JSON log on stdout, written off the event loop', () => {
  it('keeps every line and their order, and writes what is left when the process exits at once', async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    // The built module, as the server runs it (the test task runs after the build).
    const module = fileURLToPath(new URL('../dist/pino-logger.js', import.meta.url));
    const script = `
      const { createServerLogger } = await import(${JSON.stringify(module)});
      const logger = createServerLogger({ level: 'info', format: 'json' });
      for (let i = 0; i < 5000; i += 1) logger.info({ n: i }, 'request');
      process.exit(3);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(run.status).toBe(3);
    const numbers = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).n);
    expect(numbers).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });
});
