/**
 * Named operators (issue 19, ADR 0039): credentials of their own, the role matrix on every
 * admin use case, and what the bootstrap token keeps once an admin exists.
 */
import { operatorRoleMatrix, operatorRoles, roleAllows } from '@payrail/core';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Engine, Operator } from '../engine.api.js';
import { type AdminUseCaseName, adminPermissions } from './admin-permissions.policy.js';
import {
  messageOf,
  type OperatorsWorld,
  operatorsWorld,
  payoutBody,
  rightOf,
  start,
} from './operators.test-support.js';
import { bootstrapOperator } from './operators.use-cases.js';

let w: OperatorsWorld;
beforeEach(async () => {
  w = await operatorsWorld();
});

const signIn = (token: string) => w.engine.auth.authenticateOperator({ token, ip: '198.51.100.7' });

describe('operator credentials', () => {
  it('are shown once, name the operator, and are refused when wrong, disabled, expired or rotated', async () => {
    const { operator } = rightOf(
      await w.engine.admin.createOperator(bootstrapOperator, { name: 'alice', role: 'reviewer' }),
    );
    expect(operator).toMatchObject({
      name: 'alice',
      role: 'reviewer',
      status: 'active',
      created_by: 'bootstrap',
      expires_at: start + 1 + 90 * 24 * 60 * 60,
    });
    expect(operator.token).toMatch(/^opr_\w+\.[A-Za-z0-9_-]{43}$/);
    expect(rightOf(await signIn(operator.token))).toMatchObject({
      operator_id: operator.operator_id,
      name: 'alice',
      role: 'reviewer',
    });
    // The list never shows a credential.
    const listed = rightOf(await w.engine.admin.listOperators(bootstrapOperator, {}));
    expect(JSON.stringify(listed)).not.toContain(operator.token.split('.')[1]);

    const [id, secret] = operator.token.split('.') as [string, string];
    const otherSecret = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const token of ['', 'alice', `${id}.${otherSecret}`, `opr_999.${secret}`, `${id}.short`]) {
      expect(messageOf(await signIn(token)), token).toBe('unauthorized');
    }

    const rotated = rightOf(await w.engine.admin.rotateOperator(bootstrapOperator, id));
    expect(messageOf(await signIn(operator.token))).toBe('unauthorized');
    expect(rightOf(await signIn(rotated.operator.token)).name).toBe('alice');

    rightOf(await w.engine.admin.updateOperator(bootstrapOperator, id, { status: 'disabled' }));
    expect(messageOf(await signIn(rotated.operator.token))).toBe('unauthorized');
    rightOf(await w.engine.admin.updateOperator(bootstrapOperator, id, { status: 'active' }));
    expect(rightOf(await signIn(rotated.operator.token)).name).toBe('alice');

    w.clock.advance(91 * 24 * 60 * 60);
    expect(messageOf(await signIn(rotated.operator.token))).toBe('unauthorized');
  });

  it('refuses a name already taken, and an operator changing its own role or status', async () => {
    const admin = await w.operator('root', 'admin');
    expect(
      messageOf(await w.engine.admin.createOperator(admin, { name: 'root', role: 'viewer' })),
    ).toBe('invalid name');
    expect(
      messageOf(await w.engine.admin.updateOperator(admin, admin.operator_id, { role: 'viewer' })),
    ).toBe('forbidden');
    expect(
      messageOf(await w.engine.admin.updateOperator(admin, 'opr_nope', { role: 'viewer' })),
    ).toBe('operator_id not found');
    expect(messageOf(await w.engine.admin.updateOperator(admin, admin.operator_id, {}))).toBe(
      'no changes',
    );
  });
});

