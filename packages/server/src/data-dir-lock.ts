/**
 * One process per embedded database: PGlite's files in the data directory must not be opened by
 * two processes at once, so the server holds `<data dir>/payrail.lock` (its pid) while it runs.
 * A lock left by a process that is gone is taken over.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { restrictToOwner } from '@payrail/store-postgres';

export interface DataDirLock {
  release(): Promise<void>;
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export const lockDataDir = async (dataDir: string, display = dataDir): Promise<DataDirLock> => {
  // Owner-only, also when it existed with wider modes (issue 12, finding 4).
  await restrictToOwner(dataDir);
  const path = join(dataDir, 'payrail.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return { release: () => rm(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new Error(
        `another payrail process (pid ${holder}) is using ${display}; stop it first or set ` +
          `PAYRAIL_DATA_DIR to another directory (if no payrail runs there, remove ${path})`,
      );
    }
    await rm(path, { force: true });
  }
  throw new Error(`could not lock ${display}`);
};
