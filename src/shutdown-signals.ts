/**
 * SIGTERM and SIGINT for commands that run a while: the first asks for a clean stop (its promise
 * resolves and `signal` aborts); a repeat calls `onRepeat`, for processes that can stop faster.
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
  return {
    first,
    signal: controller.signal,
    dispose() {
      process.off('SIGTERM', handler);
      process.off('SIGINT', handler);
    },
  };
}
