/** What the merchant and the operator authentication share. */
import type { Context } from 'hono';
import type { AuthenticationLimitEnv } from './address-limit.middleware.js';
import type { RequestIdEnv } from './request-id.middleware.js';

/** What an authentication reads of the request before it: its id, its address's budget. */
export type AuthenticationVariables = AuthenticationLimitEnv['Variables'] &
  RequestIdEnv['Variables'];

/** The credential of `Authorization: Bearer <credential>`; another scheme, or none, is none. */
export const bearerCredential = (c: Context): string | undefined =>
  /^Bearer +(\S+) *$/i.exec(c.req.header('Authorization') ?? '')?.[1];
