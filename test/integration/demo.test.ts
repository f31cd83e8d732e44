import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/cli.js';
import { documentedOutput } from '../helpers/doc-examples.js';

describe('events-mirror demo', () => {
  it('mirrors the emulator into an embedded warehouse and prints the report', async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'em-demo-')), 'data');
    // A user's own settings must not leak into the demo.
    const result = await runCli(['demo', '--events-per-scope', '400', '--days', '7'], {
      EVENTS_MIRROR_DATA_DIR: dataDir,
      EVENTS_API_BASE_URL: 'http://127.0.0.1:9/api/public/v1.0',
      EVENTS_SCOPES: 'org:elsewhere',
    });
    expect(result.code, result.stderr).toBe(0);

    // The same seeded emulator tells how many events the demo had to mirror.
    const reference = await startEmulator({ port: 0, seed: 1, eventsPerScope: 400, days: 7, faults: { malformedRate: 0.002 } });
    const scopes = reference.dataset.scopes();
    const valid = scopes.reduce((sum, scope) => sum + reference.dataset.validIds(scope).size, 0);
    const malformed = scopes.reduce((sum, scope) => sum + reference.dataset.malformedCount(scope), 0);
    await reference.close();

    expect(result.stdout).toContain(
      `${valid.toLocaleString('en-US')} events mirrored from ${scopes.length} scopes (${malformed} malformed set aside in rejected_events)`,
    );
    for (const heading of [
      'Events per type',
      'Events per day',
      'Top actors',
      'Recent configuration changes',
      'Sync lag',
      'Point it at a real account',
    ]) {
      expect(result.stdout).toContain(heading);
    }
    for (const scope of scopes) expect(result.stdout).toContain(scope);
    // Its closing lines are the ones docs/getting-started.md shows (issue 44, item 9).
    expect(result.stdout).toContain(`\n${documentedOutput('docs/getting-started.md', 'demo-next-steps').join('\n')}\n`);
    expect(result.stdout).toContain('AUTOMATION_CONFIG_PUBLISHED_AUDIT');
    expect(existsSync(path.join(dataDir, 'demo'))).toBe(true);
    // The HTML report (html-report.test.ts opens one in a browser), its path printed.
    const report = path.join(dataDir, 'demo-report.html');
    expect(result.stdout).toContain(`The report with charts (alerts, security changes, top actors, sync lag):\n  ${report}\n`);
    const html = readFileSync(report, 'utf8');
    for (const chart of ['events-per-day', 'alert-episodes', 'top-actors', 'security-changes']) {
      expect(html).toMatch(new RegExp(`<figure class="chart" data-chart="${chart}">\\s*<figcaption>.*</figcaption>\\s*<svg `));
    }
    // The demo's scopes are all seconds behind: a line says so instead of a chart of equal bars.
    expect(html).toContain('<p class="empty" data-empty="sync-lag">No chart: every scope is');
  }, 180_000);
});
