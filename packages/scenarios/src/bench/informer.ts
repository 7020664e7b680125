import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@informer-ts/apimachinery";
import {
  metaNamespaceKeyFunc,
  newSharedIndexInformer,
  newStore,
  reflect,
  type SharedIndexInformer,
  silentLogger,
  watcher,
} from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import type { Subscription } from "rxjs";
import { type BenchResult, type BenchRow, forceGc, heapUsed } from "./report.js";
import { configMapJson, envInt, MiB } from "./util.js";

/** Which delivery path a child measures. */
type Variant =
  /** (a) The shared informer with one callback handler (`addEventHandler`). */
  | "callback"
  /** (b) The shared informer with k `notifications$()` subscribers. */
  | "notifications-1"
  | "notifications-4"
  | "notifications-16"
  /** (c) `watcher(lw).pipe(reflect(store))`. */
  | "watcher-reflect"
  /** (d) `@kubernetes/client-node` 1.4 `makeInformer` with one handler. */
  | "client-node";

const VARIANTS: readonly Variant[] = [
  "client-node",
  "callback",
  "notifications-1",
  "notifications-4",
  "notifications-16",
  "watcher-reflect",
];

const LABELS: Record<Variant, string> = {
  "client-node": "(d) client-node makeInformer, 1 handler",
  callback: "(a) informer, 1 callback handler",
  "notifications-1": "(b) informer, 1 notifications$ subscriber",
  "notifications-4": "(b) informer, 4 notifications$ subscribers",
  "notifications-16": "(b) informer, 16 notifications$ subscribers",
  "watcher-reflect": "(c) watcher().pipe(reflect(store))",
};

interface ChildSpec {
  readonly variant: Variant;
  readonly url: string;
  readonly n: number;
}

/** Child → parent messages: `synced` (the parent then writes N updates), then the result. */
type ChildMessage = { readonly type: "synced" } | ({ readonly type: "result" } & ChildResult);

interface ChildResult {
  readonly variant: Variant;
  readonly ok: boolean;
  readonly error?: string;
  /** Initial sync (start → synced), ms. */
  readonly syncMs: number;
  /** From synced to the N-th update delivered (to every subscriber), ms. */
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
  readonly cached: number;
}

const CHILD_ENV = "INFORMER_BENCH_INFORMER_CHILD";

/** How long a child may take to receive the last update after the parent wrote it, ms. */
const DELIVERY_LIMIT_MS = 120_000;

/** A path under test: `start()` resolves once synced; `delivered` resolves once N updates reached every consumer. */
interface Client {
  start(): Promise<void>;
  readonly delivered: Promise<void>;
  cached(): number;
  stop(): Promise<void>;
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

function ourInformer(spec: ChildSpec): { informer: SharedIndexInformer<KubeObject>; client: KubeClient } {
  const client = new KubeClient({ server: spec.url });
  const informer = newSharedIndexInformer<KubeObject>(
    listWatchFor<KubeObject>(client, builtinResources.configmaps),
    { apiVersion: "v1", kind: "ConfigMap" },
    { name: "bench", reflector: { logger: silentLogger } },
  );
  return { informer, client };
}

function informerClient(spec: ChildSpec, subscribers: number | "callback"): Client {
  const { informer, client } = ourInformer(spec);
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
      run = informer.run(stop.signal);
      while (!informer.hasSynced()) await new Promise<void>((r) => setTimeout(r, 2));
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

function watcherClient(spec: ChildSpec): Client {
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
      sub = watcher(listWatchFor<KubeObject>(client, builtinResources.configmaps), { logger: silentLogger })
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

async function clientNodeClient(spec: ChildSpec): Promise<Client> {
  const k8s = await import("@kubernetes/client-node");
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "sim", server: spec.url, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "sim", cluster: "sim", user: "bench" }],
    currentContext: "sim",
  });
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kc, "/api/v1/configmaps", () =>
    api.listConfigMapForAllNamespaces({ resourceVersion: "0" }),
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

async function settledHeapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    forceGc();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return heapUsed();
}

