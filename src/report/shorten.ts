/** Cutting long texts (an error, a name) to fit a table cell, so the table stays readable. */

/** The widest error shown in a terminal table; `status --scope S` prints it whole. */
export const ERROR_CELL_WIDTH = 60;

/** `text` on one line, cut to `max` characters with `…` when longer. */
export function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/**
 * An error for a table cell: the request that failed ("GET /groups/…/events?… for group:… failed: ") is
 * dropped, as the row already names the scope, so the status, errorCode and fix are what fits.
 */
export function errorCell(text: string): string {
  return shorten(text.replace(/^[A-Z]+ \S+ for (?:org|group):\S+ failed: /, ''), ERROR_CELL_WIDTH);
}

/** `1 scope`, `4 scopes`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
