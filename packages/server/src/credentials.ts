/**
 * The server's two secrets: the operator token (generated for one run when unset) and the secret
 * that signs API keys (generated once and kept in the data directory, mode 0600, when unset, so
 * issued keys survive a restart).
 */
import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { minKeySecretBytes } from '@payrail/engine';
import { restrictToOwner } from '@payrail/store-postgres';
import type { KeySecretSource } from './config.js';

/** 32 random bytes, base64url: what `PAYRAIL_ADMIN_TOKEN` would hold. */
export const generateAdminToken = (): string => randomBytes(32).toString('base64url');

const isErrno = (error: unknown, code: string): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === code;

const readSecretFile = async (path: string): Promise<Uint8Array> => {
  const secret = new TextEncoder().encode((await readFile(path, 'utf8')).trim());
  if (secret.byteLength < minKeySecretBytes) {
    throw new Error(
      `${path} holds a key secret shorter than ${minKeySecretBytes} bytes; ` +
        'remove the file to generate a new one (every issued API key stops working)',
    );
  }
  return secret;
};

export interface LoadedKeySecret {
  readonly secret: Uint8Array;
  /** Set when this call created the file. */
  readonly createdFile?: string;
}

/**
 * The API-key signing secret: from the environment, else from the data directory's file,
 * created on first use (`wx`, so two processes starting together agree on one secret).
 * The file's content is the same text `PAYRAIL_KEY_SECRET` would hold.
 */
export const loadKeySecret = async (source: KeySecretSource): Promise<LoadedKeySecret> => {
  if (source.kind === 'env') return { secret: source.secret };
  // The data directory and the secret in it are owner-only, also when they existed before.
  await restrictToOwner(dirname(source.path));
  try {
    return { secret: await readSecretFile(source.path) };
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
  const text = randomBytes(32).toString('base64url');
  try {
    await writeFile(source.path, `${text}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (isErrno(error, 'EEXIST')) return { secret: await readSecretFile(source.path) };
    throw error;
  }
  // The umask may have narrowed the mode further, never widened it; make it exactly 0600.
  await chmod(source.path, 0o600);
  return { secret: new TextEncoder().encode(text), createdFile: source.path };
};
