/**
 * Every collection of `collectionSpecs`, graded generically from its spec and its fixture:
 * insert and get, scope isolation, unique keys, optimistic updates, and every list rule (each
 * filter, created_at bounds, sort with ties, paging), plus the uniqueness rules the interface
 * names (payout reference and client_request_id, out_trade_no).
 */
import assert from 'node:assert/strict';
import { type CollectionName, collectionSpecs, type LooseCollectionSpec } from '@payrail/core';
import {
  type AnyFields,
  type AnyRecord,
  assertRefused,
  collectionOf,
  idsOf,
  insertAll,
  list,
  type SuiteContext,
  scribbleOver,
  t0,
} from './conformance-context.js';
import { type FixtureSeed, recordFixtures, samplePayout } from './fixtures.js';

const scopeA = 'scope_a';
const scopeB = 'scope_b';

const builderOf =
  (name: CollectionName) =>
  (seed: Partial<FixtureSeed> & { readonly n: number }): AnyFields =>
    recordFixtures[name].build({ scope: scopeA, createdAt: t0, ...seed }) as AnyFields;

const filterValuesOf = (name: CollectionName, field: string): readonly [unknown, unknown] => {
  const values = (recordFixtures[name].filterValues as Record<string, readonly [unknown, unknown]>)[
    field
  ];
  if (values === undefined) throw new Error(`fixtures.ts lacks filter values for ${name}.${field}`);
  return values;
};

const pick = (record: AnyFields, fields: readonly string[]): AnyFields =>
  Object.fromEntries(fields.map((field) => [field, record[field]]));

