/**
 * What every part of the load benchmark shares: the options of this run, a log line on stderr,
 * and the cleanup list that runs on success, on failure and on Ctrl-C (children killed, schemas
 * dropped, temporary directories removed), newest first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const positiveNumber = (raw, fallback, name) => {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number, not "${raw}"`);
  }
  return value;
};

/** The options of this run, from argv and the environment. */
export const readOptions = (argv, env) => {
  const smoke = argv.includes('--smoke') || env.BENCH_SMOKE === '1';
  const sweep = argv.includes('--sweep');
  const pglite = argv.includes('--pglite');
  const known = ['--smoke', '--sweep', '--pglite'];
  const unknown = argv.filter((arg) => !known.includes(arg));
  if (unknown.length > 0) {
    throw new Error(`unknown argument ${unknown.join(' ')} (known: ${known.join(', ')})`);
  }
  return {
    smoke,
    sweep,
    /**
     * Also payrail on the PGlite store (PAYRAIL_EMBEDDED_DATABASE=pglite), the embedded
     * default before the embedded PostgreSQL: off by default, as it is no longer what a server
     * without DATABASE_URL runs, and it never fsyncs on Node (its rows say "not durable").
     */
    pglite,
    rounds: smoke ? 1 : 3,
    duration: smoke ? 2 : positiveNumber(env.BENCH_DURATION, 10, 'BENCH_DURATION'),
    sweepDuration: smoke ? 2 : positiveNumber(env.BENCH_SWEEP_DURATION, 5, 'BENCH_SWEEP_DURATION'),
    connections: positiveNumber(env.BENCH_CONNECTIONS, 32, 'BENCH_CONNECTIONS'),
    /** payrail's default pool size, the floor's pool size. */
    poolSize: 10,
    /** PGlite runs one transaction at a time; the floor keeps this many waiting on it. */
    pgliteInFlight: 10,
    idleSettleSeconds: smoke ? 1 : 3,
    idleSeconds: smoke ? 2 : 10,
    /** The outbox round: creates for this long, then the drain watched for at most the limit. */
    outboxDuration: smoke ? 3 : 10,
    drainLimitSeconds: smoke ? 15 : 60,
    /** Ledger growth: the rows of the small and the large ledger. */
    ledgerSizes: smoke ? [1_000, 10_000] : [10_000, 1_000_000],
    /** The timer row waits for orders of expire_seconds 60: the full run only. */
    timers: !smoke,
    timerGraceSeconds: 15,
    databaseUrl: env.DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test',
    ci: env.CI === 'true',
  };
};

export const log = (line) => {
  process.stderr.write(`bench: ${line}\n`);
};

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups = [];

/** Registers `undo` to run at the end; answers a function that runs it now (once). */
export const onCleanup = (label, undo) => {
  const entry = { label, undo, done: false };
  cleanups.push(entry);
  return async () => {
    if (entry.done) return;
    entry.done = true;
    await undo();
  };
};

/** Runs every registered cleanup not yet run, newest first; one failing does not stop the rest. */
export const cleanupAll = async () => {
  while (cleanups.length > 0) {
    const entry = cleanups.pop();
    if (entry.done) continue;
    entry.done = true;
    try {
      await entry.undo();
    } catch (error) {
      log(`cleanup "${entry.label}" failed: ${error?.message ?? error}`);
    }
  }
};

/** A fresh temporary directory, removed at cleanup. */
export const tempDir = async (prefix) => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const remove = onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  return { dir, remove };
};

/** A name no other run uses: a schema, a reference prefix. */
export const uniqueSuffix = () =>
  `${process.pid.toString(36)}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
