/**
 * `payrail migrate`, `payrail migrate --check` and `payrail doctor` on a real PostgreSQL server
 * (issue 22), each in a schema of its own (PAYRAIL_DATABASE_SCHEMA). Runs wherever a server
 * answers (CI always: a missing server fails there); skipped with a message elsewhere.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrationIds } from '@payrail/store-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocal } from './cli-database.test-support.js';
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  postgresSkipped,
  sqlQuery,
} from './process-load.test-support.js';

const skipped = await postgresSkipped('the migrate and doctor commands on PostgreSQL');

const schemaExists = async (schema: string) =>
  (await sqlQuery('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).length === 1;

/** DATABASE_URL with a password: the test server trusts local connections, so any is accepted. */
const withPassword = (password: string): string => {
  const url = new URL(databaseUrl);
  url.password = password;
  return url.toString();
};

describe.skipIf(skipped)('payrail migrate and doctor on PostgreSQL', () => {
  const schemas: string[] = [];
  let dataDir = '';
  const fresh = () => {
    const schema = freshSchema('payrail_cli');
    schemas.push(schema);
    return schema;
  };
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-cli-db-'));
  });
  afterAll(async () => {
    await Promise.all(schemas.map(dropSchema));
    await rm(dataDir, { recursive: true, force: true });
  });

  const env = (schema: string, more: Record<string, string> = {}) => ({
    DATABASE_URL: databaseUrl,
    PAYRAIL_DATABASE_SCHEMA: schema,
    PAYRAIL_DATA_DIR: dataDir,
    ...more,
  });

  it('--check on an empty schema exits 1, names every migration, and creates nothing', async () => {
    const schema = fresh();
    const checked = await runLocal(['migrate', '--check'], env(schema));
    expect(checked).toMatchObject({ code: 1, err: '' });
    expect(checked.out.split('\n')).toEqual([
      `payrail: schema ${schema} of ${databaseUrl} lacks ${migrationIds.length} of ` +
        `${migrationIds.length} migrations (payrail migrate applies them):`,
      ...migrationIds.map((id) => `  ${id}`),
    ]);
    expect(await schemaExists(schema)).toBe(false);
  });

  it('migrate on an empty schema applies every migration and names each; --check is then 0; again applies nothing', async () => {
    const schema = fresh();
    const migrated = await runLocal(['migrate'], env(schema));
    expect(migrated).toMatchObject({ code: 0, err: '' });
    expect(migrated.out.split('\n')).toEqual([
      `payrail: applied ${migrationIds.length} migrations to schema ${schema} of ${databaseUrl}:`,
      ...migrationIds.map((id) => `  ${id}`),
    ]);
    const recorded = await sqlQuery<{ id: string }>(
      `SELECT id FROM "${schema}".payrail_migrations ORDER BY id`,
    );
    expect(recorded.map((row) => row.id)).toEqual(migrationIds);

    const checked = await runLocal(['migrate', '--check'], env(schema));
    expect(checked).toEqual({
      code: 0,
      out: `payrail: schema ${schema} of ${databaseUrl} is current: ${migrationIds.length} migrations applied, none pending`,
      err: '',
    });
    const again = await runLocal(['migrate', '--json'], env(schema));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toEqual({
      ran: [],
      applied: migrationIds,
      pending: [],
      unknown: [],
    });
  });

  it('migrate exits 3 and says why when the database cannot be reached', async () => {
    const result = await runLocal(
      ['migrate', '--check'],
      env(fresh(), { DATABASE_URL: 'postgres://postgres:hunter2-secret@127.0.0.1:1/test' }),
    );
    expect(result.code).toBe(3);
    expect(result.err).toBe(
      `payrail: cannot check schema ${schemas.at(-1)} of postgres://postgres:***@127.0.0.1:1/test: ` +
        'StoreUnavailable: the database cannot be reached: connect ECONNREFUSED 127.0.0.1:1',
    );
  });

  it('doctor on a good configuration exits 0, says what answers, and prints no secret', async () => {
    const schema = fresh();
    await runLocal(['migrate'], env(schema));
    const secrets = {
      password: 'db-password-never-printed',
      adminToken: 'admin-token-never-printed-0123',
      keySecret: 'key-secret-never-printed-0123456789abcdef',
    };
    const result = await runLocal(
      ['doctor'],
      env(schema, {
        DATABASE_URL: withPassword(secrets.password),
        PAYRAIL_ADMIN_TOKEN: secrets.adminToken,
        PAYRAIL_KEY_SECRET: secrets.keySecret,
      }),
    );
    expect(result.err).toBe('');
    for (const secret of Object.values(secrets)) expect(result.out).not.toContain(secret);
    expect(result.out).toContain('PAYRAIL_ADMIN_TOKEN');
    expect(result.out).toMatch(
      /^ {2}ok +database +PostgreSQL \d+\.\d+.* answers at postgres:\/\/postgres:\*\*\*@/m,
    );
    expect(result.out).toContain(
      `schema ${schema} of ${withPassword('***')}: ${migrationIds.length} applied, none pending`,
    );
    expect(result.out.split('\n').at(-1)).toBe('problems: none');
    expect(result.code).toBe(0);
  });

  it('doctor on an unmigrated schema exits 1 and names the migrations it lacks', async () => {
    const schema = fresh();
    const result = await runLocal(['doctor'], env(schema));
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      `  - migrations: schema ${schema} of ${databaseUrl} lacks ${migrationIds.length} migrations`,
    );
    expect(await schemaExists(schema)).toBe(false);
  });

  it('doctor with an unreachable DATABASE_URL exits 1 and says so on one line, the password masked', async () => {
    const result = await runLocal(
      ['doctor'],
      env(fresh(), { DATABASE_URL: 'postgres://postgres:hunter2-secret@127.0.0.1:1/test' }),
    );
    expect(result.code).toBe(1);
    expect(result.out).not.toContain('hunter2-secret');
    expect(result.out.split('\n').slice(-2)).toEqual([
      'problems (1):',
      '  - database: cannot connect to postgres://postgres:***@127.0.0.1:1/test: Error: connect ECONNREFUSED 127.0.0.1:1',
    ]);
  });
});
