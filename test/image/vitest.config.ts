import { defineConfig } from 'vitest/config';

// `npm run test:image` (test/image/run.sh): the container image, built and run with podman. Not part
// of `npm test`: it needs podman and a base image, and builds for minutes.
export default defineConfig({
  test: {
    include: ['test/image/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 300_000,
    hookTimeout: 900_000,
    env: { NODE_ENV: 'test' },
  },
});
