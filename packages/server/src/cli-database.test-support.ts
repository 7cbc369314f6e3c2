/** `payrail` run in this process with an environment of the test's own, its output captured. */
import { type CliIo, runCli } from './cli-commands.js';
import type { EnvRecord } from './config.js';

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export const runLocal = async (argv: readonly string[], env: EnvRecord): Promise<CliRun> => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env,
    cwd: '/',
    fetch: () => Promise.reject(new Error('a local command calls no server')),
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  };
  const code = await runCli(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
};
