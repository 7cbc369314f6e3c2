// The documentation stands alone: every relative link of README.md and docs/**/*.md names a file
// of this repository (and, into a Markdown file, a heading or anchor it has), every `docs/*.md`
// path that the docs or the shipped sources name exists, and nothing but CI's own script (.ci/)
// points at the folder beside the clone the specification used to live in.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const skipped = new Set([
  'node_modules',
  'dist',
  'coverage',
  '.git',
  '.turbo',
  '.payrail',
  'packed',
]);

/** Every file under `dir` (relative to the root), without dependencies and build output. */
const filesUnder = (dir) =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skipped.has(entry.name) ? [] : filesUnder(path);
    return [path];
  });

const docs = ['README.md', ...filesUnder('docs').filter((path) => path.endsWith('.md'))];
const read = (path) => readFileSync(join(root, path), 'utf8');

/** The text outside fenced code blocks. */
const unfenced = (text) => text.replace(/^```[\s\S]*?^```/gm, '');

/** The text outside fenced code blocks and inline code, where a link is a link. */
const prose = (text) => unfenced(text).replace(/`[^`\n]*`/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slugOf = (heading) =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

/** The anchors a Markdown file offers: its headings' (repeats numbered) and explicit ids. */
const anchorsOf = (text) => {
  const anchors = new Set();
  for (const [, heading] of unfenced(text).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = slugOf(heading.replace(/`/g, ''));
    let unique = slug;
    for (let n = 1; anchors.has(unique); n += 1) unique = `${slug}-${n}`;
    anchors.add(unique);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
  return anchors;
};

/** Every `[text](target)` and `[label]: target` of a document's prose. */
const linksOf = (text) => [
  ...[...prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(([, t]) => t),
  ...[...prose(text).matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map(([, target]) => target),
];

const anchorsByFile = new Map();

/** What is wrong with `target`, linked from `from`; undefined when it resolves. */
const problemOf = (from, target) => {
  if (/^[a-z][a-z+.-]*:/i.test(target)) return undefined; // https:, mailto:, ...
  const [path, anchor] = target.split('#');
  const file = path === '' ? from : join(dirname(from), decodeURIComponent(path));
  if (relative(root, join(root, file)).startsWith('..')) return 'leaves the repository';
  if (!existsSync(join(root, file))) return 'no such file';
  if (anchor === undefined || !file.endsWith('.md') || statSync(join(root, file)).isDirectory()) {
    return undefined;
  }
  anchorsByFile.set(file, anchorsByFile.get(file) ?? anchorsOf(read(file)));
  return anchorsByFile.get(file).has(anchor) ? undefined : `no anchor #${anchor} in ${file}`;
};

describe('the documentation stands alone', () => {
  it('links, from README.md and every docs page, only to files and anchors that exist', () => {
    const broken = docs.flatMap((from) =>
      linksOf(read(from)).flatMap((target) => {
        const problem = problemOf(from, target);
        return problem === undefined ? [] : [`${from}: (${target}) ${problem}`];
      }),
    );
    assert.deepEqual(broken, []);
  });

  it('names, in the docs and the shipped sources, only docs/ files that exist', () => {
    const sources = filesUnder('packages').filter(
      (path) => /\/src\/.*\.ts$/.test(path) && !/\.d\.ts$/.test(path),
    );
    const missing = [...docs, ...sources].flatMap((from) =>
      [...read(from).matchAll(/\bdocs\/[\w./-]*?\.md\b/g)]
        .map(([path]) => path)
        .filter((path) => !existsSync(join(root, path)))
        .map((path) => `${from}: ${path}`),
    );
    assert.deepEqual([...new Set(missing)], []);
  });

  it('points nowhere outside the repository: no file but CI’s own mentions the folder beside it', () => {
    const outside = ['..', 'shared'].join('/');
    const mentions = filesUnder('.')
      .filter((path) => !path.startsWith('.ci/') && !/\.(png|svg|jpg|ico|tgz)$/.test(path))
      .filter((path) => read(path).includes(outside));
    assert.deepEqual(mentions, []);
  });
});
