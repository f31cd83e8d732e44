/**
 * Docs that cannot drift, 4: `.env.example` at the repository's root names every environment
 * variable the configuration reads (ENV_BINDINGS, their `_FILE` twins and the variables config.ts
 * reads itself), once each and nothing more, and the value it shows is the code's default.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_BINDINGS, SECRET_FILE_BINDINGS, loadConfig } from '../../src/config.js';
import { PROJECT_ROOT } from '../helpers/cli.js';

const configSource = readFileSync(path.join(PROJECT_ROOT, 'src', 'config.ts'), 'utf8');
const variables = [
  ...new Set([
    ...ENV_BINDINGS.map((b) => b.name),
    ...SECRET_FILE_BINDINGS.map((b) => `${b.name}_FILE`),
    ...[...configSource.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!),
  ]),
];
const effective = loadConfig({ env: {} }) as unknown as Record<string, unknown>;
const example = readFileSync(path.join(PROJECT_ROOT, '.env.example'), 'utf8');

/** How the default is written in the file: `900`, `false`, a comma list, nothing when there is none. */
function written(value: unknown): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(',') : String(value as string | number | boolean);
}

/** Every disagreement between the file and the code, one line each. */
function drift(text: string): string[] {
  const lines = [...text.matchAll(/^# ?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => ({ name: m[1]!, value: m[2]!.trim() }));
  const problems: string[] = [];
  for (const name of variables) {
    const count = lines.filter((l) => l.name === name).length;
    if (count === 0) problems.push(`${name}: not in .env.example`);
    if (count > 1) problems.push(`${name}: ${count} times in .env.example`);
  }
  for (const line of lines) {
    if (!variables.includes(line.name)) {
      problems.push(`${line.name}: in .env.example, but the code reads no such variable`);
      continue;
    }
    const binding = ENV_BINDINGS.find((b) => b.name === line.name);
    const expected = binding
      ? written(binding.path.reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], effective))
      : '';
    if (line.value !== expected) problems.push(`${line.name}: .env.example shows "${line.value}", but the default is "${expected}"`);
  }
  return problems;
}

describe('.env.example', () => {
  it('lists every environment variable once, with its default, and none the code lacks', () => {
    expect(variables).toEqual(expect.arrayContaining(['EVENTS_API_PRIVATE_KEY_FILE', 'NODE_ENV', 'EVENTS_MIRROR_CONFIG', 'LOG_LEVEL']));
    expect(drift(example)).toEqual([]);
  });

  it('is all comments: copied as it is, it changes nothing', () => {
    const settings = example.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
    expect(settings).toEqual([]);
  });

  it('notices a variable missing, one invented and a default changed (the check itself)', () => {
    expect(drift(example.replace(/^# WORKER_CONCURRENCY=.*\n/m, ''))).toEqual(['WORKER_CONCURRENCY: not in .env.example']);
    expect(drift(`${example}# EVENTS_WINDOW_SECONDS=86400\n`)).toEqual([
      'EVENTS_WINDOW_SECONDS: in .env.example, but the code reads no such variable',
    ]);
    expect(drift(example.replace('# METRICS_PORT=9464', '# METRICS_PORT=9000'))).toEqual([
      'METRICS_PORT: .env.example shows "9000", but the default is "9464"',
    ]);
  });
});
