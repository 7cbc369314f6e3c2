/**
 * The registry of acquiring providers (`EngineDeps.acquiringProviders`) and the source check of
 * their calls. A provider is known by its exact name; each one lists the addresses it calls from.
 */
import { type AcquiringProvider, isIpAllowed } from '@payrail/core';

/** Looks a provider up by the `{provider}` path segment. */
export type ProviderLookup = (name: string) => AcquiringProvider | undefined;

/**
 * The providers by name. Two providers with one name are a wiring mistake, refused when the
 * engine is built rather than answered by whichever came first.
 */
export const acquiringProviderLookup = (
  providers: readonly AcquiringProvider[] = [],
): ProviderLookup => {
  const byName = new Map<string, AcquiringProvider>();
  for (const provider of providers) {
    if (byName.has(provider.name)) {
      throw new Error(`two acquiring providers are named ${JSON.stringify(provider.name)}`);
    }
    byName.set(provider.name, provider);
  }
  return (name) => byName.get(name);
};

/**
 * Whether a call from `ip` may speak for the provider. Unlike an API key's whitelist, an empty
 * list allows nobody: a provider whose sources were not configured is shut, not open. The
 * address is read by the core's `ip-ranges` (an IPv4-mapped IPv6 address is its IPv4 address).
 */
export const isAllowedSource = (ip: string, allowedSources: readonly string[]): boolean =>
  allowedSources.length > 0 && isIpAllowed(ip, allowedSources);
