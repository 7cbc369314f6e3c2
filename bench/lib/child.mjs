/**
 * Child processes of the benchmark: started with plain `node`, waited for until they print the
 * line that says they listen, and stopped at cleanup whatever happens (SIGTERM, then SIGKILL).
 */
import { spawn } from 'node:child_process';
import { onCleanup } from './run-context.mjs';

const stopGraceMs = 15_000;

/**
 * Starts `node <args>` with `env` and waits for a stdout line matching `ready` (its first group
 * is answered as `url`). Answers `{pid, url, output(), stop(), exited}`.
 */
export const startNode = async ({ label, args, env, cwd, ready, startTimeoutMs = 60_000 }) => {
  const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exitInfo;
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });
  const keep = (chunk) => {
    output += chunk;
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', keep);

  const stop = onCleanup(`stop ${label} (pid ${child.pid})`, async () => {
    if (exitInfo !== undefined) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
    await exited;
    clearTimeout(timer);
  });

  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${label} did not start within ${startTimeoutMs} ms:\n${output}`)),
      startTimeoutMs,
    );
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      keep(chunk);
      buffered += chunk;
      const match = ready.exec(buffered);
      if (match !== null) {
        clearTimeout(timer);
        buffered = '';
        resolve(match[1]);
      }
    });
    exited.then((info) => {
      clearTimeout(timer);
      reject(
        new Error(`${label} exited (${info.code ?? info.signal}) before it listened:\n${output}`),
      );
    });
  });
  return {
    pid: child.pid,
    url,
    output: () => output,
    alive: () => exitInfo === undefined,
    exited,
    stop,
  };
};
