import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { KubeList, KubeObject, ListOptions, WatchEvent } from "@informer-ts/apimachinery";
import { INITIAL_EVENTS_END_ANNOTATION } from "@informer-ts/apimachinery";
import {
  type BookmarkStore,
  type DeletedFinalStateUnknownLike,
  type ListerWatcher,
  metaNamespaceKeyFunc,
  newStore,
  Reflector,
  type ReflectorStatus,
  type ReflectorStore,
  type Store,
  silentLogger,
  type Watch,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor, metadataListWatchFor } from "@informer-ts/client";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import type { V1ConfigMap } from "@kubernetes/client-node";
import { firstValueFrom } from "rxjs";
import { filter } from "rxjs/operators";
import { Agent, request } from "undici";
import { type BenchResult, type BenchRow, forceGc, heapUsed } from "./report.js";
import { configMapJson, envInt, MiB } from "./util.js";

/** Number of ConfigMaps; override with BENCH_REFLECTOR_N (e.g. 10000 for a quick run). */
function objectCount(): number {
  return envInt("BENCH_REFLECTOR_N", 100_000, 1);
}

/** Samples the heap while a sync runs (every `every` objects served) and keeps the maximum. */
class HeapSampler {
  peak = 0;
  private served = 0;
  constructor(private readonly every = 2000) {}
  tick(): void {
    if (++this.served % this.every === 0) this.sample();
  }
  sample(): void {
    const used = process.memoryUsage().heapUsed;
    if (used > this.peak) this.peak = used;
  }
}

/**
 * An in-process server: objects kept serialized (like etcd), decoded per request (like a client). LIST honours
 * `limit`/`continue`; a watch-list streams lazily (pull-based), ending with the initial-events-end bookmark.
 */
class InProcessSource implements ListerWatcher<KubeObject> {
  constructor(
    private readonly objects: readonly string[],
    private readonly rv: number,
    private readonly sampler: HeapSampler,
  ) {}

  async list(options: ListOptions): Promise<KubeList<KubeObject>> {
    const offset = options.continue ? Number(options.continue) : 0;
    const limit = options.limit && options.limit > 0 ? options.limit : this.objects.length;
    const end = Math.min(offset + limit, this.objects.length);
    const items: KubeObject[] = [];
    for (let i = offset; i < end; i++) {
      items.push(JSON.parse(this.objects[i]!) as KubeObject);
      this.sampler.tick();
    }
    const list: KubeList<KubeObject> = {
      apiVersion: "v1",
      kind: "ConfigMapList",
      metadata: { resourceVersion: String(this.rv) },
      items,
    };
    if (end < this.objects.length) list.metadata.continue = String(end);
    return list;
  }

  async watch(options: ListOptions): Promise<Watch<KubeObject>> {
    const objects = this.objects;
    const sampler = this.sampler;
    const rv = this.rv;
    let i = 0;
    let bookmarkSent = !options.sendInitialEvents;
    let stopped = false;
    let wake: (() => void) | undefined;
    return {
      stop() {
        stopped = true;
        wake?.();
      },
      [Symbol.asyncIterator](): AsyncIterator<WatchEvent<KubeObject>> {
        return {
          async next(): Promise<IteratorResult<WatchEvent<KubeObject>>> {
            if (stopped) return { value: undefined, done: true };
            if (options.sendInitialEvents && i < objects.length) {
              sampler.tick();
              return { value: { type: "ADDED", object: JSON.parse(objects[i++]!) as KubeObject }, done: false };
            }
            if (!bookmarkSent) {
              bookmarkSent = true;
              const object: KubeObject = {
                apiVersion: "v1",
                kind: "ConfigMap",
                metadata: { resourceVersion: String(rv), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } },
              };
              return { value: { type: "BOOKMARK", object }, done: false };
            }
            // Live phase: nothing changes in this benchmark; wait until stopped.
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
            return { value: undefined, done: true };
          },
        };
      },
    };
  }
}

interface SyncMeasure {
  readonly ms: number;
  /** Peak heap during the sync, above the heap before it. */
  readonly peakMiB: number;
  /** Heap after sync and GC, above the heap before it. */
  readonly retainedMiB: number;
  readonly status: ReflectorStatus;
}

