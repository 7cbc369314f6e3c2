import { defineConfig } from 'vitest/config';
import { packageTests } from '../../vitest.shared.js';

export default defineConfig(packageTests());
