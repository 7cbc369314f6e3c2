import { describe, expect, it } from 'vitest';
import {
  type ConfigResult,
  defaultPublicUrl,
  describeConfig,
  describeDatabase,
  type EnvRecord,
  parseConfig,
  redactConnectionString,
  type ServerConfig,
} from './config.js';

const cwd = '/srv/payrail';

const configOf = (env: EnvRecord): ServerConfig => {
  const result = parseConfig(env, cwd);
  if (!result.ok) throw new Error(`expected a valid configuration: ${result.errors.join('; ')}`);
  return result.config;
};

const errorsOf = (env: EnvRecord): readonly string[] => {
  const result: ConfigResult = parseConfig(env, cwd);
  if (result.ok) throw new Error('expected the configuration to be refused');
  return result.errors;
};

const adminToken = 'operator-token-0123456789';
const keySecret = 'k'.repeat(32);

describe('parseConfig', () => {
  it('answers the defaults of docs/spec/decisions.md §10 for an empty environment', () => {
    expect(configOf({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      environment: 'sandbox',
      adminToken: undefined,
      database: {
        kind: 'embedded',
        engine: 'postgres',
        directory: '/srv/payrail/.payrail/postgres',
      },
      databaseSchema: 'payrail',
      dataDir: '/srv/payrail/.payrail',
      dataDirDisplay: './.payrail',
      allowInsecureWebhooks: false,
      rateLimit: 100,
      addressLimit: { failedAuthentications: 50, requestsPerSecond: 100 },
      httpTimeouts: {
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 20_000,
        keepAliveTimeoutMs: 5_000,
      },
      metricsToken: undefined,
      readyMaxOutboxBacklog: 10_000,
      shutdownDrainMs: 3000,
      keySecret: { kind: 'file', path: '/srv/payrail/.payrail/key-secret' },
      publicUrl: undefined,
      trustedProxies: [],
      upstreamSandboxSources: ['127.0.0.1/32', '::1/128'],
      logLevel: 'info',
    });
  });

  it('reads the log level and format (ADR 0047), and refuses others', () => {
    expect(configOf({ PAYRAIL_LOG_LEVEL: 'Debug', PAYRAIL_LOG_FORMAT: 'json' })).toMatchObject({
      logLevel: 'debug',
      logFormat: 'json',
    });
    expect(configOf({ PAYRAIL_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(parseConfig({ PAYRAIL_LOG_LEVEL: 'loud', PAYRAIL_LOG_FORMAT: 'xml' }, '/')).toEqual({
      ok: false,
      errors: [
        'PAYRAIL_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
        'PAYRAIL_LOG_FORMAT must be json or pretty, not "xml"',
      ],
    });
  });

  it('reads the metrics token, the readiness bound and the drain (docs/observability.md)', () => {
    expect(
      configOf({
        PAYRAIL_METRICS_TOKEN: 'scrape-token-0123456789',
        PAYRAIL_READY_MAX_OUTBOX_BACKLOG: '0',
        PAYRAIL_SHUTDOWN_DRAIN_MS: '0',
      }),
    ).toMatchObject({
      metricsToken: 'scrape-token-0123456789',
      readyMaxOutboxBacklog: 0,
      shutdownDrainMs: 0,
    });
    expect(configOf({ PAYRAIL_SHUTDOWN_DRAIN_MS: '15000' }).shutdownDrainMs).toBe(15_000);
    const refused = parseConfig(
      {
        PAYRAIL_METRICS_TOKEN: 'short-secret',
        PAYRAIL_READY_MAX_OUTBOX_BACKLOG: '-1',
        PAYRAIL_SHUTDOWN_DRAIN_MS: '2s',
      },
      '/',
    );
    expect(refused).toEqual({
      ok: false,
      errors: [
        'PAYRAIL_METRICS_TOKEN must be at least 16 characters without spaces (or unset: /metrics answers whoever reaches it)',
        'PAYRAIL_READY_MAX_OUTBOX_BACKLOG must be a whole number of pending outbox messages (0 turns it off), not "-1"',
        'PAYRAIL_SHUTDOWN_DRAIN_MS must be a whole number of milliseconds from 0 to 600000, not "2s"',
      ],
    });
    // The token is a secret: refused, it is still not echoed.
    expect(JSON.stringify(refused)).not.toContain('short-secret');
    // Set but empty is refused, never taken for unset (which leaves /metrics open).
    expect(parseConfig({ PAYRAIL_METRICS_TOKEN: '' }, '/')).toEqual({
      ok: false,
      errors: [
        'PAYRAIL_METRICS_TOKEN must be at least 16 characters without spaces (or unset: /metrics answers whoever reaches it)',
      ],
    });
  });

  it('reads every variable', () => {
    const config = configOf({
      PORT: '0',
      HOST: '0.0.0.0',
      PAYRAIL_ENV: 'live',
      PAYRAIL_ADMIN_TOKEN: adminToken,
      DATABASE_URL: 'postgres://app:pw@db.internal:5432/payrail',
      PAYRAIL_DATABASE_SCHEMA: 'payrail_eu',
      PAYRAIL_DATA_DIR: '/var/lib/payrail',
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '0',
      PAYRAIL_RATE_LIMIT: '0',
      PAYRAIL_KEY_SECRET: keySecret,
      PAYRAIL_PUBLIC_URL: 'https://pay.example.com/',
      PAYRAIL_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1',
    });
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      environment: 'live',
      adminToken,
      database: {
        kind: 'server',
        connectionString: 'postgres://app:pw@db.internal:5432/payrail',
      },
      databaseSchema: 'payrail_eu',
      dataDir: '/var/lib/payrail',
      allowInsecureWebhooks: false,
      rateLimit: 0,
      keySecret: { kind: 'env', secret: new TextEncoder().encode(keySecret) },
      publicUrl: 'https://pay.example.com',
      trustedProxies: ['10.0.0.0/8', '192.168.1.1'],
    });
  });

  it('reads a read replica beside DATABASE_URL only, and shows it redacted (ADR 0054)', () => {
    const primary = 'postgres://app:pw@db.internal:5432/payrail';
    const replica = 'postgres://reader:s3cret@replica.internal:5432/payrail';
    const config = configOf({ DATABASE_URL: primary, PAYRAIL_DATABASE_READ_URL: replica });
    expect(config.database).toEqual({
      kind: 'server',
      connectionString: primary,
      readConnectionString: replica,
    });
    const shown = describeConfig(config).find((e) => e.name === 'PAYRAIL_DATABASE_READ_URL');
    expect(shown?.value).toBe('postgres://reader:***@replica.internal:5432/payrail');
    expect(configOf({ DATABASE_URL: primary }).database).toMatchObject({
      readConnectionString: undefined,
    });
    expect(errorsOf({ PAYRAIL_DATABASE_READ_URL: replica })).toEqual([
      'PAYRAIL_DATABASE_READ_URL needs DATABASE_URL: the embedded database has no replica',
    ]);
    expect(
      errorsOf({ DATABASE_URL: primary, PAYRAIL_DATABASE_READ_URL: 'mysql://r:s3cret@replica/db' }),
    ).toEqual(['PAYRAIL_DATABASE_READ_URL must be a postgres:// or postgresql:// URL']);
  });

  it('reads where to LISTEN beside DATABASE_URL only: a direct URL, or none (ADR 0052)', () => {
    const pooled = 'postgres://app:pw@pgbouncer.internal:6432/payrail';
    const direct = 'postgres://app:s3cret@db.internal:5432/payrail';
    const listenOf = (env: Record<string, string>) => {
      const { database } = configOf(env);
      return database.kind === 'server' ? database.listenConnectionString : 'embedded';
    };
    expect(listenOf({ DATABASE_URL: pooled })).toBeUndefined();
    expect(listenOf({ DATABASE_URL: pooled, PAYRAIL_DATABASE_LISTEN_URL: direct })).toBe(direct);
    expect(listenOf({ DATABASE_URL: pooled, PAYRAIL_DATABASE_LISTEN_URL: 'none' })).toBe(false);
    const shown = (env: Record<string, string>) =>
      describeConfig(configOf(env)).find((e) => e.name === 'PAYRAIL_DATABASE_LISTEN_URL')?.value;
    expect(shown({ DATABASE_URL: pooled })).toBe('(unset: LISTEN on DATABASE_URL)');
    expect(shown({ DATABASE_URL: pooled, PAYRAIL_DATABASE_LISTEN_URL: direct })).toBe(
      'postgres://app:***@db.internal:5432/payrail',
    );
    expect(shown({ DATABASE_URL: pooled, PAYRAIL_DATABASE_LISTEN_URL: 'none' })).toMatch(
      /^none \(no LISTEN/,
    );
    expect(shown({})).toBeUndefined();
    expect(errorsOf({ PAYRAIL_DATABASE_LISTEN_URL: direct })).toEqual([
      'PAYRAIL_DATABASE_LISTEN_URL needs DATABASE_URL: the embedded database is listened to directly',
    ]);
    expect(errorsOf({ DATABASE_URL: pooled, PAYRAIL_DATABASE_LISTEN_URL: 'off' })).toEqual([
      'PAYRAIL_DATABASE_LISTEN_URL must be a postgres:// or postgresql:// URL, or none',
    ]);
  });

  it('allows insecure webhooks in the sandbox and refuses them in live', () => {
    expect(configOf({ PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1' }).allowInsecureWebhooks).toBe(true);
    expect(errorsOf({ PAYRAIL_ENV: 'live', PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1' })).toEqual([
      'PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 is a sandbox setting (http and loopback webhook ' +
        'targets) and is refused with PAYRAIL_ENV=live; unset it',
    ]);
  });

  it('resolves a relative data directory against the directory pnpm was run in', () => {
    const config = configOf({ INIT_CWD: '/home/me/payrail', PAYRAIL_DATA_DIR: 'data' });
    expect(config.dataDir).toBe('/home/me/payrail/data');
    expect(config.dataDirDisplay).toBe('data');
    expect(config.database).toEqual({
      kind: 'embedded',
      engine: 'postgres',
      directory: '/home/me/payrail/data/postgres',
    });
    expect(config.keySecret).toEqual({ kind: 'file', path: '/home/me/payrail/data/key-secret' });
  });

  it('reports every problem at once, without echoing secrets', () => {
    const errors = errorsOf({
      PORT: '80a',
      PAYRAIL_ENV: 'production',
      PAYRAIL_ADMIN_TOKEN: 'short',
      DATABASE_URL: 'mysql://root:hunter2@db/payrail',
      PAYRAIL_DATABASE_SCHEMA: 'Payrail-1',
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: 'yes',
      PAYRAIL_RATE_LIMIT: '-5',
      PAYRAIL_KEY_SECRET: 'too-short-secret',
      PAYRAIL_PUBLIC_URL: 'ftp://pay.example.com',
      PAYRAIL_TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal',
    });
    expect(errors).toEqual([
      'PORT must be a whole number from 0 to 65535 (0 picks a free port), not "80a"',
      'PAYRAIL_ENV must be "sandbox" or "live", not "production"',
      'PAYRAIL_ADMIN_TOKEN must be at least 16 characters without spaces (or unset: a token is generated and printed at start)',
      'DATABASE_URL must be a postgres:// or postgresql:// URL',
      'PAYRAIL_DATABASE_SCHEMA must be a lower-case PostgreSQL identifier (a-z, 0-9, _), not "Payrail-1"',
      'PAYRAIL_ALLOW_INSECURE_WEBHOOKS must be 1 or 0, not "yes"',
      'PAYRAIL_RATE_LIMIT must be a number of requests per second per key (0 turns it off), not "-5"',
      'PAYRAIL_KEY_SECRET must be at least 32 bytes',
      'PAYRAIL_PUBLIC_URL must be an http:// or https:// URL, not "ftp://pay.example.com"',
      'PAYRAIL_TRUSTED_PROXIES must list IP addresses or CIDR blocks separated by commas, not "10.0.0.0/8,proxy.internal"',
    ]);
    const all = errors.join('\n');
    expect(all).not.toContain('hunter2');
    expect(all).not.toContain('too-short-secret');
    expect(all).not.toContain('short"');
  });

  it.each([
    ['65536', false],
    ['65535', true],
    ['-1', false],
    ['8080.5', false],
  ])('checks PORT=%s', (port, valid) => {
    expect(parseConfig({ PORT: port }, cwd).ok).toBe(valid);
  });

  it('treats empty variables as unset, except PAYRAIL_ENV', () => {
    expect(configOf({ PORT: '', PAYRAIL_ADMIN_TOKEN: '', PAYRAIL_KEY_SECRET: '' })).toMatchObject({
      port: 8080,
      environment: 'sandbox',
      adminToken: undefined,
    });
  });

  describe('issue 19, L6', () => {
    it('an empty PAYRAIL_ENV is refused, not taken for the sandbox', () => {
      for (const raw of ['', ' ']) {
        expect(errorsOf({ PAYRAIL_ENV: raw })).toEqual([
          `PAYRAIL_ENV must be "sandbox" or "live", not "${raw}"`,
        ]);
      }
    });

    it('PAYRAIL_TRUSTED_PROXIES may not trust every address', () => {
      const refusal = (blocks: string) =>
        `PAYRAIL_TRUSTED_PROXIES must not trust every address (${blocks}): any client could ` +
        'then write its own address; list your proxies (no block wider than /8, or /7 for IPv6)';
      expect(errorsOf({ PAYRAIL_TRUSTED_PROXIES: '10.0.0.1, 0.0.0.0/0,::/0' })).toEqual([
        refusal('0.0.0.0/0, ::/0'),
      ]);
      // Two halves cover every address as well as one /0 does (issue 35).
      expect(errorsOf({ PAYRAIL_TRUSTED_PROXIES: '0.0.0.0/1,128.0.0.0/1' })).toEqual([
        refusal('0.0.0.0/1, 128.0.0.0/1'),
      ]);
      expect(errorsOf({ PAYRAIL_TRUSTED_PROXIES: '::/1,8000::/1' })).toEqual([
        refusal('::/1, 8000::/1'),
      ]);
      // The widest private ranges stay allowed.
      expect(
        configOf({ PAYRAIL_TRUSTED_PROXIES: '10.0.0.0/8,172.16.0.0/12,fc00::/7' }).trustedProxies,
      ).toEqual(['10.0.0.0/8', '172.16.0.0/12', 'fc00::/7']);
      expect(configOf({ PAYRAIL_TRUSTED_PROXIES: '10.0.0.0/8' }).trustedProxies).toEqual([
        '10.0.0.0/8',
      ]);
    });

    it('config show hides every query value but libpq harmless ones, whatever its name (issue 35)', () => {
      const shown = (env: EnvRecord) =>
        Object.fromEntries(describeConfig(configOf(env)).map((e) => [e.name, e.value]));
      const database = shown({
        DATABASE_URL:
          'postgres://app@db.internal:5432/payrail?sslmode=require&auth=a1&sig=s1&jwt=j1&application_name=api',
      }).DATABASE_URL;
      expect(database).toBe(
        'postgres://app@db.internal:5432/payrail?sslmode=require&auth=***&sig=***&jwt=***&application_name=api',
      );
      const inspect = shown({
        PAYRAIL_INSPECT: 'ws://127.0.0.1:8081/?auth=a2&sig=s2&jwt=j2',
      }).PAYRAIL_INSPECT;
      expect(inspect).toBe('ws://127.0.0.1:8081/?auth=***&sig=***&jwt=***');
    });

    it('config show hides the credentials in PAYRAIL_INSPECT', () => {
      const shown = describeConfig(
        configOf({ PAYRAIL_INSPECT: 'wss://ops:s3cret@relay.internal:8443/inspect?token=t0k' }),
      ).find((e) => e.name === 'PAYRAIL_INSPECT')?.value;
      expect(shown).toBe('wss://***:***@relay.internal:8443/inspect?token=***');
      expect(shown).not.toContain('s3cret');
      expect(shown).not.toContain('t0k');
    });

    it('in live the inspector streams to this machine only, unless PAYRAIL_INSPECT_ALLOW_REMOTE=1', () => {
      const live = {
        PAYRAIL_ENV: 'live',
        PAYRAIL_ADMIN_TOKEN: adminToken,
        PAYRAIL_KEY_SECRET: keySecret,
      };
      expect(errorsOf({ ...live, PAYRAIL_INSPECT: 'ws://relay.internal:8081' })).toEqual([
        'PAYRAIL_INSPECT sends every payout, order and batch decision to the relay: with ' +
          'PAYRAIL_ENV=live it must be on this machine (127.0.0.1, [::1] or localhost), or set ' +
          'PAYRAIL_INSPECT_ALLOW_REMOTE=1 to send it elsewhere',
      ]);
      for (const local of ['ws://127.0.0.1:8081', 'ws://[::1]:8081', 'ws://localhost:8081']) {
        expect(parseConfig({ ...live, PAYRAIL_INSPECT: local }, cwd).ok, local).toBe(true);
      }
      const remote = { PAYRAIL_INSPECT: 'ws://relay.internal:8081' };
      expect(parseConfig({ ...live, ...remote, PAYRAIL_INSPECT_ALLOW_REMOTE: '1' }, cwd).ok).toBe(
        true,
      );
      // The sandbox streams where it is told.
      expect(parseConfig(remote, cwd).ok).toBe(true);
    });
  });

  it('reads the sandbox upstream sources, and refuses them in live', () => {
    expect(
      configOf({ PAYRAIL_UPSTREAM_SANDBOX_SOURCES: ' 10.0.0.0/8, ::ffff:192.0.2.1 ,fd00::/8' })
        .upstreamSandboxSources,
    ).toEqual(['10.0.0.0/8', '::ffff:192.0.2.1', 'fd00::/8']);
    expect(configOf({ PAYRAIL_UPSTREAM_SANDBOX_SOURCES: ' ' }).upstreamSandboxSources).toEqual([
      '127.0.0.1/32',
      '::1/128',
    ]);
    for (const raw of ['10.0.0.0/33', 'localhost', ',', '10.0.0.1,010.0.0.2']) {
      expect(errorsOf({ PAYRAIL_UPSTREAM_SANDBOX_SOURCES: raw }), raw).toEqual([
        `PAYRAIL_UPSTREAM_SANDBOX_SOURCES must list IP addresses or CIDR blocks separated by commas, not "${raw}"`,
      ]);
    }
    expect(errorsOf({ PAYRAIL_ENV: 'live', PAYRAIL_UPSTREAM_SANDBOX_SOURCES: '10.0.0.1' })).toEqual(
      [
        'PAYRAIL_UPSTREAM_SANDBOX_SOURCES is a sandbox setting (who may report sandbox chain ' +
          'payments) and is refused with PAYRAIL_ENV=live; unset it',
      ],
    );
    const shown = (env: EnvRecord) =>
      describeConfig(configOf(env)).find((e) => e.name === 'PAYRAIL_UPSTREAM_SANDBOX_SOURCES')
        ?.value;
    expect(shown({})).toBe('127.0.0.1/32,::1/128');
    expect(shown({ PAYRAIL_ENV: 'live' })).toBe('(live: no sandbox provider)');
  });

  it('reads the sandbox upstream secret (whsec_, 24 to 64 bytes), never echoing it, and refuses it in live', () => {
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    expect(configOf({ PAYRAIL_UPSTREAM_SANDBOX_SECRET: secret }).upstreamSandboxSecret).toBe(
      secret,
    );
    expect(configOf({ PAYRAIL_UPSTREAM_SANDBOX_SECRET: '' }).upstreamSandboxSecret).toBeUndefined();
    for (const raw of ['secret', `whsec_${Buffer.alloc(16).toString('base64')}`, 'whsec_%%%%']) {
      expect(errorsOf({ PAYRAIL_UPSTREAM_SANDBOX_SECRET: raw }), raw).toEqual([
        'PAYRAIL_UPSTREAM_SANDBOX_SECRET must be whsec_ followed by the base64 of 24 to 64 bytes ' +
          '(or unset: a secret is generated and printed at start)',
      ]);
    }
    expect(errorsOf({ PAYRAIL_ENV: 'live', PAYRAIL_UPSTREAM_SANDBOX_SECRET: secret })).toEqual([
      'PAYRAIL_UPSTREAM_SANDBOX_SECRET is a sandbox setting (what sandbox chain payment reports ' +
        'are signed with) and is refused with PAYRAIL_ENV=live; unset it',
    ]);
  });

  it('finding 6: reads the HTTP timeouts, and refuses one that is not a whole number of ms', () => {
    expect(
      configOf({
        PAYRAIL_REQUEST_TIMEOUT_MS: '10000',
        PAYRAIL_HEADERS_TIMEOUT_MS: '5000',
        PAYRAIL_KEEP_ALIVE_TIMEOUT_MS: '1000',
      }).httpTimeouts,
    ).toEqual({ requestTimeoutMs: 10_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: 1_000 });
    expect(errorsOf({ PAYRAIL_REQUEST_TIMEOUT_MS: '300s' })).toEqual([
      'PAYRAIL_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000, not "300s"',
    ]);
  });

  it('finding 6: reads the limits per client address, 0 turning one off', () => {
    expect(
      configOf({ PAYRAIL_AUTH_FAILURES_PER_ADDRESS: '0', PAYRAIL_RATE_LIMIT_PER_ADDRESS: '20' })
        .addressLimit,
    ).toEqual({ failedAuthentications: 0, requestsPerSecond: 20 });
    expect(errorsOf({ PAYRAIL_RATE_LIMIT_PER_ADDRESS: 'lots' })).toEqual([
      'PAYRAIL_RATE_LIMIT_PER_ADDRESS must be a whole number of requests per second per client address (0 turns it off), not "lots"',
    ]);
  });

  it('accepts a fractional rate limit', () => {
    expect(configOf({ PAYRAIL_RATE_LIMIT: '0.5' }).rateLimit).toBe(0.5);
  });
});

describe('describeConfig', () => {
  it('redacts the admin token, the key secret, the upstream secret and the database password', () => {
    const upstreamSecret = `whsec_${Buffer.alloc(32, 6).toString('base64')}`;
    const metricsToken = 'metrics-scrape-token-7d1e';
    const config = configOf({
      PAYRAIL_METRICS_TOKEN: metricsToken,
      PAYRAIL_ADMIN_TOKEN: adminToken,
      PAYRAIL_KEY_SECRET: keySecret,
      PAYRAIL_UPSTREAM_SANDBOX_SECRET: upstreamSecret,
      DATABASE_URL: 'postgres://app:s3cret-pw@db.internal:5432/payrail?sslpassword=x1y2z3',
    });
    const shown = describeConfig(config);
    const text = JSON.stringify(shown);
    expect(text).not.toContain(adminToken);
    expect(text).not.toContain(keySecret);
    expect(text).not.toContain('s3cret-pw');
    expect(text).not.toContain('x1y2z3');
    expect(text).not.toContain(upstreamSecret.slice(6, 20));
    expect(text).not.toContain(metricsToken);
    expect(Object.fromEntries(shown.map((e) => [e.name, e.value]))).toMatchObject({
      PAYRAIL_METRICS_TOKEN: '(set, redacted)',
      PAYRAIL_ADMIN_TOKEN: '(set, redacted)',
      PAYRAIL_KEY_SECRET: '(set, redacted)',
      PAYRAIL_UPSTREAM_SANDBOX_SECRET: '(set, redacted)',
      DATABASE_URL: 'postgres://app:***@db.internal:5432/payrail?sslpassword=***',
    });
  });

  it('names one line per variable of docs/spec/decisions.md §10 and the ADR', () => {
    expect(describeConfig(configOf({})).map((e) => e.name)).toEqual([
      'PORT',
      'HOST',
      'PAYRAIL_ENV',
      'PAYRAIL_ADMIN_TOKEN',
      'DATABASE_URL',
      'PAYRAIL_EMBEDDED_DATABASE',
      'PAYRAIL_DATABASE_SCHEMA',
      'PAYRAIL_DATA_DIR',
      'PAYRAIL_ALLOW_INSECURE_WEBHOOKS',
      'PAYRAIL_RATE_LIMIT',
      'PAYRAIL_AUTH_FAILURES_PER_ADDRESS',
      'PAYRAIL_RATE_LIMIT_PER_ADDRESS',
      'PAYRAIL_REQUEST_TIMEOUT_MS',
      'PAYRAIL_HEADERS_TIMEOUT_MS',
      'PAYRAIL_KEEP_ALIVE_TIMEOUT_MS',
      'PAYRAIL_METRICS_TOKEN',
      'PAYRAIL_READY_MAX_OUTBOX_BACKLOG',
      'PAYRAIL_SHUTDOWN_DRAIN_MS',
      'PAYRAIL_KEY_SECRET',
      'PAYRAIL_PUBLIC_URL',
      'PAYRAIL_TRUSTED_PROXIES',
      'PAYRAIL_UPSTREAM_SANDBOX_SOURCES',
      'PAYRAIL_UPSTREAM_SANDBOX_SECRET',
      'PAYRAIL_INSPECT',
      'PAYRAIL_LOG_LEVEL',
      'PAYRAIL_LOG_FORMAT',
    ]);
  });

  it('names the replica and LISTEN settings only beside a DATABASE_URL (the embedded database has neither)', () => {
    const names = describeConfig(
      configOf({ DATABASE_URL: 'postgres://app@db.internal:5432/payrail' }),
    ).map((e) => e.name);
    expect(names.slice(names.indexOf('DATABASE_URL'), names.indexOf('DATABASE_URL') + 3)).toEqual([
      'DATABASE_URL',
      'PAYRAIL_DATABASE_READ_URL',
      'PAYRAIL_DATABASE_LISTEN_URL',
    ]);
  });
});

describe('the startup description', () => {
  it('names the embedded database by the directory as configured', () => {
    expect(describeDatabase(configOf({}))).toBe('embedded PostgreSQL in ./.payrail');
  });

  it('names a server without its credentials', () => {
    expect(
      describeDatabase(
        configOf({
          DATABASE_URL: 'postgresql://app:pw@db:5432/main',
          PAYRAIL_DATABASE_SCHEMA: 'tenant_a',
        }),
      ),
    ).toBe('PostgreSQL at db:5432/main, schema tenant_a');
  });

  it('derives the public URL from where the server listens', () => {
    expect(defaultPublicUrl('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080');
    expect(defaultPublicUrl('0.0.0.0', 8080)).toBe('http://localhost:8080');
    expect(defaultPublicUrl('::1', 9000)).toBe('http://[::1]:9000');
  });

  it("takes libpq's multi-host DATABASE_URL, and redacts it keeping every host (ADR 0051)", () => {
    const url = 'postgres://app:pw@db1:5432,db2:5433/payrail?target_session_attrs=read-write';
    expect(configOf({ DATABASE_URL: url, PAYRAIL_KEY_SECRET: keySecret }).database).toMatchObject({
      kind: 'server',
      connectionString: url,
    });
    expect(redactConnectionString(url)).toBe(
      'postgres://app:***@db1:5432,db2:5433/payrail?target_session_attrs=read-write',
    );
  });

  it('takes a host list for the read replica and the LISTEN, and redacts both keeping every host', () => {
    const primary = 'postgres://app:pw@db1:5432,db2:5433/payrail';
    const replicas =
      'postgres://reader:s3,cr3t@r1:5432,r2:5433/payrail?target_session_attrs=standby';
    const listen = 'postgres://app:p,w@db1:5432,db2:5433/payrail?target_session_attrs=read-write';
    const config = configOf({
      DATABASE_URL: primary,
      PAYRAIL_DATABASE_READ_URL: replicas,
      PAYRAIL_DATABASE_LISTEN_URL: listen,
      PAYRAIL_KEY_SECRET: keySecret,
    });
    expect(config.database).toEqual({
      kind: 'server',
      connectionString: primary,
      readConnectionString: replicas,
      listenConnectionString: listen,
    });
    const shown = (name: string) => describeConfig(config).find((e) => e.name === name)?.value;
    // A password holding a comma is no host list: it is hidden, and the hosts are shown.
    expect(shown('PAYRAIL_DATABASE_READ_URL')).toBe(
      'postgres://reader:***@r1:5432,r2:5433/payrail?target_session_attrs=standby',
    );
    expect(shown('PAYRAIL_DATABASE_LISTEN_URL')).toBe(
      'postgres://app:***@db1:5432,db2:5433/payrail?target_session_attrs=read-write',
    );
  });

  it('redacts a connection string it cannot parse entirely', () => {
    expect(redactConnectionString('host=db password=x')).toBe('<unparsable>');
  });
});
