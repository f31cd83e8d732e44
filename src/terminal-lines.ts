/**
 * The lines a person reads on stderr (the pretty log lines) and a progress bar share one screen.
 * While a bar is drawn, a line goes above it and the bar is drawn again below; otherwise the
 * logger writes it as usual. Synchronous either way: a line logged just before the process exits
 * must not be lost.
 */
type LineSink = (text: string) => void;

let aboveBar: LineSink | undefined;

/** Hands `text` (whole lines) to the bar drawn on stderr; false when there is none, or `fd` is not stderr. */
export function writeAboveBar(fd: 1 | 2, text: string): boolean {
  if (fd !== 2 || !aboveBar) return false;
  aboveBar(text);
  return true;
}

/** A bar calls this while it is drawn, and again with undefined when it is gone. */
export function drawLinesAbove(sink: LineSink | undefined): void {
  aboveBar = sink;
}
