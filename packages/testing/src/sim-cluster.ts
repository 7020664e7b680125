import type { KubeObject, ListerWatcher } from "@informer-ts/apimachinery";
import { KubeClient, type KubeClientOptions, type ResourceDescriptor } from "@informer-ts/client";
import { type Clock, FakeClock, seededRand, type Timer } from "@informer-ts/clock";
import {
  type BookmarkMode,
  type CompletedRequest,
  EngineBackend,
  type HttpFaultRule,
  type LatencyRule,
  type RequestInFlight,
  type ResourceRef,
  renderKubeconfig,
  SimApiServer,
  type SimApiServerOptions,
  SimHttpServer,
  type SimResource,
} from "@informer-ts/sim-apiserver";
import { type ClusterOptions, SimClusterRuntime } from "@informer-ts/sim-cluster";
import { InProcessDispatcher, type InProcessExchange } from "./in-process-dispatcher.js";
import { latencyEngineOptions, type SimLatency } from "./latency-model.js";

/** How the cluster's `KubeClient` reaches the simulator. */
export type SimTransport = "in-process" | "http";

/** Options of {@link createSimCluster}. */
export interface SimClusterOptions {
  /** The one clock of the run (default a new `FakeClock`). {@link SimCluster.settle} needs a `FakeClock`. */
  readonly clock?: FakeClock;
  /** Seed of the engine's randomness (uids, generated names, watch timeouts); default 1. */
  readonly seed?: number;
  /** Resources served besides the built-in ones (custom resources). */
  readonly resources?: readonly SimResource[];
  /** Feature gates: `WatchList` (default true). */
  readonly gates?: { readonly WatchList?: boolean };
  /** `in-process` (default: the {@link InProcessDispatcher}, no sockets) or `http` (a real loopback listener). */
  readonly transport?: SimTransport;
  /**
   * How long requests, watch delivery and the simulator's own controllers take in virtual time: `zero` (the default
   * of a cluster you build yourself: `await cluster.client.get(…)` answers without anyone stepping the clock) or
   * `modelled` (from the simulator's cost model, see {@link SimLatency}; the runners' default). With `modelled`, a
   * request resolves only as virtual time advances: await it with {@link SimCluster.run} (or drive the clock with
   * `settle`).
   */
  readonly latency?: SimLatency;
  /** More engine options (the clock, rand, resources and gates above win; they override the latency model's). */
  readonly engine?: Omit<SimApiServerOptions, "clock" | "rand" | "resources" | "watchList">;
  /** More options of the cluster's `KubeClient` (default: no client-side rate limit, no retries). */
  readonly client?: Omit<KubeClientOptions, "clock" | "dispatcher">;
  /**
   * Runs a cluster inside the simulator (`@informer-ts/sim-cluster`: nodes, scheduler, kubelet stages, controllers) on
   * the cluster's client and clock, seeded with `seed`; stopped by {@link SimCluster.close}.
   */
  readonly cluster?: Omit<ClusterOptions, "client" | "clock" | "listerWatcherFor">;
  /**
   * Where the cluster's shared informers (`cluster` above) list and watch: `client` (default) through the cluster's
   * `KubeClient` and {@link transport}, as any controller would; `engine` straight from the engine
   * (`SimApiServer.listerWatcher`): no HTTP framing and no JSON, and the informers' caches share the engine's frozen
   * objects instead of holding decoded copies — the fast path for large clusters (`pnpm bench cluster`). The cluster's
   * writes still go through the client. Its lists and watches are then the engine's in-process requests: counted in
   * `engine.accounting` and listed by {@link SimCluster.inFlight}, not in {@link SimCluster.requests}.
   */
  readonly informerSource?: "client" | "engine";
  /**
   * What the kit keeps of finished requests: `all` (default) every record in {@link SimCluster.requests}; `counts`
   * none (`requests` stays empty), only {@link SimCluster.requestCounts} — for long runs, where the log
   * grows with every request (about 2 KB per pod in `pnpm bench cluster`).
   */
  readonly requestLog?: "all" | "counts";
}

