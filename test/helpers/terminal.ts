/**
 * The CLI as a person sees it in a terminal of a given width: run on a pseudo-terminal (util-linux
 * `script`, so stdout and stderr are TTYs and the CLI draws what it draws for people), and its
 * output replayed into a headless xterm.js of that size, an independent terminal emulator that
 * applies carriage returns, line clearing, cursor moves and wrapping as a real one does.
 */
import { spawn } from 'node:child_process';
import xterm from '@xterm/headless';
import { cliEnv, cliNodeArgs, waitForExit } from './cli.js';

export interface TerminalRow {
  /** What the row shows, trailing blanks cut. */
  text: string;
  /** The row continues the one above: that line was longer than the terminal is wide. */
  wrapped: boolean;
}

export interface TerminalRun {
  code: number | null;
  /** Every row of the screen and its scrollback, top to bottom, trailing empty rows cut. */
  rows: TerminalRow[];
}

/** POSIX shell single quotes: any argument passes through `script -c` as it is. */
function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export async function runCliInTerminal(
  args: readonly string[],
  env: Record<string, string | undefined>,
  options: { cwd: string; columns?: number; timeoutMs?: number },
): Promise<TerminalRun> {
  const columns = options.columns ?? 80;
  const command = [process.execPath, ...cliNodeArgs(), ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['--quiet', '--return', '--command', `stty cols ${columns} rows 24; exec ${command}`, '/dev/null'], {
    cwd: options.cwd,
    env: { ...cliEnv(env), TERM: 'xterm-256color' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const terminal = new xterm.Terminal({ cols: columns, rows: 24, scrollback: 100_000, allowProposedApi: true });
  const written: Promise<void>[] = [];
  child.stdout.on('data', (chunk: Buffer) => written.push(new Promise((resolve) => terminal.write(chunk, resolve))));
  const { code, stderr } = await waitForExit(child, options.timeoutMs);
  if (stderr) throw new Error(`script wrote on its own stderr: ${stderr}`);
  await Promise.all(written);
  const buffer = terminal.buffer.active;
  const rows: TerminalRow[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    if (line) rows.push({ text: line.translateToString(true), wrapped: line.isWrapped });
  }
  while (rows.length > 0 && rows.at(-1)!.text === '') rows.pop();
  terminal.dispose();
  return { code, rows };
}

/** The screen's text, wrapped rows joined back into their lines. */
export function screenLines(rows: readonly TerminalRow[]): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    if (row.wrapped && lines.length > 0) lines[lines.length - 1] += row.text;
    else lines.push(row.text);
  }
  return lines;
}