async function measureReflectorSync(objects: readonly string[], useWatchList: boolean): Promise<SyncMeasure> {
  const sampler = new HeapSampler();
  const source = new InProcessSource(objects, objects.length + 1, sampler);
  const store = newStore<KubeObject>(metaNamespaceKeyFunc);
  const before = heapUsed();
  sampler.peak = before;
  const reflector = new Reflector<KubeObject>(source, { apiVersion: "v1", kind: "ConfigMap" }, store, {
    name: useWatchList ? "bench-watch-list" : "bench-list",
    logger: silentLogger,
    useWatchList,
  });
  const start = process.hrtime.bigint();
  const synced = firstValueFrom(reflector.status$.pipe(filter((s) => s.hasSynced)));
  const stop = new AbortController();
  const run = reflector.run(stop.signal);
  const status = await synced;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  sampler.sample();
  if (store.size !== objects.length) throw new Error(`synced ${store.size} objects, expected ${objects.length}`);
  const after = heapUsed();
  stop.abort();
  await run;
  return { ms, peakMiB: (sampler.peak - before) / MiB, retainedMiB: (after - before) / MiB, status };
}

/**
 * The naive baseline: one unpaginated LIST whose whole body is received, then parsed at once into a Map (what a
 * simple client does). The body counts toward the peak (it is the client's response buffer), not the time.
 */
function measureNaiveList(objects: readonly string[]): { ms: number; peakMiB: number; retainedMiB: number } {
  const before = heapUsed();
  let body: string | undefined =
    `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[${objects.join(",")}]}`;
  const start = process.hrtime.bigint();
  let list: KubeList<KubeObject> | undefined = JSON.parse(body) as KubeList<KubeObject>;
  const peak = process.memoryUsage().heapUsed;
  body = undefined;
  const map = new Map<string, KubeObject>();
  for (const item of list.items) map.set(metaNamespaceKeyFunc(item), item);
  list = undefined;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const retained = heapUsed();
  if (map.size !== objects.length || body !== undefined || list !== undefined)
    throw new Error("naive list lost objects");
  return { ms, peakMiB: (Math.max(peak, retained) - before) / MiB, retainedMiB: (retained - before) / MiB };
}

/**
 * Reflector benchmarks. In-process (no HTTP): the initial sync of N ConfigMaps (~1 KiB, default 100k) through
 * LIST (the reflector's pager, 500 per page; this source honours the limit like etcd, not like the watch cache)
 * versus watch-list (one lazily pulled stream), with the time to `hasSynced` and the peak heap, against a naive
 * baseline that parses one unpaginated LIST body at once.
 *
 * Then the same sync over real HTTP against the simulated apiserver, each client in its own process: see
 * {@link runReflectorHttp}. Sizes: BENCH_REFLECTOR_N (in-process) and BENCH_REFLECTOR_HTTP_N (HTTP).
 */
export async function runReflector(): Promise<BenchResult[]> {
  const n = objectCount();
  const objects: string[] = [];
  for (let i = 0; i < n; i++) objects.push(configMapJson(i, i + 1));
  const avgBytes = objects.reduce((a, s) => a + s.length, 0) / n;
  forceGc();

  const naive = measureNaiveList(objects);
  forceGc();
  const list = await measureReflectorSync(objects, false);
  forceGc();
  const watchList = await measureReflectorSync(objects, true);
  forceGc();

  const rows: BenchRow[] = [
    {
      case: `initial sync, LIST (pager) — ${n} ConfigMaps`,
      value: list.ms,
      unit: "ms",
      baseline: naive.ms,
      ratioLabel: "ours/naive",
      ratio: list.ms / naive.ms,
      note: `${Math.ceil(n / 500)} pages of 500`,
    },
    {
      case: `initial sync, watch-list — ${n} ConfigMaps`,
      value: watchList.ms,
      unit: "ms",
      baseline: naive.ms,
      ratioLabel: "ours/naive",
      ratio: watchList.ms / naive.ms,
      note: `${watchList.status.counts.watchLists} watch-list request, ${watchList.status.counts.events} events`,
    },
    {
      case: "peak heap during sync, LIST",
      value: list.peakMiB,
      unit: "MiB",
      baseline: naive.peakMiB,
      ratioLabel: "ours/naive",
      ratio: list.peakMiB / naive.peakMiB,
    },
    {
      case: "peak heap during sync, watch-list",
      value: watchList.peakMiB,
      unit: "MiB",
      baseline: naive.peakMiB,
      ratioLabel: "ours/naive",
      ratio: watchList.peakMiB / naive.peakMiB,
      goal: "≤ LIST peak",
      met: watchList.peakMiB <= list.peakMiB * 1.05,
    },
    {
      case: "retained after sync (store only), LIST",
      value: (list.retainedMiB * MiB) / n,
      unit: "B/object",
      baseline: (naive.retainedMiB * MiB) / n,
      ratioLabel: "ours/naive",
      ratio: list.retainedMiB / naive.retainedMiB,
    },
    {
      case: "retained after sync (store only), watch-list",
      value: (watchList.retainedMiB * MiB) / n,
      unit: "B/object",
      baseline: (naive.retainedMiB * MiB) / n,
      ratioLabel: "ours/naive",
      ratio: watchList.retainedMiB / naive.retainedMiB,
    },
  ];
  const inProcess: BenchResult = {
    name: "reflector-initial-sync",
    rows,
    meta: {
      node: process.version,
      objects: n,
      avgObjectJsonBytes: Math.round(avgBytes),
      transport: "in-process (JSON.parse per object, lazy watch stream)",
      gc: forceGc(),
    },
  };
  return [inProcess, await runReflectorHttp()];
}

