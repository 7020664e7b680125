// Shared harness of the reflector-vs-sim-apiserver tests: one FakeClock drives a real Reflector (or informer) and an
// in-process SimApiServer; a recording ListerWatcher wraps the engine's own listerWatcher to record what the
// reflector asked for and to add the few faults only a client-side wrapper can produce (an ERROR event in the middle
// of an open stream, a refused connection, an event rewritten on the way). Everything else — compaction, cache
// re-initialization, dropped watches, bookmark modes, 429/500 request faults, truncated watches, cache lag — is the
// engine's own fault injection.
import type { KubeList, KubeObject, ListOptions, Status, WatchEvent } from "@informer-ts/apimachinery";
import {
  type ListerWatcher,
  RecordingStore,
  Reflector,
  type ReflectorEvent,
  type ReflectorOptions,
  type ReflectorStatus,
  type ReflectorStore,
  silentLogger,
  startRun,
  type Watch,
} from "@informer-ts/cache";
import { FakeClock, type Rand, seededRand, settle } from "@informer-ts/clock";
import { SimApiServer, type SimApiServerOptions } from "@informer-ts/sim-apiserver";
import { expect } from "vitest";

export const NS = "default";
export const RESOURCE = "configmaps";
export const CONFIGMAP_TYPE: KubeObject = { apiVersion: "v1", kind: "ConfigMap" };

/** A rand that always returns `v` (watch timeouts and backoff jitter become exact). */
export const fixedRand = (v: number): Rand => ({ float: () => v });

/** One request the reflector made, as the wrapper saw it. */
export interface RecordedRequest {
  readonly verb: "list" | "watch";
  readonly opts: ListOptions;
  /** FakeClock time of the request. */
  readonly at: number;
  /** "ok", the HTTP code of a StatusError, or the error name/code. */
  outcome: string | number;
}

/** Is this a watch-list request (`sendInitialEvents=true`)? */
export const isWatchList = (r: RecordedRequest): boolean => r.verb === "watch" && r.opts.sendInitialEvents === true;

function outcomeOf(err: unknown): string | number {
  const e = err as { code?: unknown; name?: unknown };
  if (typeof e?.code === "number") return e.code;
  if (typeof e?.code === "string") return e.code;
  return typeof e?.name === "string" ? e.name : "error";
}

/**
 * A watch the test can push events into (an ERROR that the real server would send mid-stream, or a rewritten
 * event); otherwise it forwards the engine's stream, through `rewrite` when set.
 */
class WrappedWatch implements Watch<KubeObject> {
  private readonly injected: WatchEvent<KubeObject>[] = [];
  private pending: Promise<IteratorResult<WatchEvent<KubeObject>>> | undefined;
  private wake: (() => void) | undefined;
  private readonly replay: WatchEvent<KubeObject>[] = [];
  stopped = false;

  constructor(
    private readonly inner: Watch<KubeObject>,
    private readonly iter: AsyncIterator<WatchEvent<KubeObject>>,
    private readonly rewrite: () => ((e: WatchEvent<KubeObject>) => WatchEvent<KubeObject>[]) | undefined,
    private readonly onStop: () => void,
  ) {}

