// payrail embedded on a PostgreSQL server: DATABASE_URL names it (for example
// postgres://postgres@127.0.0.1:5432/test). payrail keeps its tables in a schema of its own,
// here a fresh one per run, dropped at the end.

import { createPostgresStore } from '@payrail/store-postgres';
import pg from 'pg';
import { runWalkthrough } from './shared/walkthrough.mjs';

const connectionString = process.env.DATABASE_URL;
if (connectionString === undefined) {
  console.log('postgres example: set DATABASE_URL to a PostgreSQL server to run it');
  process.exit(0);
}
const schema = `payrail_example_${process.pid}`;
const store = await createPostgresStore({ connectionString, schema });
try {
  await runWalkthrough(store);
} finally {
  await store.close();
  const client = new pg.Client({ connectionString });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}
