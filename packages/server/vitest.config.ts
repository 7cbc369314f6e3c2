import { defineConfig } from 'vitest/config';
import { packageTests } from '../../vitest.shared.js';

// No fast-check settings file: the server's few properties (the host examples of
// docs/testing.md) set their own number of runs or take fast-check's 100.
export default defineConfig(packageTests({ setupFiles: [] }));
