/**
 * Docs that cannot drift, 2: docs/commands.md has a section for the program and for every command
 * its `--help` lists, each with a table of exactly the flags that command's `--help` lists (and its
 * default, where the flag has one), and no section or flag more. The commands are read from the
 * commander program the CLI runs (buildProgram), in-process, through commander's own Help class.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { markdownTables, readDoc, withoutFences } from '../helpers/markdown.js';

const HELP_FLAGS = '-h, --help';

interface Documented {
  readonly flags: string;
  readonly default: string | undefined;
}

/** What `--help` lists: the program and each visible command, with their visible options. */
function helpListing(): Map<string, Documented[]> {
  const program = buildProgram();
  const listing = new Map<string, Documented[]>();
  const optionsOf = (command: Command, withHelp: boolean): Documented[] =>
    command
      .createHelp()
      .visibleOptions(command)
      .filter((option) => withHelp || option.flags !== HELP_FLAGS)
      .map((option) => {
        const value: unknown = option.defaultValue;
        const shown = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
        return { flags: option.flags, default: shown };
      });
  listing.set(program.name(), optionsOf(program, true));
  for (const command of program.createHelp().visibleCommands(program)) listing.set(command.name(), optionsOf(command, false));
  return listing;
}

/** The page's `## \`name\`` sections and the flags in their tables (rows whose first cell is a flag). */
function documented(markdown: string): Map<string, Array<{ flags: string; defaultCell: string }>> {
  const sections = new Map<string, Array<{ flags: string; defaultCell: string }>>();
  const parts = withoutFences(markdown).split(/^## /m).slice(1);
  for (const part of parts) {
    const name = /^`([^`]+)`\s*$/m.exec(part.split('\n')[0]!)?.[1];
    if (name === undefined) continue;
    const body = part.split(/^### /m)[0]!;
    const flags = markdownTables(body)
      .filter((table) => table.header[0] === 'flag')
      .flatMap((table) => table.rows.map((cells) => ({ flags: cells[0]!.replace(/`/g, '').trim(), defaultCell: cells[1] ?? '' })))
      .filter((row) => row.flags.startsWith('-'));
    sections.set(name, flags);
  }
  return sections;
}

/** Every disagreement between the page and `--help`, one line each. */
function drift(markdown: string): string[] {
  const problems: string[] = [];
  const listing = helpListing();
  const page = documented(markdown);
  for (const [command, options] of listing) {
    const section = page.get(command);
    if (!section) {
      problems.push(`${command}: no section`);
      continue;
    }
    for (const option of options) {
      const row = section.find((r) => r.flags === option.flags);
      if (!row) problems.push(`${command} ${option.flags}: not documented`);
      else if (option.default !== undefined && !row.defaultCell.includes(`\`${option.default}\``)) {
        problems.push(`${command} ${option.flags}: default ${row.defaultCell || '(none)'}, but --help says ${option.default}`);
      }
    }
    for (const row of section) {
      if (!options.some((o) => o.flags === row.flags)) problems.push(`${command} ${row.flags}: documented, but --help lists no such flag`);
    }
  }
  for (const command of page.keys()) if (!listing.has(command)) problems.push(`${command}: documented, but --help lists no such command`);
  return problems;
}

const page = readDoc('docs/commands.md');

describe('docs/commands.md', () => {
  it('reads what --help lists', () => {
    const listing = helpListing();
    expect([...listing.keys()]).toEqual(expect.arrayContaining(['events-mirror', 'sync', 'backfill', 'worker', 'emulator', 'help']));
    expect(listing.get('backfill')!.map((o) => o.flags)).toContain('--scope <scope>');
    expect(listing.get('demo')).toContainEqual({ flags: '--events-per-scope <n>', default: '3000' });
  });

  it('documents every command and flag of --help with its default, and nothing more', () => {
    expect(drift(page)).toEqual([]);
  });

  it('notices a flag removed, a default changed, a flag and a command --help lacks (the check itself)', () => {
    expect(drift(page.replace(/^\| `--force` .*\n/m, ''))).toEqual(['backfill --force: not documented']);
    expect(drift(page.replace(/^(\| `--days <n>` +\| )`14`/m, '$1`7`'))).toEqual(['demo --days <n>: default `7`, but --help says 14']);
    expect(drift(page.replace(/^(\| `--force` .*)$/m, '$1\n| `--dry-run` | | invented |'))).toEqual([
      'backfill --dry-run: documented, but --help lists no such flag',
    ]);
    expect(drift(`${page}\n## \`purge\`\n\nInvented.\n`)).toEqual(['purge: documented, but --help lists no such command']);
  });
});
