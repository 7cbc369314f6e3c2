/**
 * A primary and a streaming hot standby of it for the read-replica test (ADR 0054): the failover
 * tests' replicated cluster (replicated-cluster.test-support.ts), made asynchronous, so that a
 * standby the test stops or holds behind never makes the primary's commits wait: what a replica
 * that only serves reads is.
 *
 * `replayed(lsn)` tells whether the standby has replayed up to a primary LSN, and `pause()` /
 * `resume()` stop and restart the replay (`pg_wal_replay_pause`), so a test can hold the standby
 * behind the primary for as long as it looks.
 */
import type pg from 'pg';
import type { PrivateCluster } from './private-cluster.test-support.js';
import { createReplicatedCluster } from './replicated-cluster.test-support.js';

export interface PrimaryAndStandby {
  readonly primary: PrivateCluster;
  readonly standby: PrivateCluster;
  /** One statement on the primary or the standby (database `postgres`). */
  query<R extends pg.QueryResultRow>(
    on: 'primary' | 'standby',
    text: string,
    params?: unknown[],
  ): Promise<R[]>;
  /** The primary's WAL position now: what the standby has to replay to show every commit. */
  primaryLsn(): Promise<string>;
  /** Whether the standby has replayed the WAL up to `lsn`. */
  replayed(lsn: string): Promise<boolean>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  remove(): Promise<void>;
}

export const createPrimaryAndStandby = async (): Promise<PrimaryAndStandby> => {
  const cluster = await createReplicatedCluster();
  const standby = cluster.standby();
  try {
    if (standby === undefined) throw new Error('the replicated cluster has no standby');
    await cluster.setSynchronous(false);
  } catch (error) {
    await cluster.remove();
    throw error;
  }
  const { query } = cluster;
  return {
    primary: cluster.primary(),
    standby,
    query,
    primaryLsn: async () =>
      (await query<{ lsn: string }>('primary', 'SELECT pg_current_wal_lsn()::text AS lsn'))[0]
        ?.lsn ?? '0/0',
    replayed: async (lsn) =>
      (
        await query<{ done: boolean }>(
          'standby',
          'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
          [lsn],
        )
      )[0]?.done === true,
    pause: async () => {
      await query('standby', 'SELECT pg_wal_replay_pause()');
    },
    resume: async () => {
      await query('standby', 'SELECT pg_wal_replay_resume()');
    },
    remove: () => cluster.remove(),
  };
};
