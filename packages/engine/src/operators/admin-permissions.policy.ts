/**
 * The operator permission each admin use case needs (ADR 0039): the engine's doors check it,
 * the HTTP routes document it, and the role matrix of docs/server.md is printed from it and
 * `operatorRoleMatrix`. One table, so what is enforced and what is said cannot drift apart.
 */
import type { OperatorPermission } from '@payrail/core';
import type { Engine } from '../engine.api.js';

export const adminPermissions = {
  createOperator: 'admin.operators.write',
  listOperators: 'admin.read',
  updateOperator: 'admin.operators.write',
  rotateOperator: 'admin.operators.write',
  audit: 'admin.read',
  settlementReport: 'admin.read',
  createMerchant: 'admin.merchants.write',
  updateAccount: 'admin.merchants.write',
  rotateNotifySecret: 'admin.merchants.write',
  issueApiKey: 'admin.api_keys.write',
  listApiKeys: 'admin.read',
  rotateApiKey: 'admin.api_keys.write',
  updateApiKey: 'admin.api_keys.write',
  deleteApiKey: 'admin.api_keys.write',
  reviewPayout: 'admin.payouts.review',
  getOrder: 'admin.read',
  resolveOrder: 'admin.acquiring.review',
  reviewRefund: 'admin.acquiring.review',
  listPayoutMethods: 'admin.read',
  createPayoutMethod: 'admin.catalogue.write',
  updatePayoutMethod: 'admin.catalogue.write',
  listPayoutNetworks: 'admin.read',
  createPayoutNetwork: 'admin.catalogue.write',
  updatePayoutNetwork: 'admin.catalogue.write',
  listRoutes: 'admin.read',
  createRoute: 'admin.catalogue.write',
  updateRoute: 'admin.catalogue.write',
  credit: 'admin.balances.credit',
  sandboxExecution: 'admin.sandbox.simulate',
  sandboxRefundExecution: 'admin.sandbox.simulate',
  sandboxPayment: 'admin.sandbox.simulate',
  advanceClock: 'admin.sandbox.simulate',
} as const satisfies { readonly [K in keyof Engine['admin']]: OperatorPermission };

export type AdminUseCaseName = keyof typeof adminPermissions;
