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
  return shorten(withoutRequest(text), ERROR_CELL_WIDTH);
}

/** An error without the request that failed, where the scope is named beside it. */
export function withoutRequest(text: string): string {
  return text.replace(/^[A-Z]+ \S+ for (?:org|group):\S+ failed: /, '');
}

/** `1 scope`, `4 scopes`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** `text` cut to `max` characters in the middle: its start and its distinguishing end stay. */
export function shortenMiddle(text: string, max: number, head = Math.ceil((max - 1) * 0.4)): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const keepHead = Math.max(1, Math.min(head, max - 2));
  return `${line.slice(0, keepHead).trimEnd()}…${line.slice(line.length - (max - 1 - keepHead)).trimStart()}`;
}

/**
 * Labels of at most `max` characters that each name one text: a long text is cut in the middle,
 * from a 40 % head, moving the cut until no other text starts and ends as the label does (so what
 * tells texts apart stays), the kept end starting a word where it can; a label still shared is numbered. Returns the label of each text, in order.
 */
export function distinctLabels(texts: readonly string[], max: number): string[] {
  const unique = [...new Set(texts.map((t) => t.replace(/\s+/g, ' ').trim()))];
  const start = Math.ceil((max - 1) * 0.4);
  const heads = [start, ...Array.from({ length: max }, (_, i) => [start - i - 1, start + i + 1]).flat()].filter(
    (h) => h >= 1 && h <= max - 2,
  );
  const used = new Set<string>();
  const labels = new Map<string, string>();
  for (const text of unique) {
    let label = text;
    if (text.length > max) {
      const names = (head: number) => {
        const [first, last] = [text.slice(0, head), text.slice(text.length - (max - 1 - head))];
        return unique.every((other) => other === text || !(other.startsWith(first) && other.endsWith(last)));
      };
      // Best when the kept end starts a word ("…00-00 · NETWORK_THROUGHPUT", not "…0 · NETWORK_THROUGHPUT").
      const atWord = (head: number) => /[\s\-_.:·/(]/.test(text.charAt(text.length - (max - 1 - head) - 1));
      const head = heads.find((h) => atWord(h) && names(h)) ?? heads.find(names);
      label = head === undefined ? shortenMiddle(text, max) : shortenMiddle(text, max, head);
    }
    for (let n = 2; used.has(label); n += 1) label = `${shortenMiddle(text, max - String(n).length - 2)} #${n}`;
    used.add(label);
    labels.set(text, label);
  }
  return texts.map((t) => labels.get(t.replace(/\s+/g, ' ').trim()) as string);
}
