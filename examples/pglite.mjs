// payrail embedded on PGlite, PostgreSQL compiled to WebAssembly, in this process. On Node PGlite
// does not flush to disk: an OS crash can lose what it committed (examples/embedded-postgres.mjs
// is the durable default). The data directory is PAYRAIL_DATA_DIR when set (kept, so a second run
// carries on), else a temporary folder removed at the end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPGliteStore } from '@payrail/store-postgres';
import { runWalkthrough } from './shared/walkthrough.mjs';

const kept = process.env.PAYRAIL_DATA_DIR;
const dataDir = kept ?? (await mkdtemp(join(tmpdir(), 'payrail-example-')));
const store = await createPGliteStore({ dataDir });
try {
  await runWalkthrough(store);
} finally {
  await store.close();
  if (kept === undefined) await rm(dataDir, { recursive: true, force: true });
}
