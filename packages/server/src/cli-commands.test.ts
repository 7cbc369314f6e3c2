import { describe, expect, it } from 'vitest';
import { type CliIo, runCli } from './cli-commands.js';
import type { EnvRecord } from './config.js';

interface Sent {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

const adminToken = 'operator-token-0123456789';

/** A CLI run against a fake server that answers `reply` and records what it was sent. */
const run = async (
  argv: readonly string[],
  reply: (sent: Sent) => Response | Promise<Response> = () =>
    Response.json({ code: 0, message: 'success', data: {} }),
  env: EnvRecord = { PAYRAIL_ADMIN_TOKEN: adminToken },
) => {
  const out: string[] = [];
  const err: string[] = [];
  const sent: Sent[] = [];
  const io: CliIo = {
    env,
    cwd: '/srv/payrail',
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const request: Sent = {
        url: String(input),
        method: init?.method ?? 'GET',
        headers: init?.headers as Record<string, string>,
        body: JSON.parse(String(init?.body)),
      };
      sent.push(request);
      return reply(request);
    }) as typeof fetch,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  };
  const code = await runCli(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n'), sent };
};

const success = (data: unknown) => () => Response.json({ code: 0, message: 'success', data });

describe('payrail merchant create', () => {
  it('posts to the admin API with the operator token and prints the ids', async () => {
    const result = await run(
      ['merchant', 'create', '--name', 'Acme', '--currencies', 'USD,USDT'],
      success({
        merchant: {
          merchant_id: 'mch_1',
          account_id: 'acc_1',
          name: 'Acme',
          currencies: ['USD', 'USDT'],
          notify_secret: 'whsec_abc',
        },
      }),
    );
    expect(result.sent).toEqual([
      {
        url: 'http://127.0.0.1:8080/admin/merchants',
        method: 'POST',
        headers: {
          Authorization: `Bearer ${adminToken}`,
          'Content-Type': 'application/json',
        },
        body: { name: 'Acme', currencies: ['USD', 'USDT'] },
      },
    ]);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      [
        'merchant created',
        '  merchant_id    mch_1',
        '  account_id     acc_1',
        '  name           Acme',
        '  currencies     USD, USDT',
        '  notify_secret  whsec_abc  (shown once)',
      ].join('\n'),
    );
  });

  it('prints data as JSON with --json', async () => {
    const data = { merchant: { merchant_id: 'mch_1', account_id: 'acc_1' } };
    const result = await run(['merchant', 'create', '--name', 'Acme', '--json'], success(data));
    expect(JSON.parse(result.out)).toEqual(data);
  });
});

describe('payrail key issue', () => {
  it('sends the key request and prints the token once, last', async () => {
    const result = await run(
      [
        'key',
        'issue',
        '--account',
        'acc_1',
        '--permissions',
        'payment.payout.read',
        '--ip',
        '203.0.113.7',
        '--expires-in',
        '60',
        '--env',
        'sandbox',
        '--name',
        'ci',
      ],
      success({
        api_key: {
          key_id: 'key_1',
          account_id: 'acc_1',
          env: 'sandbox',
          permissions: ['payment.payout.read'],
          ip_whitelist: ['203.0.113.7'],
          expires_at: 1_800_000_000,
          token: 'eyJ.token.sig',
        },
      }),
      { PAYRAIL_ADMIN_TOKEN: adminToken, PAYRAIL_URL: 'http://payrail.internal:9000/' },
    );
    expect(result.sent[0]).toMatchObject({
      url: 'http://payrail.internal:9000/admin/accounts/acc_1/api-keys',
      body: {
        permissions: ['payment.payout.read'],
        env: 'sandbox',
        ip_whitelist: ['203.0.113.7'],
        expires_in_seconds: 60,
        name: 'ci',
      },
    });
    expect(result.out.split('\n')).toEqual([
      'API key issued',
      '  key_id        key_1',
      '  account_id    acc_1',
      '  env           sandbox',
      '  permissions   payment.payout.read',
      '  ip_whitelist  203.0.113.7',
      '  expires_at    2027-01-15T08:00:00.000Z (1800000000)',
      'token (shown once; send it as "Authorization: Bearer <token>"):',
      'eyJ.token.sig',
    ]);
    expect(result.out.match(/eyJ\.token\.sig/g)).toHaveLength(1);
  });

  it('lets --url win over PAYRAIL_URL, and escapes the account id in the path', async () => {
    const result = await run(
      ['key', 'issue', '--account', 'acc/../x', '--permissions', 'all', '--url', 'http://h:1'],
      undefined,
      { PAYRAIL_ADMIN_TOKEN: adminToken, PAYRAIL_URL: 'http://elsewhere:2' },
    );
    expect(result.sent[0]?.url).toBe('http://h:1/admin/accounts/acc%2F..%2Fx/api-keys');
  });
});

