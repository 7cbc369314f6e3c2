// `pnpm pack:packages` (docs/embedding.md, "Getting the packages"): packs every package a host can
// install into `packed/` (or the folder given as the first argument), one `.tgz` each, with the
// workspace ranges replaced by versions and `publishConfig` applied, as a registry would get
// them. The private packages (the simulation, the load benchmark) are left out. Needs the
// packages built: the root script builds them first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const destination = resolve(process.argv[2] ?? join(root, 'packed'));

/** The packages a host can install: every one under packages/ that is not private. */
const publicPackages = () =>
  readdirSync(join(root, 'packages'))
    .map((dir) => ({
      dir: join(root, 'packages', dir),
      manifest: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')),
    }))
    .filter(({ manifest }) => manifest.private !== true);

const packages = publicPackages();
const unbuilt = packages.filter(({ dir }) => !existsSync(join(dir, 'dist', 'index.js')));
if (unbuilt.length > 0) {
  const names = unbuilt.map(({ manifest }) => manifest.name).join(', ');
  console.error(`pack-packages: not built: ${names}. Run \`pnpm build\` first.`);
  process.exit(1);
}

mkdirSync(destination, { recursive: true });
for (const file of readdirSync(destination).filter((name) => name.endsWith('.tgz'))) {
  rmSync(join(destination, file));
}
const filters = packages.flatMap(({ manifest }) => ['--filter', manifest.name]);
const pack = ['-r', ...filters, 'pack', '--pack-destination', destination];
// The pnpm that runs `pnpm pack:packages`, else pnpm 10 through npx (`node scripts/...`).
// biome-ignore lint/suspicious/noUndeclaredEnvVars: this script is no turbo task; it runs after one
const pnpm = process.env.npm_execpath ?? '';
const [command, args] = /pnpm\.c?js$/.test(pnpm)
  ? [process.execPath, [pnpm, ...pack]]
  : ['npx', ['-y', 'pnpm@10', ...pack]];
const packed = spawnSync(command, args, {
  cwd: root,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (packed.status !== 0) {
  console.error(packed.stdout);
  process.exit(packed.status ?? 1);
}
const tarballs = readdirSync(destination).filter((name) => name.endsWith('.tgz'));
const shown = relative(process.cwd(), destination) || '.';
console.log(`packed ${tarballs.length} packages into ${shown}/:`);
for (const file of tarballs.sort()) console.log(`  ${file}`);
