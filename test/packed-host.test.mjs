// payrail as a host installs it: every published package packed (`pnpm -r pack`), the tarballs
// installed with npm into a fresh project outside the workspace, each package imported by `node`,
// a consumer type-checked under strict nodenext against the packed types, the `payrail` bin
// run, and every program under examples/ run there. Needs the packages built (`pnpm build`)
// and the npm registry for payrail's own dependencies.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packageDirs = readdirSync(join(root, 'packages'));
/** What a host can install: every package but the private tools (the simulation, the bench). */
const manifests = packageDirs
  .map((dir) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')))
  .filter((manifest) => manifest.private !== true);
/** Every entry a host can import: `@payrail/core`, `@payrail/core/testing`, ... */
const entryNames = manifests.flatMap(({ name, exports }) =>
  Object.keys(exports).map((subpath) => (subpath === '.' ? name : `${name}${subpath.slice(1)}`)),
);
const work = mkdtempSync(join(tmpdir(), 'payrail-host-'));
const tarballs = join(work, 'tarballs');
const host = join(work, 'host');

const run = (command, args, options = {}) => {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
};

/** Runs `code` as an ES module with plain node in the host project; answers its stdout. */
const nodeIn = (code, env = {}) =>
  run(process.execPath, ['--input-type=module', '--eval', code], {
    cwd: host,
    env: { ...process.env, ...env },
  });

before(() => {
  const published = manifests.flatMap(({ name }) => ['--filter', name]);
  run('npx', ['-y', 'pnpm@10', '-r', ...published, 'pack', '--pack-destination', tarballs], {
    cwd: root,
  });
  cpSync(join(root, 'test', 'packed-host'), host, { recursive: true });
  cpSync(join(root, 'examples'), join(host, 'examples'), { recursive: true });
  writeFileSync(
    join(host, 'package.json'),
    `${JSON.stringify({ name: 'a-host', private: true, type: 'module' }, null, 2)}\n`,
  );
  const packed = readdirSync(tarballs).map((file) => join(tarballs, file));
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...packed,
      'typescript@5.9.3',
      '@types/node@20',
      'fast-check@4',
    ],
    { cwd: host },
  );
});

after(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('the packed packages in a fresh project', () => {
  it('packs every package with no workspace range, no sources and no tests', () => {
    for (const file of readdirSync(tarballs)) {
      const listing = run('tar', ['-tzf', join(tarballs, file)]);
      assert.match(listing, /package\/LICENSE/, `${file} has a LICENSE`);
      assert.doesNotMatch(listing, /\.test\.|\/src\/|tsconfig/, `${file} ships only dist/`);
      const manifest = JSON.parse(
        run('tar', ['-xzOf', join(tarballs, file), 'package/package.json']),
      );
      const { exports, dependencies, peerDependencies } = manifest;
      assert.doesNotMatch(
        JSON.stringify({ exports, dependencies, peerDependencies }),
        /workspace:|@payrail\/source|src\//,
        file,
      );
    }
  });

  it('imports every entry of every package with plain node, no loader', () => {
    for (const name of entryNames) {
      const count = nodeIn(
        `const m = await import(${JSON.stringify(name)}); console.log(Object.keys(m).length);`,
      );
      assert.ok(Number(count) > 0, `${name} exports something (${count})`);
    }
  });

  it('type-checks a consumer under strict nodenext against the packed types', () => {
    const tsc = join(host, 'node_modules', 'typescript', 'bin', 'tsc');
    const configure = (skipLibCheck) =>
      writeFileSync(
        join(host, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'nodenext',
            moduleResolution: 'nodenext',
            strict: true,
            exactOptionalPropertyTypes: true,
            noUncheckedIndexedAccess: true,
            skipLibCheck,
            noEmit: true,
            types: ['node'],
          },
          files: ['consumer.ts'],
        }),
      );
    // As a host compiles (tsc --init skips libraries' declarations): no error at all.
    configure(true);
    run(process.execPath, [tsc, '-p', host]);
    // Every declaration checked too: none of payrail's may fail (some of its dependencies' own
    // declarations do under these settings, PGlite's and xstate's: not ours to fix).
    configure(false);
    const strict = spawnSync(process.execPath, [tsc, '-p', host], { encoding: 'utf8' });
    const ours = strict.stdout
      .split('\n')
      .filter((line) => /node_modules\/@payrail\/|consumer\.ts/.test(line));
    assert.deepEqual(ours, []);
  });

  it('runs the payrail bin', () => {
    const help = run(join(host, 'node_modules', '.bin', 'payrail'), ['--help'], { cwd: host });
    assert.match(help, /payrail/);
  });

  const examples = readdirSync(join(root, 'examples')).filter((file) => file.endsWith('.mjs'));
  for (const example of examples) {
    const needsServer =
      example === 'postgres.mjs' &&
      process.env.DATABASE_URL === undefined &&
      process.env.CI !== 'true';
    it(`runs examples/${example}`, { skip: needsServer && 'DATABASE_URL is not set' }, () => {
      const output = run(process.execPath, [join('examples', example)], {
        cwd: host,
        timeout: 180_000,
      });
      assert.match(output, /payout \S+: completed/);
      assert.match(output, /order \S+: completed/);
    });
  }
});
