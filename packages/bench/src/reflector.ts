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
import { firstValueFrom } from "rxjs";
import { filter } from "rxjs/operators";
import { runReflectorHttp } from "./reflector-http.js";
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
