/**
 * The caller's merchant account, read in the use case's unit of work: the product must be
 * enabled (else `forbidden`), and a frozen account may still read but not change anything
 * (`account frozen`).
 */
import { type AccountRecord, payrailError, type StoreTransaction } from '@payrail/core';
import { type Product, requireProduct } from '../access-control.js';
import type { Caller } from '../engine-api.js';
import { refuse } from '../unit-of-work.js';

export type AccountUse = 'read' | 'write';

export const merchantAccount = async (
  tx: StoreTransaction,
  caller: Caller,
  product: Product,
  use: AccountUse,
): Promise<AccountRecord> => {
  const account =
    (await tx.accounts.get(caller.account_id, caller.merchant_id)) ??
    refuse(payrailError('account_not_found'));
  if (use === 'write' && account.status === 'frozen') refuse(payrailError('account_frozen'));
  requireProduct(account.products, product);
  return account;
};
