/**
 * Reading the project's Markdown as GitHub renders it: heading anchors (github-slugger, GitHub's
 * own algorithm, numbering repeated headings -1, -2 …) and the links of the prose, outside code.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { PROJECT_ROOT } from './cli.js';

/** README.md and every page under docs/, as paths relative to the project root. */
export function documentationFiles(): string[] {
  const pages = readdirSync(path.join(PROJECT_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', 'CHANGELOG.md', ...pages];
}

export function readDoc(file: string): string {
  return readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
}

/** The text outside fenced code blocks, lines kept in place (blanked) so line numbers hold. */
export function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** What a heading reads as once rendered: code spans, links and emphasis reduced to their text. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, '')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|\*)(.+?)\1/g, '$2')
    .trim();
}

/** The anchors GitHub gives a page's headings. */
export function headingAnchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const match of withoutFences(markdown).matchAll(/^ {0,3}#{1,6}\s+(.+)$/gm)) anchors.add(slugger.slug(headingText(match[1]!)));
  return anchors;
}

export interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

/** Inline links and images of the prose (not inside code spans or fenced blocks). */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  withoutFences(markdown)
    .split('\n')
    .forEach((text, index) => {
      const prose = text.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => ' '.repeat(span.length));
      for (const match of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        links.push({ target: match[1]!, line: index + 1 });
      }
    });
  return links;
}

export interface MarkdownTable {
  /** Header cells, lower case, code marks removed. */
  readonly header: string[];
  /** Body rows' cells, as written. */
  readonly rows: string[][];
}

/** Splits a table row into its cells (escaped pipes `\|` stay inside a cell). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The page's tables, outside code blocks. */
export function markdownTables(markdown: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  const lines = withoutFences(markdown).split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trimStart().startsWith('|') || !/^\s*\|?\s*:?-{3,}/.test(lines[i + 1]!)) continue;
    const header = cells(lines[i]!).map((cell) => cell.replace(/`/g, '').toLowerCase());
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]!.trimStart().startsWith('|'); j++) rows.push(cells(lines[j]!));
    tables.push({ header, rows });
    i = j;
  }
  return tables;
}
