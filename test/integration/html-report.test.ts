/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `report --html` from a warehouse mirrored over real HTTP (30 days of an organization and two of its
 * projects, discovered by name), and the demo's report, opened in a real headless browser (Debian's
 * chromium) with the network off: no console error, every chart drawn with marks in it, the tables
 * behind them; read at 1280 px and at A4 landscape print width as a reader would (readAsReader);
 * `--scope` keeps to its scopes; bad arguments print usage.
 * UPDATE_REPORT_SCREENSHOT=1 rewrites the screenshot in docs/reports.md (docs/images/report-1280.png)
 * from the demo's report.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWarehouse } from '../../src/warehouse/database.js';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { A4_LANDSCAPE_CONTENT_PX, readAsReader } from '../helpers/report-page.js';
import { startSyncFixture, type SyncFixture } from '../helpers/sync-fixture.js';

const ORG = '5f00000000000000000000e1';
const GROUPS = ['60000000000000000000e0d1', '60000000000000000000e0d2'];
const CHARTS = ['events-per-day', 'alert-episodes', 'top-actors', 'security-changes'];
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => existsSync(file));

interface Opened {
  errors: string[];
  requests: string[];
  charts: Record<string, { marks: number; width: number; height: number }>;
  tables: number;
  text: string;
}

