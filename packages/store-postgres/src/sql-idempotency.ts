/** Idempotency records keyed by (scope, key): the primary key decides who was first. */
import { type IdempotencyPort, type IdempotencyRecord, StoreFailure } from '@payrail/core';
import type { UnitContext } from './sql-unit-of-work.js';

export const sqlIdempotency = (context: UnitContext): IdempotencyPort => {
  const { session } = context;
  const keys = context.table('idempotency_keys');

  return {
    put: (record: IdempotencyRecord) =>
      context.run(async () => {
        // A concurrent holder of the key makes this wait for its commit, then do nothing.
        const { rows } = await session.query(
          `INSERT INTO ${keys} (scope, key, request_hash, resource_id, created_at)
             VALUES ($1, $2, $3, $4, $5::bigint)
           ON CONFLICT (scope, key) DO NOTHING
           RETURNING 1 AS inserted`,
          [record.scope, record.key, record.request_hash, record.resource_id, record.created_at],
        );
        if (rows.length === 0) {
          throw new StoreFailure('unique_violation', 'idempotency', ['scope', 'key']);
        }
      }),

    get: (scope: string, key: string) =>
      context.run(async () => {
        const { rows } = await session.query<IdempotencyRecord>(
          `SELECT scope, key, request_hash, resource_id, created_at
             FROM ${keys} WHERE scope = $1 AND key = $2`,
          [scope, key],
        );
        return rows[0];
      }),
  };
};
