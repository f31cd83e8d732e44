/**
 * SIGTERM and SIGINT for commands that run a while: the first asks for a clean stop (its promise
 * resolves and `signal` aborts); a repeat calls `onRepeat`, for processes that can stop faster.
 * SIGPIPE too: closed-output.ts raises it when the reader of stdout or stderr has gone away.
 */
export interface ShutdownSignals {
  /** Resolves with the first signal's name. */
  readonly first: Promise<NodeJS.Signals>;
  /** Aborted on the first signal, for work that takes an AbortSignal. */
  readonly signal: AbortSignal;
  dispose(): void;
}

export function listenForShutdown(onRepeat?: (signal: NodeJS.Signals) => void): ShutdownSignals {
  const controller = new AbortController();
  let resolveFirst!: (signal: NodeJS.Signals) => void;
  const first = new Promise<NodeJS.Signals>((resolve) => (resolveFirst = resolve));
  const handler = (signal: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      controller.abort(new Error(`interrupted by ${signal}`));
      resolveFirst(signal);
    } else {
      onRepeat?.(signal);
    }
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  process.on('SIGPIPE', handler);
  return {
    first,
    signal: controller.signal,
    dispose() {
      process.off('SIGTERM', handler);
      process.off('SIGINT', handler);
      process.off('SIGPIPE', handler);
    },
  };
}

/**
 * The last resort of a bounded stop: `ms` after it is armed the process exits with code 1, whatever
 * it is still waiting on (a close to a peer that never answers). Unref'd, so it never keeps the
 * process alive by itself.
 */
export function armHardStop(ms: number, onExpire: () => void): NodeJS.Timeout {
  const timer = setTimeout(() => {
    onExpire();
    process.exit(1);
  }, ms);
  timer.unref();
  return timer;
}

/**
 * After every close has been given up on, a socket to a silent peer still keeps the event loop
 * alive; the process exits (with the code already set) once the caller has had `lingerMs` to finish.
 */
export function exitEvenIfSocketsLinger(lingerMs = 2_000): void {
  setTimeout(() => process.exit(), lingerMs).unref();
}
