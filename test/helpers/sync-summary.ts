/** Reads `sync --once`'s summary table (src/report/sync-summary.ts) from a command's output by its headers. */

/** The first summary table in `output`: each scope's row as its cells by header (`new`, `pages`, …). */
export function syncSummaryRows(output: string): Map<string, Record<string, string>> {
  const lines = output.split('\n');
  const start = lines.findIndex((line) => /^scope {2,}pages /.test(line));
  if (start < 0) throw new Error(`no sync summary in:\n${output}`);
  const headers = lines[start]!.trim().split(/\s+/);
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines.slice(start + 2)) {
    if (!/^(org|group):/.test(line)) break;
    const cells = line.trim().split(/\s+/);
    rows.set(cells[0]!, Object.fromEntries(headers.map((header, i) => [header, cells[i] ?? ''])));
  }
  return rows;
}

/** A count cell (`1,234`) as a number. */
export function countCell(cell: string | undefined): number {
  return Number((cell ?? '').replace(/,/g, ''));
}
