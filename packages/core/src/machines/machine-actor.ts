/**
 * Live actors, for hosts that watch a machine run (the inspector, a REPL). payrail itself never
 * runs one: `start` and `decide` (effects.ts) are the way the engine moves a machine.
 */
import {
  type Actor,
  type ActorOptions,
  type AnyStateMachine,
  createActor,
  type Snapshot,
} from 'xstate';

/** `createActor`'s options but the two `resumeActor` fills in. */
export type ResumeOptions<TMachine extends AnyStateMachine> = Omit<
  ActorOptions<TMachine>,
  'snapshot' | 'input'
>;

/**
 * An actor of `machine` that resumes from a persisted snapshot (start it to run it). XState's
 * types ask for `input` beside `snapshot` when the machine takes input, though a resumed actor
 * never reads it; this says it once, instead of a cast in every host.
 */
export const resumeActor = <TMachine extends AnyStateMachine>(
  machine: TMachine,
  snapshot: Snapshot<unknown>,
  options: ResumeOptions<TMachine> = {},
): Actor<TMachine> => {
  const anyMachine: AnyStateMachine = machine;
  return createActor(anyMachine, { ...options, snapshot }) as Actor<TMachine>;
};
