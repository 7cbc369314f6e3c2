/**
 * The merchant's answer to `payout.verify.request` (interface, "The merchant endpoint must ...
 * answer a JSON body `{verified:boolean}`"). Only a 2xx whose body is a JSON object with a
 * boolean `verified` decides; anything else (another status, no answer, not JSON, `verified`
 * missing or not a boolean) is undecided: `null`, and the request is asked again.
 */
import type { OutboundResponse } from './http-transport.js';

export const verificationDecisionOf = (response: OutboundResponse): boolean | null => {
  if (response.statusCode === null || response.statusCode < 200 || response.statusCode > 299) {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const verified = 'verified' in parsed ? parsed.verified : undefined;
  return typeof verified === 'boolean' ? verified : null;
};
