/**
 * The lines a person reads on stderr (the pretty log lines) and a progress bar share one screen.
 * While a bar is drawn, a line goes above it and the bar is drawn again below; otherwise it is
 * written at once. Written synchronously either way: a line logged just before the process exits
 * must not be lost.
 */
import { writeSync } from 'node:fs';

type LineSink = (text: string) => void;

let aboveBar: LineSink | undefined;

/** Writes `text` (one or more whole lines) to `fd`; on stderr above the bar when one is drawn. */
export function writeTerminalLines(fd: 1 | 2, text: string): void {
  if (fd === 2 && aboveBar) aboveBar(text);
  else writeSync(fd, text);
}

/** A bar calls this while it is drawn, and again with undefined when it is gone. */
export function drawLinesAbove(sink: LineSink | undefined): void {
  aboveBar = sink;
}
