import { defineConfig } from 'vitest/config';
import { packageTests } from '../../vitest.shared.js';

// The simulation draws its own seeds (src/prng.ts): no fast-check settings. A CI run of the
// seeds takes minutes, so its test gets 10.
export default defineConfig(packageTests({ setupFiles: [], testTimeout: 600_000 }));
