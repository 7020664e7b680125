// The child side of the reflector's HTTP benchmark: each client variant, run in its own process so that its peak RSS
// (`process.resourceUsage().maxRSS`) is its own, and the parent's helper that spawns one.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { KubeList, KubeObject } from "@informer-ts/apimachinery";
import {
  type BookmarkStore,
  type DeletedFinalStateUnknownLike,
  type ListerWatcher,
  metaNamespaceKeyFunc,
  newStore,
  Reflector,
  type ReflectorStore,
  type Store,
  silentLogger,
  transformStripManagedFields,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor, metadataListWatchFor } from "@informer-ts/client";
import type { V1ConfigMap } from "@kubernetes/client-node";
import { firstValueFrom } from "rxjs";
import { filter } from "rxjs/operators";
import { Agent, request } from "undici";
import { childNodeArgs, clientNodeFor, keyOf, readWatchInto, settledHeapUsed } from "./util.js";

/** Which client a child runs. */
export type HttpVariant =
  /** (c) The floor: undici `request` + `JSON.parse` of the same LIST pages, items put into a Map. */
  | "floor-list"
  /** (a) The reflector with LIST (pager, RV "0": the watch cache answers with one page). */
  | "reflector-list"
  /** (b) The reflector with watch-list (`sendInitialEvents=true`). */
  | "reflector-watch-list"
  /**
   * (e) The reflector with LIST, metadata only (`metadataListWatchFor`: `as=PartialObjectMetadataList`), decoding
   * the LIST without `managedFields` (`dropManagedFields`) and storing through `transformStripManagedFields`, as a
   * metadata informer does.
   */
  | "reflector-metadata-list"
  /** (g) As (e) but decoding the LIST whole and stripping only in the store: before `dropManagedFields`. */
  | "reflector-metadata-list-whole"
  /** (f) As (e) but keeping `managedFields` in the store (no `transformStripManagedFields`): before that default. */
  | "reflector-metadata-list-keep"
  /** (d) `@kubernetes/client-node`'s `ListWatch` (its informer) over `CoreV1Api.listConfigMapForAllNamespaces`. */
  | "client-node"
  /** Raw NDJSON: undici watch from an old RV, lines split and `JSON.parse`d into a Map. */
  | "floor-watch"
  /** The reflector's watch from the same old RV, events into its store. */
  | "reflector-watch";

/** What the parent tells a child (JSON in an environment variable). */
export interface ChildSpec {
  readonly variant: HttpVariant;
  readonly url: string;
  /** The watch variants watch from this RV and stop after `watchEvents` events. */
  readonly watchFromRv: string;
  readonly watchEvents: number;
}

/** What a child reports back over IPC. */
export interface ChildResult {
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

/** A store wrapper that resolves once `target` watch events (add/update/delete) reached it. */
export class CountingStore implements ReflectorStore<KubeObject>, BookmarkStore {
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
function prepareReflector(
  spec: ChildSpec,
  mode: "list" | "watch-list" | "watch" | "metadata-list" | "metadata-list-whole" | "metadata-list-keep",
): Prepared {
  const client = new KubeClient({ server: spec.url });
  const http: ListerWatcher<KubeObject> =
    mode === "metadata-list" || mode === "metadata-list-whole" || mode === "metadata-list-keep"
      ? metadataListWatchFor(client, builtinResources.configmaps, {}, { dropManagedFields: mode === "metadata-list" })
      : listWatchFor<KubeObject>(client, builtinResources.configmaps);
  const inner = newStore<KubeObject>(
    metaNamespaceKeyFunc,
    mode === "metadata-list" || mode === "metadata-list-whole" ? { transformer: transformStripManagedFields } : {},
  );
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
          : mode === "list" ||
              mode === "metadata-list" ||
              mode === "metadata-list-whole" ||
              mode === "metadata-list-keep"
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
      const events = await readWatchInto(res.body, cache, spec.watchEvents);
      return { count: events };
    },
    async stop() {
      await agent.destroy();
    },
  };
}

/** (d): client-node 1.4's `ListWatch` with the list function its informer would use (RV "0", like ours). */
async function prepareClientNode(spec: ChildSpec): Promise<Prepared> {
  const { k8s, kc, api } = await clientNodeFor(spec.url);
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
    case "reflector-metadata-list-whole":
      return prepareReflector(spec, "metadata-list-whole");
    case "reflector-metadata-list-keep":
      return prepareReflector(spec, "metadata-list-keep");
    case "client-node":
      return prepareClientNode(spec);
    case "floor-watch":
      return prepareFloorWatch(spec);
    case "reflector-watch":
      return prepareReflector(spec, "watch");
  }
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

/**
 * Runs one variant in a child process (`--expose-gc`; `--cpu-prof` into `profDir`, by default BENCH_REFLECTOR_CPU_PROF,
 * when set) and resolves with its result, or a failed result naming what went wrong (never rejects).
 */
export function runReflectorChild(
  spec: ChildSpec,
  profDir = process.env.BENCH_REFLECTOR_CPU_PROF,
): Promise<ChildResult> {
  const args = [...childNodeArgs(profDir, spec.variant), fileURLToPath(import.meta.url)];
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
