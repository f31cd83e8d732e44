/**
 * Waiting on a long-lived signal (the process's shutdown, a job's deadline) from many places at
 * once. Every in-flight request, held scope lock and back-off used to add its own `abort`
 * listener to that one signal: 4 scopes with 2 pages in flight each and their 4 locks made 12,
 * and Node warned of a leak past 10. Here a signal gets ONE listener, which calls the waiters
 * registered in our own set; each is removed when its wait ends, so the set holds only what
 * is waiting now. (`AbortSignal.any` would do the linking, but on Node 20 a composite signal
 * given a listener is kept until its source aborts: one per request, never freed.)
 */

type Waiter = () => void;

const waiters = new WeakMap<AbortSignal, Set<Waiter>>();

/** Calls `listener` once when `signal` aborts; the returned function stops waiting. */
export function onAbort(signal: AbortSignal, listener: Waiter): () => void {
  if (signal.aborted) {
    queueMicrotask(listener);
    return () => undefined;
  }
  let set = waiters.get(signal);
  if (!set) {
    const created = new Set<Waiter>();
    set = created;
    waiters.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        waiters.delete(signal);
        for (const waiter of created) waiter();
      },
      { once: true },
    );
  }
  let waiting = true;
  const waiter = () => {
    if (!waiting) return;
    waiting = false;
    listener();
  };
  set.add(waiter);
  return () => {
    waiting = false;
    set.delete(waiter);
  };
}

/**
 * A signal of its own for one operation (an HTTP request) that aborts with `parent`: what the
 * operation adds to it stays off the parent. Call `unlink` when the operation is over.
 */
export function linkedSignal(parent: AbortSignal): { readonly signal: AbortSignal; unlink(): void } {
  const controller = new AbortController();
  const unlink = onAbort(parent, () => controller.abort(parent.reason));
  return { signal: controller.signal, unlink };
}

/** The longest delay a Node timer keeps: past it Node fires after 1 ms (TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves after `ms` (at most MAX_TIMER_MS, about 24.8 days: a longer wait is cut there, never
 * turned into a 1 ms one), or rejects with the signal's reason as soon as it aborts.
 */
export function sleep(asked: number, signal?: AbortSignal): Promise<void> {
  const ms = Math.min(asked, MAX_TIMER_MS);
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const stop = onAbort(signal, () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
  });
}
