/**
 * The order the suite's files start in: the slowest first, so the run does not end on one long file
 * while the other workers sit idle. SLOW_TEST_FILES are the files that took 5.5 s or more in a whole
 * run on a quiet 2-core machine (the clean-clone CI run of 2026-11-27, 09:00 UTC), or that start
 * Chromium, Prometheus or a server of their own: CLI children, workers and schedulers through
 * partitions and restarts, npm ci in a clone, nested vitest runs, soaks. Slowest first; re-order them
 * from a whole run's per-file durations (`npx vitest run --reporter=json --outputFile=durations.json`).
 * `npm run test:fast` leaves them out: what is left (unit tests and the quick integration tests) runs
 * in well under a minute. Those files are vitest's project `quick` (vitest.config.ts). Files not
 * listed follow in vitest's own order (last run's durations when it has them, else the largest file
 * first).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const SLOW_TEST_FILES: readonly string[] = [
  'test/integration/silent-network-e2e.test.ts',
  'test/integration/atlas-v2-token-buckets.test.ts',
  'test/integration/cli-sql.test.ts',
  'test/integration/quick-start.test.ts',
  'test/integration/installed-package.test.ts',
  'test/integration/html-report.test.ts',
  'test/integration/test-services.test.ts',
  'test/integration/silent-network-deadlines.test.ts',
  'test/integration/sync-serve-sql.test.ts',
  'test/integration/sync-serve-sql-writes.test.ts',
  'test/integration/sync-serve-sql-memory.test.ts',
  'test/integration/cli-errors.test.ts',
  'test/integration/queue-probes.test.ts',
  'test/integration/discovery.test.ts',
  'test/integration/terminal-output.test.ts',
  'test/integration/warehouse-migrations.test.ts',
  'test/integration/cli-forget.test.ts',
  'test/integration/credentials.test.ts',
  'test/integration/reconcile.test.ts',
  'test/integration/status-fleet.test.ts',
  'test/integration/queue-postgres-restart.test.ts',
  'test/integration/sync-crash.test.ts',
  'test/integration/embedded-warehouse-lock.test.ts',
  'test/integration/check-command.test.ts',
  'test/integration/terminal-screen.test.ts',
  'test/integration/queue-processes.test.ts',
  'test/integration/queue-config-change.test.ts',
  'test/integration/demo.test.ts',
  'test/integration/schema-changes.test.ts',
  'test/integration/sync-live.test.ts',
  'test/integration/secrets.test.ts',
  'test/integration/checkpoint.test.ts',
  'test/integration/reconcile-scheduled.test.ts',
  'test/integration/prometheus-rules-and-dashboard.test.ts',
  'test/integration/atlas-v2-fleet.test.ts',
  'test/integration/terminal-escapes.test.ts',
  'test/integration/queue-cli.test.ts',
  'test/integration/json-output.test.ts',
  'test/integration/cli-dotenv.test.ts',
  'test/integration/discovery-fleet.test.ts',
  'test/integration/emulator-cli.test.ts',
  'test/integration/event-type-catalog.test.ts',
  'test/integration/sync-wasm-memory.test.ts',
  'test/integration/atlas-v2-filters.test.ts',
  'test/integration/stop-while-waiting-for-redis.test.ts',
  'test/integration/queue-shutdown.test.ts',
  'test/integration/sync-backfill-cli.test.ts',
  'test/integration/atlas-v2-sync.test.ts',
  'test/integration/sync-untrusted-paging.test.ts',
  'test/integration/sync-poison-text.test.ts',
  'test/integration/sync-poison-names.test.ts',
  'test/integration/warehouse-repositories.test.ts',
  'test/integration/service-account-token-waits.test.ts',
  'test/integration/sync-deep-nesting.test.ts',
  'test/integration/idle-polls-soak.test.ts',
  'test/integration/sync-payload-escapes.test.ts',
  'test/integration/sync-faults.test.ts',
  'test/integration/sync-payload-as-received.test.ts',
  'test/integration/sync-cli-errors.test.ts',
  'test/integration/sync-paired-texts.test.ts',
  'test/integration/report-views.test.ts',
  'test/integration/sync-two-feeds.test.ts',
  'test/integration/discovery-untrusted-listing.test.ts',
  'test/integration/sync-backfill.test.ts',
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