describe('report --html', () => {
  let fixture: SyncFixture;
  let env: Record<string, string>;
  let browser: Browser;
  const dir = mkdtempSync(path.join(tmpdir(), 'events-mirror-report-'));

  beforeAll(async () => {
    if (!CHROMIUM)
      throw new Error("chromium not found in /usr/bin: install Debian's chromium (apt-get install -y chromium; .ci/run does it)");
    fixture = await startSyncFixture({ seed: 5, orgs: [ORG], groups: GROUPS, eventsPerScope: 4000, days: 30 });
    env = fixture.envWith({ sync: { initialDays: 31, discoverProjects: true } });
    const synced = await runCli(['sync', '--once'], env);
    expect(synced.code, synced.stderr).toBe(0);
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  async function open(file: string, screenshot?: string): Promise<Opened> {
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 1280, height: 900 });
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(String(error)));
      page.on('request', (request) => {
        if (request.url() !== pathToFileURL(file).href) requests.push(request.url());
      });
      await page.setOfflineMode(true);
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const found = await page.evaluate(() => {
        const charts: Record<string, { marks: number; width: number; height: number }> = {};
        for (const figure of document.querySelectorAll('figure[data-chart]')) {
          const id = figure.getAttribute('data-chart') as string;
          const svg = figure.querySelector('svg');
          if (!svg) continue;
          const box = svg.getBoundingClientRect();
          // Vega draws each mark as a path, line or text inside a role-mark group; axes and legends are not marks.
          const marks = [...svg.querySelectorAll('g.role-mark')]
            .filter((g) => !g.closest('.role-axis, .role-legend, .role-title'))
            .reduce((n, g) => n + g.querySelectorAll('path, rect, line, circle').length, 0);
          charts[id] = { marks, width: box.width, height: box.height };
        }
        return { charts, tables: document.querySelectorAll('table tbody tr').length, text: document.body.innerText };
      });
      if (screenshot) {
        // The top of the page, down to the end of the alert chart: the summary and the two busiest
        // charts, in a PNG small enough for the docs (the whole page is about 900 KB).
        const bottom = await page.$eval('figure[data-chart="alert-episodes"]', (e) => e.getBoundingClientRect().bottom + window.scrollY);
        await page.screenshot({ path: screenshot as `${string}.png`, clip: { x: 0, y: 0, width: 1280, height: Math.ceil(bottom) + 16 } });
      }
      return { errors, requests, ...found };
    } finally {
      await page.close();
    }
  }

  it('draws every chart with marks, shows the tables, and needs no network', async () => {
    const file = path.join(dir, 'report.html');
    const result = await runCli(['report', '--days', '15', '--html', file], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`report written to ${file}\n`);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);

    const opened = await open(file);
    expect(opened.errors).toEqual([]);
    expect(opened.requests).toEqual([]);
    for (const id of CHARTS) {
      expect(opened.charts[id], `chart ${id}`).toBeDefined();
      expect(opened.charts[id]!.marks, `marks in ${id}`).toBeGreaterThan(0);
      expect(opened.charts[id]!.width, `width of ${id}`).toBeGreaterThan(200);
    }
    // One bar per alert episode the table counts, and the lag chart one per scope.
    const count = (text: string | undefined) => Number(text?.replaceAll(',', ''));
    const openedInPeriod = count(/([\d,]+) alerts opened in the period/.exec(opened.text)?.[1]);
    const chartShows = /The chart shows ([\d,]+) of them/.exec(opened.text)?.[1];
    const episodes = chartShows === undefined ? openedInPeriod : count(chartShows);
    expect(episodes).toBe(Math.min(1000, openedInPeriod));
    expect(episodes).toBeGreaterThan(20);
    expect(opened.charts['alert-episodes']!.marks).toBe(episodes);
    // Every scope a few seconds behind: no lag chart, a line saying so.
    expect(opened.charts['sync-lag']).toBeUndefined();
    expect(opened.text).toMatch(/No chart: every scope is \d+ s or less behind and none is failing\./);
    expect(opened.tables).toBeGreaterThan(50);
    // Projects by name (discovered with the organization's listing), the organization by its id.
    expect(html).toContain(`title="org:${ORG}"`);
    for (const group of GROUPS) expect(opened.text).toContain(fixture.emulator.dataset.project(group)!.name);
    expect(opened.text).toMatch(/UNSUCCESSFUL_LOGIN_AUDIT|SUCCESSFUL_LOGIN_AUDIT/);
    // Values in human units; no action without a database listed as a collection.
    expect(opened.text).not.toMatch(/\d (BYTES|KILOBYTES|MEGABYTES|GIGABYTES|TERABYTES|SECONDS|HOURS|DAYS|MILLISECONDS)\b/);
    expect(opened.text).toMatch(/\d (GB|MB|KB|TB|h|min|d)\b/);
    expect(opened.text).not.toContain('(all databases)');
    // The key figures: the period's events as the events section counts them, each against the period before.
    const [, events] = /([\d,]+) events of \d+ types/.exec(opened.text) ?? [];
    expect(opened.text).toMatch(new RegExp(`^${events}\\s+events\\s+(same|new|[+−][<\\d]+ %) vs [\\d,]+ before`, 'm'));
  });

  it('reads well at 1280 px and printed on A4 landscape: 30 days of 3 scopes', async () => {
    const file = path.join(dir, 'thirty-days.html');
    const result = await runCli(['report', '--days', '30', '--html', file], env);
    expect(result.code, result.stderr).toBe(0);
    await expectReadable(browser, file);
    // Two days: the alert chart's axis counts hours, each label with its date.
    const short = path.join(dir, 'two-days.html');
    expect((await runCli(['report', '--days', '2', '--html', short], env)).code).toBe(0);
    await expectReadable(browser, short);
    expect(readFileSync(short, 'utf8')).toMatch(/>[A-Z][a-z]{2} \d\d \d\d:00</);
  });

  it('the mirrored emulator pairs into coherent alert episodes, security changes and data access', async () => {
    const warehouse = await createWarehouse({ url: fixture.database.url, schema: 'events_mirror', dataDir: 'unused' });
    try {
      const episodes = await warehouse.db.selectFrom('alert_episodes').selectAll().execute();
      expect(episodes.length).toBeGreaterThan(50);
      for (const e of episodes) {
        if (e.closed_at) expect(new Date(e.closed_at).getTime()).toBeGreaterThanOrEqual(new Date(e.opened_at).getTime());
        if (e.acknowledged_at) expect(new Date(e.acknowledged_at).getTime()).toBeGreaterThanOrEqual(new Date(e.opened_at).getTime());
      }
      expect(episodes.filter((e) => e.is_open).length).toBeGreaterThan(0);
      expect(episodes.filter((e) => !e.is_open && e.duration_seconds! > 0).length).toBeGreaterThan(episodes.length / 2);
      expect(episodes.filter((e) => e.acknowledged_at).length).toBeGreaterThan(0);
      const categories = await warehouse.db.selectFrom('security_audit').select('category').distinct().execute();
      expect(categories.map((c) => c.category).sort()).toEqual([
        'access_list',
        'api_key',
        'login',
        'membership',
        'role',
        'support_access',
        'team',
      ]);
      const access = await warehouse.db.selectFrom('data_access').select(['database', 'actor']).execute();
      expect(access.length).toBeGreaterThan(100);
      expect(access.every((a) => a.actor !== null)).toBe(true);
    } finally {
      await warehouse.close();
    }
  });

  it('--scope keeps the report to its scopes', async () => {
    const file = path.join(dir, 'one-project.html');
    const result = await runCli(['report', '--scope', `group:${GROUPS[0]}`, '--html', file], env);
    expect(result.code, result.stderr).toBe(0);
    const opened = await open(file);
    expect(opened.errors).toEqual([]);
    const html = readFileSync(file, 'utf8');
    const [shown, other] = GROUPS.map((g) => fixture.emulator.dataset.project(g)!.name);
    expect(opened.text).toContain(`scopes ${shown}`);
    if (other !== shown) expect(opened.text).not.toContain(other);
    expect(html).not.toContain(`org:${ORG}`);
    expect(html).toContain(`title="group:${GROUPS[0]}"`);
    // A project has no security changes of the organization's kinds (logins), only its own.
    expect(opened.text).not.toContain('SUCCESSFUL_LOGIN_AUDIT');
  });

  it('the demo writes a report that reads well at 1280 px and printed on A4 landscape', async () => {
    const dataDir = path.join(dir, 'demo-data');
    const demo = await runCli(['demo'], { EVENTS_MIRROR_DATA_DIR: dataDir }, dir);
    expect(demo.code, demo.stderr).toBe(0);
    const file = path.join(dataDir, 'demo-report.html');
    await expectReadable(browser, file);
    const screenshot = screenshotPath();
    const opened = await open(file, screenshot);
    expect(opened.errors).toEqual([]);
    expect(statSync(screenshot).size).toBeLessThan(500_000);
    for (const id of CHARTS) expect(opened.charts[id]!.marks, `marks in ${id}`).toBeGreaterThan(0);
  }, 120_000);

  it('bad arguments exit 2; an unwritable file names the path and the fix', async () => {
    const days = await runCli(['report', '--days', '0', '--html', path.join(dir, 'x.html')], env);
    expect(days.code).toBe(2);
    expect(days.stderr).toContain("option '--days <n>' argument '0' is invalid");
    const unwritable = await runCli(['report', '--html', '/nonexistent/dir/report.html'], env);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toMatch(/report file \/nonexistent\/dir\/report\.html cannot be written \(ENOENT.*\): give --html a path/);
  });
});

