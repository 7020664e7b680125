import { randomUUID } from "node:crypto";
import type { KubeObject } from "@informer-ts/apimachinery";
import type { ResourceEventHandlerRegistration, SharedIndexInformer } from "@informer-ts/cache";
import { waitFor } from "@informer-ts/cache";
import { type Clock, realClock, type Timer } from "@informer-ts/clock";
import {
  defaultRuntimeLogger,
  type Logger,
  type MetricsProvider,
  noopMetrics,
  safeLog,
  safeObservable,
  withFields,
} from "@informer-ts/instrumentation";
import {
  type DrainSemantics,
  defaultControllerRateLimiter,
  RateLimitingQueue,
  type TypedRateLimiter,
} from "@informer-ts/workqueue";
import { type Observable, Subject } from "rxjs";
import { type EventHandler, toResourceEventHandler } from "./handler.js";
import { type ControllerMetricSet, metricSet, type ReconcileResultLabel } from "./metrics.js";
import type { Predicate } from "./predicate.js";
import {
  isTerminalError,
  NonErrorThrownError,
  type ReconcileContext,
  type Reconciler,
  ReconcileTimeoutError,
  type Result,
  validateResult,
} from "./reconciler.js";
import { type Request, requestKey } from "./request.js";
import { abortedOf } from "./runnable-group.js";

/** One source of requests: an informer, the handler that maps its objects to requests, and its predicates. */
export interface WatchSource {
  readonly informer: SharedIndexInformer<KubeObject>;
  readonly handler: EventHandler<KubeObject>;
  readonly predicates?: readonly Predicate<KubeObject>[];
  /** A tombstone without a last known object enqueues its own key (the `for` watch). */
  readonly keyFallback?: boolean;
  /** Name of the informer handler registration (status, errors). */
  readonly name?: string;
}

/** Options of a {@link Controller} (controller-runtime's `controller.Options` plus its `New` arguments). */
export interface ControllerOptions {
  /** The controller's name: the `controller` label of its metrics and the `name` label of its work queue's. Required. */
  readonly name: string;
  readonly reconciler: Reconciler;
  /** Where requests come from. */
  readonly watches: readonly WatchSource[];
  /** Workers reconciling different keys at once. Default 1. */
  readonly maxConcurrentReconciles?: number;
  /** Default {@link defaultControllerRateLimiter} on the controller's clock. */
  readonly rateLimiter?: TypedRateLimiter<string>;
  /**
   * Per-reconcile timeout (ms; default none). When it elapses the reconcile's `ctx.signal` aborts with a
   * {@link ReconcileTimeoutError}; the reconcile counts as an error and the key is requeued rate-limited. If the
   * reconcile still does not settle, its worker is released (it is *abandoned*) but its key is not handed out again
   * until it settles.
   */
  readonly reconcileTimeout?: number;
  /** How long `run` waits for in-flight reconciles after its signal aborts before aborting theirs. Default 30 000 ms. */
  readonly gracefulShutdownTimeout?: number;
  /** How long `run` waits for the watches' handlers to sync before failing. Default 120 000 ms (`CacheSyncTimeout`). */
  readonly cacheSyncTimeout?: number;
  readonly clock?: Clock;
  /** Where the `controller_runtime_*` and `workqueue_*` metrics go. Default none. */
  readonly metrics?: MetricsProvider;
  /** The work queue's drain semantics (see the workqueue docs). Default `"client-go"`. */
  readonly drainSemantics?: DrainSemantics;
  /**
   * Whether a {@link Manager} with leader election runs this controller only while leading (`NeedLeaderElection`).
   * Default true; false runs it on every replica.
   */
  readonly needLeaderElection?: boolean;
  /**
   * Where the controller logs (`Reconciler error`, start and stop, abandoned reconciles, failing map functions), and
   * the parent of each reconcile's `ctx.log`. Default the process's runtime logger ({@link defaultRuntimeLogger});
   * `silentLogger` turns it off.
   */
  readonly logger?: Logger;
  /**
   * Asked before every reconcile; false stops the worker and leaves the key queued. A {@link Manager} with leader
   * fencing passes its elector's `fence()` to the controllers that need leader election.
   */
  readonly admit?: () => boolean;
  /** The group and kind the controller reconciles: the `controllerGroup`/`controllerKind` log keys (the builder's `for`). */
  readonly forKind?: { readonly group: string; readonly kind: string };
}

