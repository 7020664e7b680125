import { type Clock, checkTickerPeriod, sleepOn, type Ticker, type Timer } from "./clock.js";

/** Node's setTimeout silently fires after 1 ms for delays above this; longer delays are chained. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

class RealTimer implements Timer {
  private handle: NodeJS.Timeout | undefined;
  private due = 0;

  /** `rate`: the clock's speed over the wall clock; delays are in the clock's milliseconds. */
  constructor(
    ms: number,
    private readonly fn: () => void,
    private readonly rate = 1,
  ) {
    this.arm(ms);
  }

  private arm(ms: number): void {
    this.due = Date.now() + Math.max(0, ms / this.rate);
    this.schedule();
  }

  private schedule(): void {
    const remaining = this.due - Date.now();
    this.handle = setTimeout(
      () => {
        if (this.due - Date.now() > 0 && remaining > MAX_TIMEOUT_MS) {
          this.schedule();
          return;
        }
        this.handle = undefined;
        this.fn();
      },
      Math.min(Math.max(0, remaining), MAX_TIMEOUT_MS),
    );
  }

  stop(): boolean {
    if (this.handle === undefined) return false;
    clearTimeout(this.handle);
    this.handle = undefined;
    return true;
  }

  reset(ms: number): boolean {
    const wasActive = this.stop();
    this.arm(ms);
    return wasActive;
  }
}

/** A {@link Clock} on the wall clock and Node's timers (`clock.RealClock`). */
export class RealClock implements Clock {
  private readonly rate: number;
  private readonly origin: number;

  /**
   * `rate` (default 1): how many times as fast as the wall clock this clock runs, from its construction — with 60,
   * a minute passes in a wall second (its `now()` starts at the wall time and moves 60 ms per wall millisecond, and
   * its timers fire after a 60th of their delay). For running a whole simulated cluster faster than real time while
   * clients talk to it over real sockets (a CronJob's `* * * * *` schedule in the e2e tests); a finite number > 0.
   */
  constructor(options: { readonly rate?: number } = {}) {
    const rate = options.rate ?? 1;
    if (!Number.isFinite(rate) || rate <= 0) {
      throw new RangeError(`RealClock: rate must be a finite number > 0, got ${String(options.rate)}`);
    }
    this.rate = rate;
    this.origin = Date.now();
  }

  now(): number {
    const wall = Date.now();
    return this.rate === 1 ? wall : this.origin + (wall - this.origin) * this.rate;
  }

  since(t: number): number {
    return this.now() - t;
  }

  afterFunc(ms: number, fn: () => void): Timer {
    return new RealTimer(ms, fn, this.rate);
  }

  newTicker(ms: number, fn: () => void): Ticker {
    checkTickerPeriod(ms);
    const handle = setInterval(fn, Math.min(Math.max(1, ms / this.rate), MAX_TIMEOUT_MS));
    return { stop: () => clearInterval(handle) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

/** The process-wide real clock. Components default to it when no clock is injected. */
export const realClock: Clock = new RealClock();
