/**
 * Rows per second for upserting 500-event pages into PostgreSQL: new events, and the same events
 * again (already present, unchanged), beside a COPY of the same rows into an identical table
 * (same columns, indexes and defaults) as the physical reference. Fresh database; 127.0.0.1 only.
 * Run: npx tsx test/bench/warehouse-upsert.bench.ts
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { parseScope } from '../../src/scope.js';
import { createWarehouse } from '../../src/warehouse/database.js';
import { eventRowValues } from '../../src/warehouse/event-row.js';
import { upsertEvents } from '../../src/warehouse/events.repository.js';
import { migrateToLatest } from '../../src/warehouse/migrator.js';
import { syntheticEvents } from '../fixtures/events.js';
import { createTestDatabase } from '../helpers/database.js';
import { COPY_ROW_COLUMNS, copyRows } from '../../src/warehouse/copy-text.js';

const PAGE = 500;
const PAGES = 20;
const ROUNDS = 5;
const SCOPE = 'group:5f1a0000000000000000000a';
const SCHEMA = 'events_mirror';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (value: number) => Math.round(value).toLocaleString('en-US');

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const warehouse = await createWarehouse({ url: database.url, schema: SCHEMA, dataDir: 'unused', poolSize: 2 });
  const copyClient = new pg.Client({ connectionString: database.url });
  try {
    await migrateToLatest(warehouse);
    await sql`create table events_copy (like events including all)`.execute(warehouse.db);
    await copyClient.connect();
    const scope = parseScope(SCOPE);
    const results = { inserted: [] as number[], present: [] as number[], copy: [] as number[], ratio: [] as number[] };

    for (let round = 0; round < ROUNDS; round += 1) {
      const events = syntheticEvents(`r${round}`, PAGE * PAGES);
      const pages = Array.from({ length: PAGES }, (_, n) => events.slice(n * PAGE, (n + 1) * PAGE));
      const now = new Date();
      const copyPages = pages.map((page) =>
        copyRows(
          page.map((e) => eventRowValues(scope, e)),
          now.toISOString(),
        ),
      );
      await sql`truncate events, events_copy`.execute(warehouse.db);
      await sql`vacuum analyze events`.execute(warehouse.db);

      // Page by page, COPY and upsert alternate so load from elsewhere on the machine hits both alike.
      let copyMs = 0;
      let insertMs = 0;
      let inserted = 0;
      for (const [n, page] of pages.entries()) {
        let started = performance.now();
        await pipeline(
          Readable.from([copyPages[n]!]),
          copyClient.query(copyFrom(`COPY "${SCHEMA}".events_copy (${COPY_ROW_COLUMNS.map((c) => `"${c}"`).join(', ')}) FROM STDIN`)),
        );
        copyMs += performance.now() - started;
        started = performance.now();
        inserted += (await upsertEvents(warehouse.db, SCOPE, page, now)).inserted;
        insertMs += performance.now() - started;
      }
      const started = performance.now();
      let unchanged = 0;
      for (const page of pages) unchanged += (await upsertEvents(warehouse.db, SCOPE, page, now)).unchanged;
      const presentMs = performance.now() - started;
      results.copy.push(events.length / (copyMs / 1000));
      results.inserted.push(events.length / (insertMs / 1000));
      results.present.push(events.length / (presentMs / 1000));
      results.ratio.push(copyMs / insertMs);

      if (inserted !== events.length || unchanged !== events.length) {
        throw new Error(`round ${round}: expected ${events.length} inserted then unchanged, got ${inserted} and ${unchanged}`);
      }
    }

    const copy = median(results.copy);
    const inserted = median(results.inserted);
    const present = median(results.present);
    const ratio = median(results.ratio);
    console.log(`${PAGES} pages x ${PAGE} events, ${ROUNDS} rounds, median (ratio: median of per-round ratios):`);
    console.log(`  COPY (reference)             ${fmt(copy)} rows/s`);
    console.log(`  upsert, new events           ${fmt(inserted)} rows/s  (${ratio.toFixed(2)} x COPY; target >= 0.50)`);
    console.log(`  upsert, already present      ${fmt(present)} rows/s  (${(present / copy).toFixed(2)} x COPY)`);
    console.log(
      `warehouse-upsert: new ${fmt(inserted)} rows/s, present ${fmt(present)} rows/s, COPY ${fmt(copy)} rows/s, new/COPY ${ratio.toFixed(2)}`,
    );
  } finally {
    await copyClient.end().catch(() => undefined);
    await warehouse.close();
    await database.drop();
  }
}

await main();
