/** Plain-text tables for terminal reports: columns padded, numbers right-aligned. */
export type Cell = string | number | null | undefined;

const count = new Intl.NumberFormat('en-US');

export function renderTable(headers: readonly string[], rows: readonly Cell[][]): string {
  const text = rows.map((row) => row.map(formatCell));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((row) => (row[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((row) => typeof row[i] === 'number' || row[i] == null));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n') + '\n';
}

function formatCell(cell: Cell): string {
  if (cell === null || cell === undefined) return '-';
  return typeof cell === 'number' ? count.format(cell) : cell;
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
