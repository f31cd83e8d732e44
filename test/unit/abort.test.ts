/**
 * Many waits on one long-lived signal (every in-flight request, held scope lock and back-off on
 * the process's shutdown signal) add one listener to it, not one each: 11 used to make Node warn
 * of a leak ("MaxListenersExceededWarning: Possible EventTarget memory leak detected").
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedSignal, onAbort, sleep } from '../../src/abort.js';

describe('waiting on one signal from many places', () => {
  it('adds one listener however many wait, calls each waiter once, and forgets those that stopped', async () => {
    const shutdown = new AbortController();
    const called: number[] = [];
    const stops = Array.from({ length: 50 }, (_, i) => onAbort(shutdown.signal, () => called.push(i)));
    const links = Array.from({ length: 50 }, () => linkedSignal(shutdown.signal));
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    for (const stop of stops.slice(0, 10)) stop();
    for (const link of links.slice(0, 10)) link.unlink();
    shutdown.abort(new Error('SIGTERM'));
    expect(called).toEqual(Array.from({ length: 40 }, (_, i) => i + 10));
    expect(links.slice(0, 10).every((l) => !l.signal.aborted)).toBe(true);
    expect(links.slice(10).every((l) => l.signal.aborted && (l.signal.reason as Error).message === 'SIGTERM')).toBe(true);
  });

  it('sleep ends early with the reason when the signal aborts, and leaves nothing behind when it does not', async () => {
    const controller = new AbortController();
    await sleep(5, controller.signal);
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    await expect(sleep(1, controller.signal)).rejects.toThrow('shutting down');
    let late = false;
    onAbort(controller.signal, () => (late = true));
    await Promise.resolve();
    expect(late).toBe(true);
  });
});
