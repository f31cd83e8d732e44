/** Lines people read in a terminal keep to this many columns. */
export const TERMINAL_WIDTH = 80;

/** `head` then items joined with `, `, wrapped at 80 columns with continuation lines indented. */
export function wrapList(head: string, items: readonly string[]): string[] {
  const lines: string[] = [];
  let line = head;
  for (const [i, item] of items.entries()) {
    const piece = i < items.length - 1 ? `${item},` : item;
    if (line.length > head.length && line.length + 1 + piece.length > TERMINAL_WIDTH) {
      lines.push(line);
      line = `  ${piece}`;
    } else {
      line = line === head ? `${head}${piece}` : `${line} ${piece}`;
    }
  }
  lines.push(line);
  return lines;
}
