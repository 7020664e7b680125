import type { KubeList, KubeObject, ListOptions, WatchEvent } from "@informer-ts/apimachinery";
import { INITIAL_EVENTS_END_ANNOTATION } from "@informer-ts/apimachinery";
import {
  type ListerWatcher,
  metaNamespaceKeyFunc,
  newStore,
  Reflector,
  type ReflectorStatus,
  silentLogger,
  type Watch,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { firstValueFrom } from "rxjs";
import { filter } from "rxjs/operators";
import { type BenchResult, type BenchRow, forceGc, heapUsed } from "./report.js";

const MiB = 1024 * 1024;

/** Number of ConfigMaps; override with BENCH_REFLECTOR_N (e.g. 10000 for a quick run). */
function objectCount(): number {
  const n = Number(process.env.BENCH_REFLECTOR_N ?? "100000");
  return Number.isInteger(n) && n > 0 ? n : 100_000;
}

/** One ConfigMap of about 1 KiB of JSON, as the server would hold it (serialized). */
function configMapJson(i: number, rv: number): string {
  const filler = (i * 2654435761).toString(36).padEnd(8, "q");
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `config-${i}`,
      namespace: `namespace-${i % 100}`,
      uid: `0b1c2d3e-4f50-6172-8394-${String(i).padStart(12, "0")}`,
      resourceVersion: String(rv),
      labels: { app: `app-${i % 50}`, tier: i % 2 === 0 ? "frontend" : "backend" },
      annotations: { "example.com/owner": `team-${i % 17}` },
    },
    data: { "settings.yaml": `id: ${i}\n` + `${filler}-`.repeat(90), "extra.txt": `${i}:` + filler.repeat(12) },
  });
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
  const run = reflector.run();
  const status = await synced;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  sampler.sample();
  if (store.size !== objects.length) throw new Error(`synced ${store.size} objects, expected ${objects.length}`);
  const after = heapUsed();
  run.unsubscribe();
  await reflector.whenStopped();
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
 * HTTP parts (pending the `client` HTTP ListerWatcher and the `sim-apiserver` HTTP server): the same sync over
 * real HTTP + NDJSON decoding, and relist cost after a 410 — see `runReflectorHttp`.
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

/** The parts of the sim's HTTP face this benchmark uses, typed locally (the package index may not export them yet). */
interface SimHttpModule {
  readonly SimHttpServer: new (opts: { backend: unknown }) => { start(): Promise<string>; close(): Promise<void> };
  readonly MemoryBackend: new () => {
    resources(): readonly unknown[];
    create(r: unknown, namespace: string, obj: KubeObject, ctx: unknown): Promise<KubeObject>;
  };
}

async function measureHttpSync(client: KubeClient, useWatchList: boolean, n: number): Promise<SyncMeasure> {
  const sampler = new HeapSampler(1);
  const store = newStore<KubeObject>(metaNamespaceKeyFunc);
  const before = heapUsed();
  sampler.peak = before;
  const lw = listWatchFor<KubeObject>(client, builtinResources.configmaps);
  const reflector = new Reflector<KubeObject>(lw, { apiVersion: "v1", kind: "ConfigMap" }, store, {
    name: useWatchList ? "bench-http-watch-list" : "bench-http-list",
    logger: silentLogger,
    useWatchList,
  });
  const ticker = setInterval(() => sampler.sample(), 5);
  const start = process.hrtime.bigint();
  const synced = firstValueFrom(reflector.status$.pipe(filter((s) => s.hasSynced)));
  const run = reflector.run();
  const status = await synced;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  clearInterval(ticker);
  sampler.sample();
  if (store.size !== n) throw new Error(`synced ${store.size} objects over HTTP, expected ${n}`);
  const after = heapUsed();
  run.unsubscribe();
  await reflector.whenStopped();
  return { ms, peakMiB: (sampler.peak - before) / MiB, retainedMiB: (after - before) / MiB, status };
}