describe('payrail account credit', () => {
  it('credits with the amount as a string', async () => {
    const result = await run(
      ['account', 'credit', '--account', 'acc_1', '--currency', 'USD', '--amount', '100.00'],
      success({
        deposit: { record_id: 'dep_1' },
        balance: { currency: 'USD', available: '100.00', held: '0.00', total: '100.00' },
      }),
    );
    expect(result.sent[0]).toMatchObject({
      url: 'http://127.0.0.1:8080/admin/accounts/acc_1/credit',
      body: { currency: 'USD', amount: '100.00' },
    });
    expect(result.out).toContain('  available  100.00');
    expect(result.code).toBe(0);
  });

  it('explains a refusal on a live server', async () => {
    const result = await run(
      ['account', 'credit', '--account', 'acc_1', '--currency', 'USD', '--amount', '1.00'],
      () => Response.json({ code: 61, message: 'forbidden', data: null }, { status: 403 }),
    );
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      'payrail: the server refused: forbidden (HTTP 403, code 61). Crediting a balance is a ' +
        'sandbox feature: this server runs PAYRAIL_ENV=live.',
    );
  });
});

describe('failures a person understands', () => {
  const create = ['merchant', 'create', '--name', 'Acme'];

  it('prints the server message and exits 1 on a refusal', async () => {
    const result = await run(create, () =>
      Response.json({ code: 51, message: 'name required', data: null }, { status: 400 }),
    );
    expect(result).toMatchObject({
      code: 1,
      out: '',
      err: 'payrail: the server refused: name required (HTTP 400, code 51).',
    });
  });

  it('says which token is wanted on a 401', async () => {
    const result = await run(create, () =>
      Response.json({ code: 61, message: 'unauthorized', data: null }, { status: 401 }),
    );
    expect(result.code).toBe(1);
    expect(result.err).toContain('PAYRAIL_ADMIN_TOKEN must be the operator token');
  });

  it('exits 2 without calling when PAYRAIL_ADMIN_TOKEN is unset', async () => {
    const result = await run(create, undefined, {});
    expect(result.code).toBe(2);
    expect(result.sent).toEqual([]);
    expect(result.err).toContain('PAYRAIL_ADMIN_TOKEN is not set');
  });

  it('exits 3 when nothing listens', async () => {
    const result = await run(create, () => {
      throw Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), {
          code: 'ECONNREFUSED',
        }),
      });
    });
    expect(result.code).toBe(3);
    expect(result.err).toBe(
      'payrail: cannot reach payrail at http://127.0.0.1:8080: connection refused. Is the ' +
        'server running (npx -y pnpm@10 start)? Give its URL with --url or PAYRAIL_URL.',
    );
  });

  it('exits 3 when something else answers', async () => {
    const result = await run(create, () => new Response('<html>', { status: 200 }));
    expect(result).toMatchObject({
      code: 3,
      err: 'payrail: http://127.0.0.1:8080 did not answer like a payrail server (HTTP 200)',
    });
  });

  it('exits 2 with a hint on wrong usage', async () => {
    const result = await run(['merchant', 'create']);
    expect(result).toMatchObject({
      code: 2,
      err: 'payrail: merchant create: --name is required\nRun "payrail help" for the commands and their options.',
    });
    expect(result.sent).toEqual([]);
  });

  it('prints the usage for help', async () => {
    const result = await run(['help']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^Usage: payrail <command> \[options\]/);
  });
});

describe('payrail config show', () => {
  it('prints the effective configuration without secrets, and needs no server', async () => {
    const result = await run(['config', 'show'], undefined, {
      PAYRAIL_ADMIN_TOKEN: adminToken,
      PAYRAIL_KEY_SECRET: 'x'.repeat(40),
      DATABASE_URL: 'postgres://app:hunter2@db:5432/payrail',
      PORT: '9000',
    });
    expect(result.code).toBe(0);
    expect(result.sent).toEqual([]);
    // Names are padded to the longest one; the value follows after the padding.
    expect(result.out).toMatch(/^PORT {2,}9000$/m);
    expect(result.out).toMatch(/^DATABASE_URL {2,}postgres:\/\/app:\*\*\*@db:5432\/payrail$/m);
    expect(result.out).not.toContain(adminToken);
    expect(result.out).not.toContain('x'.repeat(40));
    expect(result.out).not.toContain('hunter2');
  });

  it('answers JSON with --json', async () => {
    const result = await run(['config', 'show', '--json'], undefined, {});
    expect(JSON.parse(result.out)).toMatchObject({ PORT: '8080', PAYRAIL_ENV: 'sandbox' });
  });

  it('lists configuration errors and exits 2', async () => {
    const result = await run(['config', 'show'], undefined, {
      PAYRAIL_ENV: 'live',
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
    });
    expect(result.code).toBe(2);
    expect(result.err).toContain('PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 is a sandbox setting');
  });
});
