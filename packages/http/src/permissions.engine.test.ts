/**
 * The permissions the document lists for each merchant route are the ones the engine checks:
 * a key holding every permission but those is `forbidden`, a key holding exactly those (none,
 * for the setup lookups) is not.
 */
import { permissions } from '@payrail/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { type EngineApp, engineApp } from './engine-app.test-support.js';
import { merchantRoutes } from './routes/merchant.routes.js';

let h: EngineApp;
let accountId: string;

beforeAll(async () => {
  h = engineApp();
  await h.seedCatalogue();
  accountId = (await h.merchant('Acme')).accountId;
});

const concrete = (path: string) => path.replace(/\{[a-z_]+\}/g, 'x_404');

describe('documented permissions (real engine)', () => {
  it('lists only permissions the engine knows', () => {
    for (const route of merchantRoutes) {
      for (const permission of route.permissions) expect(permissions).toContain(permission);
    }
  });

  it.each(merchantRoutes.map((route) => [route.method.toUpperCase(), route.path, route] as const))(
    '%s %s',
    async (method, path, route) => {
      const send = (token: string) =>
        h.call(
          method,
          concrete(path),
          { Authorization: `Bearer ${token}` },
          route.body ? {} : undefined,
        );
      if (route.permissions.length > 0) {
        const without = await h.issueKey(accountId, {
          permissions: permissions.filter((p) => !route.permissions.includes(p)),
        });
        expect((await send(without.token)).body).toEqual({
          code: 61,
          message: 'forbidden',
          data: null,
        });
      }
      // A key must hold some permission; an unrelated one stands for "none" on the lookups.
      const exactly = await h.issueKey(accountId, {
        permissions:
          route.permissions.length > 0 ? [...route.permissions] : ['payment.ledger.read'],
      });
      expect((await send(exactly.token)).body.message).not.toBe('forbidden');
    },
  );
});
