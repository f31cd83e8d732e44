/**
 * Docs that cannot drift, 3: every relative link of README.md, CHANGELOG.md and docs/*.md points at
 * a file that exists, and every #anchor at a heading of that page as GitHub renders it. External
 * links (http, https, mailto) are not followed: the suite runs offline.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { documentationFiles, headingAnchors, markdownLinks, readDoc } from '../helpers/markdown.js';

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** The broken links of one page, as `file:line target (why)`. */
function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const { target, line } of markdownLinks(markdown)) {
    if (EXTERNAL.test(target)) continue;
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const linked = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
    const where = `${file}:${line} ${target}`;
    if (pathPart !== '' && (linked.startsWith('..') || !existsSync(path.join(PROJECT_ROOT, linked)))) {
      broken.push(`${where} (no file ${linked})`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (!linked.endsWith('.md')) {
      broken.push(`${where} (an anchor into a file that is not Markdown)`);
      continue;
    }
    const text = linked === file ? markdown : readDoc(linked);
    if (!headingAnchors(text).has(anchor)) broken.push(`${where} (no heading #${anchor} in ${linked})`);
  }
  return broken;
}

describe('documentation links', () => {
  it('covers the README, the changelog and every page of docs/', () => {
    expect(documentationFiles()).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/configuration.md']));
  });

  it.each(documentationFiles())('%s: every relative link and #anchor resolves', (file) => {
    expect(brokenLinks(file, readDoc(file))).toEqual([]);
  });

  it('finds a broken anchor, a missing file and a link to a heading that moved (the checker itself)', () => {
    const page = [
      '# Title',
      '## `sync`: one pass',
      'See [ok](#title), [ok too](#sync-one-pass), [gone](#nowhere), [file](missing.md),',
      '[moved](configuration.md#no-such-heading) and `[in code](#ignored)`.',
      '```',
      '[in a fence](#ignored-too)',
      '```',
    ].join('\n');
    expect(brokenLinks('docs/example.md', page)).toEqual([
      'docs/example.md:3 #nowhere (no heading #nowhere in docs/example.md)',
      'docs/example.md:3 missing.md (no file docs/missing.md)',
      'docs/example.md:4 configuration.md#no-such-heading (no heading #no-such-heading in docs/configuration.md)',
    ]);
  });
});
