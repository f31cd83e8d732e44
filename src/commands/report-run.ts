/** `events-mirror report`'s work, loaded when the command runs: report.ts defines its flags. */
import type { Scope } from '../scope.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { renderDemoReport } from '../report/demo-report.js';
import { renderHtmlReport } from '../report/html-report.js';
import { loadReportData } from '../report/report-data.js';
import { openWarehouse } from '../sync/open-warehouse.js';
import type { Warehouse } from '../warehouse/database.js';
import { EXIT_OK, createContext } from './context.js';
import { requireKnownScopes } from './known-scopes.js';

export interface ReportFlags {
  days: number;
  scope?: Scope[];
  html?: string;
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

export async function runReport(flags: ReportFlags): Promise<number> {
  const { config, logger } = createContext({ logFd: 2, interactive: true });
  const warehouse = await openWarehouse(config, logger);
  try {
    await requireKnownScopes(warehouse.db, config, flags.scope ?? []);
    const scopes = (flags.scope ?? []).map((s) => s.key);
    if (!flags.html) {
      const now = new Date();
      const since = new Date(now.getTime() - flags.days * 86_400_000);
      process.stdout.write(await renderDemoReport(warehouse.db, now, { since, scopes }));
      process.stdout.write('\nWith charts: npx events-mirror report --html report.html\n');
      return EXIT_OK;
    }
    const written = await writeHtmlReport(warehouse, flags.html, flags.days, scopes);
    process.stdout.write(`report written to ${written}\n`);
    return EXIT_OK;
  } finally {
    await warehouse.close();
  }
}
