/**
 * The engine on a memory store with a clock the test moves, a sandbox catalogue and merchants
 * with every permission; helpers that move money as a merchant and an operator would, and that
 * read a CSV statement back into rows.
 */
import { type Currency, Decimal, type Store } from '@payrail/core';
import { createMemoryStore } from '@payrail/store-memory';
import * as E from 'fp-ts/lib/Either.js';
import { permissions } from '../access/access-control.policy.js';
import type { Outcome } from '../command/command.handler.js';
import type { Caller, TextExport } from '../engine.api.js';
import { adjustableClock } from '../engine.deps.js';
import { createEngine } from '../engine.wiring.js';
import { rightOf, start } from '../operators/operators.test-support.js';
import { bootstrapOperator } from '../operators/operators.use-cases.js';
import { seedSandboxCatalogue } from '../payouts/sandbox-catalogue.use-cases.js';

export { rightOf, start } from '../operators/operators.test-support.js';

export const messageOf = <T>(outcome: Outcome<T>): string => {
  if (E.isRight(outcome))
    throw new Error(`expected a refusal, got ${JSON.stringify(outcome.right)}`);
  return outcome.left.message;
};

export const statementWorld = async (store: Store = createMemoryStore()) => {
  let now = start;
  const clock = adjustableClock({ now: () => now });
  let n = 0;
  const ids = { next: (prefix: string) => `${prefix}_${++n}` };
  const engine = createEngine({
    store,
    clock,
    ids,
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: 'https://pay.example/checkout',
      allowInsecureWebhooks: false,
      keySecret: new Uint8Array(32).fill(5),
    },
  });
  await seedSandboxCatalogue(store, ids, clock);
  let refs = 0;

  const merchant = async (name: string): Promise<Caller> => {
    const { merchant: made } = rightOf(
      await engine.admin.createMerchant(bootstrapOperator, { name }),
    );
    return {
      merchant_id: made.merchant_id,
      account_id: made.account_id,
      key_id: `key_${made.account_id}`,
      permissions,
      env: 'sandbox',
    };
  };

  const credit = async (who: Caller, currency: Currency, amount: string) =>
    rightOf(await engine.admin.credit(bootstrapOperator, who.account_id, { currency, amount }));

  /** A USD payout approved, then taken to `fate` by the sandbox executor. */
  const payout = async (who: Caller, amount: string, fate: 'completed' | 'failed' | 'held') => {
    refs += 1;
    const { payout: made } = rightOf(
      await engine.payouts.create(who, {
        currency: 'USD',
        amount,
        method_id: 1,
        reference: refs % 2 === 0 ? `=INV-${refs}` : `INV, "${refs}"`,
        notify_url: 'https://merchant.example/payouts/notify',
        beneficiary: { name: 'Alice Example', fields: { payee_id: `payee${refs}` } },
        beneficiary_account: {
          network_code: 'WALLETA',
          fields: { walleta_email: 'alice@example.com' },
        },
      }),
    );
    const id = made.payout_id;
    rightOf(await engine.admin.reviewPayout(bootstrapOperator, id, { action: 'approve' }));
    rightOf(await engine.admin.sandboxExecution(bootstrapOperator, id, { outcome: 'processing' }));
    if (fate !== 'held') {
      rightOf(
        await engine.admin.sandboxExecution(bootstrapOperator, id, {
          outcome: fate,
          ...(fate === 'failed' ? { reason: 'recipient wallet closed' } : {}),
        }),
      );
    }
    return id;
  };

  return {
    engine,
    store,
    clock,
    merchant,
    credit,
    payout,
    /** Moves the clock on. */
    tick: (seconds: number) => {
      now += seconds;
    },
    now: () => now,
  };
};

/** The text of an export, every chunk read. */
export const textOf = async (exported: TextExport): Promise<string> => {
  let text = '';
  for await (const chunk of exported.chunks) text += chunk;
  return text;
};

/**
 * RFC 4180 read back: rows of fields, quoted fields unquoted (`""` is `"`), CRLF between rows;
 * the header row's names key each row.
 */
export const csvRows = (text: string): Record<string, string>[] => {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else field += c;
  }
  if (field !== '' || row.length > 0) throw new Error('the CSV does not end with CRLF');
  const [header, ...body] = rows;
  if (header === undefined) throw new Error('no header row');
  return body.map((fields) => {
    if (fields.length !== header.length) throw new Error(`a row of ${fields.length} fields`);
    return Object.fromEntries(header.map((name, i) => [name, fields[i] ?? '']));
  });
};

/**
 * Replays a CSV statement: per bucket, the opening row's balance plus each record row's amount,
 * checked against each record's `balance_after` on the way; answers each bucket's replayed
 * closing and the closing rows' balances, which must agree.
 */
export const replayCsv = (rows: readonly Record<string, string>[]) => {
  const running = new Map<string, Decimal>();
  const closing = new Map<string, string>();
  const mismatches: string[] = [];
  for (const row of rows) {
    const bucket = row.bucket ?? '';
    if (row.line === 'opening') running.set(bucket, new Decimal(row.balance_after ?? '0'));
    else if (row.line === 'record') {
      const after = (running.get(bucket) ?? new Decimal(0)).plus(row.amount ?? '0');
      running.set(bucket, after);
      if (!after.equals(row.balance_after ?? '')) mismatches.push(row.transaction_id ?? '');
    } else if (row.line === 'closing') closing.set(bucket, row.balance_after ?? '');
  }
  return { running, closing, mismatches };
};
