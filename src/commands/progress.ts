/**
 * Progress for the commands a person runs, on stderr when it is a terminal: a bar that one line
 * redraws (nothing when stderr is a file or a pipe, or when LOG_LEVEL=info lines would tear it).
 */
import cliProgress from 'cli-progress';
import type { Logger } from '../logger.js';

export interface Progress {
  /** `done` of `total` units, and the fields the format names. */
  update(done: number, total: number, fields?: Record<string, string | number>): void;
  stop(): void;
}

const NONE: Progress = { update: () => undefined, stop: () => undefined };

/** `format` is cli-progress's: {bar}, {value}, {total}, {eta_formatted} and the fields given to update. */
export function terminalProgress(format: string, logger?: Logger): Progress {
  if (!process.stderr.isTTY || logger?.isLevelEnabled('info')) return NONE;
  const bar = new cliProgress.SingleBar({ format, stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    update(done, total, fields = {}) {
      if (!started) bar.start(total, 0, fields);
      started = true;
      bar.setTotal(total);
      bar.update(Math.min(done, total), fields);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
