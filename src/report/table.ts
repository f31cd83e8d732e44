/**
 * Plain-text tables for terminal reports: columns padded, numbers right-aligned. Every cell and
 * header is shown with its control characters escaped (`terminalSafe`), since many hold text the
 * API supplied (names, error details) and a terminal obeys escape sequences.
 */
export type Cell = string | number | null | undefined;

const count = new Intl.NumberFormat('en-US');

export interface TableOptions {
  /** Numbers as they are (`2026`, `1234.5`) instead of grouped (`1,234`): query results. */
  readonly plainNumbers?: boolean;
  /** What an empty cell shows; `-` by default. */
  readonly empty?: string;
}

export function renderTable(headers: readonly string[], rows: readonly Cell[][], options: TableOptions = {}): string {
  const head = headers.map(terminalSafe);
  const text = rows.map((row) => row.map((cell) => formatCell(cell, options)));
  const widths = head.map((h, i) => Math.max(h.length, ...text.map((row) => (row[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((row) => typeof row[i] === 'number' || row[i] == null));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n') + '\n';
}

function formatCell(cell: Cell, options: TableOptions): string {
  if (cell === null || cell === undefined) return options.empty ?? '-';
  if (typeof cell === 'number') return options.plainNumbers ? String(cell) : count.format(cell);
  return terminalSafe(cell);
}

/**
 * Characters a terminal acts on instead of showing: C0 controls (line breaks and ESC among them),
 * DEL, C1 controls, the Unicode line and paragraph separators, and the bidirectional overrides
 * and isolates that reorder what follows.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this escapes
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every such character written out as an escape, visibly and on one line: `\n`, `\r`,
 * `\t`, `\xHH` up to U+00FF (ESC is `\x1b`), `\uHHHH` above. Other text, backslashes included, is
 * left as it is.
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

/** `3d 4h`, `12m 5s`, `40s`: a duration for people. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  const seconds = Math.max(0, Math.round(ms / 1000));
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of units) {
    if (rest >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
