// The child side of the informer benchmark: one delivery path per process (so that its CPU and peak RSS are its
// own), and the parent's helper that spawns one.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import {
  type ListerWatcher,
  metaNamespaceKeyFunc,
  newSharedIndexInformer,
  newStore,
  Reflector,
  reflect,
  silentLogger,
  watcher,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import type { KubernetesObject } from "@kubernetes/client-node";
import { filter, firstValueFrom, type Subscription } from "rxjs";
import { Agent, request } from "undici";
import { CountingStore } from "./reflector-http-child.js";
import { clientNodeFor, keyOf, readWatchInto, settledHeapUsed } from "./util.js";

/** Which delivery path a child measures. */
export type InformerVariant =
  /** (a) The shared informer with one callback handler (`addEventHandler`). */
  | "callback"
  /** (b) The shared informer with k `notifications$()` subscribers. */
  | "notifications-1"
  | "notifications-4"
  | "notifications-16"
  /** (c) `watcher(lw).pipe(reflect(store))`. */
  | "watcher-reflect"
  /** (d) `@kubernetes/client-node` 1.4 `makeInformer`'s `ListWatch` with one handler. */
  | "client-node"
  /** (f) The raw floor: undici + `JSON.parse` of the same LIST, then of the watch's NDJSON lines, into a Map. */
  | "floor"
  /** (r) The `Reflector` alone, into a store (the informer without FIFO, processor and handlers). */
  | "reflector";

/** What the parent tells a child (JSON in an environment variable). */
export interface InformerChildSpec {
  readonly variant: InformerVariant;
  readonly url: string;
  /** Every path lists at exactly this RV (the seed) and watches from it: the history replays `n` updates. */
  readonly listRv: string;
  readonly n: number;
  /** When set, a CPU profile of the events phase only (inspector) is written into this directory. */
  readonly profDir?: string;
  /**
   * Stop after the initial sync (no events phase): run under `valgrind --tool=callgrind`, the instruction count of
   * this run subtracted from a full run's is the events phase's, a measure that holds on a loaded machine.
   */
  readonly syncOnly?: boolean;
}

/** What a child reports back over IPC. */
export interface InformerChildResult {
  readonly variant: InformerVariant;
  readonly ok: boolean;
  readonly error?: string;
  /** Initial sync (start → synced), ms. */
  readonly syncMs: number;
  /** From opening the watch to the n-th update delivered (to every subscriber), ms. */
  readonly eventsMs: number;
  /** Client CPU (user + system) over the events phase, ms. */
  readonly eventsCpuMs: number;
  /** Client CPU over sync + events, ms. */
  readonly totalCpuMs: number;
  /** Peak RSS of the child (maxRSS), bytes. */
  readonly peakRss: number;
  /** RSS before the sync, bytes. */
  readonly startRss: number;
  /** Heap held at the end (after a full GC), above the heap before the sync, bytes. */
  readonly retainedHeap: number;
  /** Objects cached at the end. */
  readonly cached: number;
}

const CHILD_ENV = "INFORMER_BENCH_INFORMER_CHILD";

/** How long a child may take for the whole run before the parent gives up on it, ms. */
const CHILD_LIMIT_MS = 300_000;

/** A path under test: `start()` resolves once synced; `delivered` resolves once n updates reached every consumer. */
interface Client {
  start(): Promise<void>;
  readonly delivered: Promise<void>;
  cached(): number;
  stop(): Promise<void>;
}

/** A latch: the watch of every path waits on it, so that the events phase starts when the sync is measured. */
interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

/** A counter that resolves once it reached `target` on each of `consumers` consumers. */
function counters(consumers: number, target: number): { tick: (i: number) => void; done: Promise<void> } {
  const counts = new Array<number>(consumers).fill(0);
  let complete = 0;
  let resolve!: () => void;
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  return {
    tick(i) {
      if (++counts[i]! === target && ++complete === consumers) resolve();
    },
    done,
  };
}

/**
 * Our HTTP ListerWatcher, pinned to the seed: the (first) LIST asks for exactly `listRv` in one page, as client-node's
 * list function does, and every watch waits for the gate.
 */
function pinnedListWatch(client: KubeClient, spec: InformerChildSpec, g: Gate): ListerWatcher<KubeObject> {
  const http = listWatchFor<KubeObject>(client, builtinResources.configmaps);
  return {
    list: (options: ListOptions, signal?: AbortSignal) =>
      http.list(
        {
          ...options,
          limit: undefined,
          continue: undefined,
          resourceVersion: spec.listRv,
          resourceVersionMatch: "Exact",
        },
        signal,
      ),
    watch: async (options: ListOptions, signal?: AbortSignal) => {
      await g.opened;
      return http.watch(options, signal);
    },
  };
}

