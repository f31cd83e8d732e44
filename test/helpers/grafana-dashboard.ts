/**
 * Reads the shipped Grafana dashboards and turns their queries into what Grafana sends: template
 * variables and the PostgreSQL data source's macros substituted the way Grafana does it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './cli.js';

export interface DashboardQuery {
  /** Panel title and target refId, or `variable <name>`. */
  readonly where: string;
  readonly text: string;
}

interface Panel {
  title?: string;
  targets?: Array<{ refId: string; expr?: string; rawSql?: string }>;
  panels?: Panel[];
}

interface Dashboard {
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: unknown; definition?: string }> };
}

export function readDashboard(name: string): Dashboard {
  return JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'config', 'grafana', name), 'utf8')) as Dashboard;
}

/** Every panel query (PromQL `expr` or SQL `rawSql`) and every query variable's query. */
export function dashboardQueries(dashboard: Dashboard): DashboardQuery[] {
  const found: DashboardQuery[] = [];
  const visit = (panels: Panel[]) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        const text = target.expr ?? target.rawSql;
        if (text) found.push({ where: `panel "${panel.title}" ${target.refId}`, text });
      }
      visit(panel.panels ?? []);
    }
  };
  visit(dashboard.panels);
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : (variable.query as { query?: string } | undefined)?.query;
    if (query) found.push({ where: `variable ${variable.name}`, text: query });
  }
  return found;
}

/** Replaces `$name` and `${name}` (not `$__…` macros); throws on a variable it was not given. */
export function substituteVariables(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{(\w+)\}|\$(?!__)(\w+)/g, (match, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const value = values[name];
    if (value === undefined) throw new Error(`dashboard query uses $${name}, which the test does not substitute: ${text}`);
    return value;
  });
}

/**
 * Grafana's `$__rate_interval`: max($__interval + scrape interval, 4 × scrape interval), in seconds.
 * https://grafana.com/docs/grafana/latest/datasources/prometheus/template-variables/
 */
export function rateInterval(intervalSeconds: number, scrapeSeconds: number): string {
  return `${Math.max(intervalSeconds + scrapeSeconds, 4 * scrapeSeconds)}s`;
}

/**
 * Prometheus variables: a multi-value `$scope` becomes a regex alternation, as Grafana formats it for
 * PromQL; with "All" selected Grafana puts the variable's allValue instead.
 */
export function promqlFor(
  expr: string,
  vars: { scopes: readonly string[]; job: string; intervalSeconds: number; scrapeSeconds: number; allValue?: string },
): string {
  const withMacros = expr.replace(/\$__rate_interval/g, rateInterval(vars.intervalSeconds, vars.scrapeSeconds));
  const picked = vars.scopes.length === 1 ? escapeRegex(vars.scopes[0]!) : `(${vars.scopes.map(escapeRegex).join('|')})`;
  const scope = vars.allValue ?? picked;
  const result = substituteVariables(withMacros, { scope, job: vars.job });
  if (/\$__\w+/.test(result)) throw new Error(`unsupported Grafana macro left in: ${result}`);
  return result;
}

/**
 * The PostgreSQL data source's macros (grafana-postgresql-datasource macros.go) and SQL-formatted
 * variables: a multi-value `$scope` becomes `'a','b'`.
 */
export function sqlFor(sql: string, vars: { scopes: readonly string[]; schema: string; from: Date; to: Date }): string {
  const from = vars.from.toISOString();
  const to = vars.to.toISOString();
  const seconds = (interval: string): number => {
    const match = /^'?(\d+)([smhdw])'?$/.exec(interval.trim());
    if (!match) throw new Error(`unsupported interval ${interval}`);
    return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[match[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  };
  const macros: Record<string, (args: string[]) => string> = {
    __timeFilter: ([column]) => `${column} BETWEEN '${from}' AND '${to}'`,
    __timeFrom: () => `'${from}'`,
    __timeTo: () => `'${to}'`,
    __time: ([column]) => `${column} AS "time"`,
    __timeEpoch: ([column]) => `extract(epoch from ${column}) as "time"`,
    __timeGroup: ([column, interval]) => `floor(extract(epoch from ${column})/${seconds(interval!)})*${seconds(interval!)}`,
    __timeGroupAlias: ([column, interval]) => `floor(extract(epoch from ${column})/${seconds(interval!)})*${seconds(interval!)} AS "time"`,
  };
  const expanded = sql.replace(/\$(__\w+)\(([^)]*)\)/g, (match, name: string, args: string) => {
    const macro = macros[name];
    if (!macro) throw new Error(`unsupported Grafana macro $${name} in: ${sql}`);
    return macro(args.split(',').map((a) => a.trim()));
  });
  const quoted = vars.scopes.map((s) => `'${s.replace(/'/g, "''")}'`).join(',');
  const result = substituteVariables(expanded, { scope: quoted, schema: vars.schema });
  if (/\$__\w+/.test(result)) throw new Error(`unsupported Grafana macro left in: ${result}`);
  return result;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
