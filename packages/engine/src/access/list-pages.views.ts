/**
 * List answers (`{ items, total, limit, offset }`): a page the store answered, or a window of
 * records a use case filtered in memory, each record shown through its view.
 */
import type { Page } from '@payrail/core';
import type { PageView } from '../engine.api.js';

/** The store's page with each record as `view` shows it. */
export const pageView = <R, V>(page: Page<R>, view: (record: R) => V): PageView<V> => ({
  items: page.items.map((record) => view(record)),
  total: page.total,
  limit: page.limit,
  offset: page.offset,
});

/** The records from `offset`, `limit` of them at most, out of all of `records`. */
export const windowView = <R, V>(
  records: readonly R[],
  window: { readonly limit: number; readonly offset: number },
  view: (record: R) => V,
): PageView<V> => ({
  items: records.slice(window.offset, window.offset + window.limit).map((record) => view(record)),
  total: records.length,
  limit: window.limit,
  offset: window.offset,
});
