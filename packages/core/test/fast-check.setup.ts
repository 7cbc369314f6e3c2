import fc from 'fast-check';

// Every property runs at least 1000 times unless FC_NUM_RUNS says otherwise (a quick local loop
// may lower it; CI never does). fast-check prints the seed and path of any failure, and FC_SEED
// replays one.
const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);
const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
fc.configureGlobal({ numRuns, ...(seed === undefined ? {} : { seed }), verbose: 1 });
