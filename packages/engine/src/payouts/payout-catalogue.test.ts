import { createMemoryStore } from '@payrail/store-memory';
import { describe, expect, it } from 'vitest';
import { listAll } from '../access/caller-account.store.js';
import { adjustableClock, randomIds } from '../engine.deps.js';
import { payoutCatalogue } from './payout-catalogue.store.js';
import { seedSandboxCatalogue } from './sandbox-catalogue.use-cases.js';

const world = async () => {
  const store = createMemoryStore();
  await seedSandboxCatalogue(store, randomIds, adjustableClock({ now: () => 1_800_000_000 }));
  /** Disables every USD route of method 1, behind the catalogue's back (another process). */
  const disableRoutes = () =>
    store.transaction(async (tx) => {
      const routes = await listAll(tx.payoutRoutes, { where: { currency: 'USD', method_id: 1 } });
      for (const route of routes) await tx.payoutRoutes.update({ ...route, status: 'disabled' });
    });
  return { store, disableRoutes };
};

describe('payoutCatalogue', () => {
  it('answers what it read for less than ttlMs, then reads again', async () => {
    const { store, disableRoutes } = await world();
    let ms = 0;
    const catalogue = payoutCatalogue({ ttlMs: 1000, nowMs: () => ms });
    const routes = () => store.transaction((tx) => catalogue.activeRoutes(tx, 'USD', 1));
    expect((await routes()).length).toBeGreaterThan(0);
    await disableRoutes();
    ms = 999;
    expect((await routes()).length).toBeGreaterThan(0);
    ms = 1000;
    expect(await routes()).toEqual([]);
  });

  it('reads again at once after forget, and every time with ttlMs 0', async () => {
    for (const ttlMs of [1000, 0]) {
      const { store, disableRoutes } = await world();
      const catalogue = payoutCatalogue({ ttlMs, nowMs: () => 0 });
      const routes = () => store.transaction((tx) => catalogue.activeRoutes(tx, 'USD', 1));
      expect((await routes()).length).toBeGreaterThan(0);
      await disableRoutes();
      if (ttlMs > 0) catalogue.forget();
      expect(await routes()).toEqual([]);
    }
  });

  it('answers methods whatever their status and only active networks', async () => {
    const { store } = await world();
    const catalogue = payoutCatalogue({ ttlMs: 1000, nowMs: () => 0 });
    await store.transaction(async (tx) => {
      const method = await tx.payoutMethods.get(1);
      if (method === undefined) throw new Error('setup: no method 1');
      await tx.payoutMethods.update({ ...method, status: 'disabled' });
      const network = await tx.payoutNetworks.get('WALLETA');
      if (network === undefined) throw new Error('setup: no WALLETA');
      await tx.payoutNetworks.update({ ...network, status: 'disabled' });
    });
    await store.transaction(async (tx) => {
      expect((await catalogue.method(tx, 1))?.status).toBe('disabled');
      expect(await catalogue.method(tx, 999)).toBeUndefined();
      expect((await catalogue.activeNetworks(tx)).map((n) => n.code)).not.toContain('WALLETA');
    });
  });
});