/** Each admin use case called with arguments that fail, if at all, after the role check. */
const callers: { readonly [K in AdminUseCaseName]: (e: Engine, o: Operator) => Promise<unknown> } =
  {
    createOperator: (e, o) => e.admin.createOperator(o, {}),
    listOperators: (e, o) => e.admin.listOperators(o, {}),
    updateOperator: (e, o) => e.admin.updateOperator(o, 'opr_nope', {}),
    rotateOperator: (e, o) => e.admin.rotateOperator(o, 'opr_nope'),
    audit: (e, o) => e.admin.audit(o, {}),
    settlementReport: (e, o) => e.admin.settlementReport(o, {}),
    createMerchant: (e, o) => e.admin.createMerchant(o, {}),
    updateAccount: (e, o) => e.admin.updateAccount(o, 'acc_nope', {}),
    rotateNotifySecret: (e, o) => e.admin.rotateNotifySecret(o, 'acc_nope'),
    issueApiKey: (e, o) => e.admin.issueApiKey(o, 'acc_nope', {}),
    listApiKeys: (e, o) => e.admin.listApiKeys(o, 'acc_nope'),
    rotateApiKey: (e, o) => e.admin.rotateApiKey(o, 'key_nope'),
    updateApiKey: (e, o) => e.admin.updateApiKey(o, 'key_nope', {}),
    deleteApiKey: (e, o) => e.admin.deleteApiKey(o, 'key_nope'),
    reviewPayout: (e, o) => e.admin.reviewPayout(o, 'po_nope', {}),
    getOrder: (e, o) => e.admin.getOrder(o, 'ord_nope'),
    resolveOrder: (e, o) => e.admin.resolveOrder(o, 'ord_nope', {}),
    reviewRefund: (e, o) => e.admin.reviewRefund(o, 'rfd_nope', {}),
    listPayoutMethods: (e, o) => e.admin.listPayoutMethods(o, {}),
    createPayoutMethod: (e, o) => e.admin.createPayoutMethod(o, {}),
    updatePayoutMethod: (e, o) => e.admin.updatePayoutMethod(o, '999', {}),
    listPayoutNetworks: (e, o) => e.admin.listPayoutNetworks(o, {}),
    createPayoutNetwork: (e, o) => e.admin.createPayoutNetwork(o, {}),
    updatePayoutNetwork: (e, o) => e.admin.updatePayoutNetwork(o, 'NOPE', {}),
    listRoutes: (e, o) => e.admin.listRoutes(o, {}),
    createRoute: (e, o) => e.admin.createRoute(o, {}),
    updateRoute: (e, o) => e.admin.updateRoute(o, 'rt_nope', {}),
    credit: (e, o) => e.admin.credit(o, 'acc_nope', {}),
    sandboxExecution: (e, o) => e.admin.sandboxExecution(o, 'po_nope', {}),
    sandboxRefundExecution: (e, o) => e.admin.sandboxRefundExecution(o, 'rfd_nope', {}),
    sandboxPayment: (e, o) => e.admin.sandboxPayment(o, 'ord_nope', {}),
    advanceClock: (e, o) => e.admin.advanceClock(o, {}),
  };

describe('the role matrix', () => {
  it('every role reads, and no role both configures and moves money', () => {
    for (const role of operatorRoles) expect(roleAllows(role, 'admin.read')).toBe(true);
    const configures = ['admin.merchants.write', 'admin.catalogue.write'] as const;
    const moves = ['admin.payouts.review', 'admin.balances.credit'] as const;
    for (const role of operatorRoles) {
      const granted = operatorRoleMatrix[role];
      const both =
        configures.some((p) => granted.includes(p)) && moves.some((p) => granted.includes(p));
      expect(both, role).toBe(false);
    }
  });

  it.each(operatorRoles)('is enforced on every admin use case for a %s', async (role) => {
    const operator = await w.operator(`op-${role}`, role);
    for (const name of Object.keys(callers) as AdminUseCaseName[]) {
      const message = messageOf((await callers[name](w.engine, operator)) as never);
      const allowed = roleAllows(role, adminPermissions[name]);
      expect(message === 'forbidden', `${role} ${name}: ${message}`).toBe(!allowed);
    }
  });
});

describe('the bootstrap operator (ADR 0039)', () => {
  it('does everything until an admin operator is active, then only reads and manages operators', async () => {
    expect(
      rightOf(await w.engine.admin.createMerchant(bootstrapOperator, { name: 'B' })),
    ).toBeTruthy();
    const admin = await w.operator('root', 'admin');
    for (const name of Object.keys(callers) as AdminUseCaseName[]) {
      const message = messageOf((await callers[name](w.engine, bootstrapOperator)) as never);
      const keeps = ['admin.read', 'admin.operators.write'].includes(adminPermissions[name]);
      expect(message === 'forbidden', `bootstrap ${name}: ${message}`).toBe(!keeps);
    }
    // Break glass: the admin's credential is lost; the bootstrap gives it a new one.
    const rotated = rightOf(
      await w.engine.admin.rotateOperator(bootstrapOperator, admin.operator_id),
    );
    expect(rightOf(await signIn(rotated.operator.token)).role).toBe('admin');
    // A disabled admin no longer holds the bootstrap back.
    rightOf(
      await w.engine.admin.updateOperator(bootstrapOperator, admin.operator_id, {
        status: 'disabled',
      }),
    );
    const payout = rightOf(await w.engine.payouts.create(w.keyOf('key_a'), payoutBody(1)));
    expect(
      rightOf(
        await w.engine.admin.reviewPayout(bootstrapOperator, payout.payout.payout_id, {
          action: 'approve',
        }),
      ).payout.status,
    ).toBe('approved');
  });
});
