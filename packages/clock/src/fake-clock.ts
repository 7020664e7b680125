import { type Clock, checkTickerPeriod, sleepOn, type Ticker, type Timer } from "./clock.js";

interface Entry {
  due: number;
  seq: number;
  fn: () => void;
  /** For tickers: the period to re-arm with after firing. */
  period?: number;
  cancelled: boolean;
  /** In the heap (not yet fired, or a ticker re-armed); cancelled entries stay until they surface or a compaction. */
  inHeap: boolean;
  /** Where the timer was created: captured only once a same-instant loop is suspected (see `maxTimersPerInstant`). */
  origin?: string;
}

/** Options of a {@link FakeClock}. */
export interface FakeClockOptions {
  /**
   * How many timers {@link FakeClock.advanceTo} (and so `step` and `runUntilIdle`) runs at one virtual instant before
   * it reports a timer loop: a callback that keeps re-arming a 0 ms timer, directly or from a promise continuation or
   * `setImmediate`, would otherwise keep virtual time from ever moving and the call from ever returning. Default
   * 100 000.
   */
  maxTimersPerInstant?: number;
}

/** How many more timers run, with their creation stacks captured, after the bound is hit, to name the loop's origin. */
const ORIGIN_TRACE_TIMERS = 1_000;

/** Lets every pending promise continuation (and `process.nextTick` callback) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A {@link Clock} whose time only moves when the test says so (`testingclock.FakeClock`).
 *
 * Time starts at `start` (default 2026-01-01T00:00:00Z) and advances with {@link FakeClock.step},
 * {@link FakeClock.advanceTo} or {@link FakeClock.runUntilIdle}. Due timers run in time order; timers due at
 * the same instant run in creation order. Between two timers the clock yields to the event loop so that
 * promise continuations triggered by the first timer settle (and may create or cancel timers) before the
 * next one runs. Nothing ever happens in real time: the same sequence of calls always produces the same
 * sequence of callbacks.
 *
 * An exception thrown by a timer callback does not stop the clock; the first one is re-thrown from the
 * `step` / `advanceTo` / `runUntilIdle` call that ran it, after time has reached its target.
 *
 * A timer loop at one instant (more than `maxTimersPerInstant` timers without time moving) rejects the call with an
 * error naming where the looping timer was created, instead of hanging the test: see {@link FakeClockOptions}.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private heap: Entry[] = [];
  /** Cancelled entries still in the heap, so counting and compaction need no scan. */
  private cancelledInHeap = 0;
  private readonly maxTimersPerInstant: number;
  /** Set while a suspected same-instant loop runs on: new timers record their creation stack. */
  private traceOrigins = false;

  constructor(start: number = Date.UTC(2026, 0, 1), options: FakeClockOptions = {}) {
    this.current = start;
    const max = options.maxTimersPerInstant ?? 100_000;
    if (!(Number.isInteger(max) && max > 0)) {
      throw new RangeError(`FakeClock: maxTimersPerInstant must be a positive integer, got ${max}`);
    }
    this.maxTimersPerInstant = max;
  }

  now(): number {
    return this.current;
  }

  since(t: number): number {
    return this.current - t;
  }

  afterFunc(ms: number, fn: () => void): Timer {
    let entry = this.push(ms, fn);
    return {
      stop: () => this.cancel(entry),
      reset: (next: number) => {
        const wasActive = this.cancel(entry);
        entry = this.push(next, fn);
        return wasActive;
      },
    };
  }

  newTicker(ms: number, fn: () => void): Ticker {
    checkTickerPeriod(ms);
    const entry = this.push(ms, fn);
    entry.period = ms;
    return {
      stop: () => {
        this.cancel(entry);
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** The number of timers and tickers that have not fired (tickers count while running). */
  pendingTimers(): number {
    return this.heap.length - this.cancelledInHeap;
  }

  /** The due time of the earliest pending timer, or undefined when none is pending. */
  nextDue(): number | undefined {
    this.dropCancelledHead();
    return this.heap[0]?.due;
  }

  /**
   * Advances time by `ms`, running every timer that becomes due on the way, including timers created by callbacks
   * during the step when they fall due inside it.
   *
   * Differences from client-go: Go's `testingclock.FakeClock.Step` fires only the waiters registered before the call
   * (and a ticker at most once); {@link FakeClock.goStep} offers that behaviour for ported tests.
   */
  async step(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.step needs a non-negative duration, got ${ms}`);
    await this.advanceTo(this.current + ms);
  }

  /**
   * Go's `FakeClock.Step` semantics, for tests ported from client-go: sets the time to now + `ms` first, then runs
   * only the timers that were already registered when the call started and are due by then, each at most once, in
   * due order; a timer created by one of those callbacks does not run in this call even when it falls due inside
   * the step, and a ticker fires once and is re-armed to its first period after the new time (no catch-up).
   * {@link FakeClock.step} differs: it walks through the interval and also runs timers created on the way.
   * Callbacks see `now()` equal to the new time. The first exception thrown by a callback is re-thrown after all
   * of them ran.
   */
  async goStep(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.goStep needs a non-negative duration, got ${ms}`);
    await settle();
    const target = this.current + ms;
    this.current = target;
    this.dropCancelledHead();
    const due = this.heap.filter((e) => !e.cancelled && e.due <= target).sort((a, b) => (this.less(a, b) ? -1 : 1));
    let firstError: unknown;
    let failed = false;
    for (const entry of due) {
      // A callback that ran earlier in this loop may have cancelled it.
      if (entry.cancelled) continue;
      this.remove(entry);
      if (entry.period !== undefined) {
        while (entry.due <= target) entry.due += entry.period;
        entry.seq = this.seq++;
        this.insert(entry);
      }
      try {
        entry.fn();
      } catch (err) {
        if (!failed) {
          failed = true;
          firstError = err;
        }
      }
      await settle();
    }
    await settle();
    if (failed) throw firstError;
  }

  /**
   * Advances time to `t` (not before now), running every timer due at or before `t`. Rejects, with time left at the
   * looping instant, when more than `maxTimersPerInstant` timers run without time moving (see
   * {@link FakeClockOptions}); the message names the looping timer's creation site.
   */
  async advanceTo(t: number): Promise<void> {
    let firstError: unknown;
    let failed = false;
    let instant = Number.NaN;
    let atInstant = 0;
    await settle();
    try {
      for (;;) {
        this.dropCancelledHead();
        const head = this.heap[0];
        if (head === undefined || head.due > t) break;
        this.pop();
        this.current = Math.max(this.current, head.due);
        if (this.current !== instant) {
          instant = this.current;
          atInstant = 0;
          this.traceOrigins = false;
        }
        atInstant++;
        if (atInstant > this.maxTimersPerInstant) this.checkLoop(head, atInstant);
        const error = await this.fire(head);
        if (error !== undefined && !failed) {
          failed = true;
          firstError = error.err;
        }
      }
    } finally {
      this.traceOrigins = false;
    }
    this.current = Math.max(this.current, t);
    await settle();
    if (failed) throw firstError;
  }

  /**
   * Past the bound: starts recording creation stacks, and once a timer that has one comes due (the loop re-armed
   * it), throws naming that site; a loop that never creates a new timer is named after ORIGIN_TRACE_TIMERS more.
   */
  private checkLoop(head: Entry, atInstant: number): void {
    this.traceOrigins = true;
    const over = atInstant - this.maxTimersPerInstant;
    if (head.origin === undefined && over <= ORIGIN_TRACE_TIMERS) return;
    const at = new Date(this.current).toISOString();
    const where =
      head.origin !== undefined
        ? `the looping timer (callback ${head.fn.name || "<anonymous>"}) was created at:\n${head.origin}`
        : `the looping timer's callback is ${head.fn.name || "<anonymous>"} (no creation site recorded: a ticker?)`;
    throw new Error(
      `FakeClock: timer loop at one instant, ${at}: more than ${this.maxTimersPerInstant} timers ran without ` +
        `virtual time moving (a callback that keeps re-arming a 0 ms timer, directly or via a promise or ` +
        `setImmediate?); ${where}`,
    );
  }

  /** Runs one popped entry (re-arming a ticker), then lets continuations settle; a thrown error is returned. */
  private async fire(head: Entry): Promise<{ err: unknown } | undefined> {
    let error: { err: unknown } | undefined;
    if (head.period !== undefined) {
      head.due += head.period;
      head.seq = this.seq++;
      this.insert(head);
    }
    try {
      head.fn();
    } catch (err) {
      error = { err };
    }
    await settle();
    return error;
  }

  /**
   * Repeatedly jumps to the next pending timer and runs it until no timer is pending. Tickers never go idle,
   * so the run stops with an error after `maxTimers` callbacks (default 100 000) to expose a livelock.
   */
  async runUntilIdle(maxTimers = 100_000): Promise<void> {
    let ran = 0;
    await settle();
    for (;;) {
      const due = this.nextDue();
      if (due === undefined) return;
      if (ran++ >= maxTimers) {
        throw new Error(`FakeClock.runUntilIdle: still busy after ${maxTimers} timers (a ticker or a timer loop?)`);
      }
      await this.advanceTo(due);
    }
  }

  private push(ms: number, fn: () => void): Entry {
    const entry: Entry = {
      due: this.current + Math.max(0, ms),
      seq: this.seq++,
      fn,
      cancelled: false,
      inHeap: false,
    };
    if (this.traceOrigins) entry.origin = new Error("timer created").stack?.split("\n").slice(2, 8).join("\n");
    this.insert(entry);
    return entry;
  }

  /**
   * Cancels an entry in O(1) (amortized): it stays in the heap, marked, until it reaches the head or until
   * cancelled entries are more than half of the heap, when the heap is rebuilt without them. True when the entry
   * was still pending.
   */
  private cancel(entry: Entry): boolean {
    if (entry.cancelled) return false;
    entry.cancelled = true;
    if (!entry.inHeap) return false;
    this.cancelledInHeap++;
    if (this.cancelledInHeap > 64 && this.cancelledInHeap * 2 > this.heap.length) {
      const live: Entry[] = [];
      for (const e of this.heap) {
        if (e.cancelled) e.inHeap = false;
        else live.push(e);
      }
      // Floyd's bottom-up heap construction: O(n), so each cancel stays O(1) amortized.
      this.heap = live;
      for (let i = (live.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
      this.cancelledInHeap = 0;
    }
    return true;
  }

  private dropCancelledHead(): void {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) {
      this.pop();
      this.cancelledInHeap--;
    }
  }

  // A binary min-heap ordered by (due, seq).
  private less(a: Entry, b: Entry): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  private insert(entry: Entry): void {
    const h = this.heap;
    entry.inHeap = true;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  /** Removes one live entry from anywhere in the heap (O(n) to find it; used by {@link FakeClock.goStep} only). */
  private remove(entry: Entry): void {
    const h = this.heap;
    const i = h.indexOf(entry);
    if (i < 0) return;
    entry.inHeap = false;
    const last = h.pop()!;
    if (i === h.length) return;
    h[i] = last;
    this.siftDown(i);
    let j = i;
    while (j > 0) {
      const parent = (j - 1) >> 1;
      if (!this.less(h[j]!, h[parent]!)) break;
      [h[j], h[parent]] = [h[parent]!, h[j]!];
      j = parent;
    }
  }

  private pop(): Entry | undefined {
    const h = this.heap;
    const top = h[0];
    if (top !== undefined) top.inHeap = false;
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  private siftDown(start: number): void {
    const h = this.heap;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
