import { defineConfig } from 'vitest/config';
import { packageTests } from '../../vitest.shared.js';

export default defineConfig(
  packageTests({
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    globalSetup: ['src/stores-global-setup.test-support.ts'],
  }),
);
