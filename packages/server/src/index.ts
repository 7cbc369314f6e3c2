/**
 * @payrail/server: the wiring. `createPayrail` embeds payrail in a host's process (a typed
 * facade, the HTTP app, the background loops); `parseConfig` reads docs/spec/decisions.md §10's environment
 * and `startPayrail` serves payrail from it; `main.ts` is `pnpm start` and `cli.ts` the
 * `payrail` command.
 */
export * from './cli-arguments.js';
export * from './cli-commands.js';
export * from './config.js';
export * from './create-payrail.js';
export * from './credentials.js';
export * from './embedded-store.js';
export * from './facade.js';
export * from './inspector-sender.js';
/** @public What `createPayrail`'s and `startPayrail`'s `log` take (ADR 0047). */
export type { LogFormat, LogLevel, PayrailLog, PayrailLogger } from './payrail-logger.js';
export * from './payrail-server.js';
export * from './timer-loop.js';
