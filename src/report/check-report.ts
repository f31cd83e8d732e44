/** `events-mirror check` for a terminal: a line a check, what failed first-class, within 80 columns where it can. */
import { terminalSafe } from './table.js';

export interface CheckResult {
  /** What was checked: `credential default`, `group:5f…`, `warehouse`, `redis`. */
  readonly subject: string;
  /** `ok`, `problem`, or `skipped` (not checked: a check before it failed, or nothing to check). */
  readonly outcome: 'ok' | 'problem' | 'skipped';
  /** What was found; for a problem, what is wrong and the fix. */
  readonly detail: string;
}

const MARK: Readonly<Record<CheckResult['outcome'], string>> = { ok: 'ok     ', problem: 'PROBLEM', skipped: 'skipped' };

export function renderCheck(results: readonly CheckResult[]): string {
  const lines = results.map((r) => `${MARK[r.outcome]}  ${terminalSafe(r.subject)}: ${terminalSafe(r.detail)}`);
  const problems = results.filter((r) => r.outcome === 'problem').length;
  const summary =
    problems === 0
      ? `all ${results.filter((r) => r.outcome === 'ok').length} checks passed`
      : `${problems} problem${problems === 1 ? '' : 's'}: fix ${problems === 1 ? 'it' : 'them'} and run npx events-mirror check again`;
  return `${lines.join('\n')}\n\n${summary}\n`;
}