async function childMain(spec: ChildSpec): Promise<ChildResult> {
  const client =
    spec.variant === "client-node"
      ? await clientNodeClient(spec)
      : spec.variant === "watcher-reflect"
        ? watcherClient(spec)
        : informerClient(spec, spec.variant === "callback" ? "callback" : Number(spec.variant.split("-")[1]));
  const heapBefore = await settledHeapUsed();
  const startRss = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await client.start();
  const t1 = process.hrtime.bigint();
  const cpu1 = process.cpuUsage();
  process.send?.({ type: "synced" } satisfies ChildMessage);
  await client.delivered;
  const t2 = process.hrtime.bigint();
  const cpuEvents = process.cpuUsage(cpu1);
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

function failed(variant: Variant, error: string): ChildResult {
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

/** Runs one variant in its own child; `onSynced` (the parent's N writes) runs when the child reports its sync. */
function runChild(spec: ChildSpec, onSynced: () => Promise<void>): Promise<ChildResult> {
  const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [CHILD_ENV]: JSON.stringify(spec) },
  });
  return new Promise<ChildResult>((resolve) => {
    let result: ChildResult | undefined;
    let writing: Promise<void> | undefined;
    child.on("message", (m: ChildMessage) => {
      if (m.type === "synced") {
        writing = onSynced().then(
          () => {
            // Every event is written: a child that has not reported within the limit lost some; do not hang.
            const timer = setTimeout(() => {
              result ??= failed(
                spec.variant,
                `not all ${spec.n} updates delivered ${DELIVERY_LIMIT_MS} ms after the writes`,
              );
              child.kill();
            }, DELIVERY_LIMIT_MS);
            child.once("exit", () => clearTimeout(timer));
          },
          (err: unknown) => {
            result = failed(spec.variant, `writes failed: ${err instanceof Error ? err.message : String(err)}`);
            child.kill();
          },
        );
      } else {
        const { type: _, ...r } = m;
        result ??= r;
      }
    });
    child.on("error", (err) => resolve(failed(spec.variant, `cannot start the child: ${err.message}`)));
    child.on("exit", (code, signal) => {
      void (writing ?? Promise.resolve()).then(() =>
        resolve(result ?? failed(spec.variant, `the child exited (${signal ?? `code ${code}`}) without a result`)),
      );
    });
  });
}

/**
 * Informer delivery benchmark (issue 9). One simulated apiserver (engine + HTTP face) in this process holds N
 * ConfigMaps (~1 KiB; BENCH_INFORMER_N, default 100k). Each path runs in its own child process: initial sync (LIST,
 * RV "0"), then this process updates every ConfigMap once (N watch events) and the child waits until all N updates
 * reached every consumer: (a) one callback handler, (b) 1, 4 and 16 `notifications$()` subscribers, (c)
 * `watcher().pipe(reflect(store))`, (d) client-node 1.4 `makeInformer` with one handler. Reported: events/s end to
 * end (the server's writes included: it shares the 2 cores), client CPU of the events phase (events per CPU-second),
 * peak RSS, retained heap per cached object; each beside (d). Prints numbers; asserts nothing.
 */
