import { configDefaults, defineConfig } from 'vitest/config';
import { SLOW_TEST_FILES, SlowestFirst } from './test/helpers/slowest-first.js';

const TEST_FILES = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];
// What both projects share. The projects do not extend this config: an inherited globalSetup would
// run once more for each of them (vitest runs the root's and each project's own). A worker's files
// share its module cache (isolate: false): loading the same code again for each file cost the quick
// files most of their time (78 s against 48 s), and the whole run 75 CPU-s (2-core machine,
// 2026-11-27: 528 s and 822 CPU-s against 564 s and 897). No test file changes the process's global
// state (environment, working directory, signal handlers); one that must would need a project of
// its own with isolate on.
const SHARED = { pool: 'forks', isolate: false, testTimeout: 60_000, hookTimeout: 60_000, env: { NODE_ENV: 'test' } } as const;

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // Three files at a time on 2 cores: the two files that start first wait on partitions and token
    // buckets for 70-85 s and use little CPU, so a third keeps the cores busy; a fourth only adds
    // contention. Whole runs back to back on the same machine (2026-11-27): 3 at a time 352 s and
    // 556 CPU-s, 4 at a time 384 s and 669 CPU-s, 5 at a time 396 s and 698 CPU-s; on a slower
    // machine, with the files sharing their worker's modules, 3 at a time 548 s and 839 CPU-s, 4 at
    // a time 547 s and 877 CPU-s.
    maxWorkers: 3,
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        // The unit tests and the quick integration tests (`npm run test:fast` runs these alone).
        test: { ...SHARED, name: 'quick', include: TEST_FILES, exclude: [...configDefaults.exclude, ...SLOW_TEST_FILES] },
      },
      {
        // Child processes, signals, restarts and servers of their own.
        test: { ...SHARED, name: 'slow', include: [...SLOW_TEST_FILES] },
      },
    ],
  },
});