/**
 * HTTP variant: the same initial sync over loopback HTTP — `@informer-ts/client`'s `listWatchFor` against the
 * simulated apiserver's HTTP face with its in-memory backend (which serves a LIST as one page: no `limit`) —
 * LIST versus watch-list, against the naive single `client.list`. The server runs in this process, so heap
 * figures include its serialization buffers. Reports a pending result while `@informer-ts/sim-apiserver` does not
 * export its HTTP face (pass the module explicitly to run it anyway). N: BENCH_REFLECTOR_HTTP_N (default 100k).
 */
export async function runReflectorHttp(simModule?: unknown): Promise<BenchResult> {
  const m = (simModule ?? (await import("@informer-ts/sim-apiserver"))) as Partial<SimHttpModule>;
  if (m.SimHttpServer === undefined || m.MemoryBackend === undefined) {
    return {
      name: "reflector-initial-sync-http",
      rows: [],
      meta: { status: "pending: @informer-ts/sim-apiserver does not export SimHttpServer/MemoryBackend yet" },
    };
  }
  const nEnv = Number(process.env.BENCH_REFLECTOR_HTTP_N ?? "100000");
  const n = Number.isInteger(nEnv) && nEnv > 0 ? nEnv : 100_000;
  const backend = new m.MemoryBackend();
  const resource = backend.resources().find((r) => (r as { resource?: string }).resource === "configmaps");
  const ctx = { signal: new AbortController().signal, user: "bench", userAgent: "bench" };
  for (let i = 0; i < n; i++) {
    const obj = JSON.parse(configMapJson(i, 0)) as KubeObject;
    delete obj.metadata?.resourceVersion;
    delete obj.metadata?.uid;
    await backend.create(resource, obj.metadata?.namespace ?? "default", obj, ctx);
  }
  const server = new m.SimHttpServer({ backend });
  const url = await server.start();
  const client = new KubeClient({ server: url, qps: -1 }, { rateLimiter: null });
  try {
    forceGc();
    const naiveBefore = heapUsed();
    const naiveStart = process.hrtime.bigint();
    let list: KubeList<KubeObject> | undefined = await client.list<KubeObject>(builtinResources.configmaps, {});
    const naivePeak = process.memoryUsage().heapUsed;
    const map = new Map<string, KubeObject>();
    for (const item of list.items) map.set(metaNamespaceKeyFunc(item), item);
    list = undefined;
    const naiveMs = Number(process.hrtime.bigint() - naiveStart) / 1e6;
    const naiveRetained = heapUsed();
    if (map.size !== n || list !== undefined) throw new Error("naive HTTP list lost objects");
    map.clear();
    forceGc();
    const viaList = await measureHttpSync(client, false, n);
    forceGc();
    const viaWatchList = await measureHttpSync(client, true, n);
    const naivePeakMiB = (naivePeak - naiveBefore) / MiB;
    return {
      name: "reflector-initial-sync-http",
      rows: [
        {
          case: `HTTP initial sync, LIST — ${n} ConfigMaps`,
          value: viaList.ms,
          unit: "ms",
          baseline: naiveMs,
          ratioLabel: "ours/naive",
          ratio: viaList.ms / naiveMs,
        },
        {
          case: `HTTP initial sync, watch-list — ${n} ConfigMaps`,
          value: viaWatchList.ms,
          unit: "ms",
          baseline: naiveMs,
          ratioLabel: "ours/naive",
          ratio: viaWatchList.ms / naiveMs,
        },
        {
          case: "HTTP peak heap during sync, LIST (client + in-process server)",
          value: viaList.peakMiB,
          unit: "MiB",
          baseline: naivePeakMiB,
          ratioLabel: "ours/naive",
          ratio: viaList.peakMiB / naivePeakMiB,
        },
        {
          case: "HTTP peak heap during sync, watch-list (client + in-process server)",
          value: viaWatchList.peakMiB,
          unit: "MiB",
          baseline: naivePeakMiB,
          ratioLabel: "ours/naive",
          ratio: viaWatchList.peakMiB / naivePeakMiB,
          goal: "≤ LIST peak",
          met: viaWatchList.peakMiB <= viaList.peakMiB * 1.05,
        },
      ],
      meta: {
        node: process.version,
        objects: n,
        naiveRetainedMiB: Math.round((naiveRetained - naiveBefore) / MiB),
        transport: "loopback HTTP, in-memory sim backend",
      },
    };
  } finally {
    await client.close();
    await server.close();
  }
}
