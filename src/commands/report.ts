/** `events-mirror report --html FILE`: a self-contained HTML report with charts, from the warehouse. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { renderHtmlReport } from '../report/html-report.js';
import { loadReportData } from '../report/report-data.js';
import type { Scope } from '../scope.js';
import { openWarehouse } from '../sync/runtime.js';
import type { Warehouse } from '../warehouse/database.js';
import { EXIT_OK, action, createContext } from './context.js';
import { collectScopes, positiveInt } from './options.js';

interface ReportFlags {
  days: number;
  scope?: Scope[];
  html: string;
}

/** Writes the report of the last `days` days for `scopes` (empty: all) to `file`; returns its absolute path. */
export async function writeHtmlReport(
  warehouse: Warehouse,
  file: string,
  days: number,
  scopes: readonly string[],
  now = new Date(),
): Promise<string> {
  const data = await loadReportData(warehouse.db, { since: new Date(now.getTime() - days * 86_400_000), until: now, scopes });
  const html = await renderHtmlReport(data, now);
  const target = path.resolve(file);
  try {
    writeFileSync(target, html);
  } catch (error) {
    throw new ConfigError(
      `report file ${target} cannot be written (${(error as Error).message}): give --html a path in a directory that exists and is writable`,
      {
        cause: error,
      },
    );
  }
  return target;
}

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description('a self-contained HTML report with charts: events per day, alert episodes, top actors, security changes, sync lag')
    .requiredOption('--html <file>', 'write the report to this file (one HTML file, opens without a network)')
    .option('--days <n>', 'report on events created in the last N days', positiveInt, 14)
    .option('--scope <scope>', 'only this scope (repeatable, or a comma list); default: every scope in the warehouse', collectScopes)
    .action(
      action(async (flags: ReportFlags) => {
        const { config, logger } = createContext({ logFd: 2 });
        const warehouse = await openWarehouse(config, logger);
        try {
          const written = await writeHtmlReport(
            warehouse,
            flags.html,
            flags.days,
            (flags.scope ?? []).map((s) => s.key),
          );
          process.stdout.write(`report written to ${written}\n`);
          return EXIT_OK;
        } finally {
          await warehouse.close();
        }
      }),
    );
}
