import { defineConfig } from 'vitest/config';
import { packageTests } from '../../vitest.shared.js';

// The client's tests draw no property, so they need no fast-check settings.
export default defineConfig(packageTests({ setupFiles: [] }));
