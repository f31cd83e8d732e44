/**
 * `events-mirror emulator --projects N`: an organization of N generated projects, their events made
 * when first read, so a 10,000-project organization of 10,000 events each (a hundred million events if
 * made at start) starts at once and costs memory only for the projects read. Checked on a real
 * emulator process over HTTP: the export line (organizations, discovery on), the organization's
 * listing of every project, one project's events, and the process's memory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventsClient } from '../../src/api/client.js';
import { parseScope } from '../../src/scope.js';
import { cliNodeArgs } from '../helpers/cli.js';

const PROJECTS = 10_000;
const EVENTS_PER_SCOPE = 10_000;

let child: ChildProcess;
let vars: Record<string, string>;

function rssMb(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [
      ...cliNodeArgs(),
      'emulator',
      '--port',
      '0',
      '--org',
      'fleetorg',
      '--projects',
      String(PROJECTS),
      '--events-per-scope',
      String(EVENTS_PER_SCOPE),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, LOG_LEVEL: 'warn' } },
  );
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const deadline = Date.now() + 50_000;
  while (!stdout.includes('\n') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  const line = stdout.split('\n')[0]!;
  expect(line).toMatch(
    /^export EVENTS_API_BASE_URL=\S+ EVENTS_API_PUBLIC_KEY=\S+ EVENTS_API_PRIVATE_KEY=\S+ EVENTS_SCOPES=org:fleetorg EVENTS_DISCOVER_PROJECTS=true$/,
  );
  vars = Object.fromEntries(
    line
      .replace(/^export /, '')
      .split(' ')
      .map((pair) => pair.split('=') as [string, string]),
  );
}, 60_000);

afterAll(() => {
  child?.kill('SIGKILL');
});

describe('emulator --projects', () => {
  it('lists every project of the organization and serves a project’s events, holding only what was read', async () => {
    const client = new EventsClient({
      baseUrl: vars.EVENTS_API_BASE_URL!,
      publicKey: vars.EVENTS_API_PUBLIC_KEY!,
      privateKey: vars.EVENTS_API_PRIVATE_KEY!,
    });
    try {
      const { projects, skipped } = await client.listProjects(parseScope('org:fleetorg'));
      expect(skipped).toEqual([]);
      expect(new Set(projects.map((p) => p.id)).size).toBe(PROJECTS);
      const page = await client.listEvents(parseScope(`group:${projects[1234]!.id}`), { itemsPerPage: 500 });
      expect(page.totalCount).toBeGreaterThan(EVENTS_PER_SCOPE * 0.9);
      expect(page.events.length + page.rejected.length).toBe(500);
    } finally {
      await client.close();
    }
    // Ten million events made at start would be gigabytes; a project's worth is nothing.
    expect(rssMb(child.pid!)).toBeLessThan(400);
  });
});
