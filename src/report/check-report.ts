/** `events-mirror check` for a terminal: a line a check, what failed first-class, within 80 columns where it can. */
import { Help } from 'commander';
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

const INDENT = ' '.repeat(MARK.ok.length + 2);

/**
 * `width`: the terminal's columns when the output is one. Each check's text then wraps at spaces
 * under itself (a word longer than a line, a URL or a path, stays whole); without it a check is one
 * line, for scripts and logs.
 */
export function renderCheck(results: readonly CheckResult[], width?: number): string {
  const lines = renderCheckLines(results, width);
  const problems = results.filter((r) => r.outcome === 'problem').length;
  const summary =
    problems === 0
      ? `all ${results.filter((r) => r.outcome === 'ok').length} checks passed`
      : `${problems} problem${problems === 1 ? '' : 's'}: fix ${problems === 1 ? 'it' : 'them'} and run npx events-mirror check again`;
  return `${lines}\n${summary}\n`;
}

/** One line a result (`PROBLEM  credential default: …`), each wrapped under itself within `width` when given. */
export function renderCheckLines(results: readonly CheckResult[], width?: number): string {
  const help = new Help();
  const lines = results.map((r) => {
    const text = `${terminalSafe(r.subject)}: ${terminalSafe(r.detail)}`;
    const [first, ...rest] = width === undefined ? [text] : help.boxWrap(text, width - INDENT.length).split('\n');
    return [`${MARK[r.outcome]}  ${first}`, ...rest.map((line) => INDENT + line)].join('\n');
  });
  return lines.map((line) => `${line}\n`).join('');
}