  inject(e: WatchEvent<KubeObject>): void {
    if (this.stopped) return;
    this.injected.push(e);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private async next(): Promise<IteratorResult<WatchEvent<KubeObject>>> {
    for (;;) {
      const queued = this.injected.shift() ?? this.replay.shift();
      if (queued !== undefined) return { value: queued, done: false };
      if (this.stopped) return { value: undefined, done: true };
      this.pending ??= this.iter.next();
      const p = this.pending;
      const woken = new Promise<"woken">((resolve) => {
        this.wake = () => resolve("woken");
      });
      const r = await Promise.race([p, woken]);
      this.wake = undefined;
      if (r === "woken") continue;
      this.pending = undefined;
      const rewrite = this.rewrite();
      if (r.done === true || rewrite === undefined) return r;
      this.replay.push(...rewrite(r.value));
    }
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.inner.stop();
    this.onStop();
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<KubeObject>> {
    return {
      next: () => this.next(),
      return: async () => {
        this.stop();
        return { value: undefined, done: true };
      },
    };
  }
}

/**
 * The engine's in-process ListerWatcher with a request log and client-side faults (see the file comment).
 */
export class RecordingListerWatcher implements ListerWatcher<KubeObject> {
  readonly requests: RecordedRequest[] = [];
  /** Errors thrown by the next requests of a verb, before they reach the server (e.g. ECONNREFUSED). */
  readonly failNext: { verb: "list" | "watch"; error: unknown }[] = [];
  /** Rewrites a request before the server sees it (e.g. a server whose watch cache is off). */
  rewriteOptions: ((verb: "list" | "watch", o: ListOptions) => ListOptions) | undefined;
  /** Rewrites a list response (e.g. a server that returns no resourceVersion). */
  rewriteList: ((l: KubeList<KubeObject>) => KubeList<KubeObject>) | undefined;
  /** Rewrites each watch event into 0..n events (Table objects, duplicates, stripped annotations…). */
  rewriteEvent: ((e: WatchEvent<KubeObject>) => WatchEvent<KubeObject>[]) | undefined;
  watchListSemanticsUnsupported?: boolean;
  private readonly open = new Set<WrappedWatch>();

  constructor(
    private readonly inner: ListerWatcher<KubeObject>,
    private readonly clock: FakeClock,
  ) {}

  async list(options: ListOptions, signal?: AbortSignal): Promise<KubeList<KubeObject>> {
    const rec: RecordedRequest = { verb: "list", opts: { ...options }, at: this.clock.now(), outcome: "pending" };
    this.requests.push(rec);
    try {
      const i = this.failNext.findIndex((f) => f.verb === "list");
      if (i >= 0) throw this.failNext.splice(i, 1)[0]!.error;
      const o = this.rewriteOptions?.("list", options) ?? options;
      const l = await this.inner.list(o, signal);
      rec.outcome = "ok";
      return this.rewriteList?.(l) ?? l;
    } catch (err) {
      rec.outcome = outcomeOf(err);
      throw err;
    }
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<Watch<KubeObject>> {
    const rec: RecordedRequest = { verb: "watch", opts: { ...options }, at: this.clock.now(), outcome: "pending" };
    this.requests.push(rec);
    try {
      const i = this.failNext.findIndex((f) => f.verb === "watch");
      if (i >= 0) throw this.failNext.splice(i, 1)[0]!.error;
      const o = this.rewriteOptions?.("watch", options) ?? options;
      const w = await this.inner.watch(o, signal);
      rec.outcome = "ok";
      const wrapped: WrappedWatch = new WrappedWatch(
        w,
        w[Symbol.asyncIterator](),
        () => this.rewriteEvent,
        () => this.open.delete(wrapped),
      );
      this.open.add(wrapped);
      return wrapped;
    } catch (err) {
      rec.outcome = outcomeOf(err);
      throw err;
    }
  }

  /** Sends an ERROR event with `status` on every open watch (what the apiserver does before ending a stream). */
  sendError(status: Status): number {
    const n = this.open.size;
    for (const w of this.open) w.inject({ type: "ERROR", object: status });
    return n;
  }

  /** Sends an event on every open watch. */
  sendEvent(e: WatchEvent<KubeObject>): void {
    for (const w of this.open) w.inject(e);
  }

  get openWatches(): number {
    return this.open.size;
  }

  lists(): RecordedRequest[] {
    return this.requests.filter((r) => r.verb === "list");
  }

  watches(): RecordedRequest[] {
    return this.requests.filter((r) => r.verb === "watch");
  }

  /** The `resourceVersion` of each request of `verb`, "" when unset. */
  rvs(verb: "list" | "watch"): string[] {
    return this.requests.filter((r) => r.verb === verb).map((r) => r.opts.resourceVersion ?? "");
  }
}

/** Options of {@link startSim}. */
export interface SimScenarioOptions {
  readonly server?: SimApiServerOptions;
  /** ConfigMaps created before the reflector starts (default 5). */
  readonly seed?: number;
  readonly reflector?: ReflectorOptions<KubeObject>;
  readonly expectedType?: KubeObject;
  /** Store of the reflector (default a RecordingStore). */
  readonly store?: ReflectorStore<KubeObject>;
  /** Do not build a reflector (the test builds something else on `lw`). */
  readonly noReflector?: boolean;
  /** Called with the recording ListerWatcher before the reflector is built. */
  readonly lwSetup?: (lw: RecordingListerWatcher) => void;
}

export const cm = (name: string, v = "1"): KubeObject => ({ metadata: { name, namespace: NS }, data: { v } });

/** Lets every promise chain started so far settle (no clock movement). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await settle();
}

/** One running scenario: clock, engine, recording ListerWatcher, reflector, store and its status log. */
export class SimScenario {
  readonly clock: FakeClock;
  readonly sim: SimApiServer;
  readonly lw: RecordingListerWatcher;
  readonly store: ReflectorStore<KubeObject>;
  readonly reflector: Reflector<KubeObject> | undefined;
  /** Every status the reflector published (status$), in order. */
  readonly statuses: ReflectorStatus[] = [];
  /** Every reflector event (events$), in order. */
  readonly events: ReflectorEvent[] = [];
  private readonly stops: (() => Promise<void> | void)[] = [];
  /** Set by `start`: the reflector runs, so the end-of-test check expects its store to equal the server's list. */
  private running = false;
  /** Opt out of the end-of-test convergence check (a test whose point is a reflector that cannot sync). */
  skipFinalConvergence = false;

  constructor(opts: SimScenarioOptions = {}) {
    this.clock = new FakeClock();
    this.sim = new SimApiServer({ clock: this.clock, rand: seededRand(7), ...opts.server });
    this.lw = new RecordingListerWatcher(
      this.sim.listerWatcher(RESOURCE, { namespace: NS }) as unknown as ListerWatcher<KubeObject>,
      this.clock,
    );
    opts.lwSetup?.(this.lw);
    this.store = opts.store ?? new RecordingStore();
    if (opts.noReflector !== true) {
      const r = new Reflector(this.lw, "expectedType" in opts ? opts.expectedType : CONFIGMAP_TYPE, this.store, {
        clock: this.clock,
        rand: fixedRand(0),
        logger: silentLogger,
        name: "sim",
        ...opts.reflector,
      });
      this.reflector = r;
      const s1 = r.status$.subscribe((s) => this.statuses.push(s));
      const s2 = r.events$.subscribe((e) => this.events.push(e));
      this.stops.push(() => {
        s1.unsubscribe();
        s2.unsubscribe();
      });
    }
  }

  get r(): Reflector<KubeObject> {
    if (this.reflector === undefined) throw new Error("scenario has no reflector");
    return this.reflector;
  }

  get recording(): RecordingStore {
    if (!(this.store instanceof RecordingStore)) throw new Error("scenario store is not a RecordingStore");
    return this.store;
  }

  async seed(n: number, prefix = "cm"): Promise<void> {
    for (let i = 0; i < n; i++) await this.create(`${prefix}-${String(i).padStart(2, "0")}`);
  }

  create(name: string, v = "1"): Promise<KubeObject> {
    return this.sim.create(RESOURCE, NS, cm(name, v));
  }

  async update(name: string, v: string): Promise<KubeObject> {
    const cur = this.sim.storage.get(this.sim.resource(RESOURCE), NS, name);
    if (cur === undefined) throw new Error(`update: ${name} does not exist`);
    return this.sim.update(RESOURCE, NS, name, { ...cur, data: { v } });
  }

  remove(name: string): Promise<KubeObject> {
    return this.sim.delete(RESOURCE, NS, name);
  }

  /** The server's current revision as a string. */
  get serverRV(): string {
    return String(this.sim.currentResourceVersion);
  }

  /** Starts the reflector (run loop) and lets it make its first requests. */
  async start(): Promise<void> {
    this.running = true;
    const sub = startRun(this.r);
    this.stops.unshift(async () => {
      await sub.stop();
    });
    await flush();
  }

  /** Registers clean-up (runs before the engine stops). */
  onStop(fn: () => Promise<void> | void): void {
    this.stops.unshift(fn);
  }

  /** Steps the clock timer by timer until `cond` holds; fails after `maxMs` of virtual time. */
  async until(cond: () => boolean, what: string, maxMs = 600_000): Promise<void> {
    const deadline = this.clock.now() + maxMs;
    for (;;) {
      await flush();
      if (cond()) return;
      const due = this.clock.nextDue();
      if (due === undefined || due > deadline) {
        throw new Error(`until: ${what} did not happen within ${maxMs} ms of virtual time`);
      }
      await this.clock.advanceTo(due);
    }
  }

  /** Waits for the n-th (1-based, counted from now) reflector event matching `pred`. */
  async untilEvent(pred: (e: ReflectorEvent) => boolean, what: string, maxMs?: number): Promise<ReflectorEvent> {
    const from = this.events.length;
    await this.until(() => this.events.slice(from).some(pred), what, maxMs);
    return this.events.slice(from).find(pred)!;
  }

  /** Every `name@rv` the server has now, sorted (its truth). */
  truth(): string[] {
    return this.sim.storage
      .snapshot(this.sim.resource(RESOURCE))
      .map(([, o]) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
      .sort();
  }

  /** Every `name@rv` of the store, sorted. */
  stored(store: { list(): KubeObject[] } = this.store as unknown as { list(): KubeObject[] }): string[] {
    const objs = store instanceof RecordingStore ? [...store.items.values()] : store.list();
    return (objs as KubeObject[]).map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
  }

  /** Waits until the store holds exactly the server's objects, then asserts it. */
  async converged(store?: { list(): KubeObject[] }): Promise<void> {
    await this.until(() => JSON.stringify(this.stored(store)) === JSON.stringify(this.truth()), "store = server");
    expect(this.stored(store)).toEqual(this.truth());
  }

  status(): ReflectorStatus {
    return this.r.status();
  }

  /** Phases the status stream went through, consecutive duplicates removed. */
  phases(): string[] {
    const out: string[] = [];
    for (const s of this.statuses) if (out.at(-1) !== s.phase) out.push(s.phase);
    return out;
  }

  eventsOf<K extends ReflectorEvent["type"]>(type: K): Extract<ReflectorEvent, { type: K }>[] {
    return this.events.filter((e): e is Extract<ReflectorEvent, { type: K }> => e.type === type);
  }

  /**
   * Stops everything and checks nothing is left running (no timers on the clock). A started reflector must first
   * have converged: faults cleared, its store ends equal to the server's list.
   */
  async stop(): Promise<void> {
    if (this.running && !this.skipFinalConvergence) {
      this.running = false;
      this.sim.faults.clear();
      this.sim.setBookmarkMode("on");
      this.lw.rewriteEvent = undefined;
      this.lw.rewriteList = undefined;
      this.lw.rewriteOptions = undefined;
      await this.converged();
    }
    for (const s of this.stops) await s();
    this.stops.length = 0;
    this.sim.stop();
    await flush();
    expect(this.clock.pendingTimers()).toBe(0);
  }
}

/** Creates scenarios and stops them after each test (call from `afterEach`). */
export function scenarios(): { make(opts?: SimScenarioOptions): SimScenario; stopAll(): Promise<void> } {
  const live: SimScenario[] = [];
  return {
    make(opts) {
      const s = new SimScenario(opts);
      live.push(s);
      return s;
    },
    async stopAll() {
      for (const s of live.splice(0)) await s.stop();
    },
  };
}

/** Scenario options of a LIST + WATCH reflector (watch-list off) with extra reflector options. */
export const listOnly = (extra: SimScenarioOptions["reflector"] = {}): SimScenarioOptions => ({
  reflector: { useWatchList: false, ...extra },
});

/** A scenario with `seed` ConfigMaps whose reflector has run until its first sync. */
export async function syncedScenario(
  make: (opts?: SimScenarioOptions) => SimScenario,
  opts: SimScenarioOptions = {},
): Promise<SimScenario> {
  const s = make(opts);
  await s.seed(opts.seed ?? 5);
  await s.start();
  await s.until(() => s.status().hasSynced && s.lw.openWatches === 1, "first sync with an open watch");
  return s;
}