/** The fault controls of a {@link SimCluster}: the engine's own fault injection, in one place. */
export interface SimFaults {
  /** Adds a request fault (429 with Retry-After, a status, a dropped connection, a truncated watch); returns its id. */
  request(rule: HttpFaultRule): number;
  /** Removes one request fault (or all); returns how many were removed. */
  clearRequests(id?: number): number;
  /** Compacts storage up to `rev` (default: the current revision); older resourceVersions get 410 Gone. */
  compact(rev?: number): number;
  /** Re-initializes the watch cache of one resource (or all): open watches end, reads wait for the re-list. */
  reinitializeCache(resource?: ResourceRef, downtimeMs?: number): void;
  /** Ends open watches cleanly, or with an ERROR event when `asError`; returns how many ended. */
  dropWatches(resource?: ResourceRef, asError?: boolean): number;
  /** Bookmark behaviour: `on`, `no-periodic` (only the initial-events-end bookmark) or `off`. */
  bookmarks(mode: BookmarkMode): void;
  /**
   * Open watches of one resource (or all) stop reading: the server buffers their events, and once the buffers are
   * full the dispatcher's time budget closes them, as for a client that stopped reading. Returns how many stalled.
   */
  stallWatchers(resource?: ResourceRef): number;
  /** Stalled watches read again (what they buffered is delivered, in order); returns how many resumed. */
  resumeWatchers(): number;
  /** Withholds every bookmark (the watch-list end marker included) for `ms` of virtual time: they come late. */
  delayBookmarks(ms: number): void;
  /** Adds latency to matching requests (virtual time); returns the function that removes it. */
  latency(rule: LatencyRule): () => void;
  /**
   * Ends every fault: request faults and latency removed, stalled watches resumed, bookmarks back `on` (the quiet
   * phase of a property).
   */
  clearAll(): void;
}

/** What {@link SimCluster.pending} reports: the reasons the cluster is not quiescent. */
export interface SimPending {
  /** Non-watch requests in flight (`METHOD path`). */
  readonly requests: readonly string[];
  /** Watches whose client has stopped reading (their server side is blocked). */
  readonly pausedWatches: readonly string[];
  /** Watches sent but not answered yet (waiting their latency or a freshness wait): not established. In-process only. */
  readonly openingWatches: readonly string[];
  /** Promises handed to {@link SimCluster.track} that have not settled (their labels). */
  readonly tracked: readonly string[];
  /** Timers pending on the clock (informational: tickers and watch timeouts keep a running system busy). */
  readonly timers: number;
}

/** Options of {@link SimCluster.settle}. */
export interface SettleOptions {
  /** The most virtual time to advance before giving up (default 10 minutes). */
  readonly maxMs?: number;
  /** An extra condition of quiescence (for example "the informer's store equals the server's"). */
  readonly until?: () => boolean;
  /** Also require that no timer is pending at all (after everything was stopped: a leak check). */
  readonly noTimers?: boolean;
  /**
   * Count watches blocked on a paused client as quiet (default false): for settling between the steps of a history,
   * where a stalled watch stays stalled until the faults end.
   */
  readonly ignorePausedWatches?: boolean;
}

/**
 * A simulated Kubernetes cluster for tests: the engine, a `KubeClient` on it (in-process without sockets by default,
 * or over real HTTP), fault controls, the log of finished requests, and {@link SimCluster.settle}.
 */
