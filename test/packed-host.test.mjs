// payrail as a host installs it: every published package packed (`scripts/pack-packages.mjs`,
// which `pnpm pack:packages` runs), the tarballs installed with npm into a fresh project outside
// the workspace, each package imported by `node` (and refused by `require`, ESM only), a
// consumer type-checked under strict nodenext against the packed types with no `@types/*` but
// Node's, the `payrail` bin run, and every program under examples/ and every program of
// docs/embedding.md run there. Needs the packages built (`pnpm build`) and the npm registry for
// payrail's own dependencies.
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

/**
 * docs/embedding.md's programs by name: its ```js blocks, each marked `<!-- program: <name> -->`,
 * joined in order; and the fences that are neither (a JavaScript block the test would not run).
 */
const embedding = (() => {
  const text = readFileSync(join(root, 'docs', 'embedding.md'), 'utf8');
  const programs = new Map();
  const unrun = [];
  for (const [, name, language, code] of text.matchAll(
    /(?:<!-- program: (\S+) -->\n)?```(\w*)\n([\s\S]*?)```/g,
  )) {
    if (language === 'js' && name !== undefined) {
      programs.set(name, (programs.get(name) ?? '') + code);
    } else if (language !== 'sh') {
      unrun.push(`${language || 'unlabelled'} block: ${code.split('\n')[0]}`);
    }
  }
  return { programs, unrun };
})();

/** What a `console.log(...); // text` line of a docs program says it prints, in order. */
const printedPerComments = (code) =>
  [...code.matchAll(/^\s*console\.log\(.*\);\s*\/\/ (.*)$/gm)].map(([, text]) => text);

/** Writes the host's tsconfig.json: strict nodenext, `compilerOptions` over it. */
const configureHost = (compilerOptions, files) =>
  writeFileSync(
    join(host, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        types: ['node'],
        ...compilerOptions,
      },
      files,
    }),
  );

/** Runs `code` as an ES module with plain node in the host project; answers its stdout. */
const nodeIn = (code, env = {}) =>
  run(process.execPath, ['--input-type=module', '--eval', code], {
    cwd: host,
    env: { ...process.env, ...env },
  });

before(() => {
  run(process.execPath, [join(root, 'scripts', 'pack-packages.mjs'), tarballs], { cwd: root });
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
  it('packs every public package, none with a workspace range, sources, tests or @types', () => {
    const packedName = ({ name, version }) => `${name.slice(1).replace('/', '-')}-${version}.tgz`;
    assert.deepEqual(readdirSync(tarballs).sort(), manifests.map(packedName).sort());
    for (const file of readdirSync(tarballs)) {
      const listing = run('tar', ['-tzf', join(tarballs, file)]);
      assert.match(listing, /package\/LICENSE/, `${file} has a LICENSE`);
      assert.doesNotMatch(listing, /\.test\.|\/src\/|tsconfig/, `${file} ships only dist/`);
      const manifest = JSON.parse(
        run('tar', ['-xzOf', join(tarballs, file), 'package/package.json']),
      );
      const { exports, dependencies, peerDependencies } = manifest;
      // A runtime dependency's @types would land in every host (@types/pg brought @types/node 26
      // into a Node 20 host): the declarations name their own types instead.
      const typings = Object.keys({ ...dependencies, ...peerDependencies });
      assert.deepEqual(
        typings.filter((name) => name.startsWith('@types/')),
        [],
        file,
      );
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

  it('refuses require() of every entry, saying it is ESM only', () => {
    const code = `for (const name of ${JSON.stringify(entryNames)}) {
      try { require(name); console.log(name, 'loaded'); }
      catch (error) { console.log(name, error.code, error.message); }
    }`;
    const output = run(process.execPath, ['--input-type=commonjs', '--eval', code], { cwd: host });
    for (const name of entryNames) {
      const line = output.split('\n').find((text) => text.startsWith(`${name} `));
      assert.match(line ?? '', / ERR_REQUIRE_ESM @payrail\/\S+ is ESM only: load it with import/);
    }
  });

  it('type-checks a consumer under strict nodenext against the packed types', () => {
    const tsc = join(host, 'node_modules', 'typescript', 'bin', 'tsc');
    const configure = (skipLibCheck) =>
      configureHost({ exactOptionalPropertyTypes: true, skipLibCheck }, [
        'consumer.ts',
        'client-consumer.ts',
      ]);
    // As a host compiles (tsc --init skips libraries' declarations): no error at all.
    configure(true);
    run(process.execPath, [tsc, '-p', host]);
    // Every declaration checked too: none of payrail's may fail (xstate's own declarations do
    // under exactOptionalPropertyTypes: not ours to fix).
    configure(false);
    const strict = spawnSync(process.execPath, [tsc, '-p', host], { encoding: 'utf8' });
    const ours = strict.stdout
      .split('\n')
      .filter((line) => /node_modules\/@payrail\/|consumer\.ts/.test(line));
    assert.deepEqual(ours, []);
  });

  it('type-checks every entry with every declaration checked, with no @types but Node 20', () => {
    // The host installed @types/node@20 and nothing else of @types: payrail brought none.
    assert.deepEqual(readdirSync(join(host, 'node_modules', '@types')), ['node']);
    const entries = entryNames.map((name, i) => `export * as entry${i} from '${name}';\n`);
    writeFileSync(join(host, 'entries.ts'), entries.join(''));
    configureHost({ skipLibCheck: false }, ['consumer.ts', 'entries.ts']);
    run(process.execPath, [join(host, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', host]);
  });

  it('runs the payrail bin', () => {
    const help = run(join(host, 'node_modules', '.bin', 'payrail'), ['--help'], { cwd: host });
    assert.match(help, /payrail/);
  });

  it('runs the merchant SDK with plain node against a packed payrail (docs/sdk.md)', () => {
    const output = run(process.execPath, ['client-host.mjs'], { cwd: host, timeout: 60_000 });
    assert.deepEqual(output.trimEnd().split('\n'), [
      'payout pending_review, client_request_id named by the client',
      'read back the same',
      'listed 1 payout page by page',
      'refused 404/65 payout not found',
      'verified payout.review.approved',
      'tampered: signature',
    ]);
  });

  it('runs every JavaScript block of docs/embedding.md, as part of one of its programs', () => {
    assert.deepEqual(embedding.unrun, []);
    assert.deepEqual([...embedding.programs.keys()], ['sandbox', 'live', 'tests']);
  });

  for (const [name, code] of embedding.programs) {
    it(`runs docs/embedding.md's ${name} program, which prints what its comments say`, () => {
      const file = join(host, `embedding-${name}.mjs`);
      writeFileSync(file, code);
      const output = run(process.execPath, [file], {
        cwd: host,
        env: { ...process.env, PAYRAIL_KEY_SECRET: 'a host secret of at least thirty-two bytes' },
        timeout: 120_000,
      });
      assert.deepEqual(output.trimEnd().split('\n'), printedPerComments(code));
    });
  }

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
