// The scenario runtime: a rate-limited workqueue, N workers with a virtual per-item cost, sampling and a long wait
// histogram, all driven on a FakeClock to a virtual deadline (or waited on the real clock for a study's --real-time).
import { type Clock, FakeClock, type Rand, settle } from "@informer-ts/clock";
import { defaultControllerRateLimiter, RateLimitingQueue } from "@informer-ts/workqueue";
import { LongHistogram } from "./long-histogram.js";
import { costFunction, type ProcessingCost } from "./processing-cost.js";
import { type Sample, Sampler } from "./sampler.js";

/** What a worker's `process` callback may answer: `"skip"` finishes the item without paying its cost. */
export type ProcessOutcome = "skip" | undefined;

/** Options of {@link ScenarioRuntime}. */
export interface ScenarioRuntimeOptions {
  /**
   * The clock everything runs on (the informers', the simulator's and the queue's): a `FakeClock`, which
   * {@link ScenarioRuntime.run} drives, or a real clock (a study's `--real-time`), on which it waits.
   */
  readonly clock: FakeClock | Clock;
  /** Seeded randomness for cost distributions. */
  readonly rand: Rand;
  /** Number of workers (≥ 1). */
  readonly workers: number;
  /** Virtual time each processed item takes. */
  readonly cost: ProcessingCost;
  /**
   * Called when a worker takes a key, before the cost is paid. Answer `"skip"` to finish the item at once (a
   * controller's "already processed this resourceVersion" check). A throw is recorded in `errors`, never rethrown.
   */
  readonly process?: (key: string) => ProcessOutcome | Promise<ProcessOutcome>;
  /** Called when a key is taken, with how long it waited in the queue (virtual ms). */
  readonly onTaken?: (key: string, waitMs: number) => void;
  /** Sampling period in virtual ms (default 1000). */
  readonly sampleIntervalMs?: number;
  /** Sample `process.memoryUsage().heapUsed` too (default false; real memory is not deterministic). */
  readonly sampleHeap?: boolean;
  /** Cumulative apiserver requests keyed `verb/servedFrom`, e.g. from {@link requestsByServedFrom}. */
  readonly requests?: () => ReadonlyMap<string, number>;
}

/** Options of {@link ScenarioRuntime.run}. */
export interface RunOptions {
  /** Virtual ms to run for, from the call. */
  readonly forMs: number;
  /** Stop early once this returns true (checked after every step). */
  readonly until?: () => boolean;
  /** Describes `until`'s condition, for the stall error (default "the run's condition"). */
  readonly untilLabel?: string;
  /** Virtual ms per step (default: the sample interval): progress is reported and `until` checked per step. */
  readonly stepMs?: number;
  /** Called after every step with the virtual ms elapsed since the call. */
  readonly onProgress?: (elapsedMs: number) => void;
  /** Extra descriptions of pending work (e.g. "informer not synced"), named in the stall error. */
  readonly pending?: () => readonly string[];
  /**
   * A measure of the study's own progress (e.g. objects in an informer's store, the server's resourceVersion): a
   * change counts as progress for the stall check, besides the runtime's own counters.
   */
  readonly activity?: () => number;
  /**
   * Virtual ms without any progress after which unfinished work is a stall even though timers remain (recurring
   * timers — a resync, the server's bookmarks — keep the clock busy but finish nothing). Progress is any change of
   * the items processed, informer events, queue depth, the keys in flight or `activity`; a worker paying its
   * processing cost is progress in the making and never counts as stalled. Default 60 000; `Infinity` disables it.
   */
  readonly stallAfterMs?: number;
}

/** Which clock a run was on: `"virtual"` (a `FakeClock` the runtime drives) or `"real"` (a study's `--real-time`). */
export type RunClock = "virtual" | "real";

/**
 * Thrown by {@link ScenarioRuntime.run} when work is unfinished and cannot finish: either the clock has nothing left
 * to fire (no timer other than the runtime's own sampler), or only recurring timers fired for
 * {@link RunOptions.stallAfterMs} without any progress. Instead of hanging until a test timeout (or idling to the
 * deadline), the message names the keys being processed (worker, since when), the keys still queued and any other
 * pending condition; `idleMs` is how long nothing progressed (0 when the clock ran out of timers). `atMs` is the time
 * since the run started on `clock`: virtual ms, or real elapsed ms on the real clock, as the message says.
 */
export class ScenarioStalledError extends Error {
  constructor(
    readonly atMs: number,
    readonly pending: readonly string[],
    readonly idleMs = 0,
    readonly clock: RunClock = "virtual",
  ) {
    const at = clock === "real" ? `after ${atMs} ms of real time` : `at virtual t=${atMs} ms`;
    const why =
      idleMs === 0
        ? "the clock has nothing left to fire"
        : clock === "real"
          ? `no progress for ${idleMs} ms`
          : `no progress for ${idleMs} ms (only recurring timers fired)`;
    super(`scenario stalled ${at}: ${why} but work is unfinished: ${pending.join("; ")}`);
    this.name = "ScenarioStalledError";
  }
}