const collectionSuite = (ctx: SuiteContext, name: CollectionName): void => {
  const spec: LooseCollectionSpec = collectionSpecs[name];
  const build = builderOf(name);
  const { test } = ctx;
  const idOf = (record: AnyFields) => record[spec.id] as string | number;

  test('insert sets version 1 and stores exactly the record', async (h) => {
    const input = build({ n: 1 });
    const [inserted] = await insertAll(h, name, [input]);
    assert.deepEqual(inserted, { ...input, version: 1 });
    assert.deepEqual(await h.oracle.record(name, idOf(input)), inserted);
    assert.equal(await h.oracle.count(name), 1);
    const got = await h.store.transaction((tx) => collectionOf(tx, name).get(idOf(input)));
    assert.deepEqual(got, inserted);
  });

  test('a repeated id is a unique violation on the id', async (h) => {
    await insertAll(h, name, [build({ n: 1 })]);
    const again = { ...build({ n: 2 }), [spec.id]: idOf(build({ n: 1 })) };
    await assertRefused(insertAll(h, name, [again]), 'unique_violation', [spec.id]);
    assert.equal(await h.oracle.count(name), 1);
  });

  test('get of an unknown id answers undefined', async (h) => {
    await insertAll(h, name, [build({ n: 1 })]);
    const got = await h.store.transaction((tx) =>
      collectionOf(tx, name).get(idOf(build({ n: 2 }))),
    );
    assert.equal(got, undefined);
  });

  test('records are copied in and out: mutating them changes nothing stored', async (h) => {
    const input = structuredClone(build({ n: 1 }));
    const expected = { ...structuredClone(input), version: 1 };
    const [inserted] = await insertAll(h, name, [input]);
    scribbleOver(input);
    scribbleOver(inserted);
    const got = await h.store.transaction((tx) => collectionOf(tx, name).get(idOf(expected)));
    scribbleOver(got);
    const page = await list(h, name, { limit: 10, offset: 0 });
    scribbleOver(page.items);
    assert.deepEqual(await h.oracle.record(name, idOf(expected)), expected);
    const again = await h.store.transaction((tx) => collectionOf(tx, name).get(idOf(expected)));
    assert.deepEqual(again, expected);
  });

  if (spec.scope !== null) {
    const scope = spec.scope;
    test(`a record is hidden from another ${scope}`, async (h) => {
      const [a] = await insertAll(h, name, [build({ n: 1, scope: scopeA })]);
      await insertAll(h, name, [build({ n: 2, scope: scopeB })]);
      assert.ok(a);
      const id = idOf(a);
      const [own, other] = await h.store.transaction(async (tx) => [
        await collectionOf(tx, name).get(id, scopeA),
        await collectionOf(tx, name).get(id, scopeB),
      ]);
      assert.deepEqual(own, a);
      assert.equal(other, undefined);
      const page = await list(h, name, { scope: scopeA, limit: 10, offset: 0 });
      assert.deepEqual(page.items, [a]);
      assert.equal(page.total, 1);
      const all = await list(h, name, { limit: 10, offset: 0 });
      assert.equal(all.total, 2);
    });
  }

  for (const key of spec.unique) {
    const keyName = `(${key.join(', ')})`;
    test(`unique key ${keyName}: a second record holding it is refused`, async (h) => {
      const first = build({ n: 1 });
      await insertAll(h, name, [first]);
      const second = { ...build({ n: 2 }), ...pick(first, key) };
      await assertRefused(insertAll(h, name, [second]), 'unique_violation', key);
      assert.equal(await h.oracle.count(name), 1);
      assert.equal(await h.oracle.record(name, idOf(second)), undefined);
    });

    test(`unique key ${keyName}: findUnique finds the holder and nothing else`, async (h) => {
      const [first] = await insertAll(h, name, [build({ n: 1 }), build({ n: 2 })]);
      assert.ok(first);
      const [found, missing] = await h.store.transaction(async (tx) => [
        await collectionOf(tx, name).findUnique(pick(first, key) as Partial<AnyRecord>),
        await collectionOf(tx, name).findUnique(pick(build({ n: 3 }), key) as Partial<AnyRecord>),
      ]);
      assert.deepEqual(found, first);
      assert.equal(missing, undefined);
    });

    test(`unique key ${keyName}: an update cannot take it from its holder`, async (h) => {
      const [first, second] = await insertAll(h, name, [build({ n: 1 }), build({ n: 2 })]);
      assert.ok(first && second);
      const taking = { ...second, ...pick(first, key) } as AnyRecord;
      await assertRefused(
        h.store.transaction((tx) => collectionOf(tx, name).update(taking)),
        'unique_violation',
        key,
      );
      assert.deepEqual(await h.oracle.record(name, idOf(second)), second);
    });

    test(`unique key ${keyName}: an update moving it frees the old values`, async (h) => {
      const [first] = await insertAll(h, name, [build({ n: 1 })]);
      assert.ok(first);
      const moved = await h.store.transaction((tx) =>
        collectionOf(tx, name).update({ ...first, ...pick(build({ n: 3 }), key) } as AnyRecord),
      );
      const [atOld, atNew] = await h.store.transaction(async (tx) => [
        await collectionOf(tx, name).findUnique(pick(first, key) as Partial<AnyRecord>),
        await collectionOf(tx, name).findUnique(pick(moved, key) as Partial<AnyRecord>),
      ]);
      assert.equal(atOld, undefined);
      assert.deepEqual(atNew, moved);
      await insertAll(h, name, [{ ...build({ n: 2 }), ...pick(first, key) }]);
      assert.equal(await h.oracle.count(name), 2);
    });

    if (spec.scope !== null && key.includes(spec.scope)) {
      const scope = spec.scope;
      test(`unique key ${keyName}: the same values are free in another ${scope}`, async (h) => {
        const first = build({ n: 1, scope: scopeA });
        const other = { ...build({ n: 2, scope: scopeB }), ...pick(first, key), [scope]: scopeB };
        await insertAll(h, name, [first]);
        await insertAll(h, name, [other]);
        assert.equal(await h.oracle.count(name), 2);
      });
    }

    for (const field of key) {
      const values: readonly unknown[] = spec.filters.includes(field)
        ? filterValuesOf(name, field)
        : [];
      if (!values.includes(null)) continue;
      test(`unique key ${keyName}: a null ${field} never collides`, async (h) => {
        const first = { ...build({ n: 1 }), [field]: null };
        const second = { ...build({ n: 2 }), ...pick(first, key) };
        await insertAll(h, name, [first, second]);
        assert.equal(await h.oracle.count(name), 2);
      });
    }
  }

  if (spec.appendOnly === true) {
    test('update is refused (append-only) and the record stays as written', async (h) => {
      const [inserted] = await insertAll(h, name, [build({ n: 1 })]);
      assert.ok(inserted);
      await assert.rejects(
        h.store.transaction((tx) =>
          collectionOf(tx, name).update({ ...inserted, updated_at: inserted.updated_at + 60 }),
        ),
        (error: unknown) => error instanceof Error && error.name === 'AppendOnlyCollection',
      );
      assert.deepEqual(await h.oracle.record(name, idOf(inserted)), inserted);
    });
  } else {
    test('update increments the version and stores the change', async (h) => {
      const [inserted] = await insertAll(h, name, [build({ n: 1 })]);
      assert.ok(inserted);
      const changed = { ...inserted, updated_at: inserted.updated_at + 60 };
      const updated = await h.store.transaction((tx) => collectionOf(tx, name).update(changed));
      assert.deepEqual(updated, { ...changed, version: 2 });
      assert.deepEqual(await h.oracle.record(name, idOf(inserted)), updated);
      const again = await h.store.transaction((tx) =>
        collectionOf(tx, name).update({ ...updated, updated_at: updated.updated_at + 60 }),
      );
      assert.equal(again.version, 3);
    });

    test('update with a stale version is refused and changes nothing', async (h) => {
      const [inserted] = await insertAll(h, name, [build({ n: 1 })]);
      assert.ok(inserted);
      const updated = await h.store.transaction((tx) =>
        collectionOf(tx, name).update({ ...inserted, updated_at: inserted.updated_at + 60 }),
      );
      await assertRefused(
        h.store.transaction((tx) =>
          collectionOf(tx, name).update({ ...inserted, updated_at: inserted.updated_at + 120 }),
        ),
        'version_conflict',
      );
      await assertRefused(
        h.store.transaction((tx) =>
          collectionOf(tx, name).update({ ...updated, version: updated.version + 1 }),
        ),
        'version_conflict',
      );
      assert.deepEqual(await h.oracle.record(name, idOf(inserted)), updated);
    });

    test('update of a record that does not exist is a version conflict', async (h) => {
      await assertRefused(
        h.store.transaction((tx) =>
          collectionOf(tx, name).update({ ...build({ n: 1 }), version: 1 } as AnyRecord),
        ),
        'version_conflict',
      );
      assert.equal(await h.oracle.count(name), 0);
    });
  }

  for (const field of spec.filters) {
    const [a, b] = filterValuesOf(name, field);
    test(`list filters on ${field} (${JSON.stringify(a)} vs ${JSON.stringify(b)})`, async (h) => {
      const [ra, rb] = await insertAll(h, name, [
        { ...build({ n: 1 }), [field]: a },
        { ...build({ n: 2, createdAt: t0 + 1 }), [field]: b },
      ]);
      const pageA = await list(h, name, { where: { [field]: a }, limit: 10, offset: 0 });
      assert.deepEqual(pageA.items, [ra]);
      assert.equal(pageA.total, 1);
      const pageB = await list(h, name, { where: { [field]: b }, limit: 10, offset: 0 });
      assert.deepEqual(pageB.items, [rb]);
      assert.equal(pageB.total, 1);
    });
  }

  test('list refuses a filter on a field the spec does not index', async (h) => {
    await insertAll(h, name, [build({ n: 1 })]);
    await assert.rejects(
      list(h, name, { where: { updated_at: t0 }, limit: 10, offset: 0 }),
      (error: unknown) => error instanceof Error,
    );
  });

  test('list bounds on created_at are inclusive', async (h) => {
    await insertAll(
      h,
      name,
      [1, 2, 3, 4].map((n) => build({ n, createdAt: t0 + n * 100 })),
    );
    const ids = (records: readonly AnyRecord[]) => idsOf(records, spec.id);
    const between = await list(h, name, {
      createdFrom: t0 + 200,
      createdTo: t0 + 300,
      sort: 'asc',
      limit: 10,
      offset: 0,
    });
    assert.deepEqual(
      ids(between.items),
      [2, 3].map((n) => idOf(build({ n }))),
    );
    assert.equal(between.total, 2);
    const from = await list(h, name, { createdFrom: t0 + 400, limit: 10, offset: 0 });
    assert.deepEqual(ids(from.items), [idOf(build({ n: 4 }))]);
    const to = await list(h, name, { createdTo: t0 + 100, limit: 10, offset: 0 });
    assert.deepEqual(ids(to.items), [idOf(build({ n: 1 }))]);
  });

  test('list sorts by created_at, ties by id, asc or desc (desc by default)', async (h) => {
    // n 8 and 9 share a second: their ids order by id (numerically for numeric ids, 9 < 10).
    const seeds = [
      { n: 9, createdAt: t0 + 200 },
      { n: 3, createdAt: t0 + 300 },
      { n: 1, createdAt: t0 + 100 },
      { n: 8, createdAt: t0 + 200 },
    ];
    await insertAll(h, name, seeds.map(build));
    const ascending = [1, 8, 9, 3].map((n) => idOf(build({ n })));
    const asc = await list(h, name, { sort: 'asc', limit: 10, offset: 0 });
    assert.deepEqual(idsOf(asc.items, spec.id), ascending);
    const desc = await list(h, name, { sort: 'desc', limit: 10, offset: 0 });
    assert.deepEqual(idsOf(desc.items, spec.id), [...ascending].reverse());
    const byDefault = await list(h, name, { limit: 10, offset: 0 });
    assert.deepEqual(idsOf(byDefault.items, spec.id), [...ascending].reverse());
  });

  test('list pages with limit and offset; total counts every match', async (h) => {
    await insertAll(
      h,
      name,
      [1, 2, 3, 4, 5].map((n) => build({ n, createdAt: t0 + n })),
    );
    const page = await list(h, name, { sort: 'asc', limit: 2, offset: 1 });
    assert.deepEqual(
      idsOf(page.items, spec.id),
      [2, 3].map((n) => idOf(build({ n }))),
    );
    assert.deepEqual([page.total, page.limit, page.offset], [5, 2, 1]);
    const last = await list(h, name, { sort: 'asc', limit: 2, offset: 4 });
    assert.deepEqual(idsOf(last.items, spec.id), [idOf(build({ n: 5 }))]);
    const past = await list(h, name, { sort: 'asc', limit: 2, offset: 9 });
    assert.deepEqual([past.items.length, past.total], [0, 5]);
  });
};