// ---------------------------------------------------------------------------------------------------------------
// Over HTTP. One simulated apiserver (engine + HTTP face) runs in this process, seeded once; every client variant
// runs in its own child process, so its peak RSS (`process.resourceUsage().maxRSS`) is its own.

/** Which client a child runs. */
type HttpVariant =
  /** (c) The floor: undici `request` + `JSON.parse` of the same LIST pages, items put into a Map. */
  | "floor-list"
  /** (a) The reflector with LIST (pager, RV "0": the watch cache answers with one page). */
  | "reflector-list"
  /** (b) The reflector with watch-list (`sendInitialEvents=true`). */
  | "reflector-watch-list"
  /** (e) The reflector with LIST, metadata only (`metadataListWatchFor`: `as=PartialObjectMetadataList`). */
  | "reflector-metadata-list"
  /** (d) `@kubernetes/client-node`'s `ListWatch` (its informer) over `CoreV1Api.listConfigMapForAllNamespaces`. */
  | "client-node"
  /** Raw NDJSON: undici watch from an old RV, lines split and `JSON.parse`d into a Map. */
  | "floor-watch"
  /** The reflector's watch from the same old RV, events into its store. */
  | "reflector-watch";

/** What the parent tells a child (JSON in an environment variable). */
interface ChildSpec {
  readonly variant: HttpVariant;
  readonly url: string;
  /** The watch variants watch from this RV and stop after `watchEvents` events. */
  readonly watchFromRv: string;
  readonly watchEvents: number;
}

/** What a child reports back over IPC. */
interface ChildResult {
  readonly variant: HttpVariant;
  readonly ok: boolean;
  readonly error?: string;
  /** Time of the sync (or of the watch replay), ms. */
  readonly ms: number;
  /** CPU time (user + system) the child spent in that time, ms: the client's own cost, less noisy than `ms`. */
  readonly cpuMs: number;
  /** Objects in the client's cache at the end (or events received, for the watch variants). */
  readonly count: number;
  /** RSS after startup and imports, before the sync, bytes. */
  readonly startRss: number;
  /** Peak RSS of the child process over its life (`maxRSS`), bytes. */
  readonly peakRss: number;
  /** Heap held after the sync and a full GC, above the heap before it: the steady-state cache, bytes. */
  readonly storeHeap: number;
  readonly note?: string;
  /** Set by the parent: CPU the server process (this one) spent while the child ran, ms. */
  readonly serverCpuMs?: number;
}

const CHILD_ENV = "INFORMER_BENCH_REFLECTOR_CHILD";

/** A prepared variant: `sync()` is the timed part; it resolves once the cache is complete. */
interface Prepared {
  sync(): Promise<{ count: number; note?: string }>;
  /** Releases sockets and timers (after the measurements). */
  stop(): Promise<void>;
}

function keyOf(o: KubeObject): string {
  const m = o.metadata;
  return m?.namespace ? `${m.namespace}/${m.name}` : (m?.name ?? "");
}

/** A store wrapper that resolves once `target` watch events (add/update/delete) reached it. */
class CountingStore implements ReflectorStore<KubeObject>, BookmarkStore {
  count = 0;
  readonly reached: Promise<void>;
  private resolve!: () => void;

  constructor(
    private readonly inner: Store<KubeObject>,
    private readonly target: number,
  ) {
    this.reached = new Promise<void>((r) => {
      this.resolve = r;
    });
  }
  private tick(): void {
    if (++this.count === this.target) this.resolve();
  }
  add(obj: KubeObject): void {
    this.inner.add(obj);
    this.tick();
  }
  update(obj: KubeObject): void {
    this.inner.update(obj);
    this.tick();
  }
  delete(obj: KubeObject | DeletedFinalStateUnknownLike<KubeObject>): void {
    this.inner.delete(obj);
    this.tick();
  }
  replace(list: readonly KubeObject[], resourceVersion: string): void {
    this.inner.replace(list, resourceVersion);
  }
  resync(): void {
    this.inner.resync();
  }
  bookmark(resourceVersion: string): void {
    this.inner.bookmark(resourceVersion);
  }
}

