/** Lines people read in a terminal keep to this many columns. */
export const TERMINAL_WIDTH = 80;

/**
 * `head` then items joined with `, `, wrapped at 80 columns: each continuation line starts with
 * `indent` (two spaces unless given). An item longer than a line is not cut: it gets a line of its own.
 */
export function wrapList(head: string, items: readonly string[], indent = '  '): string[] {
  const lines: string[] = [];
  let line = head;
  let hasItem = false;
  for (const [i, item] of items.entries()) {
    const piece = i < items.length - 1 ? `${item},` : item;
    if (hasItem && line.length + 1 + piece.length > TERMINAL_WIDTH) {
      lines.push(line);
      line = indent;
      hasItem = false;
    }
    line += hasItem ? ` ${piece}` : piece;
    hasItem = true;
  }
  lines.push(line);
  return lines;
}
