/**
 * Permissions (interface "Authentication" and docs/spec/decisions.md §7) and product access, checked by the
 * use cases themselves so that every transport enforces them alike.
 */
import { apiKeyPermissions, forbiddenFor } from '@payrail/core';
import { refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';

/** The permission ids of docs/spec/decisions.md §7; the core owns the list, so the admin codecs check it too. */
export const permissions = apiKeyPermissions;
export type Permission = (typeof permissions)[number];

/** Whether the caller's key holds every one of `required`. */
export const hasPermissions = (caller: Caller, required: readonly Permission[]): boolean =>
  required.every((permission) => caller.permissions.includes(permission));

/** `forbidden` unless the caller's key holds every one of `required`; it names those it lacks. */
export const requirePermission = (caller: Caller, ...required: readonly Permission[]): void => {
  if (hasPermissions(caller, required)) return;
  const missingPermissions = required.filter((p) => !caller.permissions.includes(p));
  refuse(forbiddenFor({ missingPermissions }));
};

export type Product = 'payout' | 'acquiring';

/** `forbidden`, naming the product, unless the account has it enabled (interface: "Product access"). */
export const requireProduct = (
  products: { readonly payout: boolean; readonly acquiring: boolean },
  product: Product,
): void => {
  if (!products[product]) refuse(forbiddenFor({ productNotEnabled: product }));
};
