/**
 * Files only their owner can read or write (issue 12, finding 4): the embedded database holds
 * balances and the webhook and notify secrets (in its tables and its write-ahead log), and PGlite
 * writes most of its files 0666 whatever the process umask, so the store makes the data directory
 * and everything under it owner-only each time it opens and closes it, also when the directory
 * already existed with wider modes. The directory's own 0700 is what keeps other local users out
 * in between (docs/embedding.md).
 */
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCodeOf } from './error-code.js';

const folderMode = 0o700;
const fileMode = 0o600;

/** PGlite may remove a file (a recycled log segment) while the walk is on its way to it. */
const unlessGone = (error: unknown): undefined => {
  if (errorCodeOf(error) === 'ENOENT') return undefined;
  throw error;
};

const restrict = async (path: string): Promise<void> => {
  const stats = await lstat(path).catch(unlessGone);
  // A symbolic link is not followed: what it points at is not ours to change.
  if (stats === undefined || stats.isSymbolicLink()) return;
  const wanted = stats.isDirectory() ? folderMode : fileMode;
  // The folder closes before its content is walked.
  if ((stats.mode & 0o777) !== wanted) await chmod(path, wanted).catch(unlessGone);
  if (!stats.isDirectory()) return;
  const entries = (await readdir(path).catch(unlessGone)) ?? [];
  await Promise.all(entries.map((entry) => restrict(join(path, entry))));
};

/**
 * Creates `directory` (and its missing parents) 0700 when it is missing, then makes it and
 * everything under it owner-only: folders 0700, files 0600. Symbolic links are left alone.
 * Throws when a file cannot be changed (another user owns it).
 */
export const restrictToOwner = async (directory: string): Promise<void> => {
  await mkdir(directory, { recursive: true, mode: folderMode });
  await restrict(directory);
};
