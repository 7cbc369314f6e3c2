/**
 * The records an admin use case names in its path. They are the operator's to name: an unknown
 * one is a 404 of the path, never the 401 of a merchant's credential.
 */
import { payrailError, type StoreTransaction } from '@payrail/core';
import { refuse } from '../command/command.handler.js';

export const accountInPath = async (tx: StoreTransaction, accountId: string) =>
  // Always the account in the path (docs/spec/decisions.md §1: 404), never the credential's.
  (await tx.accounts.get(accountId)) ?? refuse(payrailError('account_id_not_found'));

export const apiKeyInPath = async (tx: StoreTransaction, keyId: string) => {
  const key = await tx.apiKeys.get(keyId);
  return key === undefined || key.status === 'deleted'
    ? // The key in the path, not a credential: 404, not `api key not found` (401).
      refuse(payrailError('key_id_not_found'))
    : key;
};
