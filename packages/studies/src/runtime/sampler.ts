// Time-series sampling of a scenario on its clock.
import type { Clock, Ticker } from "@informer-ts/clock";

/** One sample: the state at virtual time `t` (ms since the run started) and the rates over the interval before it. */
export interface Sample {
  /** Virtual ms since the sampler started. */
  readonly t: number;
  /** Items waiting in the queue (not counting those being processed). */
  readonly queueDepth: number;
  /** Items being processed by workers. */
  readonly inFlight: number;
  /** How long the oldest queued key has been waiting, virtual ms (0 when the queue is empty). */
  readonly oldestWaitMs: number;
  /** Informer events (handler calls) received per second over the interval. */
  readonly eventsPerSecond: number;
  /** Items finished per second over the interval. */
  readonly processedPerSecond: number;
  /** apiserver requests per second over the interval, keyed `verb/servedFrom` (from the simulator's accounting). */
  readonly requestsPerSecond: Readonly<Record<string, number>>;
  /** `process.memoryUsage().heapUsed` in bytes, when heap sampling is on (real memory: not deterministic). */
  readonly heapUsed?: number;
}

/** What a {@link Sampler} reads at each tick. */
export interface SampleSource {
  queueDepth(): number;
  inFlight(): number;
  /** Age of the oldest queued key in ms (0 when none). */
  oldestWaitMs(): number;
  /** Cumulative informer events. */
  events(): number;
  /** Cumulative processed items. */
  processed(): number;
  /** Cumulative requests by `verb/servedFrom`, if there is an apiserver to account. */
  requests?(): ReadonlyMap<string, number>;
}

/**
 * Samples a {@link SampleSource} every `intervalMs` of the given clock (a ticker, so it runs under `FakeClock`),
 * turning cumulative counters into per-second rates. `start` takes the first sample at once; `stop` takes a last one.
 */
export class Sampler {
  readonly samples: Sample[] = [];
  private ticker: Ticker | undefined;
  private t0 = 0;
  private last = { t: 0, events: 0, processed: 0, requests: new Map<string, number>() as ReadonlyMap<string, number> };

  constructor(
    private readonly clock: Clock,
    private readonly source: SampleSource,
    private readonly intervalMs: number,
    private readonly heap = false,
  ) {
    if (!(intervalMs > 0)) throw new RangeError(`sample interval must be > 0 ms, got ${intervalMs}`);
  }

  start(): void {
    this.t0 = this.clock.now();
    this.last = { t: this.t0, events: this.source.events(), processed: this.source.processed(), requests: this.reqs() };
    this.take();
    this.ticker = this.clock.newTicker(this.intervalMs, () => this.take());
  }

  stop(): void {
    this.ticker?.stop();
    this.ticker = undefined;
    if (this.clock.now() > this.last.t) this.take();
  }

  private reqs(): ReadonlyMap<string, number> {
    return new Map(this.source.requests?.() ?? []);
  }

  private take(): void {
    const now = this.clock.now();
    const secs = (now - this.last.t) / 1000;
    const events = this.source.events();
    const processed = this.source.processed();
    const requests = this.reqs();
    const rps: Record<string, number> = {};
    for (const [k, v] of requests) {
      const d = v - (this.last.requests.get(k) ?? 0);
      if (d > 0) rps[k] = secs > 0 ? d / secs : 0;
    }
    this.samples.push({
      t: now - this.t0,
      queueDepth: this.source.queueDepth(),
      inFlight: this.source.inFlight(),
      oldestWaitMs: this.source.oldestWaitMs(),
      eventsPerSecond: secs > 0 ? (events - this.last.events) / secs : 0,
      processedPerSecond: secs > 0 ? (processed - this.last.processed) / secs : 0,
      requestsPerSecond: rps,
      ...(this.heap && { heapUsed: process.memoryUsage().heapUsed }),
    });
    this.last = { t: now, events, processed, requests };
  }
}
