// The reflector-vs-simulator example tests on the testing kit: `createSimCluster` gives the engine, a real
// `KubeClient` reaching it through the in-process dispatcher and one FakeClock; the reflector lists and watches
// through `listWatchFor(cluster.client, …)`, the way users run it. Server faults (request faults, compaction, cache
// re-initialization, dropped watches, bookmark modes, latency) are the kit's `cluster.faults`; `until` is the kit's
// `settle`; convergence is the kit's `storeConverges` over `serverState`.
//
// What the kit cannot do is what only a layer between the client and the reflector can: `ClientSideFaults` wraps the
// client's ListerWatcher to log each call as the reflector made it (options, virtual time, outcome) and to add the
// faults of a proxy or of a server the simulator does not model (an ERROR event with any Status in the middle of an
// open stream, a refused connection, a rewritten request, list or event).
import type { KubeList, KubeObject, ListOptions, Status, WatchEvent } from "@informer-ts/apimachinery";
import {
  type ListerWatcher,
  type ListerWatcherTarget,
  Reflector,
  type ReflectorEvent,
  type ReflectorOptions,
  type ReflectorStatus,
  silentLogger,
  type Watch,
} from "@informer-ts/cache";
import { FakeWatch, RecordingStore, startRun } from "@informer-ts/cache/testing";
import { builtinResources, listWatchFor } from "@informer-ts/client";
import { type FakeClock, type Rand, settle } from "@informer-ts/clock";
import {
  createSimCluster,
  type InvariantReport,
  type SimCluster,
  serverState,
  storeConverges,
} from "@informer-ts/testing";
import { expect } from "vitest";
import { CONFIGMAP_TYPE } from "./kit-cases.js";

export { CONFIGMAP_TYPE };

export const NS = "default";
export const { configmaps } = builtinResources;

/** A rand that always returns `v` (watch timeouts and backoff jitter become exact). */
export const fixedRand = (v: number): Rand => ({ float: () => v });

/** Lets every promise chain and in-process exchange started so far settle (no clock movement). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await settle();
}

/** One list or watch call, as the reflector made it. */
export interface RecordedRequest {
  readonly verb: "list" | "watch";
  readonly opts: ListOptions;
  /** Virtual time of the call. */
  readonly at: number;
  /** "ok", the HTTP code of a StatusError, or the error's code or name. */
  outcome: string | number;
}

/** Is this a watch-list request (`sendInitialEvents=true`)? */
export const isWatchList = (r: RecordedRequest): boolean => r.verb === "watch" && r.opts.sendInitialEvents === true;

function outcomeOf(err: unknown): string | number {
  const e = err as { code?: unknown; name?: unknown };
  if (typeof e?.code === "number" || typeof e?.code === "string") return e.code;
  return typeof e?.name === "string" ? e.name : "error";
}

/** Client-side faults and a call log around a ListerWatcher (see the file comment). */
export class ClientSideFaults implements ListerWatcher<KubeObject> {
  readonly requests: RecordedRequest[] = [];
  /** Errors the next calls of a verb throw before reaching the server (e.g. ECONNREFUSED). */
  readonly failNext: { verb: "list" | "watch"; error: unknown }[] = [];
  /** Rewrites a call's options before the client sends them (e.g. a server whose watch cache is off). */
  rewriteOptions: ((verb: "list" | "watch", o: ListOptions) => ListOptions) | undefined;
  /** Rewrites a list answer (e.g. a server that returns no resourceVersion). */
  rewriteList: ((l: KubeList<KubeObject>) => KubeList<KubeObject>) | undefined;
  /** Rewrites each watch event into 0..n events (Table objects, a lost event, a proxy gone silent). */
  rewriteEvent: ((e: WatchEvent<KubeObject>) => WatchEvent<KubeObject>[]) | undefined;
  watchListSemanticsUnsupported?: boolean;
  /** The client's target (server, resource, namespace): the reflector's failure messages name it. */
  readonly target?: ListerWatcherTarget;
  private readonly open = new Set<FakeWatch<KubeObject>>();

  constructor(
    private readonly inner: ListerWatcher<KubeObject>,
    private readonly clock: FakeClock,
  ) {
    if (inner.target !== undefined) this.target = inner.target;
  }