/** A failed item: the key and the error message of its `process` callback. */
export interface ItemError {
  readonly key: string;
  readonly message: string;
}

/**
 * An informer study's consumer side, as client-go controllers are built: handlers {@link enqueue} keys into a
 * {@link RateLimitingQueue} (client-go's default controller rate limiter), `workers` workers take them, call
 * `process`, and hold each item for its virtual cost. Every wait in the queue is observed in {@link waitHistogram}
 * (buckets up to hours); {@link run} drives the {@link FakeClock} to a virtual deadline, sampling as it goes, and
 * fails with a {@link ScenarioStalledError} instead of hanging. Call {@link stop} when done.
 *
 * Differences from client-go: the queue's own `workqueue_queue_duration_seconds` (buckets to 10 s) is unchanged; the
 * long histogram is an addition for studies.
 */
export class ScenarioRuntime {
  readonly queue: RateLimitingQueue<string>;
  readonly waitHistogram = new LongHistogram();
  readonly errors: ItemError[] = [];
  private readonly sampler: Sampler;
  private readonly costOf: (key: string) => number;
  private readonly queuedSince = new Map<string, number>();
  private readonly inFlight = new Map<string, { worker: number; since: number }>();
  private readonly ac = new AbortController();
  private workerRuns: Promise<void>[] = [];
  private nEvents = 0;
  private nProcessed = 0;
  private nSkipped = 0;
  /** Workers asleep on the clock paying an item's cost (they will finish by themselves). */
  private paying = 0;
  private started = false;

  constructor(private readonly opts: ScenarioRuntimeOptions) {
    if (!Number.isInteger(opts.workers) || opts.workers < 1)
      throw new RangeError(`workers must be an integer ≥ 1, got ${opts.workers}`);
    this.costOf = costFunction(opts.cost, opts.rand);
    this.queue = new RateLimitingQueue<string>(defaultControllerRateLimiter(opts.clock), { clock: opts.clock });
    this.sampler = new Sampler(
      opts.clock,
      {
        queueDepth: () => this.queue.len(),
        inFlight: () => this.inFlight.size,
        // queuedSince is set only when a key is absent, so its insertion order is wait order: the first is the oldest.
        oldestWaitMs: () => {
          const first = this.queuedSince.values().next();
          return first.done === true ? 0 : opts.clock.now() - first.value;
        },
        events: () => this.nEvents,
        processed: () => this.nProcessed,
        ...(opts.requests !== undefined && { requests: opts.requests }),
      },
      opts.sampleIntervalMs ?? 1000,
      opts.sampleHeap ?? false,
    );
  }

  /** Counts one informer event (for the events/s series) and adds `key` to the queue. */
  enqueue(key: string): void {
    this.nEvents++;
    if (!this.queuedSince.has(key)) this.queuedSince.set(key, this.opts.clock.now());
    this.queue.add(key);
  }

  /** Counts one informer event that enqueues nothing. */
  countEvent(): void {
    this.nEvents++;
  }

  /** Items finished (processed or skipped). */
  processed(): number {
    return this.nProcessed;
  }

  /** Items finished by `"skip"`. */
  skipped(): number {
    return this.nSkipped;
  }

  /** Samples taken so far. */
  samples(): readonly Sample[] {
    return this.sampler.samples;
  }

  /** Starts the workers and the sampler (idempotent). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.sampler.start();
    for (let i = 0; i < this.opts.workers; i++) this.workerRuns.push(this.worker(i));
  }

  /**
   * Drives the clock forward by `forMs` (or until `until()` holds), step by step. Throws a
   * {@link ScenarioStalledError} while items are queued or in flight, or `until` is unmet, when nothing but the
   * sampler is left to fire, or when nothing progressed for `stallAfterMs` (timers left notwithstanding).
   */
  async run(options: RunOptions): Promise<void> {
    this.start();
    const clock = this.opts.clock;
    if (!(clock instanceof FakeClock)) return this.runOnRealClock(clock, options);
    const { start, deadline, step, checkStall } = this.runBounds(clock.now(), options, "virtual");
    for (;;) {
      await settle();
      if (options.until?.()) return;
      if (clock.now() >= deadline) return;
      const pending = this.pendingWork(options);
      // The sampler's ticker is the runtime's own timer: it does not count as something that can finish the work.
      if (pending.length > 0 && clock.pendingTimers() <= 1)
        throw new ScenarioStalledError(clock.now() - start, pending);
      checkStall(clock.now(), pending);
      await clock.advanceTo(Math.min(deadline, clock.now() + step));
      options.onProgress?.(clock.now() - start);
    }
  }

