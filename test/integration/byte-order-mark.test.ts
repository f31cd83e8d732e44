/**
 * Text that starts with a UTF-8 byte order mark is read as its text without the mark: an Events API
 * body (a proxy or a service that writes one) lands its events instead of failing as not JSON on
 * every run, and a `.env` file or config file saved by an editor that writes one keeps its first
 * variable or parses at all.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig, readDotEnv } from '../../src/config.js';
import { startStubFeedSync, syncThroughStub, type StubFeedSync } from '../helpers/stub-feed.js';

const BOM = '\uFEFF';
const GROUP_ID = '6a0000000000000000000943';
const GROUP = `group:${GROUP_ID}`;
const created = (secondsAgo: number) => new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000).toISOString();
const EVENTS = [1, 2, 3].map((n) => ({
  id: `64cc0000000000000000000${n}`,
  created: created(600 + n),
  eventTypeName: 'JOINED_GROUP',
  groupId: GROUP_ID,
}));

describe('an Events API body that starts with a byte order mark', () => {
  let stub: StubFeedSync | undefined;
  afterAll(async () => stub?.close());

  it('lands its events', async () => {
    stub = await startStubFeedSync(
      'postgres',
      [GROUP],
      () => EVENTS,
      {},
      (results) => `${BOM}${JSON.stringify({ links: [], results, totalCount: results.length })}`,
    );
    const result = await syncThroughStub(stub, GROUP);
    expect(result.status, String(result.error)).toBe('succeeded');
    const rows = await stub.runtime.warehouse.db.selectFrom('events').select('id').orderBy('id').execute();
    expect(rows.map((row) => row.id)).toEqual(EVENTS.map((event) => event.id));
  });
});

describe('files that start with a byte order mark', () => {
  const dirs: string[] = [];
  const dirWith = (name: string, text: string): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'em-bom-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, name), text, 'utf8');
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a .env keeps its first variable', () => {
    const dir = dirWith('.env', `${BOM}EVENTS_SCOPES=${GROUP}\nLOG_LEVEL=debug\n`);
    expect(readDotEnv(dir)).toEqual({ EVENTS_SCOPES: GROUP, LOG_LEVEL: 'debug' });
  });

  it('a config file parses', () => {
    const dir = dirWith('bom.json', `${BOM}${JSON.stringify({ api: { itemsPerPage: 123 } })}`);
    const config = loadConfig({ env: { EVENTS_MIRROR_CONFIG: path.join(dir, 'bom.json') } });
    expect(config.api.itemsPerPage).toBe(123);
  });
});
