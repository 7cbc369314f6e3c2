// `pnpm run lint:shape` (ADR 0042): the shape of production source, read with the TypeScript
// compiler. Production source is every package's `src/` but tests, test support, benchmarks,
// fuzzing, the store conformance suites (`store-testkit`) and the simulation.
//
// - no function (declaration, expression, arrow, method) runs over 80 lines;
// - at most 60 `as` casts (`as const` is not a cast), and none `as unknown as`;
// - every engine file names its role in its suffix (docs/architecture.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const maxFunctionLines = 80;
const maxCasts = 60;
const engineRoles =
  /\.(use-cases?|persistence|store|policy|views|handler|crypto|cache|observer|worker|wiring|api|deps)\.ts$/;

const root = new URL('..', import.meta.url).pathname;
const isProduction = (path) =>
  /\.tsx?$/.test(path) &&
  !/\.d\.ts$|\.test\.tsx?$|test-support|\.bench\.ts$|bench-support|\/fuzz\//.test(path) &&
  !/^packages\/(store-testkit|simulation)\//.test(path);

const filesUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return [path];
  });

const sources = readdirSync(join(root, 'packages'))
  .flatMap((name) => {
    try {
      return filesUnder(join(root, 'packages', name, 'src'));
    } catch {
      return [];
    }
  })
  .map((path) => relative(root, path))
  .filter(isProduction);

const problems = [];
let casts = 0;
const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);
const isConstAssertion = (node) =>
  ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const';

for (const path of sources) {
  const text = readFileSync(join(root, path), 'utf8');
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position) => file.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node) => {
    if (ts.isAsExpression(node) && !isConstAssertion(node)) {
      casts += 1;
      const inner = node.expression;
      if (ts.isAsExpression(inner) && inner.type.kind === ts.SyntaxKind.UnknownKeyword) {
        problems.push(`${path}:${lineOf(node.getStart())}: \`as unknown as\``);
      }
    }
    if (isFunction(node)) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
      if (lines > maxFunctionLines) {
        problems.push(`${path}:${lineOf(node.getStart())}: a function of ${lines} lines`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (path.startsWith('packages/engine/src/') && !path.endsWith('/index.ts')) {
    if (!engineRoles.test(path)) problems.push(`${path}: an engine file without a role suffix`);
  }
}
if (casts > maxCasts)
  problems.push(`${casts} \`as\` casts in production source (at most ${maxCasts})`);

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(
  `lint:shape: ${sources.length} files, ${casts} casts, no function over ${maxFunctionLines} lines`,
);
