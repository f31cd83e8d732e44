/**
 * The page transactions of one window running at once, each on its own connection. A page begins
 * at once, up to `limit` at a time, unless it must follow the pages still landing: when it lists an
 * event one of them lists too (the later read is the one that must stay), or when it carries the
 * checkpoint (every earlier page must have committed first). A page waits before its transaction
 * begins, never inside one, so no transaction waits on another except for rows, where PostgreSQL
 * sees the wait (and would break a deadlock).
 */
export class PagesInFlight {
  readonly #landings = new Map<Promise<void>, ReadonlySet<string>>();
  #failure: { readonly error: unknown } | undefined;

  constructor(private readonly limit: number) {}

  /** Resolves when a page listing `ids` may begin; throws the first failure of a page in flight. */
  async room(ids: readonly string[], followAll: boolean): Promise<void> {
    for (;;) {
      this.#throwIfFailed();
      const followed = [...this.#landings]
        .filter(([, listed]) => followAll || ids.some((id) => listed.has(id)))
        .map(([landing]) => landing);
      if (followed.length === 0 && this.#landings.size < this.limit) return;
      await Promise.race(followed.length > 0 ? followed : this.#landings.keys());
    }
  }

  add(landing: Promise<void>, ids: readonly string[]): void {
    const settled: Promise<void> = landing.then(
      () => void this.#landings.delete(settled),
      (error: unknown) => {
        this.#failure ??= { error };
        this.#landings.delete(settled);
      },
    );
    this.#landings.set(settled, new Set(ids));
  }

  /** Waits for every page in flight to commit or fail; throws the first failure. */
  async settle(): Promise<void> {
    await Promise.all(this.#landings.keys());
    this.#throwIfFailed();
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
