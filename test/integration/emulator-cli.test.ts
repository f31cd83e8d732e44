/** `events-mirror emulator` as a process: start line, serving, SIGTERM, bad flags. */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PASTE_HINT } from '../../src/commands/emulator.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli.ts', 'emulator'];

function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('exit', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

describe('events-mirror emulator', () => {
  it('prints an export line that works when pasted, says so, serves it, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [...CLI, '--port', '0', '--org', 'o1', '--group', 'g1', '--events-per-scope', '30', '--seed', '5'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LOG_LEVEL: 'info' },
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      while (!stdout.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 50));
      const first = stdout.split('\n')[0] as string;
      expect(first).toMatch(
        /^export EVENTS_API_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\.0 EVENTS_API_PUBLIC_KEY=[a-z]{8} EVENTS_API_PRIVATE_KEY=[0-9a-f-]{36} EVENTS_SCOPES=org:o1,group:g1$/,
      );
      expect(stdout.split('\n')[1]).toBe(PASTE_HINT);
      // Pasted into a shell, both lines leave the settings in the environment of what runs next.
      const pasted = await run('bash', ['-c', `${first}\n${PASTE_HINT}\nprintenv EVENTS_API_BASE_URL EVENTS_SCOPES`], {
        env: { PATH: process.env.PATH },
      });
      expect(pasted.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\.0\norg:o1,group:g1\n$/);
      const vars = Object.fromEntries(
        first
          .replace(/^export /, '')
          .split(' ')
          .map((pair) => pair.split('=') as [string, string]),
      );
      const { stdout: body } = await run('/usr/bin/curl', [
        '-s',
        '--digest',
        '-u',
        `${vars.EVENTS_API_PUBLIC_KEY}:${vars.EVENTS_API_PRIVATE_KEY}`,
        `${vars.EVENTS_API_BASE_URL}/groups/g1/events?itemsPerPage=500`,
      ]);
      expect(JSON.parse(body)).toMatchObject({ totalCount: 30 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('emulator stopped');
  });

  it('serves OAuth tokens to a service account from --service-accounts, and the events to its Bearer token (curl)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'emulator-accounts-'));
    const accounts = path.join(dir, 'accounts.json');
    writeFileSync(
      accounts,
      JSON.stringify([{ clientId: 'mdb_sa_id_cli', clientSecret: 'mdb_sa_sk_cli', roles: [{ orgId: 'o1', roleName: 'ORG_MEMBER' }] }]),
    );
    const child = spawn(
      process.execPath,
      [...CLI, '--port', '0', '--org', 'o1', '--events-per-scope', '12', '--service-accounts', accounts],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LOG_LEVEL: 'info' },
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      while (!stdout.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 50));
      const base = /EVENTS_API_BASE_URL=(\S+)/.exec(stdout)![1]!;
      const origin = new URL(base).origin;
      const { stdout: tokenBody } = await run('/usr/bin/curl', [
        '-s',
        '-u',
        'mdb_sa_id_cli:mdb_sa_sk_cli',
        '-H',
        'Content-Type: application/x-www-form-urlencoded',
        '--data',
        'grant_type=client_credentials',
        `${origin}/api/oauth/token`,
      ]);
      const token = JSON.parse(tokenBody) as { access_token: string; token_type: string; expires_in: number };
      expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      const { stdout: body } = await run('/usr/bin/curl', [
        '-s',
        '-H',
        `Authorization: Bearer ${token.access_token}`,
        `${base}/orgs/o1/events`,
      ]);
      expect(JSON.parse(body)).toMatchObject({ totalCount: 12 });
      const { stdout: refused } = await run('/usr/bin/curl', [
        '-s',
        '-u',
        'mdb_sa_id_cli:wrong',
        '--data',
        'grant_type=client_credentials',
        `${origin}/api/oauth/token`,
      ]);
      expect(JSON.parse(refused)).toMatchObject({ error: 'invalid_client' });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('refuses bad flags and a bad keys file with exit 2 and a line naming the problem', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'emulator-keys-'));
    const keys = path.join(dir, 'keys.json');
    writeFileSync(keys, JSON.stringify([{ publicKey: 'a', privateKey: 'b', roles: [{ groupId: 'g', roleName: 'GROUP_BOSS' }] }]));
    const [badPort, badKeys] = await Promise.all([cli(['--port', 'eighty']), cli(['--port', '0', '--keys', keys])]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port must be a whole number');
    expect(badKeys.code).toBe(2);
    expect(badKeys.stderr).toContain(`keys file ${keys} is invalid at 0.roles.0`);
  });
});
