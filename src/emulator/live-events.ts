/**
 * New events while the emulator runs: `perSecond` per scope, each created now or, with late
 * events on, up to N seconds in the past (visible at once, like a late arrival).
 */
import type { ApiEvent } from '../events/types.js';
import type { Dataset } from './dataset.js';

const TICK_MS = 200;

export class LiveEvents {
  private timer: NodeJS.Timeout | undefined;
  private owed = 0;
  private lastMs: number;

  constructor(
    private readonly dataset: Dataset,
    private readonly now: () => number,
    private readonly random: () => number,
    private readonly settings: () => { lateEventsMaxSeconds: number; malformedRate: number },
    private perSecond = 0,
    /** Called with each new event and the moment it was created, in ms (the push export). */
    private readonly onEvent?: (event: ApiEvent, createdMs: number) => void,
  ) {
    this.lastMs = now();
    this.setRate(perSecond);
  }

  setRate(perSecond: number): void {
    if (!(perSecond >= 0 && Number.isFinite(perSecond))) throw new RangeError(`live rate must be a number >= 0, got ${perSecond}`);
    this.perSecond = perSecond;
    if (perSecond > 0 && !this.timer) {
      this.lastMs = this.now();
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
    } else if (perSecond === 0 && this.timer) {
      this.stop();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.owed = 0;
  }

  private tick(): void {
    const now = this.now();
    this.owed += (Math.max(0, now - this.lastMs) / 1000) * this.perSecond;
    this.lastMs = now;
    const count = Math.floor(this.owed);
    if (count === 0) return;
    this.owed -= count;
    const { lateEventsMaxSeconds, malformedRate } = this.settings();
    const nowSec = Math.floor(now / 1000);
    for (const scopeKey of this.dataset.scopes()) {
      for (let i = 0; i < count; i += 1) {
        const late = lateEventsMaxSeconds > 0 ? Math.floor(this.random() * (lateEventsMaxSeconds + 1)) : 0;
        // Made into JSON only for a listener: the feed materializes events when a page asks.
        const event = this.dataset.addLiveEvent(scopeKey, nowSec - late, malformedRate, this.onEvent !== undefined);
        if (event) this.onEvent?.(event, now - late * 1000);
      }
    }
  }
}
