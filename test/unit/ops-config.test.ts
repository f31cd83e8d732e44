/**
 * The shipped alert rules and dashboards hang together: each runbook points at the alert's own
 * section of docs/operations.md (and at other docs sections that exist), each alert is documented
 * and unit-tested both firing and not firing, and each per-scope query follows the dashboard's
 * scope variable.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { dashboardQueries, readDashboard } from '../helpers/grafana-dashboard.js';
import { headingAnchors, readDoc } from '../helpers/markdown.js';

const read = (...parts: string[]) => readFileSync(path.join(PROJECT_ROOT, ...parts), 'utf8');
const rules = read('config', 'prometheus', 'alerts.yml');
const ruleTests = read('config', 'prometheus', 'alerts.test.yml');
const operations = readDoc('docs/operations.md');
const alertNames = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((m) => m[1]!);

describe('alert rules', () => {
  it('has the alerts the issue asks for', () => {
    expect(alertNames).toEqual(
      expect.arrayContaining([
        'EventsMirrorScopeLagging',
        'EventsMirrorScopeFailingPermanently',
        'EventsMirrorWorkerDown',
        'EventsMirrorWorkersAbsent',
        'EventsMirrorRateLimited',
        'EventsMirrorJobsFailing',
        'EventsMirrorReconcileFoundHoles',
        'EventsMirrorPollsStopped',
      ]),
    );
  });

  it('gives every alert a summary, a derived threshold and a runbook pointing at its section of docs/operations.md', () => {
    const blocks = rules.split(/^\s+- alert: /m).slice(1);
    expect(blocks).toHaveLength(alertNames.length);
    for (const block of blocks) {
      const name = block.split('\n')[0]!;
      for (const key of ['summary', 'description', 'threshold', 'runbook'])
        expect(block, `${name} lacks ${key}`).toMatch(new RegExp(`^\\s+${key}: `, 'm'));
      expect(operations, `${name} has no section in docs/operations.md`).toMatch(new RegExp(`^### \`${name}\`$`, 'm'));
      const runbook = /^\s+runbook: (.+)$/m.exec(block)![1]!;
      expect(runbook, `${name}: the runbook starts at the alert's own section`).toMatch(
        new RegExp(`^docs/operations\\.md#${name.toLowerCase()}\\b`),
      );
      for (const [, file, anchor] of runbook.matchAll(/([\w./-]+\.md)#([\w-]+)/g)) {
        expect(existsSync(path.join(PROJECT_ROOT, file!)), `${name}: ${file} does not exist`).toBe(true);
        expect(headingAnchors(readDoc(file!)).has(anchor!), `${name}: ${file}#${anchor} is no heading there`).toBe(true);
      }
    }
  });

  it('unit-tests every alert both firing and not firing', () => {
    const evaluations = ruleTests.split(/- eval_time: /).slice(1);
    for (const name of alertNames) {
      const mine = evaluations.filter((e) => new RegExp(`alertname: ${name}\\n`).test(e));
      expect(
        mine.some((e) => /exp_alerts: \[\]/.test(e)),
        `${name} never tested quiet`,
      ).toBe(true);
      expect(
        mine.some((e) => /exp_alerts:\n\s+- exp_labels:/.test(e)),
        `${name} never tested firing`,
      ).toBe(true);
    }
  });
});

describe('dashboards', () => {
  it('take the data source from a variable and follow the scope variable in every per-scope query', () => {
    for (const file of ['operations.json', 'events.json']) {
      const dashboard = readDashboard(file);
      const text = JSON.stringify(dashboard.panels);
      expect(
        [...text.matchAll(/"uid":"([^"]+)"/g)].map((m) => m[1]).every((uid) => uid === '${datasource}'),
        file,
      ).toBe(true);
      expect(
        dashboard.templating.list.map((v) => v.name),
        file,
      ).toEqual(expect.arrayContaining(['datasource', 'scope']));
    }
    for (const query of dashboardQueries(readDashboard('operations.json'))) {
      if (/events_mirror_(scope|reconcile)_\w+/.test(query.text) && !query.where.startsWith('variable')) {
        expect(query.text, query.where).toContain('scope=~"$scope"');
      }
    }
    for (const query of dashboardQueries(readDashboard('events.json'))) {
      if (!query.where.startsWith('variable')) expect(query.text, query.where).toContain('scope in ($scope)');
    }
  });
});

describe('dashboards at 10,000 scopes', () => {
  interface Target {
    expr?: string;
    rawSql?: string;
  }
  interface Panel {
    title: string;
    type: string;
    targets?: Target[];
  }
  const panels = (file: string) => readDashboard(file).panels as unknown as Panel[];

  it('draw the ten worst scopes, never a line a scope: every per-scope graph of operations.json is a topk, and counts are counts', () => {
    const perScope = panels('operations.json').flatMap((panel) =>
      (panel.targets ?? [])
        .filter((t) => panel.type === 'timeseries' && /by \([^)]*\bscope\b/.test(t.expr ?? ''))
        .map((t) => ({ panel: panel.title, expr: t.expr! })),
    );
    expect(perScope.length).toBeGreaterThanOrEqual(5);
    for (const { panel, expr } of perScope) expect(expr, panel).toMatch(/^topk\(10, /);
    const distribution = panels('operations.json').find((p) => p.title === 'Scopes by how far behind');
    expect(distribution?.targets?.map((t) => t.expr)).toEqual([
      expect.stringMatching(/^count\(.* < 300\) or vector\(0\)$/),
      expect.stringMatching(/^count\(.* >= 300 < 3600\) or vector\(0\)$/),
      expect.stringMatching(/^count\(.* >= 3600\) or vector\(0\)$/),
    ]);
  });

  it('limit every per-scope SQL panel of events.json: the ten busiest scopes in a graph, at most 100 rows in a table', () => {
    for (const panel of panels('events.json')) {
      for (const target of panel.targets ?? []) {
        const sql = target.rawSql ?? '';
        if (!/\bscope\b/.test(sql.split(/\bfrom\b/)[0] ?? '') && !/scope as metric/.test(sql)) continue;
        if (panel.type === 'timeseries') expect(sql, panel.title).toMatch(/limit 10\n\)/);
        else expect(sql, panel.title).toMatch(/\blimit (\d+)\s*$/);
        const limit = Number(/\blimit (\d+)\s*$/.exec(sql)?.[1] ?? 0);
        if (panel.type !== 'timeseries') expect(limit, panel.title).toBeLessThanOrEqual(100);
      }
    }
  });
});
