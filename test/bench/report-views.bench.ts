/**
 * The report views on a few million events: EXPLAIN ANALYZE of a typical time-bounded query on each,
 * without and with the indexes migration 2026_11_25_133000 adds (`events (created)` and the
 * `events_per_day` day expression). Rows are generated in SQL (set-up, not measured).
 * Run: npx tsx test/bench/report-views.bench.ts
 */
import { sql, type Kysely } from 'kysely';
import { createWarehouse } from '../../src/warehouse/database.js';
import type { Database } from '../../src/warehouse/tables.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { createTestDatabase } from '../helpers/database.js';

const ROWS = 3_000_000;
const DAYS = 90;

const QUERIES: Array<[string, string]> = [
  ['events_per_day, last 7 days', `select * from events_per_day where day >= current_date - 7`],
  ['alerts, last day', `select count(*) from alerts where created >= now() - interval '1 day'`],
  [
    'actor_activity, last day by actor',
    `select actor, count(*) from actor_activity where created >= now() - interval '1 day' group by actor`,
  ],
  ['automation_config_changes, last day', `select count(*) from automation_config_changes where created >= now() - interval '1 day'`],
];

async function explain(db: Kysely<Database>, query: string): Promise<{ plan: string; ms: number }> {
  const { rows } = await sql<{ 'QUERY PLAN': string }>`explain (analyze, costs off) ${sql.raw(query)}`.execute(db);
  const lines = rows.map((row) => row['QUERY PLAN']);
  const ms = Number(/Execution Time: ([\d.]+) ms/.exec(lines.at(-1) ?? '')?.[1] ?? NaN);
  const scans = lines
    .filter((line) => /Scan/.test(line))
    .map((line) =>
      line
        .trim()
        .replace(/^->\s*/, '')
        .replace(/\s*\(actual.*$/, ''),
    );
  return { plan: [...new Set(scans)].join('; '), ms };
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const warehouse = await createWarehouse({ url: database.url, schema: 'events_mirror', dataDir: 'unused' });
  try {
    await migrateToLatest(warehouse);
    const started = Date.now();
    await sql`
      insert into events (id, scope, group_id, created, event_type_name, username, alert_id, metric_name, payload, ingested_at, updated_at)
      select lpad(to_hex(g), 24, '0'), 'group:g' || (g % 20), 'g' || (g % 20),
             now() - (g * (${DAYS} * 86400.0 / ${ROWS})) * interval '1 second',
             (array['OUTSIDE_METRIC_THRESHOLD','JOINED_GROUP','AUTOMATION_CONFIG_PUBLISHED_AUDIT','DATA_EXPLORER','HOST_UP','API_KEY_CREATED','CLUSTER_READY','USER_LOGIN','BACKUP_DONE','INVOICE_CLOSED'])[g % 10 + 1],
             case when g % 3 = 0 then 'user' || (g % 500) || '@example.com' end,
             case when g % 10 = 0 then lpad(to_hex(g / 10), 24, '0') end,
             case when g % 10 = 0 then 'CONNECTIONS' end,
             case when g % 10 = 2 then jsonb_build_object('id', g, 'diffs', jsonb_build_array(jsonb_build_object('type', 'PROCESS', 'status', 'MODIFIED', 'name', 'p' || g)))
                  else jsonb_build_object('id', g) end,
             now(), now()
      from generate_series(1, ${ROWS}) as g`.execute(warehouse.db);
    await sql`analyze events`.execute(warehouse.db);
    process.stdout.write(
      `report-views: ${ROWS.toLocaleString('en-US')} events over ${DAYS} days loaded in ${Math.round((Date.now() - started) / 1000)} s\n`,
    );

    const measure = async () => {
      const out: Array<{ plan: string; ms: number }> = [];
      for (const [, query] of QUERIES) {
        await explain(warehouse.db, query); // warm the cache
        out.push(await explain(warehouse.db, query));
      }
      return out;
    };
    const withIndexes = await measure();
    await sql`drop index events_created_idx`.execute(warehouse.db);
    await sql`drop index events_day_idx`.execute(warehouse.db);
    const without = await measure();
    QUERIES.forEach(([name], i) => {
      process.stdout.write(
        `${name}:\n  without the indexes: ${without[i]!.ms.toFixed(1)} ms — ${without[i]!.plan}\n  with them:           ${withIndexes[i]!.ms.toFixed(1)} ms — ${withIndexes[i]!.plan}\n`,
      );
    });
  } finally {
    await warehouse.close();
    await database.drop();
  }
}

await main();
