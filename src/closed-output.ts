/**
 * A reader that goes away (`events-mirror status | head -1`) is not a failure, as for any Unix
 * tool: once stdout or stderr answers EPIPE, further writes to it are dropped, and commands that run
 * a while are asked to stop cleanly as on SIGTERM (through `SIGPIPE`, which shutdown-signals.ts
 * listens for). The command then ends with the exit code its own work earns (0 when it went
 * well), never `Error: write EPIPE` and a stack. Node ignores the real SIGPIPE, so this is the only
 * way such a write is noticed.
 */
export function stopQuietlyWhenOutputCloses(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      if (closed.has(stream)) return;
      closed.add(stream);
      stream.write = dropWrite;
      process.emit('SIGPIPE', 'SIGPIPE');
    });
  }
}

const closed = new WeakSet<NodeJS.WriteStream>();

/** `write` for a stream nobody reads: accepted and dropped, callback called as a write's would be. */
function dropWrite(_chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean {
  const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
  if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
  return true;
}
