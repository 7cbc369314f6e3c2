/**
 * Live actors, for hosts that watch a machine run (the inspector, a REPL). payrail itself never
 * runs one: `start` and `decide` (effects.ts) are the way the engine moves a machine.
 */
import { Actor, type ActorOptions, type AnyStateMachine, type Snapshot } from 'xstate';

/** `createActor`'s options but the two `resumeActor` fills in. */
export type ResumeOptions<TMachine extends AnyStateMachine> = Omit<
  ActorOptions<TMachine>,
  'snapshot' | 'input'
>;

/**
 * An actor of `machine` that resumes from a persisted snapshot (start it to run it). XState's
 * `createActor` asks for `input` beside `snapshot` when the machine takes input, though a
 * resumed actor never reads it; the `Actor` it builds takes the options as they are, so this
 * builds one the same way, once, instead of a cast in every host.
 */
export const resumeActor = <TMachine extends AnyStateMachine>(
  machine: TMachine,
  snapshot: Snapshot<unknown>,
  options: ResumeOptions<TMachine> = {},
): Actor<TMachine> => new Actor(machine, { ...options, snapshot });
