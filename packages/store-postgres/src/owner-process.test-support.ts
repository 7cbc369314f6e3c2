/**
 * Another process that owns a store's data directory, as a host process would: it imports the
 * built package (turbo builds before the tests run), opens the store, deposits 5.00 to `acc_1`,
 * prints `open <postmaster pid or 0>` and waits to be killed. It installs no signal handler of
 * its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const builtEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

export interface Owner {
  readonly child: ChildProcess;
  /** The embedded PostgreSQL's server process; 0 for PGlite, which runs inside the owner. */
  readonly postmaster: number;
}

export const ownerProcess = (
  factory: 'createEmbeddedPostgresStore' | 'createPGliteStore',
  dataDir: string,
): Promise<Owner> =>
  new Promise((resolve, reject) => {
    const pidFile = join(dataDir, 'data', 'postmaster.pid');
    const script = `
      const stores = await import(${JSON.stringify(builtEntry)});
      const { depositJournal, money } = await import('@payrail/core');
      const { existsSync, readFileSync } = await import('node:fs');
      const store = await stores.${factory}({ dataDir: ${JSON.stringify(dataDir)} });
      await store.transaction((tx) =>
        tx.ledger.post(depositJournal({ accountId: 'acc_1', businessId: 'owner' }, money('USD', '5.00')), 1));
      const pidFile = ${JSON.stringify(pidFile)};
      const pid = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').split('\\n')[0] : '0';
      process.stdout.write('open ' + pid + '\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '--eval', script], {
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /open (\d+)/.exec(output);
      if (match?.[1] !== undefined) resolve({ child, postmaster: Number(match[1]) });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the owner process ended (${code ?? signal}) before opening:\n${output}`)),
    );
  });

/** How a child process ended: its signal, else its exit code. */
export const exitOf = (child: ChildProcess): Promise<NodeJS.Signals | number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve(child.signalCode ?? child.exitCode);
      return;
    }
    child.once('exit', (code, signal) => resolve(signal ?? code));
  });
