/**
 * What the engine runs on: the store, the time, ids, and the few settings a use case needs.
 * The server builds these from configuration; tests build them with a memory store, a fixed
 * clock and counting ids.
 */
import type {
  AcquiringProvider,
  Clock,
  DepositAddressProvider,
  Environment,
  IdGenerator,
  OutboundUrlGuardPort,
  PayoutExecutor,
  Store,
} from '@payrail/core';
import type { EngineObserver } from './engine.observer.js';
import type { EngineInspector } from './inspection.observer.js';

export interface EngineSettings {
  /** The environment this process serves; a key of the other one is `api key not found`. */
  readonly environment: Environment;
  /** Where checkout pages live: an order's checkout_url is `<checkoutBaseUrl>/<order_id>`. */
  readonly checkoutBaseUrl: string;
  /** Sandbox only: http and loopback callback targets are accepted (docs/spec/decisions.md §10). */
  readonly allowInsecureWebhooks: boolean;
  /**
   * The HS256 secret that signs API key tokens (docs/spec/decisions.md §7), at least 32 bytes; the webhook and
   * notify secrets are stored sealed under a key derived from it (ADR 0041). The server generates
   * it once and keeps it with the store: changing it invalidates every issued key and leaves the
   * sealed secrets unreadable until they are rotated.
   */
  readonly keySecret: Uint8Array;
  /**
   * How long the API key check may use a key's records read earlier, in milliseconds (ADR
   * 0029); default 1000, 0 reads the store on every request. Changes made through this engine
   * apply at once; made by another process on the same store, within this time.
   */
  readonly keyCheckCacheMs?: number;
  /**
   * How long quick payouts and beneficiaries may use the payout catalogue (active networks,
   * methods, active routes) read earlier, in milliseconds (ADR 0031); default 1000, 0 reads the
   * store every time. Changes made through this engine apply at once.
   */
  readonly catalogueCacheMs?: number;
}

/** The sandbox's test clock: `/admin/sandbox/clock/advance` moves it (docs/spec/decisions.md §8). */
export interface AdjustableClock extends Clock {
  advance(seconds: number): void;
}

export interface EngineDeps {
  readonly store: Store;
  /** In the sandbox an `AdjustableClock`, so the test clock can move timers. */
  readonly clock: Clock | AdjustableClock;
  readonly ids: IdGenerator;
  readonly settings: EngineSettings;
  /**
   * Receives approved payouts (the `payout.execute` timer). Absent in the sandbox, where a payout
   * waits in approved / init for `/admin/sandbox/payouts/{payout_id}/execution` (docs/spec/decisions.md §2).
   */
  readonly payoutExecutor?: PayoutExecutor;
  /** Create-time SSRF check of notify_url and webhook urls; absent: the codecs' lexical check only. */
  readonly outboundUrlGuard?: OutboundUrlGuardPort;
  /** Providers of `POST /upstream/acquiring/{provider}`, by name; none: every name is unknown. */
  readonly acquiringProviders?: readonly AcquiringProvider[];
  /**
   * Allocates acquiring orders' deposit addresses. Default in the sandbox: addresses derived from
   * the order id (`sandboxDepositAddresses`). Live has no default: without one, creating an order
   * answers `no available pay tokens for current account`, and registering `acquiringProviders`
   * without one is refused when the engine is built.
   */
  readonly depositAddresses?: DepositAddressProvider;
  /**
   * Receives XState inspection events for every committed machine decision (actor id = the
   * payout, order or batch id), e.g. `createInspectorSender({ url }).inspect` from
   * `@payrail/server` (ADR 0049). Absent: nothing is noted, at no cost.
   */
  readonly inspect?: EngineInspector;
  /**
   * Told of units of work, committed transitions and fired timers (metrics, traces): see
   * `EngineObserver`. Absent: nothing is measured, at no cost.
   */
  readonly observer?: EngineObserver;
  /**
   * Sandbox: runs after `/admin/sandbox/clock/advance` fired the due timers, so the host's
   * background work that reads this clock (the webhook dispatcher's retries) moves too.
   */
  readonly afterClockAdvance?: () => Promise<void>;
}

/** The wall clock, in Unix seconds. */
export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

/** The wall clock plus an offset the sandbox can advance. */
export const adjustableClock = (base: Clock = systemClock): AdjustableClock => {
  let offset = 0;
  return {
    now: () => base.now() + offset,
    advance: (seconds) => {
      offset += seconds;
    },
  };
};

export const isAdjustableClock = (clock: Clock): clock is AdjustableClock =>
  typeof (clock as Partial<AdjustableClock>).advance === 'function';

/** `<prefix>_` + 24 hex digits of randomness (96 bits), from Web Crypto. */
export const randomIds: IdGenerator = {
  next: (prefix) => {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    return `${prefix}_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  },
};
