/** `npm run test:fast`: the suite without its slowest files (test/helpers/slowest-first.ts), for the edit-test loop. */
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';
import { SLOW_TEST_FILES } from './test/helpers/slowest-first.js';

// One module cache per worker instead of one per file: the files here import much the same code,
// and loading it again for each was most of the run (78 s with, 48 s without, on a 2-core machine).
// `npm test` keeps each file apart.
export default mergeConfig(base, defineConfig({ test: { isolate: false, exclude: [...configDefaults.exclude, ...SLOW_TEST_FILES] } }));
