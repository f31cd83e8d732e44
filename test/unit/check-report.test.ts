import { describe, expect, it } from 'vitest';
import { renderCheck, type CheckResult } from '../../src/report/check-report.js';

const RESULTS: CheckResult[] = [
  {
    subject: 'credential default',
    outcome: 'ok',
    detail: 'braeivvp at https://cloud.mongodb.com/api/atlas/v2 (atlas-v2): authenticated',
  },
  {
    subject: 'group:5fca0351da4a3a7c2c2fa071',
    outcome: 'problem',
    detail:
      'the key cannot read this project (403 USER_CANNOT_ACCESS_GROUP): give the key the Project Read Only role on it, or remove the scope from EVENTS_SCOPES',
  },
  {
    subject: 'warehouse',
    outcome: 'ok',
    detail: 'embedded, at /a/very/long/path/that/is/one/word/and/longer/than/any/line/can/hold/data/pglite',
  },
];

describe('check for a terminal', () => {
  it('without a width, one line a check, for scripts and logs', () => {
    const lines = renderCheck(RESULTS).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `ok       credential default: ${RESULTS[0]!.detail}`,
      `PROBLEM  group:5fca0351da4a3a7c2c2fa071: ${RESULTS[1]!.detail}`,
      `ok       warehouse: ${RESULTS[2]!.detail}`,
    ]);
  });

  it('at 80 columns, each check wraps at spaces under its own text, and says the same', () => {
    const text = renderCheck(RESULTS, 80);
    const lines = text.split('\n');
    const checks: string[] = [];
    for (const line of lines.slice(0, lines.indexOf(''))) {
      if (line.startsWith(' ')) {
        expect(line).toMatch(/^ {9}\S/);
        checks[checks.length - 1] += ` ${line.trim()}`;
      } else checks.push(line);
    }
    // Nothing lost or reordered: the wrapped checks read as the unwrapped lines.
    expect(checks).toEqual(renderCheck(RESULTS).split('\n').slice(0, 3));
    for (const line of lines) {
      // Only a word too long for any line may pass 80 columns, alone on its line.
      if (line.length > 80) expect(line.trim()).not.toContain(' ');
    }
    expect(lines.length).toBeGreaterThan(renderCheck(RESULTS).split('\n').length);
  });
});
