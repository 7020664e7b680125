import type { Clock } from "@informer-ts/clock";

/** Dispatch budget constants (kube-apiserver `time_budget.go`). */
export const MAX_DISPATCH_BUDGET_MS = 100;
export const BUDGET_REFRESH_MS_PER_SECOND = 50;

/**
 * The cacher's shared time budget for blocking on slow watchers: refills at 50 ms per second of clock time up to
 * 100 ms; {@link takeAvailable} hands out all of it, {@link returnUnused} gives back what was not spent.
 */
export class TimeBudget {
  private budget: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    private readonly max = MAX_DISPATCH_BUDGET_MS,
    private readonly refreshPerSecond = BUDGET_REFRESH_MS_PER_SECOND,
  ) {
    this.budget = max;
    this.last = clock.now();
  }

  private refresh(): void {
    const now = this.clock.now();
    if (now > this.last) {
      this.budget = Math.min(this.max, this.budget + ((now - this.last) * this.refreshPerSecond) / 1000);
      this.last = now;
    }
  }

  /** Milliseconds available now (all of it is taken). */
  takeAvailable(): number {
    this.refresh();
    const t = this.budget;
    this.budget = 0;
    return t;
  }

  returnUnused(ms: number): void {
    if (ms <= 0) return;
    this.refresh();
    this.budget = Math.min(this.max, this.budget + ms);
  }

  /** Current budget (for tests and metrics). */
  available(): number {
    this.refresh();
    return this.budget;
  }
}