  /**
   * {@link run} on a real clock: time passes by itself, so the runtime waits — checking `until` every 100 ms at most,
   * reporting progress at each step boundary — and a run in which nothing progressed for `stallAfterMs` (real ms)
   * while work is pending ends with a {@link ScenarioStalledError}.
   */
  private async runOnRealClock(clock: Clock, options: RunOptions): Promise<void> {
    const { start, deadline, step, checkStall } = this.runBounds(clock.now(), options, "real");
    let nextReport = start + step;
    for (;;) {
      if (options.until?.()) return;
      const now = clock.now();
      if (now >= deadline) return;
      checkStall(now, this.pendingWork(options));
      await clock.sleep(Math.max(1, Math.min(100, deadline - now, nextReport - now)));
      for (; clock.now() >= nextReport && nextReport <= deadline; nextReport += step)
        options.onProgress?.(nextReport - start);
    }
  }

  /**
   * A run's deadline and step from its options, and its stall check: called with the time and the pending work, it
   * throws a {@link ScenarioStalledError} once work has been pending without any progress for `stallAfterMs`.
   */
  private runBounds(start: number, options: RunOptions, runClock: RunClock) {
    const step = options.stepMs ?? this.opts.sampleIntervalMs ?? 1000;
    const stallAfterMs = options.stallAfterMs ?? 60_000;
    if (!(stallAfterMs > 0)) throw new RangeError(`stallAfterMs must be > 0, got ${stallAfterMs}`);
    let signature = "";
    let lastProgressAt = start;
    const checkStall = (now: number, pending: readonly string[]): void => {
      if (pending.length === 0) {
        lastProgressAt = now;
        return;
      }
      const sig = this.progressSignature(options);
      if (sig !== signature || this.paying > 0) {
        signature = sig;
        lastProgressAt = now;
      } else if (now - lastProgressAt >= stallAfterMs)
        throw new ScenarioStalledError(now - start, pending, now - lastProgressAt, runClock);
    };
    return { start, deadline: start + options.forMs, step, checkStall };
  }

  /** What changes whenever anything progresses (see {@link RunOptions.stallAfterMs}). */
  private progressSignature(options: Pick<RunOptions, "activity">): string {
    const flight = [...this.inFlight].map(([k, f]) => `${f.worker}:${k}@${f.since}`).join(",");
    return `${this.nProcessed}|${this.nEvents}|${this.queue.len()}|${flight}|${options.activity?.() ?? 0}`;
  }

  /** Descriptions of the unfinished work (empty when there is none). */
  pendingWork(options: Pick<RunOptions, "until" | "untilLabel" | "pending"> = {}): string[] {
    const now = this.opts.clock.now();
    const out: string[] = [];
    for (const [key, f] of this.inFlight)
      out.push(
        `worker ${f.worker} is processing "${key}" since ${now - f.since} ms and awaits something off the clock`,
      );
    if (this.queuedSince.size > 0) {
      const keys = [...this.queuedSince.keys()];
      const shown = keys
        .slice(0, 5)
        .map((k) => `"${k}"`)
        .join(", ");
      out.push(`${keys.length} key(s) queued (${shown}${keys.length > 5 ? ", …" : ""})`);
    }
    if (options.until !== undefined && !options.until())
      out.push(`${options.untilLabel ?? "the run's condition"} is unmet`);
    out.push(...(options.pending?.() ?? []));
    return out;
  }

  /** Stops the sampler (taking a last sample) and the workers; resolves when every worker has returned. */
  async stop(): Promise<void> {
    this.sampler.stop();
    this.ac.abort();
    this.queue.shutDown();
    await Promise.all(this.workerRuns);
  }

  private async worker(index: number): Promise<void> {
    const clock = this.opts.clock;
    for (;;) {
      const [key, shutdown] = await this.queue.get();
      if (shutdown) return;
      const now = clock.now();
      const since = this.queuedSince.get(key) ?? now;
      this.queuedSince.delete(key);
      this.waitHistogram.observe((now - since) / 1000);
      this.opts.onTaken?.(key, now - since);
      this.inFlight.set(key, { worker: index, since: now });
      try {
        const outcome = await this.opts.process?.(key);
        if (outcome === "skip") this.nSkipped++;
        else {
          const ms = this.costOf(key);
          if (ms > 0) {
            this.paying++;
            try {
              await clock.sleep(ms, this.ac.signal);
            } finally {
              this.paying--;
            }
          }
        }
        this.nProcessed++;
        this.queue.forget(key);
      } catch (err) {
        if (!this.ac.signal.aborted)
          this.errors.push({ key, message: err instanceof Error ? err.message : String(err) });
      } finally {
        this.inFlight.delete(key);
        this.queue.done(key);
      }
      if (this.ac.signal.aborted) return;
    }
  }
}

/**
 * Cumulative request counts keyed `verb/servedFrom` from a simulator's `accounting` (`SimApiServer.accounting`),
 * for {@link ScenarioRuntimeOptions.requests}.
 */
export function requestsByServedFrom(accounting: {
  rows(): readonly { verb: string; servedFrom: string; count: number }[];
}): () => ReadonlyMap<string, number> {
  return () => {
    const m = new Map<string, number>();
    for (const r of accounting.rows()) {
      const k = `${r.verb}/${r.servedFrom || "-"}`;
      m.set(k, (m.get(k) ?? 0) + r.count);
    }
    return m;
  };
}