/** The uniqueness rules of the interface, spelled out on the collections that carry them. */
const interfaceUniqueness = (ctx: SuiteContext): void => {
  const { test } = ctx;
  const payout = (n: number, account: string, reference: string, crid: string | null) =>
    samplePayout({ n, scope: account, createdAt: t0 }, { reference, client_request_id: crid });

  test('payouts: a reference is unique per account, free in another account', async (h) => {
    await insertAll(h, 'payouts', [payout(1, 'acc_1', 'inv-1', 'c1')]);
    await assertRefused(
      insertAll(h, 'payouts', [payout(2, 'acc_1', 'inv-1', 'c2')]),
      'unique_violation',
      ['account_id', 'reference'],
    );
    await insertAll(h, 'payouts', [payout(3, 'acc_2', 'inv-1', 'c1')]);
    assert.equal(await h.oracle.count('payouts'), 2);
  });

  test('payouts: a client_request_id is unique per account; null never collides', async (h) => {
    await insertAll(h, 'payouts', [payout(1, 'acc_1', 'inv-1', 'c1')]);
    await assertRefused(
      insertAll(h, 'payouts', [payout(2, 'acc_1', 'inv-2', 'c1')]),
      'unique_violation',
      ['account_id', 'client_request_id'],
    );
    await insertAll(h, 'payouts', [
      payout(3, 'acc_2', 'inv-1', 'c1'),
      payout(4, 'acc_1', 'inv-4', null),
      payout(5, 'acc_1', 'inv-5', null),
    ]);
    assert.equal(await h.oracle.count('payouts'), 4);
    const found = await h.store.transaction((tx) =>
      tx.payouts.findUnique({ account_id: 'acc_1', client_request_id: null }),
    );
    assert.equal(found, undefined);
  });

  test('acquiring orders: out_trade_no is unique per account, free in another', async (h) => {
    const order = (n: number, account: string) => ({
      ...recordFixtures.acquiringOrders.build({ n, scope: account, createdAt: t0 }),
      out_trade_no: 'T-1001',
    });
    await insertAll(h, 'acquiringOrders', [order(1, 'acc_1')]);
    await assertRefused(insertAll(h, 'acquiringOrders', [order(2, 'acc_1')]), 'unique_violation', [
      'account_id',
      'out_trade_no',
    ]);
    await insertAll(h, 'acquiringOrders', [order(3, 'acc_2')]);
    assert.equal(await h.oracle.count('acquiringOrders'), 2);
  });

  test('deposit addresses: an address is held across accounts, by insert and by update', async (h) => {
    const address = (n: number, account: string, value: string) => ({
      ...recordFixtures.depositAddresses.build({ n, scope: account, createdAt: t0 }),
      address: value,
    });
    await insertAll(h, 'depositAddresses', [address(1, 'acc_1', 'TADDR1')]);
    await assertRefused(
      insertAll(h, 'depositAddresses', [address(2, 'acc_2', 'TADDR1')]),
      'unique_violation',
      ['network', 'address'],
    );
    const [other] = await insertAll(h, 'depositAddresses', [address(3, 'acc_2', 'TADDR3')]);
    assert.ok(other);
    await assertRefused(
      h.store.transaction((tx) =>
        collectionOf(tx, 'depositAddresses').update({ ...other, address: 'TADDR1' } as AnyRecord),
      ),
      'unique_violation',
      ['network', 'address'],
    );
    const holder = await h.store.transaction((tx) =>
      tx.depositAddresses.findUnique({ network: 'TRON', address: 'TADDR1' }),
    );
    assert.equal(holder?.account_id, 'acc_1');
    // Moving acc_2's record off TADDR3 frees it for acc_1.
    await h.store.transaction((tx) =>
      collectionOf(tx, 'depositAddresses').update({ ...other, address: 'TADDR4' } as AnyRecord),
    );
    await insertAll(h, 'depositAddresses', [address(5, 'acc_1', 'TADDR3')]);
    assert.equal(await h.oracle.count('depositAddresses'), 3);
  });

  test('string ids tie-break in binary order (as COLLATE "C"): po_B before po_a', async (h) => {
    await insertAll(h, 'payouts', [
      samplePayout({ n: 1, scope: 'acc_1', createdAt: t0 }, { payout_id: 'po_a' }),
      samplePayout({ n: 2, scope: 'acc_1', createdAt: t0 }, { payout_id: 'po_B' }),
    ]);
    const page = await list(h, 'payouts', { sort: 'asc', limit: 10, offset: 0 });
    assert.deepEqual(idsOf(page.items, 'payout_id'), ['po_B', 'po_a']);
  });
};

export const collectionsConformance = (ctx: SuiteContext): void => {
  const { describe } = ctx.options;
  for (const name of Object.keys(collectionSpecs) as CollectionName[]) {
    describe(`collection ${name}`, () => collectionSuite(ctx, name));
  }
  describe('uniqueness rules of the interface', () => interfaceUniqueness(ctx));
};
