/** `events-mirror demo`'s work, loaded when the command runs: demo.ts defines its flags. */
import path from 'node:path';
import cliProgress from 'cli-progress';
import { runDemo } from '../demo/run-demo.js';
import { renderDemoReport } from '../report/demo-report.js';
import { plural } from '../report/shorten.js';
import { createLogger } from '../logger.js';
import { loadConfig } from '../config.js';
import { EXIT_FAILURE, EXIT_OK, logLevelFor } from './context.js';
import { writeHtmlReport } from './report-run.js';

export interface DemoFlags {
  eventsPerScope: number;
  days: number;
}

const NEXT_STEPS = `
Point it at a real account:
  export EVENTS_API_BASE_URL=https://cloud.mongodb.com/api/public/v1.0
  export EVENTS_API_PUBLIC_KEY=<public key>  EVENTS_API_PRIVATE_KEY=<private key>
  export EVENTS_SCOPES=org:<orgId>,group:<projectId>
  export DATABASE_URL=postgres://user@host:5432/warehouse   # unset: embedded warehouse under ./data
  npx events-mirror migrate && npx events-mirror sync --once
`;

/** How to look at the demo's warehouse with the ordinary commands. */
function lookAround(dataDir: string): string {
  return `
Look around the demo's warehouse with the ordinary commands:
  EVENTS_MIRROR_DATA_DIR=${dataDir} npx events-mirror status
  EVENTS_MIRROR_DATA_DIR=${dataDir} npx events-mirror report
`;
}

export async function runDemoCommand(flags: DemoFlags): Promise<number> {
  const config = loadConfig();
  const logger = createLogger({ level: logLevelFor(config, true), fd: 2 });
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        { format: 'mirroring [{bar}] {value}/{total} events', stream: process.stderr },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let barStarted = false;
  process.stdout.write('Starting the emulator (one organization, three projects) and an embedded warehouse…\n');
  const demo = await runDemo({
    eventsPerScope: flags.eventsPerScope,
    days: flags.days,
    dataDir: config.database.dataDir,
    schema: config.database.schema,
    logger,
    onProgress: (landed, total) => {
      if (!bar) return;
      if (!barStarted) bar.start(total, 0);
      barStarted = true;
      bar.update(Math.min(landed, total));
    },
  });
  if (barStarted) bar?.stop();
  try {
    process.stdout.write(`Synced ${plural(demo.results.length, 'scope')} in ${demo.seconds.toFixed(1)} s into ${demo.warehouseDir}\n\n`);
    process.stdout.write(await renderDemoReport(demo.warehouse.db, new Date()));
    // The second half of the history, so its key figures have the first half to be held against.
    const reportDays = Math.max(1, Math.floor(flags.days / 2));
    const report = await writeHtmlReport(demo.warehouse, path.join(config.database.dataDir, 'demo-report.html'), reportDays, []);
    process.stdout.write(`\nThe report with charts (alert episodes, security changes, top actors, sync lag): ${report}\n`);
    const failed = demo.results.filter((r) => r.status === 'failed');
    for (const result of failed) process.stdout.write(`\n${result.scope} failed: ${String(result.error)}\n`);
    process.stdout.write(lookAround(path.relative(process.cwd(), demo.warehouseDir) || '.'));
    process.stdout.write(NEXT_STEPS);
    return failed.length === 0 ? EXIT_OK : EXIT_FAILURE;
  } finally {
    await demo.warehouse.close();
  }
}
