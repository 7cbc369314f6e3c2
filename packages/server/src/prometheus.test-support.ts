/**
 * Debian's Prometheus tools for the metrics tests: `promtool check metrics` on an exposition, and
 * a real `prometheus` server with a temporary configuration and storage, on a free port, that
 * scrapes a running payrail and answers its HTTP API's queries. CI installs the `prometheus`
 * package (.ci/run): there a missing binary fails the test; elsewhere the test is skipped with a
 * message.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@payrail/store-postgres/testing';

const inCI = process.env.CI === 'true';

/** Whether a test needing `binary` runs: it is installed, or this is CI (where it must be). */
export const binaryRuns = (binary: string, what: string): boolean => {
  const installed = existsSync(`/usr/bin/${binary}`);
  if (!installed && !inCI) {
    console.warn(
      `/usr/bin/${binary} is missing: ${what} is skipped (apt-get install prometheus to run it; ` +
        'in CI it fails instead).',
    );
  }
  return installed || inCI;
};

/** `promtool check metrics` of `exposition`: its exit code and what it printed. */
export const promtoolCheck = (
  exposition: string,
): Promise<{ readonly code: number; readonly output: string }> =>
  new Promise((resolve, reject) => {
    const child = execFile('promtool', ['check', 'metrics'], (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      if (error !== null && typeof error.code !== 'number') reject(error);
      else resolve({ code, output: `${stdout}${stderr}` });
    });
    child.stdin?.end(exposition);
  });

export interface ScrapeTarget {
  /** `127.0.0.1:8080`. */
  readonly target: string;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
}

/** One sample of an instant query: its labels and its value. */
export interface QueriedSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `/api/v1/query?query=<promql>`: the vector it answers now. */
  query(promql: string): Promise<readonly QueriedSample[]>;
  /** What it printed (its log), for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

const configOf = ({ target, bearerToken }: ScrapeTarget): string =>
  [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    '  - job_name: payrail',
    '    metrics_path: /metrics',
    ...(bearerToken === undefined
      ? []
      : ['    authorization:', '      type: Bearer', `      credentials: ${bearerToken}`]),
    '    static_configs:',
    `      - targets: ['${target}']`,
    '',
  ].join('\n');

const waitForReady = async (url: string, child: ChildProcess, output: () => string) => {
  const end = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited:\n${output()}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > end) throw new Error(`prometheus was not ready within 60 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** A Prometheus of its own, scraping `scrape` every second, on a free port of 127.0.0.1. */
export const startPrometheus = async (scrape: ScrapeTarget): Promise<RunningPrometheus> => {
  const dir = await mkdtemp(join(tmpdir(), 'payrail-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  await writeFile(configFile, configOf(scrape), { mode: 0o600 });
  const port = await freePort();
  const child = spawn(
    'prometheus',
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let printed = '';
  child.stdout?.on('data', (chunk) => {
    printed += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    printed += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForReady(url, child, () => printed);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    query: async (promql) => {
      const answer = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await answer.json()) as {
        status: string;
        data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`query ${promql}: ${JSON.stringify(body)}`);
      return (body.data?.result ?? []).map(({ metric, value }) => ({
        metric,
        value: Number(value[1]),
      }));
    },
    output: () => printed,
    stop,
  };
};
