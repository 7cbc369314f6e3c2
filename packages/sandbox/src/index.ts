/**
 * @payrail/sandbox: what the sandbox needs beyond the engine. Today the built-in `sandbox`
 * acquiring provider of `POST /upstream/acquiring/sandbox` and how its reports are signed
 * (`signSandboxUpstream`); the sandbox payout executor and the test clock stay in the engine
 * and its admin API (docs/spec/decisions.md §8).
 */
export * from './sandbox-acquiring.provider.js';
export {
  generateSandboxUpstreamSecret,
  isSandboxUpstreamSecret,
  signSandboxUpstream,
} from './sandbox-upstream-signature.js';
