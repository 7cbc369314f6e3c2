/**
 * ADR 0024: a client generated from the served `/openapi.json` with openapi-typescript drives a
 * whole merchant flow through openapi-fetch. The committed flow (test/openapi-client/
 * merchant-flow.ts) is type-checked under `strict` against the generated types, with no cast,
 * then run against the app on the memory store, and what it read back is checked.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineApp, operatorToken } from '../engine-app.test-support.js';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const flowSource = join(packageDir, 'test/openapi-client/merchant-flow.ts');

/**
 * Under the package's node_modules, so the generated client resolves `openapi-fetch` and the
 * Node types exactly as a client project beside payrail's would.
 */
const makeWorkDir = (): string => {
  const parent = join(packageDir, 'node_modules/.tmp');
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, 'openapi-client-'));
};

/** A client project's settings: strict, and the strictest index and optional checks too. */
const compilerOptions: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  types: ['node'],
};

const diagnosticsOf = (files: readonly string[]): string[] => {
  const program = ts.createProgram(files, compilerOptions);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file === undefined || diagnostic.start === undefined) return text;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName.slice(dirname(diagnostic.file.fileName).length + 1)}:${line + 1}:${character + 1} ${text}`;
  });
};

interface FlowModule {
  readonly merchantFlow: (options: {
    readonly baseUrl: string;
    readonly fetch: (request: Request) => Promise<Response>;
    readonly operatorToken: string;
  }) => Promise<Readonly<Record<string, unknown>>>;
}

const isFlowModule = (module: unknown): module is FlowModule =>
  typeof module === 'object' &&
  module !== null &&
  'merchantFlow' in module &&
  typeof module.merchantFlow === 'function';

describe('a client generated from /openapi.json (openapi-typescript + openapi-fetch)', () => {
  const h = engineApp();
  let workDir = '';

  beforeAll(async () => {
    await h.seedCatalogue();
    const served = await h.app.request('/openapi.json');
    const generated = astToString(await openapiTS(await served.text()));
    workDir = makeWorkDir();
    writeFileSync(join(workDir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(workDir, 'payrail-api.ts'), generated);
    copyFileSync(flowSource, join(workDir, 'merchant-flow.ts'));
  }, 120_000);

  afterAll(() => {
    if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
  });

  it('the flow reads typed answers without a cast, `any`, a non-null assertion or a ts comment', () => {
    const code = readFileSync(flowSource, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bas\s+[A-Za-z{[(]/);
    expect(code).not.toMatch(/\bany\b/);
    expect(code).not.toMatch(/[\w)\]]!(?!=)/);
    expect(readFileSync(flowSource, 'utf8')).not.toMatch(/@ts-/);
  });

  it('type-checks under strict with no diagnostic', () => {
    expect(diagnosticsOf([join(workDir, 'merchant-flow.ts')])).toEqual([]);
  }, 120_000);

  it('runs: the operator creates a merchant and its key; the merchant pays out, sells, reconciles', async () => {
    const module: unknown = await import(pathToFileURL(join(workDir, 'merchant-flow.ts')).href);
    if (!isFlowModule(module)) throw new Error('merchant-flow.ts exports no merchantFlow');
    const result = await module.merchantFlow({
      baseUrl: 'http://payrail.test',
      fetch: (request) => Promise.resolve(h.app.fetch(request)),
      operatorToken,
    });
    expect(result).toMatchObject({
      accountStatus: 'active',
      usdAvailable: ['1000.00'],
      payoutStatus: 'pending_review',
      orderStatus: 'pending',
      orderPayAmount: '100.000000',
    });
    expect(result.accountId).toMatch(/^acc_/);
    expect(result.listedPayoutIds).toEqual([result.payoutId]);
    expect(result.orderId).toMatch(/^ord_/);
    expect(result.ledgerRecordTypes).toContain('deposit');
  });
});
