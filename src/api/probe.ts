/**
 * Readiness's question to the Events API: does it answer at all? One unauthenticated GET of the
 * base URL on a connection of its own (never one a hung job request holds), any status counting as
 * an answer (the API answers 401 to it); no answer within the deadline means it is unreachable.
 */
import { request, type Dispatcher } from 'undici';
import { errorMessage } from '../errors.js';

export interface ProbeTarget {
  /** The base URL, without credentials. */
  readonly url: string;
  /** A dispatcher for this probe alone (closed after it), or a shared one (left open). */
  readonly dispatcher: () => { dispatcher: Dispatcher; owned: boolean };
}

export async function probeApi(target: ProbeTarget, timeoutMs: number): Promise<void> {
  const { dispatcher, owned } = target.dispatcher();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await request(target.url, { method: 'GET', dispatcher, signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    await response.body.dump({ limit: 64 * 1024, signal });
  } catch (error) {
    const why = signal.aborted ? `no answer within ${timeoutMs} ms` : errorMessage(error);
    throw new Error(`the Events API at ${target.url} did not answer: ${why}`, { cause: error });
  } finally {
    if (owned) void dispatcher.destroy().catch(() => undefined);
  }
}