/** Where the 1280 px screenshot of the demo's report goes: the docs' when asked, else a scratch file. */
function screenshotPath(): string {
  if (process.env.UPDATE_REPORT_SCREENSHOT !== '1')
    return path.join(mkdtempSync(path.join(tmpdir(), 'events-mirror-shot-')), 'report-1280.png');
  const images = path.join(PROJECT_ROOT, 'docs', 'images');
  mkdirSync(images, { recursive: true });
  return path.join(images, 'report-1280.png');
}

/** At 1280 px on screen and at A4 landscape print width, the reader's checks find nothing wrong. */
async function expectReadable(browser: Browser, file: string): Promise<void> {
  for (const [width, media] of [
    [1280, 'screen'],
    [A4_LANDSCAPE_CONTENT_PX, 'print'],
  ] as const) {
    const found = await readAsReader(browser, file, width, media);
    const at = `at ${width} px (${media})`;
    expect(found.charts, `charts ${at}`).toBeGreaterThanOrEqual(4);
    expect.soft(found.overflowing, `elements wider than their box ${at}`).toEqual([]);
    expect.soft(found.repeatedAxisLabels, `axes showing a label twice ${at}`).toEqual([]);
    expect.soft(found.unexplainedCharts, `charts without a title or a one-line how to read ${at}`).toEqual([]);
    expect.soft(found.visibleIds, `project ids shown instead of names ${at}`).toEqual([]);
    expect.soft(found.wrappedTimestamps, `timestamps wrapped ${at}`).toEqual([]);
  }
}
