/**
 * HTML tables for the report: escaped text, numbers right-aligned, timestamps in a short form that
 * stays on one line (the full one on hover), a scope by its name (its id on hover). Pure.
 */
import { isoTimestamp } from '../time.js';
import { shortenMiddle } from './shorten.js';
import { shortTimestamp } from './units.js';

const count = new Intl.NumberFormat('en-US');

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/**
 * Escaped, and a long NAME_LIKE_THIS, address or e-mail may wrap after its underscores, dots and @
 * rather than in the middle of a word.
 */
function breakable(text: string): string {
  // Not inside a number: "858.1" stays whole.
  return escapeHtml(text).replace(/([_@/]|\.(?=[A-Za-z]))(?=[^_.@/\s])/g, '$1<wbr>');
}

/** A cell's text with what a hover shows, and a class for its column's look. */
export interface RichCell {
  readonly text: string;
  readonly title?: string;
  readonly className?: string;
}

export type HtmlCell = string | number | Date | RichCell | null | undefined;

/** A scope shown by its name where one is known, its key on hover. */
export function scopeCell(scope: string, names: ReadonlyMap<string, string>): RichCell {
  const name = names.get(scope);
  return name === undefined
    ? { text: shortenMiddle(scope, 18), title: scope, className: 'id' }
    : { text: name, title: scope, className: 'name' };
}

function cell(value: HtmlCell): string {
  if (value === null || value === undefined) return '<td class="none">–</td>';
  if (value instanceof Date)
    return `<td class="when"><time datetime="${isoTimestamp(value)}" title="${isoTimestamp(value)}">${shortTimestamp(value)}</time></td>`;
  if (typeof value === 'number') return `<td class="num">${count.format(value)}</td>`;
  if (typeof value === 'string') return `<td>${breakable(value)}</td>`;
  const title = value.title === undefined ? '' : ` title="${escapeHtml(value.title)}"`;
  return `<td${value.className ? ` class="${value.className}"` : ''}${title}>${breakable(value.text)}</td>`;
}

export function htmlTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<HtmlCell>>): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map(cell).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}
