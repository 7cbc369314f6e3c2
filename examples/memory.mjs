// payrail embedded on the in-memory store: nothing to set up, nothing kept.
// Run: node examples/memory.mjs (in a project that installed @payrail/server and
// @payrail/store-memory).
import { createMemoryStore } from '@payrail/store-memory';
import { runWalkthrough } from './shared/walkthrough.mjs';

await runWalkthrough(createMemoryStore());
