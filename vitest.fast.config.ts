/** `npm run test:fast`: the suite without its slowest files (test/helpers/slowest-first.ts), for the edit-test loop. */
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';
import { SLOW_TEST_FILES } from './test/helpers/slowest-first.js';

export default mergeConfig(base, defineConfig({ test: { exclude: [...configDefaults.exclude, ...SLOW_TEST_FILES] } }));