/** What a {@link Controller} reports on {@link Controller.events$}. */
export type ControllerEvent =
  | { readonly type: "started"; readonly workers: number }
  | { readonly type: "reconcileError"; readonly key: string; readonly error: Error; readonly terminal: boolean }
  | { readonly type: "reconcileAbandoned"; readonly key: string; readonly timeoutMs: number }
  | { readonly type: "abandonedSettled"; readonly key: string }
  | { readonly type: "mapError"; readonly source: string; readonly error: unknown }
  | { readonly type: "stopping"; readonly inFlight: number }
  | { readonly type: "shutdownAborted"; readonly keys: readonly string[] }
  | { readonly type: "stopped" };

/** A snapshot of a {@link Controller}'s state. */
export interface ControllerStatus {
  readonly name: string;
  readonly phase: "new" | "syncing" | "running" | "stopping" | "stopped";
  readonly workers: number;
  readonly activeWorkers: number;
  /** Keys whose reconcile is running, abandoned ones included. */
  readonly inFlight: readonly string[];
  /** Reconciles that outlived their timeout and have not settled yet. */
  readonly abandoned: number;
  readonly queueLength: number;
  readonly reconciles: number;
  readonly errors: number;
  readonly lastError?: { readonly key: string; readonly message: string; readonly time: number };
}

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * A controller (controller-runtime's `internal/controller.Controller`): watches feed a rate-limited work queue of
 * request keys, and `maxConcurrentReconciles` workers reconcile them.
 *
 * The reconcile contract (`reconcileHandler`): a thrown error, rejected promise or thrown non-`Error` requeues the key
 * with the rate limiter (client-go's default controller limiter: per-key exponential 5 ms…1000 s, max'ed with a
 * 10 qps / burst 100 bucket) and counts an error; a {@link TerminalError} is counted but not requeued; `requeueAfter`
 * forgets the backoff and requeues after that delay; `requeue: true` requeues rate-limited; anything else forgets the
 * key. A reconcile of one key never runs while another reconcile of the same key runs — also after a timeout.
 *
 * Lifecycle: {@link Controller.run} once. It registers the watches' handlers, waits for them to sync, runs the
 * workers until its signal aborts, then stops taking keys, waits up to `gracefulShutdownTimeout` for in-flight
 * reconciles, aborts the rest through their `ctx.signal`, removes its handlers and resolves. It does not start the
 * informers (the {@link Manager} or the caller's factory does). Its queue exists from construction on: a controller that
 * is never run keeps it (and, with metrics, its ticker timer) until `queue.shutDown()` — the {@link Manager} does that
 * for each of its controllers when it stops.
 *
 * Logs: every reconcile error is logged once as `Reconciler error` (level error) with controller-runtime's keys
 * `controller`, `controllerGroup`, `controllerKind`, `namespace`, `name`, `reconcileID` and `error`; each reconcile gets
 * `ctx.log`, a logger carrying the same keys (`log.FromContext(ctx)`), and `ctx.reconcileID`.
 *
 * Differences from controller-runtime: reconcile errors are also reported as data on {@link Controller.events$} and in
 * {@link Controller.status}; panics have no counterpart (a thrown non-`Error` is wrapped and counted
 * in `controller_runtime_reconcile_panics_total`); a per-reconcile timeout that is ignored by the reconcile abandons
 * it without running its key concurrently (controller-runtime only cancels the context).
 */
export class Controller {
  readonly name: string;
  /** The controller's work queue (keys `namespace/name`). */
  readonly queue: RateLimitingQueue<string>;
  /** Errors, abandonments and lifecycle changes. Completes when `run` has resolved. */
  readonly events$: Observable<ControllerEvent>;

  private readonly reconciler: Reconciler;
  private readonly watches: readonly WatchSource[];
  private readonly workers: number;
  private readonly clock: Clock;
  private readonly reconcileTimeout: number | undefined;
  private readonly gracefulShutdownTimeout: number;
  private readonly cacheSyncTimeout: number;
  private readonly leaderElected: boolean;
  private readonly events = new Subject<ControllerEvent>();
  /** The reconcile each worker runs now (index = worker), `undefined` while it waits for a key. */
  private readonly running: (InFlightReconcile | undefined)[];
  /** Reconciles that outlived their per-reconcile timeout: their worker moved on, their key is still in flight. */
  private readonly abandonedRuns = new Set<InFlightReconcile>();
  /** Aborted at the shutdown deadline: the signal of reconciles without a timeout, and the trigger of the others'. */
  private readonly stopAbort = new AbortController();
  private readonly m: ControllerMetricSet;
  /** The controller's logger: its name, group and kind on every line. */
  readonly log: Logger;
  /** The run's signal once `run` began: a worker checks it before each key (so an abort stops it at once). */
  private runSignal: AbortSignal | undefined;
  private readonly admit: (() => boolean) | undefined;
  /** False with `noopMetrics`: the per-reconcile metric updates (and the clock reads they need) are skipped. */
  private readonly recording: boolean;
  private phase: ControllerStatus["phase"] = "new";
  private stopping = false;
  private active = 0;
  private reconciles = 0;
  private errors = 0;
  private lastError: ControllerStatus["lastError"];

  constructor(options: ControllerOptions) {
    if (typeof options.name !== "string" || options.name === "") {
      throw new TypeError("controller options: name must be a non-empty string");
    }
    if (typeof options.reconciler !== "function") {
      throw new TypeError(`controller ${options.name}: reconciler must be a function`);
    }
    const workers = options.maxConcurrentReconciles ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new RangeError(
        `controller ${options.name}: maxConcurrentReconciles must be an integer ≥ 1, got ${workers}`,
      );
    }
    checkDuration(options.name, "reconcileTimeout", options.reconcileTimeout, true);
    checkDuration(options.name, "gracefulShutdownTimeout", options.gracefulShutdownTimeout, false);
    checkDuration(options.name, "cacheSyncTimeout", options.cacheSyncTimeout, true);
    this.name = options.name;
    this.reconciler = options.reconciler;
    this.watches = [...options.watches];
    this.workers = workers;
    this.clock = options.clock ?? realClock;
    this.reconcileTimeout = options.reconcileTimeout;
    this.gracefulShutdownTimeout = options.gracefulShutdownTimeout ?? 30_000;
    this.cacheSyncTimeout = options.cacheSyncTimeout ?? 120_000;
    if (options.needLeaderElection !== undefined && typeof options.needLeaderElection !== "boolean") {
      throw new TypeError(`controller ${options.name}: needLeaderElection must be a boolean`);
    }
    this.leaderElected = options.needLeaderElection ?? true;
    if (options.admit !== undefined && typeof options.admit !== "function") {
      throw new TypeError(`controller ${options.name}: admit must be a function`);
    }
    this.admit = options.admit;
    this.log = withFields(options.logger ?? defaultRuntimeLogger(), {
      controller: options.name,
      ...(options.forKind !== undefined && {
        controllerGroup: options.forKind.group,
        controllerKind: options.forKind.kind,
      }),
    });
    const metrics = options.metrics ?? noopMetrics;
    this.m = metricSet(metrics, this.name);
    this.recording = metrics !== noopMetrics;
    this.running = new Array<InFlightReconcile | undefined>(workers).fill(undefined);
    this.queue = new RateLimitingQueue<string>(options.rateLimiter ?? defaultControllerRateLimiter(this.clock), {
      name: this.name,
      metricsProvider: metrics,
      clock: this.clock,
      ...(options.drainSemantics !== undefined && { drainSemantics: options.drainSemantics }),
    });
    this.events$ = safeObservable(this.events.asObservable(), `controller ${this.name} events$`);
  }

  /** Whether a manager runs this controller only while leading (the `needLeaderElection` option; default true). */
  needLeaderElection(): boolean {
    return this.leaderElected;
  }

  /** Enqueues a request by hand (`Queue.Add`), e.g. from an external trigger. Ignored once stopping. */
  enqueue(request: Request): void {
    this.queue.add(requestKey(request));
  }

  /** The controller's state now. */
  status(): ControllerStatus {
    const inFlight = this.inFlightReconciles();
    let abandoned = 0;
    for (const f of inFlight) if (f.abandoned) abandoned++;
    return {
      name: this.name,
      phase: this.phase,
      workers: this.workers,
      activeWorkers: this.active,
      inFlight: inFlight.map((f) => f.key),
      abandoned,
      queueLength: this.queue.len(),
      reconciles: this.reconciles,
      errors: this.errors,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }

  /**
   * Runs the controller until `signal` aborts (see the class contract), resolving once every worker has stopped, every
   * in-flight reconcile has settled or been aborted, and its handlers are removed. Rejects (after releasing all of
   * that) only when the caches do not sync within `cacheSyncTimeout`. A second call rejects.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.phase !== "new") throw new Error(`controller ${this.name} was started more than once`);
    this.phase = "syncing";
    this.runSignal = signal;
    const registrations: [SharedIndexInformer<KubeObject>, ResourceEventHandlerRegistration][] = [];
    try {
      for (const w of this.watches) {
        const handler = toResourceEventHandler(w.handler, w.predicates ?? [], (r) => this.queue.add(requestKey(r)), {
          keyFallback: w.keyFallback === true,
          onMapError: (error) => {
            safeLog(this.log, "error", "Event handler failed to map an object to requests", {
              source: w.name ?? "watch",
              error,
            });
            this.events.next({ type: "mapError", source: w.name ?? "watch", error });
          },
        });
        registrations.push([
          w.informer,
          w.informer.addEventHandlerWithOptions(handler, { handlerName: `${this.name}/${w.name ?? "watch"}` }),
        ]);
      }
      safeLog(this.log, "info", "Starting Controller");
      const synced = await this.waitForSync(signal, registrations);
      if (!synced) {
        if (!signal.aborted) {
          safeLog(this.log, "error", "Could not wait for Cache to sync", {
            timeout: this.cacheSyncTimeout,
            sources: this.watches.map((w) => w.name ?? "watch"),
          });
          throw new Error(
            `controller ${this.name}: failed to wait for caches to sync within ${this.cacheSyncTimeout} ms`,
          );
        }
        return;
      }
      this.phase = "running";
      this.m.workerCount.set(this.workers);
      safeLog(this.log, "info", "Starting workers", { workerCount: this.workers });
      this.events.next({ type: "started", workers: this.workers });
      const workers = Array.from({ length: this.workers }, (_, slot) => this.worker(slot));
      await abortedOf(signal);
      await this.shutdown(workers);
    } finally {
      this.stopping = true;
      this.queue.shutDown();
      for (const [informer, reg] of registrations) informer.removeEventHandler(reg);
      await Promise.all(registrations.map(([, reg]) => reg.shutdownDone()));
      this.phase = "stopped";
      this.events.next({ type: "stopped" });
      this.events.complete();
    }
  }

  private async waitForSync(
    signal: AbortSignal,
    registrations: readonly [SharedIndexInformer<KubeObject>, ResourceEventHandlerRegistration][],
  ): Promise<boolean> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    if (signal.aborted) return false;
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = this.clock.afterFunc(this.cacheSyncTimeout, () => ac.abort(new Error("cache sync timeout")));
    try {
      return await waitFor(ac.signal, ...registrations.map(([, reg]) => reg.hasSyncedChecker()));
    } finally {
      timer.stop();
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Every reconcile in flight: the workers' current ones, then the abandoned ones. */
  private inFlightReconciles(): InFlightReconcile[] {
    const out: InFlightReconcile[] = [];
    for (const f of this.running) if (f !== undefined) out.push(f);
    for (const f of this.abandonedRuns) out.push(f);
    return out;
  }

  /** Stop taking keys, wait for in-flight reconciles up to the deadline, then abort them. */
  private async shutdown(workers: Promise<void>[]): Promise<void> {
    this.phase = "stopping";
    this.stopping = true;
    safeLog(this.log, "info", "Shutdown signal received, waiting for all workers to finish");
    this.events.next({ type: "stopping", inFlight: this.inFlightReconciles().length });
    this.queue.shutDown();
    // The workers cover their own reconciles; one with a timeout is waited for through its `settled` promise, also if
    // it is abandoned during the drain.
    const all = () =>
      Promise.all([...workers, ...this.inFlightReconciles().map((f) => f.settled)]).then(() => true as const);
    let timer: Timer | undefined;
    const deadline = new Promise<false>((resolve) => {
      timer = this.clock.afterFunc(this.gracefulShutdownTimeout, () => resolve(false));
    });
    const drained = await Promise.race([all(), deadline]);
    timer?.stop();
    if (drained) return;
    const pending = this.inFlightReconciles();
    safeLog(this.log, "warn", "Graceful shutdown timeout passed: aborting the reconciles still running", {
      timeout: this.gracefulShutdownTimeout,
      keys: pending.map((f) => f.key),
    });
    this.events.next({ type: "shutdownAborted", keys: pending.map((f) => f.key) });
    const reason = new Error(`controller ${this.name} is shutting down: graceful shutdown deadline passed`);
    this.stopAbort.abort(reason);
    for (const f of pending) f.abort?.abort(reason);
    // Reconciles that honour their signal settle within a few turns; one that ignores it is abandoned (its worker is
    // not awaited, its key stays in flight in the shut-down queue).
    let settleTurns = 0;
    await Promise.race([
      Promise.all(workers),
      (async () => {
        while (settleTurns++ < 100) await new Promise<void>((resolve) => setImmediate(resolve));
      })(),
    ]);
    settleTurns = 100;
    for (const f of this.inFlightReconciles()) f.abandoned = true;
  }

  /**
   * One worker (`processNextWorkItem` in a loop). The path without a per-reconcile timeout is inlined and costs one
   * `await` per key (the reconcile's result) and one allocation besides the request: the {@link InFlightReconcile},
   * which is also the reconcile's context. It shares the controller's stop signal (aborted only at the shutdown
   * deadline), so it needs no AbortController, listener, timer or race.
   */
  private async worker(slot: number): Promise<void> {
    const queue = this.queue;
    const timeout = this.reconcileTimeout;
    const runSignal = this.runSignal;
    while (!this.stopping) {
      let key = queue.tryGet();
      if (key === undefined) {
        const [item, shutdown] = await queue.get();
        if (shutdown) return;
        key = item as string;
      }
      if (this.stopping || runSignal?.aborted === true || (this.admit !== undefined && !this.admit())) {
        // Stopping (or the run's signal just aborted, e.g. leadership fenced): the key goes back for the next leader.
        if (!this.stopping) queue.add(key);
        queue.done(key);
        return;
      }
      const request = this.requestOf(key);
      if (request === undefined) continue;
      if (timeout !== undefined) {
        await this.reconcileWithTimeout(slot, key, request, timeout);
        continue;
      }
      const run = new InFlightReconcile(key, request, this.stopAbort.signal, undefined, this.name, this.log, queue);
      this.running[slot] = run;
      const start = this.begin();
      let value: unknown;
      let failed = false;
      try {
        value = await this.reconciler(request, run);
      } catch (error) {
        failed = true;
        value = error;
      }
      this.running[slot] = undefined;
      this.end(start);
      if (!run.abandoned) {
        if (failed) this.handleError(key, value, run);
        else this.handleResult(key, value, run);
      }
      // else: settled after the shutdown deadline (run has resolved already): just release the key.
      queue.done(key);
    }
  }

  /**
   * The request of a queue key (`namespace/name` or `name`); a key with more than one `/` (only `enqueue` by hand can
   * make one) is a terminal error: counted, forgotten, released, never reconciled.
   */
  private requestOf(key: string): Request | undefined {
    const slash = key.indexOf("/");
    if (slash < 0) return { namespace: "", name: key };
    if (key.indexOf("/", slash + 1) < 0) return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
    this.queue.forget(key);
    this.queue.done(key);
    this.recordError(key, new TypeError(`unexpected key format: ${JSON.stringify(key)}`), true);
    return undefined;
  }

  /** With a per-reconcile timeout: the reconcile races its own timer and signal. */
  private async reconcileWithTimeout(slot: number, key: string, request: Request, timeoutMs: number): Promise<void> {
    const abort = new AbortController();
    const onStop = () => abort.abort(this.stopAbort.signal.reason);
    this.stopAbort.signal.addEventListener("abort", onStop, { once: true });
    const run = new InFlightReconcile(key, request, abort.signal, abort, this.name, this.log, this.queue);
    const start = this.begin();
    let outcome: Promise<Outcome>;
    try {
      const value = this.reconciler(request, run);
      outcome = Promise.resolve(value).then(
        (v): Outcome => ({ ok: true, value: v }),
        (error: unknown): Outcome => ({ ok: false, error }),
      );
    } catch (error) {
      outcome = Promise.resolve({ ok: false, error });
    }
    run.settled = outcome.then(() => undefined);
    this.running[slot] = run;

    // Released by: the outcome, the per-reconcile timeout, or (during shutdown) the abort of the reconcile's signal.
    let timer: Timer | undefined;
    const released = new Promise<"timeout" | "aborted">((resolve) => {
      timer = this.clock.afterFunc(timeoutMs, () => {
        resolve("timeout"); // before the abort, whose listener would resolve "aborted"
        abort.abort(new ReconcileTimeoutError(key, timeoutMs));
      });
      abort.signal.addEventListener("abort", () => resolve("aborted"), { once: true });
    });
    const first = await Promise.race([outcome, released]);
    timer?.stop();
    this.stopAbort.signal.removeEventListener("abort", onStop);
    this.running[slot] = undefined;
    this.end(start);

    if (first === "timeout" || first === "aborted") {
      // The reconcile did not settle in time: count an error, requeue, and release the worker. The key stays in the
      // queue's processing set until the reconcile settles, so it is never handed out while the abandoned one runs.
      run.abandoned = true;
      this.abandonedRuns.add(run);
      const reason: unknown = abort.signal.reason;
      if (first === "timeout") this.m.reconcileTimeouts.inc();
      safeLog(run.log, "warn", "Reconcile did not finish within its timeout: abandoned", { timeout: timeoutMs });
      this.events.next({ type: "reconcileAbandoned", key, timeoutMs });
      this.recordError(key, reason instanceof Error ? reason : new NonErrorThrownError(key, reason), false, run);
      this.queue.addRateLimited(key);
      void outcome.then(() => {
        this.abandonedRuns.delete(run);
        this.queue.done(key);
        this.events.next({ type: "abandonedSettled", key });
      });
      return;
    }
    if (first.ok) this.handleResult(key, first.value, run);
    else this.handleError(key, first.error, run);
    this.queue.done(key);
  }

  /** A reconcile starts: returns its start time (0 when no metrics are recorded). */
  private begin(): number {
    this.active++;
    if (!this.recording) return 0;
    this.m.activeWorkers.inc();
    return this.clock.now();
  }

  private end(start: number): void {
    this.active--;
    this.reconciles++;
    if (!this.recording) return;
    this.m.activeWorkers.dec();
    this.m.reconcileTime.observe((this.clock.now() - start) / 1000);
  }

  /** A reconcile returned `value`: check it against the {@link Result} contract and requeue or forget the key. */
  private handleResult(key: string, value: unknown, run: InFlightReconcile): void {
    if (value === undefined || value === null) {
      this.queue.forget(key);
      this.count("success");
      return;
    }
    let result: Result;
    try {
      result = validateResult(key, value);
    } catch (err) {
      this.recordError(key, err as Error, false, run);
      this.queue.addRateLimited(key);
      return;
    }
    if (result.requeueAfter !== undefined && result.requeueAfter > 0) {
      this.queue.forget(key);
      this.queue.addAfter(key, result.requeueAfter);
      this.count("requeue_after");
    } else if (result.requeue === true) {
      this.queue.addRateLimited(key);
      this.noteRequeueStorm(key, run);
      this.count("requeue");
    } else {
      this.queue.forget(key);
      this.count("success");
    }
  }

  /** A reconcile threw or rejected with `thrown`: count it and requeue rate-limited, unless it is terminal. */
  private handleError(key: string, thrown: unknown, run: InFlightReconcile): void {
    const error = thrown instanceof Error ? thrown : new NonErrorThrownError(key, thrown);
    if (!(thrown instanceof Error)) this.m.reconcilePanics.inc();
    const terminal = isTerminalError(error);
    this.recordError(key, error, terminal, run);
    if (terminal) this.queue.forget(key);
    else {
      this.queue.addRateLimited(key);
      this.noteRequeueStorm(key, run);
    }
  }

  /**
   * A requeue storm: a key requeued rate-limited 8, 16, 32… times in a row (its backoff never forgotten) is logged at
   * `warn` with its count — once per doubling, so a key stuck for hours writes a handful of lines.
   */
  private noteRequeueStorm(key: string, run: InFlightReconcile): void {
    const n = this.queue.numRequeues(key);
    if (n >= 8 && (n & (n - 1)) === 0) {
      safeLog(run.log, "warn", "Reconcile keeps being requeued: its backoff grows", { retries: n });
    }
  }

  /** Counts, logs (`Reconciler error`, as controller-runtime) and reports one reconcile error. */
  private recordError(key: string, error: Error, terminal: boolean, run?: InFlightReconcile): void {
    const log = run?.log ?? withFields(this.log, { key });
    safeLog(log, "error", "Reconciler error", terminal ? { error, terminal: true } : { error });
    this.errors++;
    this.lastError = { key, message: error.message, time: this.clock.now() };
    this.m.reconcileErrors.inc();
    if (terminal) this.m.terminalReconcileErrors.inc();
    this.count("error");
    this.events.next({ type: "reconcileError", key, error, terminal });
  }

  private count(result: ReconcileResultLabel): void {
    this.m.reconcileTotal[result].inc();
  }
}

function checkDuration(name: string, field: string, ms: number | undefined, positive: boolean): void {
  if (ms === undefined) return;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0 || (positive && ms === 0)) {
    throw new RangeError(
      `controller ${name}: ${field} must be a finite number of milliseconds ${positive ? "> 0" : "≥ 0"}, got ${String(ms)}`,
    );
  }
}

/**
 * One reconcile in flight, which is also its {@link ReconcileContext} (one allocation per reconcile): `retries` is read
 * from the queue only when asked for.
 */
class InFlightReconcile implements ReconcileContext {
  /** Settles with the reconcile (per-reconcile timeout path only; otherwise the worker's promise covers it). */
  settled: Promise<void> | undefined = undefined;
  /** Outlived its timeout or the shutdown deadline: whoever sees it settle only releases its key. */
  abandoned = false;
  private id: string | undefined;
  private logger: Logger | undefined;

  constructor(
    readonly key: string,
    private readonly request: Request,
    readonly signal: AbortSignal,
    /** The reconcile's own controller (per-reconcile timeout); `undefined` when it shares the stop signal. */
    readonly abort: AbortController | undefined,
    readonly controller: string,
    private readonly controllerLog: Logger,
    private readonly queue: RateLimitingQueue<string>,
  ) {}

  get retries(): number {
    return this.queue.numRequeues(this.key);
  }

  /** Made on first use: a reconcile that never logs nor fails costs no UUID. */
  get reconcileID(): string {
    this.id ??= randomUUID();
    return this.id;
  }

  get log(): Logger {
    if (this.logger !== undefined) return this.logger;
    this.logger = withFields(this.controllerLog, {
      namespace: this.request.namespace,
      name: this.request.name,
      reconcileID: this.reconcileID,
    });
    return this.logger;
  }
}