function informerClient(spec: InformerChildSpec, subscribers: number | "callback", g: Gate): Client {
  const client = new KubeClient({ server: spec.url });
  const informer = newSharedIndexInformer<KubeObject>(
    pinnedListWatch(client, spec, g),
    { apiVersion: "v1", kind: "ConfigMap" },
    { name: "bench", reflector: { logger: silentLogger, useWatchList: false } },
  );
  const k = subscribers === "callback" ? 1 : subscribers;
  const c = counters(k, spec.n);
  const subs: Subscription[] = [];
  if (subscribers === "callback") {
    informer.addEventHandler({ onUpdate: () => c.tick(0) });
  } else {
    for (let i = 0; i < k; i++) {
      subs.push(
        informer.notifications$().subscribe((note) => {
          if (note.type === "update") c.tick(i);
        }),
      );
    }
  }
  const stop = new AbortController();
  let run: Promise<void> | undefined;
  return {
    async start() {
      const synced = firstValueFrom(informer.synced$.pipe(filter((s) => s)));
      run = informer.run(stop.signal);
      await synced;
    },
    delivered: c.done,
    cached: () => informer.getStore().listKeys().length,
    async stop() {
      for (const s of subs) s.unsubscribe();
      stop.abort();
      await run;
      await client.close();
    },
  };
}

function watcherClient(spec: InformerChildSpec, g: Gate): Client {
  const client = new KubeClient({ server: spec.url });
  const store = newStore<KubeObject>(metaNamespaceKeyFunc);
  const c = counters(1, spec.n);
  let synced!: () => void;
  const syncedP = new Promise<void>((r) => {
    synced = r;
  });
  let sub: Subscription | undefined;
  return {
    async start() {
      sub = watcher(pinnedListWatch(client, spec, g), { logger: silentLogger, useWatchList: false })
        .pipe(reflect(store, { logger: silentLogger }))
        .subscribe((ev) => {
          if (ev.type === "initDone") synced();
          else if (ev.type === "apply") c.tick(0);
        });
      await syncedP;
    },
    delivered: c.done,
    cached: () => store.listKeys().length,
    async stop() {
      sub?.unsubscribe();
      await client.close();
    },
  };
}

/**
 * (d): what client-node 1.4's `makeInformer(kc, path, listFn)` builds — a `ListWatch` on a `Watch` — with the list
 * function pinned to the seed (one page, `resourceVersionMatch=Exact`). Its `Watch` waits for the gate without
 * holding up `start()` (which awaits the watch request): the request it hands back aborts the real one.
 */
async function clientNodeClient(spec: InformerChildSpec, g: Gate): Promise<Client> {
  const { k8s, kc, api } = await clientNodeFor(spec.url);
  class GatedWatch extends k8s.Watch {
    override watch(
      path: string,
      queryParams: Record<string, string | number | boolean | undefined>,
      callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
      done: (err: unknown) => void,
    ): Promise<AbortController> {
      const request = new AbortController();
      void g.opened
        .then(() => super.watch(path, queryParams, callback, done))
        .then(
          (real) => {
            if (request.signal.aborted) real.abort();
            else request.signal.addEventListener("abort", () => real.abort(), { once: true });
          },
          (err: unknown) => done(err),
        );
      return Promise.resolve(request);
    }
  }
  const informer = new k8s.ListWatch<KubernetesObject>(
    "/api/v1/configmaps",
    new GatedWatch(kc),
    () => api.listConfigMapForAllNamespaces({ resourceVersion: spec.listRv, resourceVersionMatch: "Exact" }),
    false,
  );
  const c = counters(1, spec.n);
  const errors: unknown[] = [];
  informer.on("update", () => c.tick(0));
  informer.on("error", (e) => errors.push(e));
  return {
    async start() {
      await informer.start();
      if (errors.length > 0) throw new Error(`client-node informer: ${String(errors[0])}`);
    },
    delivered: c.done,
    cached: () => informer.list().length,
    async stop() {
      await informer.stop();
    },
  };
}

