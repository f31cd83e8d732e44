import { configDefaults, defineConfig } from 'vitest/config';
import { SLOW_TEST_FILES, SlowestFirst } from './test/helpers/slowest-first.js';

const TEST_FILES = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];
// What both projects share. The projects do not extend this config: an inherited globalSetup would
// run once more for each of them (vitest runs the root's and each project's own).
const SHARED = { pool: 'forks', testTimeout: 60_000, hookTimeout: 60_000, env: { NODE_ENV: 'test' } } as const;

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // Most files wait on servers, child processes and timers rather than compute, so more files run
    // at once than there are cores (vitest's default on 2 cores is one at a time).
    maxWorkers: 4,
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        // The unit tests and the quick integration tests (`npm run test:fast` runs these alone). They
        // share one module cache per worker: loading the same modules again for each file was most of
        // their time. Each of them cleans up after itself; shown over many runs of test:fast.
        test: { ...SHARED, name: 'quick', include: TEST_FILES, exclude: [...configDefaults.exclude, ...SLOW_TEST_FILES], isolate: false },
      },
      {
        // Child processes, signals, restarts and servers of their own: each file in a process of its own.
        test: { ...SHARED, name: 'slow', include: [...SLOW_TEST_FILES] },
      },
    ],
  },
});
