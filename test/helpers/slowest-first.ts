/**
 * The order the suite's files start in: the slowest first, so the run does not end on one long file
 * while the other workers sit idle. SLOW_TEST_FILES are the files that run real processes for long
 * (workers and schedulers through partitions and restarts, npm ci in a clone, nested vitest runs,
 * Prometheus, Chromium, PGlite), slowest first; re-order them from a whole run's per-file durations
 * (`npx vitest run --reporter=json --outputFile=durations.json`). `npm run test:fast` leaves them
 * out. Files not listed follow in vitest's own order (last run's durations when it has them,
 * else the largest file first).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOW_TEST_FILES: readonly string[] = [
  'test/integration/silent-network-e2e.test.ts',
  'test/integration/quick-start.test.ts',
  'test/integration/test-services.test.ts',
  'test/integration/cli-errors.test.ts',
  'test/integration/silent-network-deadlines.test.ts',
  'test/integration/queue-postgres-restart.test.ts',
  'test/integration/queue-config-change.test.ts',
  'test/integration/discovery.test.ts',
  'test/integration/queue-processes.test.ts',
  'test/integration/queue-shutdown.test.ts',
  'test/integration/html-report.test.ts',
  'test/integration/demo.test.ts',
  'test/integration/prometheus-rules-and-dashboard.test.ts',
  'test/integration/credentials.test.ts',
  'test/integration/warehouse-repositories.test.ts',
  'test/integration/warehouse-migrations.test.ts',
  'test/integration/reconcile-scheduled.test.ts',
  'test/integration/schema-changes.test.ts',
  'test/integration/stop-while-waiting-for-redis.test.ts',
  'test/integration/sync-live.test.ts',
  'test/integration/embedded-warehouse-lock.test.ts',
  'test/integration/sync-crash.test.ts',
];

export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = SLOW_TEST_FILES.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index === -1 ? SLOW_TEST_FILES.length : index;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((spec, position) => ({ spec, position }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.position - b.position)
      .map(({ spec }) => spec);
  }
}
