/** `events-mirror demo`'s work, loaded when the command runs: demo.ts defines its flags. */
import path from 'node:path';
import { runDemo } from '../demo/run-demo.js';
import { renderDemoReport } from '../report/demo-report.js';
import { plural } from '../report/shorten.js';
import { createLogger } from '../logger.js';
import { loadConfig } from '../config.js';
import { EXIT_FAILURE, EXIT_OK } from './context.js';
import { terminalProgress } from './progress.js';
import { writeHtmlReport } from './report-run.js';

export interface DemoFlags {
  eventsPerScope: number;
  days: number;
}

const NEXT_STEPS = `
Point it at a real account, into an embedded warehouse in ./data:
  export EVENTS_API_BASE_URL=https://cloud.mongodb.com/api/public/v1.0
  export EVENTS_API_PUBLIC_KEY=<public key>
  export EVENTS_API_PRIVATE_KEY=<private key>
  export EVENTS_SCOPES=org:<orgId>,group:<projectId>
  npx events-mirror check && npx events-mirror sync --once
Or into your PostgreSQL: set DATABASE_URL first, and migrate it once:
  export DATABASE_URL=postgres://user@host:5432/warehouse
  npx events-mirror migrate
`;

/**
 * How to look at the demo's warehouse with the ordinary commands. The data folder on each command,
 * not exported: the next steps below are meant for the same shell.
 */
function lookAround(dataDir: string): string {
  const env = `EVENTS_MIRROR_DATA_DIR=${dataDir}`;
  return `
Look around the demo's warehouse with the ordinary commands:
  ${env} npx events-mirror status
  ${env} npx events-mirror report
  ${env} npx events-mirror sql \\
    "select scope, reason from rejected_events"
`;
}

export async function runDemoCommand(flags: DemoFlags): Promise<number> {
  const config = loadConfig();
  // The emulator serves a few malformed events on purpose (one in 500), which the mirror sets aside
  // in rejected_events with a warning a page. The summary counts them and a line below shows how to
  // list them, so warnings print only when LOG_LEVEL asks for them.
  const logger = createLogger({ level: config.logLevel ?? 'error', fd: 2 });
  const progress = terminalProgress('mirroring [{bar}] {value}/{total} events', logger);
  process.stdout.write('Starting the emulator (one organization, three projects) and a warehouse…\n');
  const demo = await runDemo({
    eventsPerScope: flags.eventsPerScope,
    days: flags.days,
    dataDir: config.database.dataDir,
    schema: config.database.schema,
    logger,
    onProgress: (landed, total) => progress.update(landed, total),
  });
  progress.stop();
  // As the person would type it, from where they ran the demo.
  const warehouseDir = path.relative(process.cwd(), demo.warehouseDir) || '.';
  try {
    process.stdout.write(`Synced ${plural(demo.results.length, 'scope')} in ${demo.seconds.toFixed(1)} s into ${warehouseDir}\n\n`);
    process.stdout.write(await renderDemoReport(demo.warehouse.db, new Date()));
    // The second half of the history, so its key figures have the first half to be held against.
    const reportDays = Math.max(1, Math.floor(flags.days / 2));
    const report = await writeHtmlReport(demo.warehouse, path.join(config.database.dataDir, 'demo-report.html'), reportDays, []);
    process.stdout.write(`\nThe report with charts (alerts, security changes, top actors, sync lag):\n  ${report}\n`);
    const failed = demo.results.filter((r) => r.status === 'failed');
    for (const result of failed) process.stdout.write(`\n${result.scope} failed: ${String(result.error)}\n`);
    process.stdout.write(lookAround(warehouseDir));
    process.stdout.write(NEXT_STEPS);
    return failed.length === 0 ? EXIT_OK : EXIT_FAILURE;
  } finally {
    await demo.warehouse.close();
  }
}
