/**
 * docs/api.md is what the code says now: its generated blocks are rendered again and compared,
 * the hand-kept tables of the renderer (field notes, list item names, permission notes, the
 * product of each tag) are checked against the walkthrough's answers and the real engine.
 */
import { readFileSync } from 'node:fs';
import { permissions } from '@payrail/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { engineApp } from '../src/engine-app.test-support.js';
import { merchantRoutes } from '../src/routes/merchant.routes.js';
import { routes } from '../src/routes/route-table.js';
import { type Observations, walkThroughApi } from './api-walkthrough.js';
import {
  apiDocUrl,
  generatedBlockNames,
  listItemNames,
  permissionNotes,
  productOf,
  renderApiDoc,
  renderGeneratedBlocks,
  renderServerDoc,
  serverDocUrl,
  unusedFieldNotes,
} from './render-api-doc.js';

let observations: Observations;

beforeAll(async () => {
  observations = await walkThroughApi();
});

describe('docs/api.md', () => {
  it('is the route table and the engine as they are now (run `pnpm run docs`)', () => {
    const current = readFileSync(apiDocUrl, 'utf8');
    expect(current).toBe(renderApiDoc(current, renderGeneratedBlocks(observations)));
  });

  it('has each generated block once, and a section for every route', () => {
    const current = readFileSync(apiDocUrl, 'utf8');
    for (const name of generatedBlockNames) {
      expect(current.split(`<!-- generated:${name} -->`)).toHaveLength(2);
    }
    for (const route of routes) {
      expect(current).toContain(`<a id="${route.operationId}"></a>`);
      expect(current).toContain(`#### ${route.method.toUpperCase()} ${route.path}\n`);
    }
  });

  it('docs/server.md has the role matrix as the code enforces it (run `pnpm run docs`)', () => {
    const current = readFileSync(serverDocUrl, 'utf8');
    expect(current.split('<!-- generated:operator-roles -->')).toHaveLength(2);
    expect(current).toBe(renderServerDoc(current));
  });

  it('refuses a block it does not know', () => {
    expect(() =>
      renderApiDoc(
        '<!-- generated:nope -->\n<!-- /generated -->',
        renderGeneratedBlocks(observations),
      ),
    ).toThrow('unknown block: nope');
  });
});

describe('what the renderer keeps by hand', () => {
  it('the walkthrough got a success from every route', () => {
    expect(routes.filter((route) => !observations.has(route.operationId))).toEqual([]);
  });

  it('notes only fields some answer has', () => {
    expect(unusedFieldNotes(observations)).toEqual([]);
  });

  it('names the items of exactly the list answers', () => {
    const lists = routes
      .filter((route) =>
        (observations.get(route.operationId) ?? []).some((data) =>
          Array.isArray((data as { items?: unknown }).items),
        ),
      )
      .map((route) => route.operationId)
      .sort();
    expect(Object.keys(listItemNames).sort()).toEqual(lists);
  });

  it('permission notes belong to merchant routes and name each of their permissions', () => {
    for (const [operationId, note] of Object.entries(permissionNotes)) {
      const route = merchantRoutes.find((r) => r.operationId === operationId);
      expect(route, operationId).toBeDefined();
      expect(route?.permissions.length).toBeGreaterThan(0);
      for (const permission of route?.permissions ?? []) expect(note).toContain(permission);
    }
  });
});

describe('the product column is what the engine checks', () => {
  const concrete = (path: string) => path.replace(/\{[a-z_]+\}/g, 'x_404');

  it.each(['payout', 'acquiring'] as const)(
    'with %s off, exactly its routes answer forbidden to a key holding every permission',
    async (product) => {
      const h = engineApp();
      await h.seedCatalogue();
      const m = await h.merchant('Acme', { permissions: [...permissions] });
      await h.admin('PATCH', `/admin/accounts/${m.accountId}`, {
        products: { payout: product !== 'payout', acquiring: product !== 'acquiring' },
      });
      const forbidden: string[] = [];
      for (const route of merchantRoutes) {
        const answer = await h.call(
          route.method.toUpperCase(),
          concrete(route.path),
          { Authorization: `Bearer ${m.token}` },
          route.body ? {} : undefined,
        );
        if (answer.body.message === 'forbidden') forbidden.push(route.operationId);
      }
      expect(forbidden).toEqual(
        merchantRoutes
          .filter((route) => productOf(route) === product)
          .map((route) => route.operationId),
      );
    },
  );
});
