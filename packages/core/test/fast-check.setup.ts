import fc from 'fast-check';

// How many times each property runs and from which seed. `pnpm test` (and so CI) sets
// FC_NUM_RUNS=100 and FC_SEED from the commit, `pnpm test:deep` 1000 runs from a new seed
// (scripts/test.mjs, docs/testing.md); a package's tests run on their own take 1000 and a new
// seed. fast-check prints the seed and path of any failure, and FC_SEED replays one.
const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);
const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
fc.configureGlobal({ numRuns, ...(seed === undefined ? {} : { seed }), verbose: 1 });