/** The reflector syncing over HTTP through `listWatchFor`; `lw` may wrap the HTTP ListerWatcher. */
function prepareReflector(spec: ChildSpec, mode: "list" | "watch-list" | "watch" | "metadata-list"): Prepared {
  const client = new KubeClient({ server: spec.url });
  const http: ListerWatcher<KubeObject> =
    mode === "metadata-list"
      ? metadataListWatchFor(client, builtinResources.configmaps)
      : listWatchFor<KubeObject>(client, builtinResources.configmaps);
  const inner = newStore<KubeObject>(metaNamespaceKeyFunc);
  let lw: ListerWatcher<KubeObject> = http;
  let store: ReflectorStore<KubeObject> = inner;
  let counting: CountingStore | undefined;
  if (mode === "watch") {
    // Watch throughput: skip the LIST (an empty list "as of" the old RV), so the watch replays the history.
    lw = {
      list: async () => ({
        apiVersion: "v1",
        kind: "ConfigMapList",
        metadata: { resourceVersion: spec.watchFromRv },
        items: [],
      }),
      watch: (options, signal) => http.watch(options, signal),
    };
    counting = new CountingStore(inner, spec.watchEvents);
    store = counting;
  }
  const reflector = new Reflector<KubeObject>(lw, { apiVersion: "v1", kind: "ConfigMap" }, store, {
    name: `bench-http-${mode}`,
    logger: silentLogger,
    useWatchList: mode === "watch-list",
  });
  const stopRun = new AbortController();
  let run: Promise<void> | undefined;
  return {
    async sync() {
      const synced = firstValueFrom(reflector.status$.pipe(filter((s) => s.hasSynced)));
      run = reflector.run(stopRun.signal);
      await synced;
      if (counting !== undefined) await counting.reached;
      const s = reflector.status();
      const note =
        mode === "watch"
          ? `${s.counts.watches} watch`
          : mode === "list" || mode === "metadata-list"
            ? `${s.counts.lists} list, ${s.counts.watchLists} watch-list`
            : `${s.counts.watchLists} watch-list, ${s.counts.lists} list`;
      return { count: counting !== undefined ? counting.count : inner.listKeys().length, note };
    },
    async stop() {
      stopRun.abort();
      await run;
      await client.close();
    },
  };
}