export interface SimCluster {
  readonly clock: FakeClock;
  readonly engine: SimApiServer;
  /** The HTTP face (listening only in `http` mode). */
  readonly server: SimHttpServer;
  readonly client: KubeClient;
  readonly transport: SimTransport;
  /** The latency model the cluster was created with. */
  readonly latency: SimLatency;
  /** A kubeconfig for the listening server (`http` mode; undefined in-process, where nothing listens). */
  readonly kubeconfig: string | undefined;
  /** The server's URL (`http` mode) or the in-process pseudo-URL. */
  readonly url: string;
  readonly faults: SimFaults;
  /** The running `sim-cluster` (nodes, scheduler, kubelet stand-in, controllers) when `options.cluster` was given. */
  readonly runtime: SimClusterRuntime | undefined;
  /** Every finished request, in completion order (verb, resource, code, served-from, virtual receive time…). */
  readonly requests: readonly CompletedRequest[];
  /**
   * Finished requests counted by verb and resource (`"update pods/status"`, `"list configmaps"`), kept whatever
   * `requestLog` says; a live view.
   */
  readonly requestCounts: ReadonlyMap<string, number>;
  /**
   * The requests open right now, oldest first (by virtual receive time): those through the cluster's client (the
   * server's `inFlightRequests`) and direct in-process calls on {@link engine} (`engine.inFlightRequests`), each with
   * its verb, resource, namespace, requestURI, user agent, receivedAt and servedFrom once known. An open watch is
   * listed until it closes (the client stops or aborts it, or the server ends it); {@link requests} only gets a
   * request when it finishes, so this is where open watches show — no need for `engine.caches.watchers()`. A snapshot,
   * built when called.
   */
  inFlight(): RequestInFlight[];
  /** Lets {@link SimCluster.settle} wait for work the test started (a handler's promise, a reconcile). */
  track<T>(label: string, work: Promise<T>): Promise<T>;
  /** Why the cluster is not quiescent right now. */
  pending(): SimPending;
  /**
   * Advances virtual time, timer by timer and letting I/O and promise continuations run in between, until no
   * non-watch request is in flight, no watch waits for its answer, no watch is blocked on a paused client, no tracked
   * work is pending, no timer is due at the current instant (those run first, without advancing time: a 0-ms reaction
   * such as the garbage collector's under zero latency belongs to this settle, not to what comes after it) and
   * `until` (if given) holds (with `noTimers`: and no timer is pending at all). Over HTTP it also never advances virtual
   * time while a response body is crossing the socket (bytes still moving; see `SimHttpServer.responsesInTransit`),
   * so a large list is not cut by the server's request timeout on the way. Rejects, naming what is still pending,
   * when `maxMs` of virtual time pass first or when nothing is left to run but the condition does not hold.
   */
  settle(options?: SettleOptions): Promise<void>;
  /**
   * Runs `work` (requests through the cluster's client, calls on the engine) and advances virtual time, timer by timer,
   * only until it settles — not until the whole cluster is quiet — then resolves or rejects as `work` did. This is how
   * to await a request under the `modelled` latency, where it answers only as time advances (`await client.get(…)`
   * alone would wait forever on a `FakeClock` nobody steps). Rejects naming what is pending when `maxMs` (default 10
   * virtual minutes) pass first, or when no timer is left and `work` has not settled.
   */
  run<T>(work: () => Promise<T> | T, options?: { readonly maxMs?: number }): Promise<T>;
  /** Stops the engine, closes the client and the server. Idempotent. */
  close(): Promise<void>;
}

const IN_PROCESS_URL = "http://sim.invalid";

/** Over HTTP, how many 1 ms real-time turns a response in transit may go without moving a byte before `settle` moves on. */
const TRANSIT_IDLE_TURNS = 1000;

/**
 * Over HTTP: waits (in real time, a millisecond at a time) while the server has non-watch response bodies in transit
 * and their bytes keep moving; resolves whether it waited. A large streamed list needs many event-loop turns to cross
 * a loopback socket; advancing the virtual clock meanwhile fires the server's 60 s request timeout and cuts the list —
 * on every relist, so an informer never converges. Bodies that move no byte for {@link TRANSIT_IDLE_TURNS} turns (a
 * client that stopped reading) are given up on and remembered in `stuck`, so later calls do not wait for them again.
 */
