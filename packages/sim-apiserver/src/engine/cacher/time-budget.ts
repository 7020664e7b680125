import type { Clock } from "@informer-ts/clock";

/** Dispatch budget constants (kube-apiserver `time_budget.go`). */
export const MAX_DISPATCH_BUDGET_MS = 100;
export const BUDGET_REFRESH_MS_PER_SECOND = 50;

/**
 * The cacher's shared time budget for blocking on slow watchers, as kube-apiserver v1.23–v1.35 (`timeBudgetImpl`,
 * `k8s.io/apiserver/pkg/storage/cacher/time_budget.go`) keeps it:
 *
 * - it starts **empty** when the cacher is created;
 * - {@link takeAvailable} first credits the time elapsed since the previous take, pro rata (`refreshPerSecond` ms
 *   per second of clock time, fractions included; never negative if the clock went back), caps the result at
 *   `max`, remembers "now" as the last take, and hands out everything;
 * - {@link returnUnused} adds back what the caller did not spend (ignored when negative), capped at `max`; it does
 *   not credit elapsed time — the next take does.
 *
 * Time comes only from the injected {@link Clock}.
 */
export class TimeBudget {
  private budget = 0;
  private last: number;

  /**
   * @param clock the clock whose elapsed time refills the budget.
   * @param max the cap in milliseconds (kube-apiserver: 100).
   * @param refreshPerSecond milliseconds credited per second of elapsed time (kube-apiserver: 50).
   */
  constructor(
    private readonly clock: Clock,
    private readonly max = MAX_DISPATCH_BUDGET_MS,
    private readonly refreshPerSecond = BUDGET_REFRESH_MS_PER_SECOND,
  ) {
    this.last = clock.now();
  }

  /** The budget plus what elapsed time since the last take has earned, capped (no state change). */
  private accrued(now: number): number {
    const earned = Math.max(0, ((now - this.last) * this.refreshPerSecond) / 1000);
    return Math.min(this.max, this.budget + earned);
  }

  /** Milliseconds available now; all of it is taken and the budget is left empty. */
  takeAvailable(): number {
    const now = this.clock.now();
    const t = this.accrued(now);
    // Upstream moves its reference point to "now" on every take, also when the clock went backwards.
    this.last = now;
    this.budget = 0;
    return t;
  }

  /** Gives back `ms` a caller did not spend (negative: it overspent, nothing is returned), capped at the maximum. */
  returnUnused(ms: number): void {
    if (!(ms > 0)) return;
    this.budget = Math.min(this.max, this.budget + ms);
  }

  /** What {@link takeAvailable} would hand out now, without taking it (for tests and metrics). */
  available(): number {
    return this.accrued(this.clock.now());
  }
}
