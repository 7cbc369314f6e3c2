/**
 * libpq's multi-host connection string as the server store reads it (ADR 0051): the hosts in
 * order, `target_session_attrs`, `connect_timeout`, and the one-host URL each pool opens.
 */
import { describe, expect, it } from 'vitest';
import { needsLocating, parseDatabaseUrl } from './multi-host-pool.js';

const parsed = (url: string) => {
  const found = parseDatabaseUrl(url);
  if (found === undefined) throw new Error(`not a URL: ${url}`);
  return found;
};

describe('a multi-host DATABASE_URL', () => {
  it('lists its hosts in order, each with its port (5432 when it names none)', () => {
    const url = parsed(
      'postgres://payrail:s3cr%40t@db1.internal:6432,db2.internal,[2001:db8::7]:5433/payments?target_session_attrs=read-write',
    );
    expect(url.hosts).toEqual([
      { host: 'db1.internal', port: 6432 },
      { host: 'db2.internal', port: 5432 },
      { host: '[2001:db8::7]', port: 5433 },
    ]);
    expect(url.targetSessionAttrs).toBe('read-write');
    expect(needsLocating(url)).toBe(true);
  });

  it('opens each host with the rest of the URL, without target_session_attrs', () => {
    const url = parsed(
      'postgresql://payrail:s3cr%40t@h1:1,h2:2/payments?sslmode=require&target_session_attrs=primary&application_name=api',
    );
    expect(url.targetSessionAttrs).toBe('primary');
    expect(url.urlOf({ host: 'h2', port: 2 })).toBe(
      'postgresql://payrail:s3cr%40t@h2:2/payments?sslmode=require&application_name=api',
    );
    expect(url.urlOf({ host: '[::1]', port: 5432 })).toBe(
      'postgresql://payrail:s3cr%40t@[::1]:5432/payments?sslmode=require&application_name=api',
    );
    expect(
      parsed('postgres://h1,h2/db?target_session_attrs=any').urlOf({ host: 'h1', port: 5432 }),
    ).toBe('postgres://h1:5432/db');
  });

  it('is read-write without target_session_attrs: several hosts never mean "any standby will do"', () => {
    const url = parsed('postgres://u@h1:5432,h2:5432/db');
    expect(url.targetSessionAttrs).toBe('read-write');
    expect(needsLocating(url)).toBe(true);
    // Asked for, any stays any; one host without it is libpq's any, a plain pool.
    expect(parsed('postgres://u@h1,h2/db?target_session_attrs=any').targetSessionAttrs).toBe('any');
    const one = parsed('postgres://u@h1:5432/db');
    expect(one.targetSessionAttrs).toBe('any');
    expect(needsLocating(one)).toBe(false);
  });

  it('leaves a one-host URL to a plain pool, unless its session is to be checked', () => {
    expect(needsLocating(parsed('postgres://postgres@127.0.0.1:5432/test'))).toBe(false);
    expect(needsLocating(parsed('postgres://u@h1/db?target_session_attrs=any'))).toBe(false);
    expect(needsLocating(parsed('postgres://u@h1/db?target_session_attrs=read-write'))).toBe(true);
    // A Unix socket directory (the embedded default's form) and libpq's key=value form.
    expect(needsLocating(parsed('postgres://u@%2Ftmp%2Fpg/db'))).toBe(false);
    expect(parseDatabaseUrl('host=/tmp dbname=payrail')).toBeUndefined();
  });

  it('reads connect_timeout in seconds, as libpq does (0 waits for ever, under 2 counts as 2)', () => {
    expect(parsed('postgres://h1,h2/db').connectTimeoutMs).toBeUndefined();
    expect(parsed('postgres://h1,h2/db?connect_timeout=10').connectTimeoutMs).toBe(10_000);
    expect(parsed('postgres://h1,h2/db?connect_timeout=1').connectTimeoutMs).toBe(2_000);
    expect(parsed('postgres://h1,h2/db?connect_timeout=0').connectTimeoutMs).toBeUndefined();
    expect(() => parsed('postgres://h1,h2/db?connect_timeout=soon')).toThrow(/connect_timeout/);
  });

  it('lists read replicas: any unset, and only the sessions that pick a server to read from', () => {
    const reads = (url: string) => parseDatabaseUrl(url, { use: 'reads', setting: 'READ_URL' });
    expect(reads('postgres://u@r1,r2/db')?.targetSessionAttrs).toBe('any');
    expect(needsLocating(reads('postgres://u@r1,r2/db') ?? parsed('postgres://h/db'))).toBe(true);
    for (const attrs of ['standby', 'prefer-standby', 'read-only', 'any'] as const) {
      expect(reads(`postgres://u@r1,r2/db?target_session_attrs=${attrs}`)?.targetSessionAttrs).toBe(
        attrs,
      );
    }
    for (const attrs of ['read-write', 'primary']) {
      expect(() => reads(`postgres://u@r1,r2/db?target_session_attrs=${attrs}`)).toThrow(
        /^READ_URL: target_session_attrs=.* is not one a read replica is chosen by/,
      );
    }
  });

  it('refuses a session payrail cannot write through, and a malformed host', () => {
    for (const attrs of ['read-only', 'standby', 'prefer-standby', 'readwrite']) {
      expect(() => parsed(`postgres://h1,h2/db?target_session_attrs=${attrs}`)).toThrow(
        /target_session_attrs/,
      );
    }
    expect(() => parsed('postgres://h1:99999,h2/db')).toThrow(/port out of range/);
    expect(() => parsed('postgres://h1,,h2/db')).toThrow(/host/);
    expect(() => parsed('postgres://h1:port,h2/db')).toThrow(/host/);
  });
});