/** (f): the same LIST and watch with undici and `JSON.parse`, objects into a Map: the floor of any client. */
function floorClient(spec: InformerChildSpec, g: Gate): Client {
  const agent = new Agent();
  const cache = new Map<string, KubeObject>();
  let delivered!: Promise<void>;
  let events = 0;
  return {
    async start() {
      const q = `resourceVersion=${spec.listRv}&resourceVersionMatch=Exact`;
      const res = await request(`${spec.url}/api/v1/configmaps?${q}`, { dispatcher: agent });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`floor LIST: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      const list = JSON.parse(text) as KubeList<KubeObject>;
      for (const item of list.items) cache.set(keyOf(item), item);
      delivered = g.opened.then(async () => {
        const w = `allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}&watch=true`;
        const watch = await request(`${spec.url}/api/v1/configmaps?${w}`, { dispatcher: agent, bodyTimeout: 0 });
        if (watch.statusCode !== 200) throw new Error(`floor WATCH: HTTP ${watch.statusCode}`);
        events = await readWatchInto(watch.body, cache, spec.n);
        if (events !== spec.n) throw new Error(`floor WATCH ended after ${events} of ${spec.n} events`);
      });
    },
    get delivered() {
      return delivered;
    },
    cached: () => cache.size,
    async stop() {
      await agent.destroy();
    },
  };
}

/** (r): the `Reflector` on the same pinned ListerWatcher, into a store that counts the watch's updates. */
function reflectorClient(spec: InformerChildSpec, g: Gate): Client {
  const client = new KubeClient({ server: spec.url });
  const inner = newStore<KubeObject>(metaNamespaceKeyFunc);
  const store = new CountingStore(inner, spec.n);
  const reflector = new Reflector<KubeObject>(
    pinnedListWatch(client, spec, g),
    { apiVersion: "v1", kind: "ConfigMap" },
    store,
    { name: "bench", logger: silentLogger, useWatchList: false },
  );
  const stop = new AbortController();
  let run: Promise<void> | undefined;
  return {
    async start() {
      const synced = firstValueFrom(reflector.status$.pipe(filter((s) => s.hasSynced)));
      run = reflector.run(stop.signal);
      await synced;
    },
    delivered: store.reached,
    cached: () => inner.listKeys().length,
    async stop() {
      stop.abort();
      await run;
      await client.close();
    },
  };
}

function makeClient(spec: InformerChildSpec, g: Gate): Client | Promise<Client> {
  switch (spec.variant) {
    case "client-node":
      return clientNodeClient(spec, g);
    case "watcher-reflect":
      return watcherClient(spec, g);
    case "floor":
      return floorClient(spec, g);
    case "reflector":
      return reflectorClient(spec, g);
    case "callback":
      return informerClient(spec, "callback", g);
    default:
      return informerClient(spec, Number(spec.variant.split("-")[1]), g);
  }
}

/** A V8 CPU profile through the inspector, started now; `stop(file)` writes it. */
async function startProfiler(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (err, result) => (err === null ? resolve(result) : reject(err))),
    );
  await post("Profiler.enable");
  await post("Profiler.start");
  return {
    async stop(file) {
      const { profile } = (await post("Profiler.stop")) as { profile: unknown };
      session.disconnect();
      await writeFile(file, JSON.stringify(profile));
    },
  };
}

async function childMain(spec: InformerChildSpec): Promise<InformerChildResult> {
  const g = gate();
  const client = await makeClient(spec, g);
  const heapBefore = await settledHeapUsed();
  const startRss = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await client.start();
  const t1 = process.hrtime.bigint();
  const cpu1 = process.cpuUsage();
  const profiler = spec.profDir === undefined ? undefined : await startProfiler();
  if (spec.syncOnly !== true) {
    g.open();
    await client.delivered;
  }
  const t2 = process.hrtime.bigint();
  const cpuEvents = process.cpuUsage(cpu1);
  if (profiler !== undefined && spec.profDir !== undefined) {
    await profiler.stop(join(spec.profDir, `${spec.variant}-events-${Date.now()}.cpuprofile`));
  }
  const cpuTotal = process.cpuUsage(cpu0);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const retainedHeap = (await settledHeapUsed()) - heapBefore;
  const cached = client.cached();
  await client.stop();
  return {
    variant: spec.variant,
    ok: true,
    syncMs: Number(t1 - t0) / 1e6,
    eventsMs: Number(t2 - t1) / 1e6,
    eventsCpuMs: (cpuEvents.user + cpuEvents.system) / 1000,
    totalCpuMs: (cpuTotal.user + cpuTotal.system) / 1000,
    peakRss,
    startRss,
    retainedHeap,
    cached,
  };
}

function failed(variant: InformerVariant, error: string): InformerChildResult {
  return {
    variant,
    ok: false,
    error,
    syncMs: Number.NaN,
    eventsMs: Number.NaN,
    eventsCpuMs: Number.NaN,
    totalCpuMs: Number.NaN,
    peakRss: Number.NaN,
    startRss: Number.NaN,
    retainedHeap: Number.NaN,
    cached: 0,
  };
}

/**
 * Runs one variant in its own child (`--expose-gc`) and resolves with its
 * result, or a failed result naming what went wrong (never rejects). A child that has not reported after
 * {@link CHILD_LIMIT_MS} is killed: some update never arrived.
 */
export function runInformerChild(spec: InformerChildSpec): Promise<InformerChildResult> {
  const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [CHILD_ENV]: JSON.stringify(spec) },
  });
  return new Promise<InformerChildResult>((resolve) => {
    let result: InformerChildResult | undefined;
    const timer = setTimeout(() => {
      result ??= failed(spec.variant, `no result within ${CHILD_LIMIT_MS} ms (not all ${spec.n} updates delivered?)`);
      child.kill();
    }, CHILD_LIMIT_MS);
    child.on("message", (m: InformerChildResult) => {
      result ??= m;
    });
    child.on("error", (err) => resolve(failed(spec.variant, `cannot start the child: ${err.message}`)));
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(result ?? failed(spec.variant, `the child exited (${signal ?? `code ${code}`}) without a result`));
    });
  });
}

// Child-process entry: `node informer-child.js` with the spec in INFORMER_BENCH_INFORMER_CHILD.
if (process.env[CHILD_ENV] !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = JSON.parse(process.env[CHILD_ENV]) as InformerChildSpec;
  let result: InformerChildResult;
  try {
    result = await childMain(spec);
  } catch (err) {
    result = failed(spec.variant, err instanceof Error ? err.message : String(err));
  }
  process.send?.(result, () => process.exit(0));
}
