/**
 * Whether the Events API has been answering this client: a partition or a dead proxy shows up
 * as requests that get no answer at all (no status), which the worker's /healthz reports. Any
 * answer, an error status included, means the API is reachable.
 */
export class ApiReachability {
  /** Unanswered requests in a row before the API counts as unreachable (one is a blip). */
  static readonly UNANSWERED_TO_REPORT = 2;
  #unansweredSince: number | undefined;
  #unanswered = 0;
  #lastFailure = '';

  answered(): void {
    this.#unansweredSince = undefined;
    this.#unanswered = 0;
  }

  noAnswer(failure: string, now = Date.now()): void {
    this.#unansweredSince ??= now;
    this.#unanswered += 1;
    this.#lastFailure = failure;
  }

  /** Throws, naming how long and why, while the last requests all went unanswered. */
  assertAnswering(): void {
    if (this.#unansweredSince === undefined || this.#unanswered < ApiReachability.UNANSWERED_TO_REPORT) return;
    throw new Error(
      `no answer from the Events API since ${new Date(this.#unansweredSince).toISOString()} (${this.#unanswered} requests in a row): ${this.#lastFailure}`,
    );
  }
}
