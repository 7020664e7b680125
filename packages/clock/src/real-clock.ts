import { type Clock, checkTickerPeriod, sleepOn, type Ticker, type Timer } from "./clock.js";

/** Node's setTimeout silently fires after 1 ms for delays above this; longer delays are chained. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

class RealTimer implements Timer {
  private handle: NodeJS.Timeout | undefined;
  private due = 0;

  constructor(
    ms: number,
    private readonly fn: () => void,
  ) {
    this.arm(ms);
  }

  private arm(ms: number): void {
    this.due = Date.now() + Math.max(0, ms);
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
  now(): number {
    return Date.now();
  }

  since(t: number): number {
    return Date.now() - t;
  }

  afterFunc(ms: number, fn: () => void): Timer {
    return new RealTimer(ms, fn);
  }

  newTicker(ms: number, fn: () => void): Ticker {
    checkTickerPeriod(ms);
    const handle = setInterval(fn, Math.min(ms, MAX_TIMEOUT_MS));
    return { stop: () => clearInterval(handle) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

/** The process-wide real clock. Components default to it when no clock is injected. */
export const realClock: Clock = new RealClock();