export async function runInformer(): Promise<BenchResult> {
  const n = envInt("BENCH_INFORMER_N", 100_000, 1);
  const engine = new SimApiServer({
    historyLowerBound: 2 * n + 1024,
    historyUpperBound: 2 * n + 1024,
    compactionIntervalMs: 0,
    namespaceLifecycle: false,
  });
  const stored: KubeObject[] = [];
  for (let i = 0; i < n; i++) {
    const obj = JSON.parse(configMapJson(i, 0)) as KubeObject;
    delete obj.metadata?.resourceVersion;
    delete obj.metadata?.uid;
    stored.push(await engine.create("configmaps", obj.metadata?.namespace ?? "default", obj));
  }
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  let round = 0;
  const writeAll = async (): Promise<void> => {
    round++;
    for (let i = 0; i < n; i++) {
      const o = stored[i]!;
      const data = { ...(o.data as Record<string, string>), round: String(round) };
      stored[i] = await engine.update("configmaps", o.metadata?.namespace ?? "", o.metadata?.name ?? "", {
        ...o,
        data,
      });
      // Yield now and then so that the HTTP face can stream the events while writing.
      if (i % 256 === 255) await new Promise<void>((r) => setImmediate(r));
    }
  };
  const results = new Map<Variant, ChildResult>();
  const started = process.hrtime.bigint();
  try {
    for (const variant of VARIANTS) {
      forceGc();
      const r = await runChild({ variant, url, n }, writeAll);
      results.set(
        variant,
        r.ok && r.cached !== n ? { ...r, ok: false, error: `cached ${r.cached}, expected ${n}` } : r,
      );
    }
  } finally {
    await server.close();
    engine.stop();
  }
  const totalS = Number(process.hrtime.bigint() - started) / 1e9;
  const d = results.get("client-node")!;
  const cb = results.get("callback")!;
  const rate = (r: ChildResult) => n / (r.eventsMs / 1000);
  const perCpu = (r: ChildResult) => n / (r.eventsCpuMs / 1000);
  const peak = (r: ChildResult) => (r.peakRss - r.startRss) / MiB;
  const perObject = (r: ChildResult) => r.retainedHeap / n;
  const rows: BenchRow[] = [];
  const fail = (r: ChildResult) => (r.ok ? {} : { note: `FAILED: ${r.error}` });
  for (const v of VARIANTS) {
    const r = results.get(v)!;
    rows.push({
      case: `events/s end to end, ${LABELS[v]} — ${n} updates`,
      value: rate(r),
      unit: "events/s",
      baseline: rate(d),
      ratioLabel: "variant/client-node",
      ratio: rate(r) / rate(d),
      ...fail(r),
    });
  }
  for (const v of VARIANTS) {
    const r = results.get(v)!;
    const rx = v.startsWith("notifications") || v === "watcher-reflect";
    const cpuVsCallback = r.eventsCpuMs / cb.eventsCpuMs;
    rows.push({
      case: `events per client CPU-second, ${LABELS[v]}`,
      value: perCpu(r),
      unit: "events/CPU-s",
      baseline: perCpu(d),
      ratioLabel: "variant/client-node",
      ratio: perCpu(r) / perCpu(d),
      ...(v !== "client-node" && { goal: "≥ 1.3× client-node", met: perCpu(r) >= 1.3 * perCpu(d) }),
      note: `events CPU ${Math.round(r.eventsCpuMs)} ms, sync ${Math.round(r.syncMs)} ms, total CPU ${Math.round(r.totalCpuMs)} ms${
        rx
          ? `; CPU ${cpuVsCallback.toFixed(2)}× the callback path (goal ≤ 1.10×: ${cpuVsCallback <= 1.1 ? "met" : "not met"})`
          : ""
      }`,
    });
  }
  for (const v of VARIANTS) {
    const r = results.get(v)!;
    rows.push({
      case: `peak RSS above start, ${LABELS[v]}`,
      value: peak(r),
      unit: "MiB",
      baseline: peak(d),
      ratioLabel: "variant/client-node",
      ratio: peak(r) / peak(d),
      note: `peak ${Math.round(r.peakRss / MiB)} MiB from ${Math.round(r.startRss / MiB)} MiB`,
    });
  }
  for (const v of VARIANTS) {
    const r = results.get(v)!;
    rows.push({
      case: `retained heap per cached object, ${LABELS[v]}`,
      value: perObject(r),
      unit: "B/object",
      baseline: perObject(d),
      ratioLabel: "variant/client-node",
      ratio: perObject(r) / perObject(d),
    });
  }
  return {
    name: "informer",
    rows,
    meta: {
      node: process.version,
      objects: n,
      runSeconds: Math.round(totalS),
      transport:
        "loopback HTTP/1.1, JSON; sim-apiserver engine + HTTP face in the parent, each client in its own child",
      events: "the parent updates every ConfigMap once after the child synced; the writes share the machine",
      order: VARIANTS.join(", "),
      timing: "one run per variant; shared 2-core machine, noisy",
      initialSync:
        "ours by watch-list (the default; the server ends it on its ~1 s bookmark tick), client-node by LIST RV=0: " +
        "sync times in the notes are not comparable at small N",
      rawNdjsonFloor: "see reflector-initial-sync-http (pnpm bench reflector)",
    },
  };
}

// Child-process entry: `node informer.js` with the spec in INFORMER_BENCH_INFORMER_CHILD.
if (process.env[CHILD_ENV] !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = JSON.parse(process.env[CHILD_ENV]) as ChildSpec;
  let result: ChildResult;
  try {
    result = await childMain(spec);
  } catch (err) {
    result = failed(spec.variant, err instanceof Error ? err.message : String(err));
  }
  process.send?.({ type: "result", ...result } satisfies ChildMessage, () => process.exit(0));
}
