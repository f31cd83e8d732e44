/**
 * Examples in the docs that come from the commands themselves: the fenced block right after a
 * `<!-- output: NAME -->` comment is what a test (the one that names NAME) sees the command print,
 * compared line by line, so the page cannot drift from the output.
 */
import { readDoc } from './markdown.js';

/** The lines of the block marked `name` in `file`; throws when the page has no such block. */
export function documentedOutput(file: string, name: string): string[] {
  const marker = `<!-- output: ${name} -->`;
  const lines = readDoc(file).split('\n');
  const at = lines.indexOf(marker);
  if (at < 0) throw new Error(`${file} has no ${marker}`);
  const open = lines.findIndex((line, i) => i > at && line.trim() !== '');
  const fence = /^(`{3,})[^`]*$/.exec(lines[open] ?? '')?.[1];
  if (!fence) throw new Error(`${file}: ${marker} is not followed by a fenced block`);
  const close = lines.findIndex((line, i) => i > open && line === fence);
  if (close < 0) throw new Error(`${file}: the block after ${marker} is not closed`);
  return lines.slice(open + 1, close);
}