/** One LIST page with undici: status check, whole body as text, `JSON.parse`. */
async function floorPage(agent: Agent, url: string): Promise<KubeList<KubeObject>> {
  const res = await request(url, { dispatcher: agent });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`floor LIST: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as KubeList<KubeObject>;
}

/** (c): undici + JSON.parse of the pages the reflector's pager asks for (`limit=500&resourceVersion=0`). */
function prepareFloorList(spec: ChildSpec): Prepared {
  const agent = new Agent();
  const cache = new Map<string, KubeObject>();
  return {
    async sync() {
      let cont = "";
      let pages = 0;
      do {
        const q = cont === "" ? "limit=500&resourceVersion=0" : `continue=${encodeURIComponent(cont)}&limit=500`;
        const list = await floorPage(agent, `${spec.url}/api/v1/configmaps?${q}`);
        for (const item of list.items) cache.set(keyOf(item), item);
        cont = list.metadata.continue ?? "";
        pages++;
      } while (cont !== "");
      return { count: cache.size, note: `${pages} page${pages === 1 ? "" : "s"}` };
    },
    async stop() {
      await agent.close();
    },
  };
}

/** Raw NDJSON floor: undici watch from the old RV, split on newlines, `JSON.parse`, objects into a Map. */
function prepareFloorWatch(spec: ChildSpec): Prepared {
  const agent = new Agent();
  const cache = new Map<string, KubeObject>();
  return {
    async sync() {
      const q = `allowWatchBookmarks=true&resourceVersion=${spec.watchFromRv}&watch=true`;
      const res = await request(`${spec.url}/api/v1/configmaps?${q}`, { dispatcher: agent, bodyTimeout: 0 });
      if (res.statusCode !== 200) throw new Error(`floor WATCH: HTTP ${res.statusCode}: ${await res.body.text()}`);
      let events = 0;
      let carry: Buffer | undefined;
      read: for await (const raw of res.body as AsyncIterable<Buffer>) {
        const chunk = carry === undefined ? raw : Buffer.concat([carry, raw]);
        carry = undefined;
        let from = 0;
        for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
          const ev = JSON.parse(chunk.toString("utf8", from, nl)) as WatchEvent<KubeObject>;
          from = nl + 1;
          if (ev.type === "ADDED" || ev.type === "MODIFIED") cache.set(keyOf(ev.object), ev.object);
          else if (ev.type === "DELETED") cache.delete(keyOf(ev.object));
          if (ev.type !== "BOOKMARK" && ++events === spec.watchEvents) break read;
        }
        if (from < chunk.length) carry = chunk.subarray(from);
      }
      res.body.destroy();
      return { count: events };
    },
    async stop() {
      await agent.destroy();
    },
  };
}

/** (d): client-node 1.4's `ListWatch` with the list function its informer would use (RV "0", like ours). */
async function prepareClientNode(spec: ChildSpec): Promise<Prepared> {
  const k8s = await import("@kubernetes/client-node");
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "sim", server: spec.url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "sim", cluster: "sim", user: "bench" }],
    currentContext: "sim",
  });
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const lw = new k8s.ListWatch<V1ConfigMap>(
    "/api/v1/configmaps",
    new k8s.Watch(kc),
    () => api.listConfigMapForAllNamespaces({ resourceVersion: "0" }),
    false,
  );
  const errors: unknown[] = [];
  lw.on("error", (e) => errors.push(e));
  return {
    async sync() {
      await lw.start(); // resolves after the LIST is cached and the watch request is sent
      if (errors.length > 0) throw new Error(`client-node ListWatch: ${String(errors[0])}`);
      return { count: lw.list().length };
    },
    async stop() {
      await lw.stop();
    },
  };
}

async function prepare(spec: ChildSpec): Promise<Prepared> {
  switch (spec.variant) {
    case "floor-list":
      return prepareFloorList(spec);
    case "reflector-list":
      return prepareReflector(spec, "list");
    case "reflector-watch-list":
      return prepareReflector(spec, "watch-list");
    case "reflector-metadata-list":
      return prepareReflector(spec, "metadata-list");
    case "client-node":
      return prepareClientNode(spec);
    case "floor-watch":
      return prepareFloorWatch(spec);
    case "reflector-watch":
      return prepareReflector(spec, "watch");
  }
}

/**
 * Heap used after GCs separated by event-loop turns: undici releases response bodies through a
 * FinalizationRegistry, whose callbacks only run after a GC, in a later turn.
 */
async function settledHeapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    forceGc();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return heapUsed();
}

/** The child's side: prepare (imports, clients), measure the baseline, sync, measure, report over IPC. */
async function childMain(spec: ChildSpec): Promise<ChildResult> {
  const prepared = await prepare(spec);
  const heapBefore = await settledHeapUsed();
  const startRss = process.memoryUsage().rss;
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const { count, note } = await prepared.sync();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpuStart);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const storeHeap = (await settledHeapUsed()) - heapBefore;
  await prepared.stop();
  return {
    variant: spec.variant,
    ok: true,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    count,
    startRss,
    peakRss,
    storeHeap,
    ...(note !== undefined && { note }),
  };
}

/** Runs one variant in a child process (`--expose-gc`; `--cpu-prof` into BENCH_REFLECTOR_CPU_PROF when set). */
function runChild(spec: ChildSpec): Promise<ChildResult> {
  const args = ["--expose-gc"];
  const profDir = process.env.BENCH_REFLECTOR_CPU_PROF;
  if (profDir !== undefined && profDir !== "") {
    args.push("--cpu-prof", `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${spec.variant}-${Date.now()}.cpuprofile`);
  }
  args.push(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [CHILD_ENV]: JSON.stringify(spec) },
  });
  return new Promise<ChildResult>((resolve) => {
    let result: ChildResult | undefined;
    const failed = (error: string): ChildResult => ({
      variant: spec.variant,
      ok: false,
      error,
      ms: Number.NaN,
      cpuMs: Number.NaN,
      count: 0,
      startRss: Number.NaN,
      peakRss: Number.NaN,
      storeHeap: Number.NaN,
    });
    child.on("message", (m) => {
      result = m as ChildResult;
    });
    child.on("error", (err) => resolve(failed(`cannot start the child: ${err.message}`)));
    child.on("exit", (code, signal) => {
      resolve(result ?? failed(`the child exited (${signal ?? `code ${code}`}) without a result`));
    });
  });
}

/** Best (lowest) of each figure over the repetitions that succeeded; the first failure when none did. */
function best(runs: readonly ChildResult[]): ChildResult {
  const ok = runs.filter((r) => r.ok);
  if (ok.length === 0) return runs[0]!;
  const min = (f: (r: ChildResult) => number) => Math.min(...ok.map(f));
  const fastest = ok.reduce((a, b) => (b.ms < a.ms ? b : a));
  return {
    ...fastest,
    peakRss: min((r) => r.peakRss),
    startRss: min((r) => r.startRss),
    storeHeap: min((r) => r.storeHeap),
    serverCpuMs: min((r) => r.serverCpuMs ?? Number.NaN),
  };
}

const peakAbove = (r: ChildResult) => (r.peakRss - r.startRss) / MiB;

/**
 * The sync over real HTTP. One {@link SimApiServer} (engine, watch cache with history for every create, no
 * compaction) behind a {@link SimHttpServer} in this process, seeded once with N ConfigMaps (~1 KiB;
 * BENCH_REFLECTOR_HTTP_N, default 100k). Each client runs in its own child process, in rounds that alternate the
 * variants (BENCH_REFLECTOR_REPS rounds, default 3; best of each figure):
 * (a) the reflector with LIST, (b) with watch-list, (c) raw undici + `JSON.parse` of the same pages (the floor),
 * (d) `@kubernetes/client-node`'s `ListWatch`, (e) the reflector with a metadata-only LIST (`metadataListWatchFor`,
 * `PartialObjectMetadataList`: what a metadata informer caches), compared with (a). Time is to "synced" (client-node: `start()` resolved); peak RSS is
 * the child's `maxRSS` above its RSS before the sync; the store heap is the heap still held after the sync and a
 * full GC. Watch throughput: the reflector's watch from RV 1 replaying the N ADDED events of the seed from the
 * watch cache, into its store, against raw NDJSON parsing of the same replay (after one discarded warm-up replay,
 * so both see the server's per-event line cache warm). The server shares the 2 cores with the client: every time
 * includes serving. Prints numbers; asserts nothing.
 */
export async function runReflectorHttp(): Promise<BenchResult> {
  const n = envInt("BENCH_REFLECTOR_HTTP_N", 100_000, 1);
  const reps = envInt("BENCH_REFLECTOR_REPS", 3, 1);
  const engine = new SimApiServer({
    historyLowerBound: n + 1024,
    historyUpperBound: n + 1024,
    compactionIntervalMs: 0,
    // The seed spreads objects over 100 namespaces that are never created: the bench measures list/watch, not the
    // namespace lifecycle (which would refuse them with 404 "namespaces … not found").
    namespaceLifecycle: false,
  });
  const firstRv = engine.currentResourceVersion;
  const seedStart = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const obj = JSON.parse(configMapJson(i, 0)) as KubeObject;
    delete obj.metadata?.resourceVersion;
    delete obj.metadata?.uid;
    await engine.create("configmaps", obj.metadata?.namespace ?? "default", obj);
  }
  const seedMs = Number(process.hrtime.bigint() - seedStart) / 1e6;
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  const spec = (variant: HttpVariant): ChildSpec => ({
    variant,
    url,
    watchFromRv: String(firstRv),
    watchEvents: n,
  });
  const runs = new Map<HttpVariant, ChildResult[]>();
  const record = async (variant: HttpVariant) => {
    forceGc();
    const cpu = process.cpuUsage();
    const child = await runChild(spec(variant));
    const used = process.cpuUsage(cpu);
    const r: ChildResult = { ...child, serverCpuMs: (used.user + used.system) / 1000 };
    const expected = n;
    if (r.ok && r.count !== expected) {
      runs.set(variant, [
        ...(runs.get(variant) ?? []),
        { ...r, ok: false, error: `got ${r.count} objects/events, expected ${expected}` },
      ]);
      return;
    }
    runs.set(variant, [...(runs.get(variant) ?? []), r]);
  };
  const started = process.hrtime.bigint();
  try {
    // Warm-up (discarded): the server's first LIST and first replay of the history are slower (JIT, the per-event
    // line cache of the watch encoder), and would otherwise penalize whichever variant runs first.
    await runChild(spec("floor-list"));
    await runChild(spec("floor-watch"));
    const order: HttpVariant[] = [
      "floor-list",
      "reflector-list",
      "reflector-watch-list",
      "client-node",
      "reflector-metadata-list",
    ];
    const watchOrder: HttpVariant[] = ["floor-watch", "reflector-watch"];
    for (let rep = 0; rep < reps; rep++) {
      for (const v of rep % 2 === 0 ? order : [...order].reverse()) await record(v);
      for (const v of rep % 2 === 0 ? watchOrder : [...watchOrder].reverse()) await record(v);
    }
  } finally {
    await server.close();
    engine.stop();
  }
  const totalS = Number(process.hrtime.bigint() - started) / 1e9;

  const get = (v: HttpVariant) => best(runs.get(v) ?? []);
  /** Every repetition's figure, to show the spread behind the best one. */
  const spread = (v: HttpVariant, f: (r: ChildResult) => number) =>
    (runs.get(v) ?? [])
      .filter((r) => r.ok)
      .map((r) => Math.round(f(r)))
      .join("/");
  const c = get("floor-list");
  const a = get("reflector-list");
  const b = get("reflector-watch-list");
  const d = get("client-node");
  const e = get("reflector-metadata-list");
  const fw = get("floor-watch");
  const rw = get("reflector-watch");
  const note = (r: ChildResult, extra?: string) =>
    [r.ok ? undefined : `FAILED: ${r.error}`, r.note, extra].filter((x) => x !== undefined).join("; ") || undefined;
  const withNote = (extra: string | undefined, row: BenchRow, r: ChildResult): BenchRow => {
    const text = note(r, extra);
    return text === undefined ? row : { ...row, note: text };
  };
  const goal = (text: string, met: boolean) => ({ goal: text, met });
  const syncRow = (label: string, r: ChildResult, cpu: boolean, g?: { goal: string; met: boolean }): BenchRow =>
    withNote(
      `runs ${spread(r.variant, (x) => (cpu ? x.cpuMs : x.ms))} ms${cpu ? "" : `; server CPU ${Math.round(r.serverCpuMs ?? Number.NaN)} ms`}`,
      {
        case: `${cpu ? "client CPU during" : "wall time of"} HTTP initial sync, ${label} — ${n} ConfigMaps`,
        value: cpu ? r.cpuMs : r.ms,
        unit: "ms",
        baseline: cpu ? c.cpuMs : c.ms,
        ratioLabel: "variant/floor",
        ratio: cpu ? r.cpuMs / c.cpuMs : r.ms / c.ms,
        ...g,
      },
      r,
    );
  const rssRow = (label: string, r: ChildResult): BenchRow => ({
    case: `peak RSS above start, ${label}`,
    value: peakAbove(r),
    unit: "MiB",
    baseline: peakAbove(c),
    ratioLabel: "variant/floor",
    ratio: peakAbove(r) / peakAbove(c),
    note: `peak ${Math.round(r.peakRss / MiB)} MiB from ${Math.round(r.startRss / MiB)} MiB; store heap ${Math.round(r.storeHeap / MiB)} MiB`,
  });
  const speedUp = (cpu: boolean): BenchRow => {
    const x = cpu ? d.cpuMs / a.cpuMs : d.ms / a.ms;
    return {
      case: `(a) reflector LIST vs (d) client-node, speed-up in ${cpu ? "client CPU" : "wall time"}`,
      value: x,
      unit: "×",
      baseline: 1,
      ratioLabel: "client-node/ours",
      ratio: x,
      ...goal("≥ 2×", x >= 2),
    };
  };
  const watchRow = (cpu: boolean): BenchRow => {
    const ours = n / ((cpu ? rw.cpuMs : rw.ms) / 1000);
    const raw = n / ((cpu ? fw.cpuMs : fw.ms) / 1000);
    return withNote(
      `${cpu ? "client CPU" : "wall"} runs ours ${spread("reflector-watch", (x) => (cpu ? x.cpuMs : x.ms))} ms, raw ${spread("floor-watch", (x) => (cpu ? x.cpuMs : x.ms))} ms${
        cpu
          ? ""
          : `; server CPU ours ${Math.round(rw.serverCpuMs ?? Number.NaN)} ms, raw ${Math.round(fw.serverCpuMs ?? Number.NaN)} ms`
      }`,
      {
        case: `watch throughput${cpu ? " per client CPU second" : ""}, ${n} events from the HTTP stream into the store`,
        value: ours,
        unit: cpu ? "events/CPU-s" : "events/s",
        baseline: raw,
        ratioLabel: "ours/raw NDJSON",
        ratio: ours / raw,
        ...goal("≥ 0.6× raw", ours >= 0.6 * raw),
      },
      rw,
    );
  };
  const bRatio = peakAbove(b) / (b.storeHeap / MiB);
  /** (e) against (a): how many times less the metadata-only sync costs than the full-object one. */
  const metadataRow = (what: "cpu" | "wall" | "rss" | "heap"): BenchRow => {
    const fig = (r: ChildResult) =>
      what === "cpu" ? r.cpuMs : what === "wall" ? r.ms : what === "rss" ? peakAbove(r) : r.storeHeap / n;
    const x = fig(a) / fig(e);
    const label = {
      cpu: "client CPU",
      wall: "wall time",
      rss: "peak RSS above start",
      heap: "retained heap per object",
    }[what];
    return withNote(
      what === "heap"
        ? `${Math.round(fig(e))} B/object metadata-only vs ${Math.round(fig(a))} B/object full`
        : `metadata-only ${fig(e).toFixed(0)} vs full ${fig(a).toFixed(0)} ${what === "rss" ? "MiB" : "ms"}`,
      {
        case: `(e) metadata-only LIST vs (a) full-object LIST, ${label} — ${n} ConfigMaps`,
        value: x,
        unit: "× less",
        baseline: 1,
        ratioLabel: "full/metadata-only",
        ratio: x,
        ...(what === "cpu" && goal("≥ 3×", x >= 3)),
        ...(what === "heap" && goal("≥ 4×", x >= 4)),
      },
      e,
    );
  };
  const rows: BenchRow[] = [
    syncRow("(c) floor: undici + JSON.parse", c, false),
    syncRow("(a) reflector, LIST", a, false, goal("≤ 1.3× floor", a.ms <= 1.3 * c.ms)),
    syncRow("(b) reflector, watch-list", b, false),
    syncRow("(d) client-node ListWatch", d, false),
    speedUp(false),
    syncRow("(c) floor: undici + JSON.parse", c, true),
    syncRow("(a) reflector, LIST", a, true, goal("≤ 1.3× floor", a.cpuMs <= 1.3 * c.cpuMs)),
    syncRow("(b) reflector, watch-list", b, true),
    syncRow("(d) client-node ListWatch", d, true),
    speedUp(true),
    rssRow("(c) floor", c),
    rssRow("(a) reflector, LIST", a),
    rssRow("(b) reflector, watch-list", b),
    rssRow("(d) client-node ListWatch", d),
    {
      case: "(b) watch-list: peak RSS above start / steady-state store heap",
      value: bRatio,
      unit: "×",
      ...goal("≤ 1.3×", bRatio <= 1.3),
      note: `${Math.round(peakAbove(b))} MiB / ${Math.round(b.storeHeap / MiB)} MiB; the raw NDJSON floor's own ratio: ${(peakAbove(fw) / (fw.storeHeap / MiB)).toFixed(2)}× (V8 young generation and page overhead)`,
    },
    watchRow(false),
    watchRow(true),
    syncRow("(e) reflector, metadata-only LIST", e, false),
    syncRow("(e) reflector, metadata-only LIST", e, true),
    rssRow("(e) reflector, metadata-only LIST", e),
    {
      case: "retained heap per cached object, (a) full-object LIST",
      value: a.storeHeap / n,
      unit: "B/object",
    },
    {
      case: "retained heap per cached object, (e) metadata-only LIST",
      value: e.storeHeap / n,
      unit: "B/object",
    },
    metadataRow("wall"),
    metadataRow("cpu"),
    metadataRow("rss"),
    metadataRow("heap"),
  ];
  if (!fw.ok) rows.push({ case: "raw NDJSON watch floor", value: Number.NaN, unit: "", note: note(fw) ?? "" });
  return {
    name: "reflector-initial-sync-http",
    rows,
    meta: {
      node: process.version,
      objects: n,
      reps,
      seedSeconds: Math.round(seedMs / 100) / 10,
      runSeconds: Math.round(totalS),
      transport:
        "loopback HTTP/1.1, JSON, no gzip; sim-apiserver engine + HTTP face in the parent, each client in its own child",
      listPages: "RV=0 is served from the watch cache, which ignores limit: one page",
      timing: "best of reps; shared 2-core machine, noisy",
      clientNodeList: "listConfigMapForAllNamespaces({resourceVersion: '0'})",
      watchListEnd:
        "the server sends the initial-events-end bookmark on its ~1 s bookmark tick (as kube-apiserver): (b) pays up to ~1 s of waiting, visible at small N",
      serverCpu: "CPU of this process (the server) while the child ran, in the wall-time rows",
    },
  };
}

// Child-process entry: `node reflector.js` with the spec in INFORMER_BENCH_REFLECTOR_CHILD.
if (process.env[CHILD_ENV] !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = JSON.parse(process.env[CHILD_ENV]) as ChildSpec;
  let result: ChildResult;
  try {
    result = await childMain(spec);
  } catch (err) {
    result = {
      variant: spec.variant,
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      ms: Number.NaN,
      cpuMs: Number.NaN,
      count: 0,
      startRss: Number.NaN,
      peakRss: Number.NaN,
      storeHeap: Number.NaN,
    };
  }
  process.send?.(result, () => process.exit(0));
}
