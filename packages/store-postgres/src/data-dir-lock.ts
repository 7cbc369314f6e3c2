/**
 * One owner per data directory (ADR 0037): whoever opens a store on a directory holds
 * `<dir>/payrail.lock` (its pid) until it closes it. A second open of the same directory, in this
 * process or in another one, fails at once with a message naming the holder; a lock left by a
 * process that is gone is taken over. The server holds its data directory the same way.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCodeOf } from './error-code.js';
import { restrictToOwner } from './owner-only-files.js';

export interface DataDirLock {
  /** Lets go of the directory; a second call does nothing. */
  release(): Promise<void>;
}

/** The name of the lock file in a locked directory. */
const lockFileName = 'payrail.lock';

/** Where /proc tells, whether `pid` is a zombie: ended, waiting for a parent that may never reap it. */
const isZombie = (pid: number): boolean => {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Whether a process with this pid runs (EPERM: it exists, it is just not ours to signal). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (errorCodeOf(error) !== 'EPERM') return false;
  }
  return !isZombie(pid);
};

/** The directories this process holds, by real path: a second open here is refused too. */
const heldHere = new Set<string>();

/** Thrown when another owner holds the directory. */
export class DataDirInUse extends Error {
  constructor(
    readonly directory: string,
    readonly holder: number,
    remedy: string,
  ) {
    super(
      holder === process.pid
        ? `${directory} is already open in this process (pid ${holder}); close what holds it first`
        : `another payrail process (pid ${holder}) is using ${directory}; stop it first${remedy}`,
    );
    this.name = 'DataDirInUse';
  }
}

export interface LockOptions {
  /** The directory as the operator wrote it, for messages; default the path itself. */
  readonly display?: string;
  /** Appended to the refusal, e.g. `or set PAYRAIL_DATA_DIR to another directory`. */
  readonly remedy?: string;
}

/**
 * Makes `dataDir` owner-only (creating it 0700 when missing) and takes its lock, or throws
 * `DataDirInUse` naming the process that holds it.
 */
export const lockDataDir = async (
  dataDir: string,
  options: LockOptions = {},
): Promise<DataDirLock> => {
  const display = options.display ?? dataDir;
  const remedy = options.remedy === undefined ? '' : ` ${options.remedy}`;
  await restrictToOwner(dataDir);
  const key = realpathSync(dataDir);
  if (heldHere.has(key)) throw new DataDirInUse(display, process.pid, remedy);
  const path = join(dataDir, lockFileName);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      heldHere.add(key);
      let released = false;
      return {
        release: async () => {
          if (released) return;
          released = true;
          heldHere.delete(key);
          await rm(path, { force: true });
        },
      };
    } catch (error) {
      if (errorCodeOf(error) !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new DataDirInUse(
        display,
        holder,
        `${remedy} (if no payrail runs there, remove ${path})`,
      );
    }
    // Left by a process that is gone (or by this one, without a holder here: a crashed open).
    await rm(path, { force: true });
  }
  throw new Error(`could not lock ${display}`);
};
