/**
 * Whether the Events API has been answering this client: a partition or a dead proxy shows up
 * as requests that get no answer at all (no status), which the worker's /healthz and /readyz
 * report. Any answer, an error status included, means the API is reachable.
 */
export class ApiReachability {
  /** Unanswered requests in a row before the API counts as unreachable (one is a blip). */
  static readonly UNANSWERED_TO_REPORT = 2;
  /** An answer this recent proves the API answers: readiness sends no probe of its own. */
  static readonly FRESH_ANSWER_MS = 10_000;
  #unansweredSince: number | undefined;
  #unanswered = 0;
  #lastFailure = '';
  #lastAnsweredAt: number | undefined;

  answered(now = Date.now()): void {
    this.#unansweredSince = undefined;
    this.#unanswered = 0;
    this.#lastAnsweredAt = now;
  }

  noAnswer(failure: string, now = Date.now()): void {
    this.#unansweredSince ??= now;
    this.#unanswered += 1;
    this.#lastFailure = failure;
  }

  /** When the API last answered this client (undefined: never). */
  get lastAnsweredAt(): number | undefined {
    return this.#lastAnsweredAt;
  }

  /** An answer within FRESH_ANSWER_MS and no run of unanswered requests since: no probe needed. */
  answeredRecently(now = Date.now()): boolean {
    return (
      this.#lastAnsweredAt !== undefined &&
      now - this.#lastAnsweredAt < ApiReachability.FRESH_ANSWER_MS &&
      this.#unanswered < ApiReachability.UNANSWERED_TO_REPORT
    );
  }

  /** Throws, naming how long and why, while the last requests all went unanswered. */
  assertAnswering(): void {
    if (this.#unansweredSince === undefined || this.#unanswered < ApiReachability.UNANSWERED_TO_REPORT) return;
    throw new Error(
      `no answer from the Events API since ${new Date(this.#unansweredSince).toISOString()} (${this.#unanswered} requests in a row): ${this.#lastFailure}`,
    );
  }
}
