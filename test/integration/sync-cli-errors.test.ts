import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// Each case runs the real CLI with a data directory that must stay untouched.
const cases: Array<{ name: string; args: string[]; env?: Record<string, string>; message: RegExp }> = [
  {
    name: 'an unknown scope form',
    args: ['backfill', '--scope', 'project:abc', '--from', '2026-11-01'],
    message: /--scope <scope>' argument 'project:abc' is invalid\. expected `org:<orgId>` or `group:<groupId>`/,
  },
  {
    name: 'a date that is not ISO 8601',
    args: ['backfill', '--scope', 'org:abc', '--from', '11/01/2026'],
    message:
      /--from <iso>' argument '11\/01\/2026' is invalid\. expected a date or a UTC date-time such as 2026-11-01, 2026-11-01T06:00 or 2026-11-01T06:00:00Z/,
  },
  {
    name: '--from after --to',
    args: ['backfill', '--scope', 'org:abc', '--from', '2026-11-05', '--to', '2026-11-01'],
    message: /--from 2026-11-05T00:00:00Z is after --to 2026-11-01T23:59:59Z: swap them/,
  },
  {
    name: 'a missing key pair',
    args: ['sync', '--once'],
    env: { EVENTS_SCOPES: 'org:abc' },
    message: /missing API key pair: set EVENTS_API_PUBLIC_KEY and EVENTS_API_PRIVATE_KEY/,
  },
  {
    name: 'no scopes',
    args: ['sync', '--once'],
    env: { EVENTS_API_PUBLIC_KEY: 'p', EVENTS_API_PRIVATE_KEY: 'k' },
    message: /no scopes configured: set EVENTS_SCOPES/,
  },
  {
    name: 'a malformed scope in the environment',
    args: ['sync', '--once'],
    env: { EVENTS_API_PUBLIC_KEY: 'p', EVENTS_API_PRIVATE_KEY: 'k', EVENTS_SCOPES: 'org:abc,projects/1' },
    message: /scopes\.1 \(EVENTS_SCOPES\): expected `org:<orgId>` or `group:<groupId>`/,
  },
  {
    name: 'an unknown option',
    args: ['sync', '--onse'],
    message: /unknown option '--onse'/,
  },
];

describe('bad arguments and configuration: one clear line, exit 2, nothing touched', () => {
  it.concurrent.each(cases)('$name', async ({ args, env, message }) => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'em-cli-')), 'data');
    const result = await runCli(args, { EVENTS_MIRROR_DATA_DIR: dataDir, ...env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(existsSync(dataDir), 'nothing written').toBe(false);
  });
});