async function awaitTransit(server: SimHttpServer, stuck: { bytes: number }): Promise<boolean> {
  let last = -1;
  let idle = 0;
  let waited = false;
  for (;;) {
    const t = server.responsesInTransit();
    if (t.responses === 0 || t.bytesWritten === stuck.bytes) return waited;
    if (t.bytesWritten !== last) {
      last = t.bytesWritten;
      idle = 0;
    } else if (++idle >= TRANSIT_IDLE_TURNS) {
      stuck.bytes = t.bytesWritten;
      return waited;
    }
    waited = true;
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Over HTTP, with no timer left: waits in real time (a millisecond at a time, {@link TRANSIT_IDLE_TURNS} turns at most
 * without progress) for the server to see more traffic, a timer to be armed, or the cluster to become quiet; resolves
 * whether any of them happened. `settle` cannot see requests still in the client or on the socket, only their effects.
 */
async function awaitSocketProgress(progress: () => number, moved: () => boolean): Promise<boolean> {
  const start = progress();
  for (let i = 0; i < TRANSIT_IDLE_TURNS; i++) {
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
    if (progress() !== start || moved()) return true;
  }
  return false;
}

/** Lets promise continuations and in-process I/O run: a few event-loop turns, more while something progresses. */
async function flushIo(progress: () => number): Promise<void> {
  let last = -1;
  for (let i = 0; i < 1000; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const now = progress();
    if (now === last && i >= 3) return;
    last = now;
  }
}

/**
 * Creates a {@link SimCluster}: a `SimApiServer` engine on `clock` (default a new `FakeClock`) seeded with `seed`,
 * serving the built-in resources plus `resources`, and a `KubeClient` reaching it in-process (the default) or
 * over a loopback HTTP listener (`transport: "http"`). Everything on the request path — the client's retries, the
 * server's timeouts, watch timers — runs on the one clock, so an in-process run is a pure function of its seed.
 */
export async function createSimCluster(options: SimClusterOptions = {}): Promise<SimCluster> {
  const clock = options.clock ?? new FakeClock();
  const transport = options.transport ?? "in-process";
  const latency = options.latency ?? "zero";
  const engine = new SimApiServer({
    ...latencyEngineOptions(latency),
    ...options.engine,
    clock,
    rand: seededRand(options.seed ?? 1),
    watchList: options.gates?.WatchList ?? true,
  });
  for (const r of options.resources ?? []) engine.register(r);
  const requests: CompletedRequest[] = [];
  const requestCounts = new Map<string, number>();
  const keepRequests = (options.requestLog ?? "all") === "all";
  let completed = 0;
  const backend = new (class extends EngineBackend {
    override recordRequest(rec: CompletedRequest): void {
      completed++;
      const sub = rec.subresource === undefined || rec.subresource === "" ? "" : `/${rec.subresource}`;
      const key = `${rec.verb} ${rec.resource}${sub}`;
      requestCounts.set(key, (requestCounts.get(key) ?? 0) + 1);
      if (keepRequests) requests.push(rec);
      super.recordRequest(rec);
    }
  })(engine);
  const server = new SimHttpServer({ backend, clock: clock as Clock });
  let url = IN_PROCESS_URL;
  let dispatcher: InProcessDispatcher | undefined;
  if (transport === "http") {
    url = await server.start();
  } else {
    dispatcher = new InProcessDispatcher(server);
  }
  // No client-side rate limit (client-go's 5 qps default would pace the simulated cluster, not the simulator) and no
  // request logs (the faults the kit injects would fill a test's output; the story reports them) unless asked for.
  const client = new KubeClient(
    { server: url, qps: -1 },
    {
      rateLimiter: null,
      maxRetries: 0,
      quiet: options.client?.logger === undefined,
      ...options.client,
      clock,
      ...(dispatcher !== undefined && { dispatcher }),
    },
  );
  const runtime =
    options.cluster === undefined
      ? undefined
      : new SimClusterRuntime({
          seed: options.seed ?? 1,
          ...options.cluster,
          client,
          clock,
          ...(options.informerSource === "engine" && {
            // The exact version the descriptor names (`horizontalpodautoscalers.v1.autoscaling`; `pods.v1.` core).
            listerWatcherFor: (r: ResourceDescriptor, { namespace }: { namespace?: string }) =>
              engine.listerWatcher(`${r.resource}.${r.version}.${r.group}`, {
                ...(namespace !== undefined && { namespace }),
                userAgent: "sim-cluster/informers",
              }) as unknown as ListerWatcher<KubeObject>,
          }),
        });
  const runtimeStop = new AbortController();
  const runtimeDone = runtime?.run(runtimeStop.signal).catch((err: unknown) => {
    console.error("sim-cluster stopped with an error:", err);
  });
  const tracked = new Map<number, string>();
  const latencies = new Set<() => void>();
  let trackSeq = 0;
  let bookmarksBack: Timer | undefined;
  /** Socket bytes of response bodies `settle` found stuck in transit (their client stopped reading). */
  const stuckTransit = { bytes: -1 };
  let closed: Promise<void> | undefined;

  const pending = (): SimPending => {
    const inflight: readonly InProcessExchange[] = dispatcher?.inflight ?? [];
    return {
      requests: inflight.filter((e) => !e.watch).map((e) => `${e.method} ${e.path}`),
      pausedWatches: inflight.filter((e) => e.watch && e.paused).map((e) => `${e.method} ${e.path}`),
      openingWatches: inflight.filter((e) => e.watch && !e.started).map((e) => `${e.method} ${e.path}`),
      tracked: [...tracked.values()],
      timers: clock.pendingTimers(),
    };
  };
  const progress = () => {
    let n = completed + tracked.size * 1_000_003 + (dispatcher?.requests ?? 0) * 7;
    for (const e of dispatcher?.inflight ?? []) n += e.bytes;
    return n + server.stats.watchEvents;
  };
  const quiet = (o: SettleOptions & { readonly onlyUntil?: boolean }) => {
    if (o.onlyUntil === true) return o.until?.() ?? true;
    const p = pending();
    return (
      p.requests.length === 0 &&
      (o.ignorePausedWatches === true || p.pausedWatches.length === 0) &&
      p.openingWatches.length === 0 &&
      p.tracked.length === 0 &&
      (o.noTimers !== true || p.timers === 0) &&
      (o.until === undefined || o.until())
    );
  };
  const describe = (o: SettleOptions): string => {
    const p = pending();
    const parts: string[] = [];
    if (p.requests.length > 0) parts.push(`requests in flight: ${p.requests.join(", ")}`);
    if (p.pausedWatches.length > 0) parts.push(`watches blocked on a paused client: ${p.pausedWatches.join(", ")}`);
    if (p.openingWatches.length > 0) parts.push(`watches not answered yet: ${p.openingWatches.join(", ")}`);
    if (p.tracked.length > 0) parts.push(`tracked work pending: ${p.tracked.join(", ")}`);
    if (o.noTimers === true && p.timers > 0) parts.push(`${p.timers} timers pending`);
    if (o.until !== undefined && !o.until()) parts.push("the `until` condition does not hold");
    if (transport === "http") {
      const t = server.responsesInTransit();
      if (t.responses > 0) parts.push(`${t.responses} response bodies stuck in transit (the client stopped reading)`);
      parts.push("(over HTTP only tracked work, response bodies in transit and `until` are visible)");
    }
    return parts.join("; ");
  };

  return {
    clock,
    engine,
    server,
    client,
    transport,
    latency,
    kubeconfig: transport === "http" ? renderKubeconfig({ server: url }) : undefined,
    url,
    runtime,
    requests,
    requestCounts,
    faults: {
      request: (rule) => engine.faults.request(rule),
      clearRequests: (id) => engine.faults.clearRequests(id),
      compact: (rev) => engine.faults.compact(rev),
      reinitializeCache: (resource, downtimeMs) => engine.faults.reinitializeCache(resource, downtimeMs),
      dropWatches: (resource, asError) => engine.faults.dropWatches(resource, asError),
      bookmarks: (mode) => engine.faults.bookmarks(mode),
      latency: (rule) => {
        const remove = engine.faults.latency(rule);
        latencies.add(remove);
        return () => {
          latencies.delete(remove);
          remove();
        };
      },
      stallWatchers: (resource) => engine.faults.stallWatchers(resource === undefined ? {} : { resource }),
      resumeWatchers: () => engine.faults.resumeWatchers(),
      delayBookmarks: (ms) => {
        if (!(Number.isFinite(ms) && ms >= 0)) {
          throw new RangeError(`delayBookmarks: ms must be a finite number ≥ 0, got ${ms}`);
        }
        bookmarksBack?.stop();
        engine.faults.bookmarks("off");
        bookmarksBack = clock.afterFunc(ms, () => {
          bookmarksBack = undefined;
          engine.faults.bookmarks("on");
        });
      },
      clearAll: () => {
        bookmarksBack?.stop();
        bookmarksBack = undefined;
        engine.faults.resumeWatchers();
        engine.faults.clearRequests();
        for (const remove of latencies) remove();
        latencies.clear();
        engine.faults.bookmarks("on");
      },
    },
    track<T>(label: string, work: Promise<T>): Promise<T> {
      const id = trackSeq++;
      tracked.set(id, label);
      const untrack = () => {
        tracked.delete(id);
      };
      work.then(untrack, untrack);
      return work;
    },
    inFlight: () =>
      [...server.inFlightRequests(), ...engine.inFlightRequests()].sort((a, b) => a.receivedAt - b.receivedAt),
    pending,
    settle,
    async run<T>(work: () => Promise<T> | T, o: { readonly maxMs?: number } = {}): Promise<T> {
      let done = false;
      const p = Promise.resolve().then(work);
      const finish = () => {
        done = true;
      };
      p.then(finish, finish);
      await settle({ maxMs: o.maxMs ?? 600_000, until: () => done, onlyUntil: true });
      return p;
    },
    close(): Promise<void> {
      closed ??= (async () => {
        bookmarksBack?.stop();
        runtimeStop.abort();
        await runtimeDone;
        engine.stop();
        await client.close();
        await server.close();
        await dispatcher?.destroy();
      })();
      return closed;
    },
  };

  async function settle(o: SettleOptions & { readonly onlyUntil?: boolean } = {}): Promise<void> {
    const maxMs = o.maxMs ?? 600_000;
    const deadline = clock.now() + maxMs;
    for (;;) {
      await flushIo(progress);
      if (transport === "http" && (await awaitTransit(server, stuckTransit))) await flushIo(progress);
      // Timers due at this very instant (a 0-ms reaction: the garbage collector's delete under zero latency) belong to
      // what is settling now, not to whatever runs after settle: run them without advancing time. `run` stops as soon
      // as its work settled (it is a step of its own, whose aftermath the next settle takes care of).
      const isQuiet = quiet(o);
      const due = clock.nextDue();
      const dueNow = o.onlyUntil !== true && due !== undefined && due <= clock.now();
      if (isQuiet && !dueNow) return;
      if (due === undefined) {
        // Over HTTP a request may still be crossing the loopback socket with no timer armed (a relist's next page):
        // give it real time before concluding that nothing is left to run.
        if (
          transport === "http" &&
          (await awaitSocketProgress(progress, () => quiet(o) || clock.nextDue() !== undefined))
        ) {
          continue;
        }
        throw new Error(`SimCluster.settle: nothing left to run but not quiescent: ${describe(o)}`);
      }
      if (due > deadline) {
        throw new Error(`SimCluster.settle: not quiescent after ${maxMs} ms of virtual time: ${describe(o)}`);
      }
      await clock.advanceTo(due);
    }
  }
}
