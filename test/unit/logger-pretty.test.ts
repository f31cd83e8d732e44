import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';

/** pino-pretty is loaded only when a logger is made for a terminal: that path, in a process of its own. */
describe('the pretty logger', () => {
  it('writes human-readable lines, with secrets redacted', () => {
    const script = [
      "import { createLogger } from './src/logger.ts';",
      "createLogger({ level: 'info', pretty: true }).info({ scope: 'group:abc', privateKey: 'hunter2' }, 'window synced');",
    ].join('\n');
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: window synced\n/);
    expect(out).toContain('scope: "group:abc"');
    expect(out).toContain('privateKey: "[redacted]"');
    expect(out).not.toContain('hunter2');
    expect(out).not.toContain('{"level"');
  });
});
