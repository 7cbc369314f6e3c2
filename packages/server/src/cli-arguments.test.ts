import { permissions } from '@payrail/engine';
import { describe, expect, it } from 'vitest';
import { type CliParse, parseCliArguments } from './cli-arguments.js';

const parse = (line: string): CliParse => parseCliArguments(line.split(' ').filter(Boolean));

const errorOf = (line: string): string => {
  const result = parse(line);
  if (result.ok) throw new Error(`expected "${line}" to be refused`);
  return result.error;
};

describe('parseCliArguments', () => {
  it('parses merchant create', () => {
    expect(parse('merchant create --name Acme --currencies USD,USDT')).toEqual({
      ok: true,
      invocation: {
        command: { kind: 'merchant.create', name: 'Acme', currencies: ['USD', 'USDT'] },
        json: false,
      },
    });
    expect(parseCliArguments(['merchant', 'create', '--name', 'Acme Ltd', '--json'])).toEqual({
      ok: true,
      invocation: { command: { kind: 'merchant.create', name: 'Acme Ltd' }, json: true },
    });
  });

  it('parses key issue with every option', () => {
    expect(
      parse(
        'key issue --account acc_1 --permissions payment.payout.read,payment.account.read ' +
          '--env sandbox --ip 203.0.113.7,198.51.100.0/24 --expires-in 3600 --name ci ' +
          '--url http://10.0.0.5:8080',
      ),
    ).toEqual({
      ok: true,
      invocation: {
        command: {
          kind: 'key.issue',
          account: 'acc_1',
          permissions: ['payment.payout.read', 'payment.account.read'],
          env: 'sandbox',
          ipWhitelist: ['203.0.113.7', '198.51.100.0/24'],
          expiresInSeconds: 3600,
          name: 'ci',
        },
        url: 'http://10.0.0.5:8080',
        json: false,
      },
    });
  });

  it('expands --permissions all to every permission', () => {
    const result = parse('key issue --account acc_1 --permissions all');
    expect(result.ok && result.invocation.command).toEqual({
      kind: 'key.issue',
      account: 'acc_1',
      permissions,
    });
  });

  it('parses account credit, keeping the amount as typed', () => {
    expect(parse('account credit --account acc_1 --currency USD --amount 100.10')).toEqual({
      ok: true,
      invocation: {
        command: { kind: 'account.credit', account: 'acc_1', currency: 'USD', amount: '100.10' },
        json: false,
      },
    });
  });

  it('parses config show and help', () => {
    expect(parse('config show')).toEqual({
      ok: true,
      invocation: { command: { kind: 'config.show' }, json: false },
    });
    for (const line of ['', 'help', '--help', '-h', 'key issue --help']) {
      expect(parse(line)).toMatchObject({ ok: true, invocation: { command: { kind: 'help' } } });
    }
  });

  it('parses migrate, migrate --check and doctor', () => {
    expect(parse('migrate')).toEqual({
      ok: true,
      invocation: { command: { kind: 'migrate', check: false }, json: false },
    });
    expect(parse('migrate --check --json')).toEqual({
      ok: true,
      invocation: { command: { kind: 'migrate', check: true }, json: true },
    });
    expect(parse('doctor')).toEqual({
      ok: true,
      invocation: { command: { kind: 'doctor' }, json: false },
    });
  });

  it('accepts --option=value', () => {
    expect(parseCliArguments(['merchant', 'create', '--name=Acme'])).toMatchObject({
      ok: true,
      invocation: { command: { name: 'Acme' } },
    });
  });

  it.each([
    ['merchant create', 'merchant create: --name is required'],
    ['merchant delete --name Acme', 'unknown command "merchant delete"'],
    ['merchant create now --name Acme', 'unknown command "merchant create now"'],
    ['key issue --permissions all', 'key issue: --account is required'],
    ['key issue --account acc_1', 'key issue: --permissions is required'],
    [
      'key issue --account acc_1 --permissions all --env prod',
      'key issue: --env must be sandbox or live, not "prod"',
    ],
    [
      'key issue --account acc_1 --permissions all --expires-in 1h',
      'key issue: --expires-in must be a whole number of seconds, not "1h"',
    ],
    [
      'key issue --account acc_1 --permissions all --expires-in 0',
      'key issue: --expires-in must be a whole number of seconds, not "0"',
    ],
    [
      'key issue --account acc_1 --permissions ,',
      'key issue: --permissions needs at least one permission',
    ],
    ['account credit --account acc_1 --currency USD', 'account credit: --amount is required'],
    [
      'account credit --account acc_1 --currency USD --amount 5 --name x',
      'account credit does not take --name',
    ],
    ['config show --account acc_1', 'config show does not take --account'],
    ['doctor --check', 'doctor does not take --check'],
    ['migrate now', 'unknown command "migrate now"'],
    ['config show --url ftp://x', '--url must be an http:// or https:// URL, not "ftp://x"'],
  ])('refuses "%s"', (line, message) => {
    expect(errorOf(line)).toBe(message);
  });

  it('names an unknown permission and lists the known ones', () => {
    const error = errorOf('key issue --account acc_1 --permissions payment.payout.read,payouts');
    expect(error).toMatch(/^key issue: unknown permission payouts; use "all" or some of: /);
    expect(error).toContain('payment.webhook.write');
  });

  it("passes node:util's message for an unknown option or a missing value", () => {
    expect(errorOf('merchant create --nme Acme')).toMatch(/Unknown option '--nme'/);
    expect(errorOf('merchant create --name')).toMatch(/--name/);
  });
});
