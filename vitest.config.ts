import { defineConfig } from 'vitest/config';
import { SlowestFirst } from './test/helpers/slowest-first.js';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Most files wait on servers, child processes and timers rather than compute, so more files run
    // at once than there are cores (vitest's default on 2 cores is one at a time).
    maxWorkers: 4,
    sequence: { sequencer: SlowestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { NODE_ENV: 'test' },
  },
});