  private async call<T>(verb: "list" | "watch", options: ListOptions, run: (o: ListOptions) => Promise<T>) {
    const rec: RecordedRequest = { verb, opts: { ...options }, at: this.clock.now(), outcome: "pending" };
    this.requests.push(rec);
    try {
      const i = this.failNext.findIndex((f) => f.verb === verb);
      if (i >= 0) throw this.failNext.splice(i, 1)[0]!.error;
      const out = await run(this.rewriteOptions?.(verb, options) ?? options);
      rec.outcome = "ok";
      return out;
    } catch (err) {
      rec.outcome = outcomeOf(err);
      throw err;
    }
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<KubeList<KubeObject>> {
    const l = await this.call("list", options, (o) => this.inner.list(o, signal));
    return this.rewriteList?.(l) ?? l;
  }

  /** The client's stream, read into a `FakeWatch` that injected events join (a stop stops the client's stream). */
  async watch(options: ListOptions, signal?: AbortSignal): Promise<Watch<KubeObject>> {
    const inner = await this.call("watch", options, (o) => this.inner.watch(o, signal));
    const out = new FakeWatch<KubeObject>(options);
    this.open.add(out);
    out.onDone = () => {
      this.open.delete(out);
      inner.stop();
    };
    void (async () => {
      try {
        for await (const e of inner) for (const x of this.rewriteEvent?.(e) ?? [e]) out.push(x);
        out.close();
      } catch (err) {
        out.fail(err);
      }
    })();
    return out;
  }

  /** Sends an ERROR event with `status` on every open watch (what the apiserver does before ending a stream). */
  sendError(status: Status): number {
    for (const w of this.open) w.push({ type: "ERROR", object: status });
    return this.open.size;
  }

  /** Sends an event on every open watch. */
  sendEvent(e: WatchEvent<KubeObject>): void {
    for (const w of this.open) w.push(e);
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

  /** The `resourceVersion` of each call of `verb`, "" when unset. */
  rvs(verb: "list" | "watch"): string[] {
    return this.requests.filter((r) => r.verb === verb).map((r) => r.opts.resourceVersion ?? "");
  }
}

/** Options of a {@link Scenario}. */
export interface ScenarioOptions {
  /** The cluster's WatchList feature gate (default on). */
  readonly watchList?: boolean;
  /** ConfigMaps created before the reflector starts, by {@link syncedScenario} (default 5). */
  readonly seed?: number;
  readonly reflector?: ReflectorOptions<KubeObject>;
  readonly expectedType?: KubeObject;
  /** Do not build a reflector (the test builds something else on `lw`). */
  readonly noReflector?: boolean;
  /**
   * List and watch through the engine's own in-process ListerWatcher instead of the client (for the tests about
   * what an in-process server hands out: objects shared with its storage).
   */
  readonly direct?: boolean;
  /** Called with the client-side layer before the reflector is built. */
  readonly lwSetup?: (lw: ClientSideFaults) => void;
}

/** One running scenario: a kit cluster, the client-side layer, a reflector, its store, statuses and events. */
export class Scenario {
  readonly clock: FakeClock;
  readonly lw: ClientSideFaults;
  /** The reflector's store: every call it made is recorded. */
  readonly recording = new RecordingStore();
  readonly reflector: Reflector<KubeObject> | undefined;
  /** Every status the reflector published (status$), in order. */
  readonly statuses: ReflectorStatus[] = [];
  /** Every reflector event (events$), in order. */
  readonly events: ReflectorEvent[] = [];
  private readonly stops: (() => Promise<void> | void)[] = [];
  /** Set by `start`: the end-of-test check then expects the store to equal the server's objects. */
  private running = false;
  /** Opt out of the end-of-test convergence check (a test whose point is a reflector that cannot sync). */
  skipFinalConvergence = false;

  constructor(
    readonly cluster: SimCluster,
    opts: ScenarioOptions,
  ) {
    this.clock = cluster.clock;
    const inner = opts.direct
      ? (cluster.engine.listerWatcher("configmaps", { namespace: NS }) as unknown as ListerWatcher<KubeObject>)
      : listWatchFor(cluster.client, configmaps, { namespace: NS });
    this.lw = new ClientSideFaults(inner, this.clock);
    opts.lwSetup?.(this.lw);
    if (opts.noReflector !== true) {
      const r = new Reflector(this.lw, "expectedType" in opts ? opts.expectedType : CONFIGMAP_TYPE, this.recording, {
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

  /** The simulator's engine (writes and storage reads bypass the client: they are the test's fixture). */
  get sim() {
    return this.cluster.engine;
  }

  get faults() {
    return this.cluster.faults;
  }

  get r(): Reflector<KubeObject> {
    if (this.reflector === undefined) throw new Error("scenario has no reflector");
    return this.reflector;
  }

  async seed(n: number, prefix = "cm"): Promise<void> {
    for (let i = 0; i < n; i++) await this.create(`${prefix}-${String(i).padStart(2, "0")}`);
  }

  create(name: string, v = "1"): Promise<KubeObject> {
    return this.sim.create("configmaps", NS, { metadata: { name, namespace: NS }, data: { v } });
  }

  async update(name: string, v: string): Promise<KubeObject> {
    const cur = serverState(this.cluster).get(configmaps, NS, name);
    if (cur === undefined) throw new Error(`update: ${name} does not exist`);
    return this.sim.update("configmaps", NS, name, { ...cur, data: { v } });
  }

  remove(name: string): Promise<KubeObject> {
    return this.sim.delete("configmaps", NS, name);
  }

  /** The server's current resourceVersion. */
  get serverRV(): string {
    return serverState(this.cluster).resourceVersion;
  }

  /** Finished requests of `verb` (and `code`) in the kit's request log (an open watch is not finished). */
  served(verb: string, code?: number): number {
    return this.cluster.requests.filter(
      (q) => q.verb === verb && q.resource === "configmaps" && (code === undefined || q.code === code),
    ).length;
  }

  /** Starts the reflector (run loop) and lets it make its first requests. */
  async start(): Promise<void> {
    this.running = true;
    const sub = startRun(this.r);
    this.stops.unshift(() => sub.stop());
    await flush();
  }

  /** Registers clean-up (runs before the cluster closes). */
  onStop(fn: () => Promise<void> | void): void {
    this.stops.unshift(fn);
  }

  /** The kit's `settle` until `cond` holds; fails after `maxMs` of virtual time, naming `what`. */
  async until(cond: () => boolean, what: string, maxMs = 600_000): Promise<void> {
    try {
      await this.cluster.settle({ until: cond, maxMs });
    } catch (err) {
      throw new Error(`until: ${what} did not happen: ${(err as Error).message}`);
    }
  }

  /** Every `name@rv` of the reflector's store, sorted. */
  stored(): string[] {
    return [...this.recording.items.values()].map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
  }

  /** The kit's `storeConverges`: the reflector's store against the server's ConfigMaps (keys and resourceVersions). */
  convergence(): InvariantReport {
    const rvs = (objs: Iterable<KubeObject>) =>
      new Map(
        [...objs].map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? ""]),
      );
    return storeConverges(rvs(this.recording.items.values()), rvs(serverState(this.cluster).list(configmaps, NS)));
  }

  /** Waits until the store holds exactly the server's objects at their resourceVersions, then asserts it. */
  async converged(): Promise<void> {
    await this.until(() => this.convergence().ok, "store = server");
    expect(this.convergence().violations).toEqual([]);
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
   * Stops everything and checks nothing is left running (no timer on the clock). A started reflector must first
   * have converged: faults cleared, its store ends equal to the server's objects.
   */
  async stop(): Promise<void> {
    if (this.running && !this.skipFinalConvergence) {
      this.running = false;
      this.faults.clearAll();
      this.lw.rewriteEvent = undefined;
      this.lw.rewriteList = undefined;
      this.lw.rewriteOptions = undefined;
      await this.converged();
    }
    for (const s of this.stops) await s();
    this.stops.length = 0;
    await this.cluster.close();
    await flush();
    expect(this.clock.pendingTimers()).toBe(0);
  }
}

/** Creates scenarios (each on a fresh kit cluster, engine seed 7) and stops them after each test (`afterEach`). */
export function scenarios(): { make(opts?: ScenarioOptions): Promise<Scenario>; stopAll(): Promise<void> } {
  const live: Scenario[] = [];
  return {
    async make(opts = {}) {
      const cluster = await createSimCluster({ seed: 7, gates: { WatchList: opts.watchList ?? true } });
      const s = new Scenario(cluster, opts);
      live.push(s);
      return s;
    },
    async stopAll() {
      for (const s of live.splice(0)) await s.stop();
    },
  };
}

/** Scenario options of a LIST + WATCH reflector (watch-list off) with extra reflector options. */
export const listOnly = (extra: ScenarioOptions["reflector"] = {}): ScenarioOptions => ({
  reflector: { useWatchList: false, ...extra },
});

/** A scenario with `seed` ConfigMaps whose reflector has run until its first sync with an open watch. */
export async function syncedScenario(
  make: (opts?: ScenarioOptions) => Promise<Scenario>,
  opts: ScenarioOptions = {},
): Promise<Scenario> {
  const s = await make(opts);
  await s.seed(opts.seed ?? 5);
  await s.start();
  await s.until(() => s.status().hasSynced && s.lw.openWatches === 1, "first sync with an open watch");
  return s;
}
