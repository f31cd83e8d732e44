/**
 * Docs that cannot drift, 1: docs/configuration.md names every key of the configuration schema
 * (src/config.ts) with its variable and its default, every environment variable the configuration
 * reads, and nothing the schema lacks. The keys and defaults come from the schema and from
 * config/default.json as loadConfig merges them; the variables from ENV_BINDINGS, their `_FILE`
 * twins and the variables config.ts reads itself.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_BINDINGS, SECRET_FILE_BINDINGS, configSchema, loadConfig } from '../../src/config.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { markdownTables, readDoc, type MarkdownTable } from '../helpers/markdown.js';

interface SchemaDef {
  type?: string;
  innerType?: unknown;
  element?: unknown;
  options?: unknown[];
  shape?: Record<string, unknown>;
  valueType?: unknown;
}
const defOf = (node: unknown): SchemaDef => (node as { _zod: { def: SchemaDef } })._zod.def;

/** The schema below defaults, prefaults and optionals. */
function unwrap(node: unknown): unknown {
  let def = defOf(node);
  while (def.innerType !== undefined && ['default', 'prefault', 'optional', 'nullable'].includes(def.type ?? '')) {
    node = def.innerType;
    def = defOf(node);
  }
  return node;
}

/** Every leaf key of an object schema (`api.requestsPerMinute.group`); arrays and records are leaves. */
function leafKeys(node: unknown, prefix: string[] = []): string[] {
  const def = defOf(unwrap(node));
  if (def.type !== 'object' || !def.shape) return [prefix.join('.')];
  return Object.entries(def.shape).flatMap(([key, inner]) => leafKeys(inner, [...prefix, key]));
}

/** The keys of the objects a list's or a record's entries may be (a union's options merged). */
function entryKeys(node: unknown): string[] {
  let def = defOf(unwrap(node));
  const inner = def.element ?? def.valueType;
  if (inner !== undefined) def = defOf(unwrap(inner));
  const objects = def.type === 'union' ? (def.options ?? []).map((o) => defOf(unwrap(o))) : [def];
  return [...new Set(objects.flatMap((o) => Object.keys(o.shape ?? {})))];
}

const shape = defOf(configSchema).shape!;
const schemaKeys = leafKeys(configSchema);
const effective = loadConfig({ env: {} }) as unknown as Record<string, unknown>;
const valueAt = (key: string): unknown =>
  key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], effective);
const configSource = readFileSync(path.join(PROJECT_ROOT, 'src', 'config.ts'), 'utf8');
const variables = [
  ...ENV_BINDINGS.map((b) => b.name),
  ...SECRET_FILE_BINDINGS.map((b) => `${b.name}_FILE`),
  ...[...configSource.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!),
];

