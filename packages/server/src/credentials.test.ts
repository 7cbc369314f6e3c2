import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateAdminToken, loadKeySecret } from './credentials.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-credentials-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadKeySecret', () => {
  it('generates the secret once, mode 0600, and reads the same one after a restart', async () => {
    const path = join(dir, 'data', 'key-secret');
    const first = await loadKeySecret({ kind: 'file', path });
    expect(first.createdFile).toBe(path);
    expect(first.secret.byteLength).toBeGreaterThanOrEqual(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'data'))).mode & 0o777).toBe(0o700);
    const again = await loadKeySecret({ kind: 'file', path });
    expect(again.createdFile).toBeUndefined();
    expect(Buffer.from(again.secret).equals(Buffer.from(first.secret))).toBe(true);
    // The file holds what PAYRAIL_KEY_SECRET would: the same bytes when moved to the environment.
    expect((await readFile(path, 'utf8')).trim()).toBe(new TextDecoder().decode(first.secret));
  });

  it('open files: a secret kept in a pre-existing 0755 directory, or left 0644, is made owner-only', async () => {
    await chmod(dir, 0o755);
    const path = join(dir, 'key-secret');
    await loadKeySecret({ kind: 'file', path });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    await chmod(dir, 0o755);
    await chmod(path, 0o644);
    await loadKeySecret({ kind: 'file', path });
    expect([(await stat(dir)).mode & 0o777, (await stat(path)).mode & 0o777]).toEqual([
      0o700, 0o600,
    ]);
  });

  it('agrees on one secret when two processes start together', async () => {
    const path = join(dir, 'key-secret');
    const [a, b] = await Promise.all([
      loadKeySecret({ kind: 'file', path }),
      loadKeySecret({ kind: 'file', path }),
    ]);
    expect(Buffer.from(a.secret).equals(Buffer.from(b.secret))).toBe(true);
  });

  it('uses the environment when set, without touching the disk', async () => {
    const secret = new TextEncoder().encode('s'.repeat(32));
    expect(await loadKeySecret({ kind: 'env', secret })).toEqual({ secret });
  });

  it('refuses a file holding a short secret', async () => {
    const path = join(dir, 'key-secret');
    await writeFile(path, 'short\n');
    await expect(loadKeySecret({ kind: 'file', path })).rejects.toThrow(
      `${path} holds a key secret shorter than 32 bytes`,
    );
  });
});

describe('generateAdminToken', () => {
  it('answers 256 random bits, url-safe', () => {
    const token = generateAdminToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateAdminToken()).not.toBe(token);
  });
});
