// The watch-list's warning ticker for a missing initial-events-end bookmark (client-go's
// initialEventsEndBookmarkTicker in reflector.go).
import { formatGoDuration } from "@informer-ts/apimachinery";
import type { Ticker } from "@informer-ts/clock";
import { safeLog } from "./logger.js";
import type { WatchHandlerContext } from "./watch.js";

/**
 * Bookmark warning ticker of a watch-list: every 10 s, warn if the initial-events-end bookmark has not
 * arrived (`newInitialEventsEndBookmarkTicker`).
 */
export class InitialEventsEndBookmarkTicker {
  private ticker: Ticker | undefined;
  private lastEventObserveTime: number | undefined;

  constructor(
    private readonly ctx: WatchHandlerContext,
    private readonly watchStart: number,
    private readonly tickIntervalMs = 10_000,
  ) {}

  start(): void {
    this.ticker = this.ctx.clock.newTicker(this.tickIntervalMs, () => this.warnIfExpired());
  }

  observeLastEventTimeStamp(t: number): void {
    this.lastEventObserveTime = t;
  }

  /** The warning due now, or undefined (`produceWarningIfExpired`). */
  produceWarningIfExpired(): string | undefined {
    const clock = this.ctx.clock;
    if (this.lastEventObserveTime === undefined) {
      return `${this.ctx.name}: awaiting required bookmark event for initial events stream, no events received for ${formatGoDuration(clock.since(this.watchStart))}`;
    }
    const elapsed = clock.now() - this.lastEventObserveTime;
    if (elapsed < this.tickIntervalMs) return undefined;
    return `${this.ctx.name}: hasn't received required bookmark event marking the end of initial events stream, received last event ${formatGoDuration(elapsed)} ago`;
  }

  private warnIfExpired(): void {
    const message = this.produceWarningIfExpired();
    if (message === undefined) return;
    safeLog(this.ctx.logger, "warn", "event bookmark expired", { err: message });
    this.ctx.status.emit({ type: "initial-events-end-warning", message });
  }

  stop(): void {
    this.ticker?.stop();
    this.ticker = undefined;
  }
}
