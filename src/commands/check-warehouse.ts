/**
 * `check`'s warehouse part: reachable, migrated, and (PostgreSQL) the role holds every privilege
 * a sync uses. It changes nothing: no migration runs, and an embedded warehouse not yet created is
 * not created.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { errorMessage } from '../errors.js';
import type { CheckResult } from '../report/check-report.js';
import { createWarehouse, describeUrl, type Warehouse } from '../warehouse/database.js';
import { assertMigrated } from '../warehouse/migrator.js';
import { missingPrivileges } from '../warehouse/privileges.repository.js';

const SUBJECT = 'warehouse';
const CONNECT_TIMEOUT_MS = 5_000;
const QUERY_TIMEOUT_MS = 10_000;

export async function checkWarehouse(config: Config): Promise<CheckResult> {
  const { url, schema, dataDir } = config.database;
  const embeddedAt = path.resolve(dataDir, 'pglite');
  if (!url && !existsSync(embeddedAt)) {
    return {
      subject: SUBJECT,
      outcome: 'ok',
      detail: `embedded, at ${embeddedAt}: not created yet; the first sync creates and migrates it`,
    };
  }
  const where = url ? `${describeUrl(url)}, schema ${schema}` : `embedded, at ${embeddedAt}`;
  let warehouse: Warehouse;
  try {
    warehouse = await createWarehouse({
      ...(url ? { url } : {}),
      schema,
      dataDir,
      poolSize: 1,
      deadlines: { connectTimeoutMs: CONNECT_TIMEOUT_MS, queryTimeoutMs: QUERY_TIMEOUT_MS },
    });
  } catch (error) {
    const inUse = (error as { code?: string }).code === 'WAREHOUSE_IN_USE';
    return { subject: SUBJECT, outcome: inUse ? 'skipped' : 'problem', detail: errorMessage(error) };
  }
  try {
    try {
      await assertMigrated(warehouse);
    } catch (error) {
      const fix = url ? '' : ' (or let the next sync migrate it)';
      return { subject: SUBJECT, outcome: 'problem', detail: `${errorMessage(error)}${fix}` };
    }
    if (!url) return { subject: SUBJECT, outcome: 'ok', detail: `${where}: migrated` };
    const { role, missing } = await missingPrivileges(warehouse);
    if (missing.length === 0)
      return { subject: SUBJECT, outcome: 'ok', detail: `${where}: reachable, migrated, role ${role} may read and write` };
    const lacks = missing.map((m) => `${m.privilege} on ${m.object}`);
    const shown = lacks.length > 6 ? [...lacks.slice(0, 6), `${lacks.length - 6} more`] : lacks;
    return {
      subject: SUBJECT,
      outcome: 'problem',
      detail:
        `${where}: role ${role} lacks ${shown.join(', ')}: as the schema's owner, run ` +
        `GRANT USAGE ON SCHEMA ${schema} TO ${role}; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}; ` +
        `GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`,
    };
  } catch (error) {
    return { subject: SUBJECT, outcome: 'problem', detail: `${where}: ${errorMessage(error)}` };
  } finally {
    await warehouse.close();
  }
}
