/**
 * Docs that cannot drift, 4: every error message the CLI can print for configuration, arguments and
 * the warehouse appears in docs/troubleshooting.md, in a code span, with anything in the parts that
 * vary. The messages are read from the source (test/helpers/error-messages.ts), not from a list.
 */
import { describe, expect, it } from 'vitest';
import { cliErrorMessages, describeMessage, literalLength, messagePattern, type SourceMessage } from '../helpers/error-messages.js';
import { readDoc, withoutFences } from '../helpers/markdown.js';

/** The page's code spans, whitespace runs as one space. */
function codeSpans(markdown: string): string[] {
  return [...withoutFences(markdown).matchAll(/(`+)([\s\S]*?[^`])\1(?!`)/g)].map((m) => m[2]!.replace(/\s+/g, ' ').trim());
}

/** The messages the page lacks, as `where: message`. */
function undocumented(markdown: string, messages: readonly SourceMessage[]): string[] {
  const spans = codeSpans(markdown);
  return messages
    .filter((message) => !spans.some((span) => messagePattern(message.parts).test(span)))
    .map((message) => `${message.where}: ${describeMessage(message.parts)}`);
}

const messages = cliErrorMessages().filter((message) => literalLength(message.parts) > 0);
const page = readDoc('docs/troubleshooting.md');

describe('docs/troubleshooting.md', () => {
  it('reads the messages from the source', () => {
    const texts = messages.map((m) => describeMessage(m.parts));
    expect(messages.length).toBeGreaterThan(50);
    expect(texts).toEqual(
      expect.arrayContaining([
        "missing API key pair: set <…> (the API key's public and private key)",
        '--from <…> is after --to <…>: swap them',
        'expected `org:<orgId>` or `group:<groupId>` (ids of letters, digits, - and _).',
        'invalid configuration: <…>',
        '<…>: unknown key<…>',
        'port <…> on <…> is in use: pick another --port (0 picks a free one)',
        'expected a plain lower-case SQL identifier such as events_mirror',
      ]),
    );
  });

  it('shows every configuration, argument and warehouse error message', () => {
    expect(undocumented(page, messages)).toEqual([]);
  });

  it('notices a message removed from the page (the check itself)', () => {
    const removed = page.replace(/^- `--set and --reset both given: choose one`.*\n/m, '');
    expect(undocumented(removed, messages)).toEqual([
      expect.stringMatching(/^src\/commands\/checkpoint-run\.ts:\d+: --set and --reset both given: choose one$/),
    ]);
  });
});