const page = readDoc('docs/configuration.md');
const NONE = '—';
const plain = (cell: string): string => cell.replace(/`/g, '').trim();

interface Row {
  key: string;
  variable: string;
  default: string;
}

/** The rows of the page's settings tables (a header `key | variable | default | …`). */
function settingsRows(markdown: string): Row[] {
  return markdownTables(markdown)
    .filter((t) => t.header[0] === 'key' && t.header[1] === 'variable' && t.header[2] === 'default')
    .flatMap((t) => t.rows.map((cells) => ({ key: plain(cells[0]!), variable: plain(cells[1]!), default: cells[2]!.trim() })));
}

const tableKeys = (tables: MarkdownTable[], header: string): string[] =>
  tables.filter((t) => t.header[0] === header).flatMap((t) => t.rows.map((cells) => plain(cells[0]!)));

/** How a default is written in the page: `30000`, `false`, `[]`, `redis://127.0.0.1:6379`. */
function written(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Every disagreement between the page and the schema, one line each. */
function drift(markdown: string): string[] {
  const rows = settingsRows(markdown);
  const problems: string[] = [];
  const documented = rows.filter((r) => r.key !== NONE).map((r) => r.key);
  for (const key of schemaKeys) if (!documented.includes(key)) problems.push(`${key}: not in docs/configuration.md`);
  for (const key of documented) if (!schemaKeys.includes(key)) problems.push(`${key}: documented, but the schema has no such key`);
  for (const row of rows) {
    if (row.key === NONE || !schemaKeys.includes(row.key)) continue;
    const binding = ENV_BINDINGS.find((b) => b.path.join('.') === row.key);
    const expectedVariable = binding?.name ?? NONE;
    if (row.variable !== expectedVariable) problems.push(`${row.key}: variable ${row.variable}, but the code reads ${expectedVariable}`);
    const expected = written(valueAt(row.key));
    if (expected === undefined ? !row.default.startsWith(NONE) : !row.default.includes(`\`${expected}\``)) {
      problems.push(`${row.key}: default ${row.default}, but the code's is ${expected ?? NONE}`);
    }
  }
  const documentedVariables = rows.map((r) => r.variable).filter((v) => v !== NONE);
  for (const name of variables) if (!documentedVariables.includes(name)) problems.push(`${name}: not in docs/configuration.md`);
  for (const name of documentedVariables)
    if (!variables.includes(name)) problems.push(`${name}: documented, but the code reads no such variable`);
  const tables = markdownTables(markdown);
  const scopeKeys = entryKeys(shape.scopes);
  const documentedScopeKeys = tableKeys(tables, 'scope entry key');
  for (const key of scopeKeys) if (!documentedScopeKeys.includes(key)) problems.push(`scope entry ${key}: not in docs/configuration.md`);
  for (const key of documentedScopeKeys) if (!scopeKeys.includes(key)) problems.push(`scope entry ${key}: documented, but no such key`);
  const credentialKeys = entryKeys(shape.credentials);
  const documentedCredentialKeys = tableKeys(tables, 'credential key');
  for (const key of credentialKeys)
    if (!documentedCredentialKeys.includes(key)) problems.push(`credential ${key}: not in docs/configuration.md`);
  for (const key of documentedCredentialKeys)
    if (!credentialKeys.includes(key)) problems.push(`credential ${key}: documented, but no such key`);
  return problems;
}

describe('docs/configuration.md', () => {
  it('reads the schema: its keys, variables and defaults', () => {
    expect(schemaKeys).toEqual(expect.arrayContaining(['api.baseUrl', 'api.requestsPerMinute.org', 'scopes', 'credentials', 'logLevel']));
    expect(variables).toEqual(expect.arrayContaining(['EVENTS_API_BASE_URL', 'EVENTS_API_PRIVATE_KEY_FILE', 'EVENTS_MIRROR_CONFIG']));
    expect(entryKeys(shape.scopes)).toContain('excludeProjects');
    expect(entryKeys(shape.credentials)).toEqual(expect.arrayContaining(['privateKeyEnv', 'clientSecretFile']));
    expect(valueAt('worker.jobTimeoutMs')).toBe(900_000);
  });

  it('names every key and variable with its default, and none the code lacks', () => {
    expect(drift(page)).toEqual([]);
  });

  it('notices a row removed, a default changed and a key the schema lacks (the check itself)', () => {
    const removed = page.replace(/^\| `sync\.settleSeconds` .*\n/m, '');
    expect(drift(removed)).toEqual(['sync.settleSeconds: not in docs/configuration.md']);
    const changed = page.replace(/^(\| `worker\.concurrency` +\| `WORKER_CONCURRENCY` +\| )`4`/m, '$1`8`');
    expect(drift(changed)).toEqual(["worker.concurrency: default `8`, but the code's is 4"]);
    const invented = page.replace(/^(\| `sync\.settleSeconds` .*)$/m, '$1\n| `sync.settleMinutes` | — | `5` | invented |');
    expect(drift(invented)).toEqual(['sync.settleMinutes: documented, but the schema has no such key']);
  });
});
