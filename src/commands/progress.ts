/**
 * Progress for the commands a person runs, on stderr when it is a terminal: a bar that one line
 * redraws (nothing when stderr is a file or a pipe, or when LOG_LEVEL=info lines would stream by).
 * Log lines written while it is drawn appear above it, whole, and the bar is drawn again below
 * them (terminal-lines.ts): they neither tear the bar nor are cut at the terminal's width.
 */
import cliProgress from 'cli-progress';
import type { Logger } from '../logger.js';
import { drawLinesAbove } from '../terminal-lines.js';

export interface Progress {
  /** `done` of `total` units, and the fields the format names. */
  update(done: number, total: number, fields?: Record<string, string | number>): void;
  stop(): void;
}

const NONE: Progress = { update: () => undefined, stop: () => undefined };

/** `format` is cli-progress's: {bar}, {value}, {total}, {eta_formatted} and the fields given to update. */
export function terminalProgress(format: string, logger?: Logger): Progress {
  if (!process.stderr.isTTY || logger?.isLevelEnabled('info')) return NONE;
  // cli-progress's MultiBar (with one bar) is the one that can print lines above its bars. With
  // linewrap on it cuts the bar itself to the terminal's width and leaves the terminal's wrapping
  // alone, so a long log line wraps instead of being cut. A bar of 30 cells leaves room in 80
  // columns for the counts and backfill's eta. The cursor stays visible: a Ctrl-C that
  // ends the process before stop() would leave it hidden in the person's shell.
  const bars = new cliProgress.MultiBar(
    { format, stream: process.stderr, hideCursor: false, linewrap: true, barsize: 30 },
    cliProgress.Presets.shades_classic,
  );
  let bar: cliProgress.SingleBar | undefined;
  return {
    update(done, total, fields = {}) {
      if (!bar) {
        bar = bars.create(total, 0, fields);
        drawLinesAbove((text) => {
          bars.log(text);
          bars.update();
        });
      }
      bar.setTotal(total);
      bar.update(Math.min(done, total), fields);
    },
    stop() {
      if (!bar) return;
      drawLinesAbove(undefined);
      bars.stop();
      bar = undefined;
    },
  };
}
