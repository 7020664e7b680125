// The body of memoryStaysBounded, run inside a child process started with --expose-gc (see memory-child.ts).
import { getEventListeners } from "node:events";
import type { KubeList, KubeObject, ListOptions, WatchEvent } from "@informer-ts/apimachinery";
import {
  type ListerWatcher,
  newSharedIndexInformer,
  newSharedInformerFactoryWithOptions,
  type SharedIndexInformer,
  silentLogger,
  type Watch,
  withInformerOptions,
} from "@informer-ts/cache";
import { builtinResources, listWatchFor, type ResourceDescriptor } from "@informer-ts/client";
import { seededRand } from "@informer-ts/clock";
import { Manager, newControllerManagedBy } from "@informer-ts/controller";
import { noopMetrics } from "@informer-ts/instrumentation";
import fc from "fast-check";
import { createSimCluster, type SimCluster } from "../sim-cluster.js";

const { configmaps, secrets } = builtinResources;

/** Prefixes the child's result line on stdout. */
export const RESULT_MARKER = "@@memoryStaysBounded@@";

/** What the parent passes to the child (JSON). */
export interface MemoryCheckInput {
  readonly objects: number;
  readonly numRuns: number;
  readonly seed: number;
  /** A module (file URL or path) whose `informerExport` builds the informer under test; default the library's. */
  readonly informerModule?: string;
  readonly informerExport?: string;
  /** Also check that a stopped informer, factory and controller leave nothing behind (default true). */
  readonly lifecycle: boolean;
}

/** One generated step of a relist/churn sequence. */
export type MemoryStep =
  | { readonly kind: "churn"; readonly updates: number }
  | { readonly kind: "recreate"; readonly count: number }
  | { readonly kind: "relist" }
  | { readonly kind: "reinitialize-cache" }
  | { readonly kind: "wait"; readonly ms: number };

/** What the child reports back (JSON). */
export interface MemoryCheckOutput {
  readonly baselineBytes: number;
  readonly samples: readonly { readonly sequence: readonly string[]; readonly heapBytes: number }[];
  readonly listResponses: { readonly tracked: number; readonly alive: number };
  readonly watchEvents: { readonly tracked: number; readonly alive: number };
  readonly stopped: readonly { readonly component: string; readonly violations: readonly string[] }[];
  readonly errors: readonly string[];
}

/** What a user's informer module export gets. */
export interface MemoryInformerContext {
  readonly cluster: SimCluster;
  /** ConfigMaps in every namespace through the cluster's client, with its list responses and watch events tracked. */
  readonly listerWatcher: ListerWatcher<KubeObject>;
  /** The library's shared informer on a lister-watcher (the cluster's clock, seeded randomness, silent logs). */
  newInformer(listerWatcher: ListerWatcher<KubeObject>): SharedIndexInformer<KubeObject>;
}

export function describeMemoryStep(s: MemoryStep): string {
  switch (s.kind) {
    case "churn":
      return `update ${s.updates} objects`;
    case "recreate":
      return `delete and re-create ${s.count} objects (new uids)`;
    case "relist":
      return "compact and drop every watch (410 → relist)";
    case "reinitialize-cache":
      return "re-initialize the watch cache";
    case "wait":
      return `wait ${s.ms} ms`;
  }
}

export function memoryStepArb(objects: number): fc.Arbitrary<MemoryStep> {
  return fc.oneof(
    fc.record({ kind: fc.constant("churn" as const), updates: fc.integer({ min: 1, max: Math.max(1, objects) }) }),
    fc.record({
      kind: fc.constant("recreate" as const),
      count: fc.integer({ min: 1, max: Math.max(1, Math.ceil(objects / 4)) }),
    }),
    fc.constant({ kind: "relist" as const }),
    fc.constant({ kind: "reinitialize-cache" as const }),
    fc.record({ kind: fc.constant("wait" as const), ms: fc.constantFrom(1000, 60_000, 600_000) }),
  );
}

const NAMESPACE = "default";
const nameOf = (i: number) => `mem-${String(i).padStart(5, "0")}`;
/** ~1 KiB of data whose content changes with `gen` (the size does not). */
const payload = (i: number, gen: number) => ({ v: `${i}:${gen}:`.padEnd(1024, "x") });

/** A ListerWatcher that keeps (bounded) WeakRefs to the list responses and watch events it hands out. */
function tracked(inner: ListerWatcher<KubeObject>, lists: WeakRef<object>[], events: WeakRef<object>[]) {
  const keep = (arr: WeakRef<object>[], o: object, max: number) => {
    if (arr.length >= max) arr.shift();
    arr.push(new WeakRef(o));
  };
  let n = 0;
  const lw: ListerWatcher<KubeObject> = {
    ...(inner.target !== undefined && { target: inner.target }),
    async list(o: ListOptions, signal?: AbortSignal): Promise<KubeList<KubeObject>> {
      const list = await inner.list(o, signal);
      keep(lists, list, 64);
      keep(lists, list.items, 64);
      return list;
    },
    async watch(o: ListOptions, signal?: AbortSignal): Promise<Watch<KubeObject>> {
      const w = await inner.watch(o, signal);
      return {
        stop: () => w.stop(),
        [Symbol.asyncIterator]() {
          const it = w[Symbol.asyncIterator]();
          return {
            async next(): Promise<IteratorResult<WatchEvent<KubeObject>>> {
              const r = await it.next();
              if (r.done !== true && n++ % 7 === 0) keep(events, r.value, 256);
              return r;
            },
            async return(v?: unknown): Promise<IteratorResult<WatchEvent<KubeObject>>> {
              return (await it.return?.(v)) ?? { done: true, value: undefined };
            },
          };
        },
      };
    },
  };
  return lw;
}

async function collect(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("memoryStaysBounded: the child runs without --expose-gc");
  for (let i = 0; i < 4; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

async function seed(cluster: SimCluster, objects: number): Promise<void> {
  for (let i = 0; i < objects; i++) {
    await cluster.engine.create("configmaps", NAMESPACE, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: nameOf(i), namespace: NAMESPACE },
      data: payload(i, 0),
    });
  }
}

async function applyMemoryStep(cluster: SimCluster, s: MemoryStep, objects: number, gen: number, rand: () => number) {
  const e = cluster.engine;
  switch (s.kind) {
    case "churn":
      for (let k = 0; k < s.updates; k++) {
        const i = Math.floor(rand() * objects);
        // An unconditional update (no resourceVersion): the object's size stays, its content changes.
        await e.update("configmaps", NAMESPACE, nameOf(i), {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: nameOf(i), namespace: NAMESPACE },
          data: payload(i, gen * 100_000 + k),
        });
      }
      return;
    case "recreate":
      for (let k = 0; k < s.count; k++) {
        const i = Math.floor(rand() * objects);
        await e.delete("configmaps", NAMESPACE, nameOf(i)).catch(() => undefined);
        await e.create("configmaps", NAMESPACE, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: nameOf(i), namespace: NAMESPACE },
          data: payload(i, gen),
        });
      }
      return;
    case "relist": {
      // A change the informer's stalled watch never delivers, then compaction past it: the watch that replaces the
      // dropped one asks for a compacted resourceVersion, gets 410 Gone, and the reflector relists.
      e.faults.stallWatchers({ resource: "configmaps" });
      const i = Math.floor(rand() * objects);
      await e.update("configmaps", NAMESPACE, nameOf(i), {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: nameOf(i), namespace: NAMESPACE },
        data: payload(i, gen),
      });
      e.faults.compact();
      e.faults.dropWatches("configmaps");
      e.faults.resumeWatchers();
      return;
    }
    case "reinitialize-cache":
      e.faults.reinitializeCache("configmaps", 0);
      return;
    case "wait":
      await cluster.clock.step(s.ms);
      return;
  }
}

function versions(objs: readonly KubeObject[]): Map<string, string> {
  return new Map(objs.map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? ""]));
}

async function converge(cluster: SimCluster, informer: SharedIndexInformer<KubeObject>): Promise<void> {
  const r = cluster.engine.resource("configmaps");
  await cluster.settle({
    maxMs: 30 * 60_000,
    until: () => {
      if (!informer.hasSynced()) return false;
      const want = versions(cluster.engine.storage.snapshot(r).map(([, o]) => o));
      const got = versions(informer.getStore().list());
      return want.size === got.size && [...want].every(([k, v]) => got.get(k) === v);
    },
  });
}

/** Stops `run` by aborting its signal and reports what it left behind on a fresh HTTP cluster. */
async function lifecycle(
  component: string,
  start: (cluster: SimCluster, signal: AbortSignal) => { run: Promise<void>; ready: () => boolean },
): Promise<{ component: string; violations: string[] }> {
  const violations: string[] = [];
  const cluster = await createSimCluster({ seed: 3, transport: "http" });
  try {
    await cluster.client.create(secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s", namespace: NAMESPACE },
      stringData: { a: "1" },
    });
    await cluster.client.create(configmaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: NAMESPACE },
      data: { a: "1" },
    });
    const before = new Set(process.getActiveResourcesInfo());
    const ac = new AbortController();
    const { run, ready } = start(cluster, ac.signal);
    let stopped = false;
    let failure: unknown;
    void run.then(
      () => {
        stopped = true;
      },
      (err: unknown) => {
        stopped = true;
        failure = err;
      },
    );
    await cluster.settle({ maxMs: 120_000, until: () => ready() || stopped }).catch((err: unknown) => {
      violations.push(`never ready: ${err instanceof Error ? err.message : String(err)}`);
    });
    ac.abort();
    await cluster.settle({ maxMs: 120_000, until: () => stopped }).catch(() => undefined);
    if (!stopped) violations.push("run did not return within 120 s of virtual time after its signal aborted");
    if (failure !== undefined) {
      violations.push(`run rejected: ${failure instanceof Error ? failure.message : String(failure)}`);
    }
    const listeners = getEventListeners(ac.signal, "abort").length;
    if (listeners > 0) violations.push(`${listeners} abort listeners left on the signal run was given`);
    if (cluster.server.stats.openWatches > 0) violations.push(`${cluster.server.stats.openWatches} watches still open`);
    // What is left on the clock belongs to the server (its bookmark ticker, watch-cache timers) or leaked: stop the
    // server's engine and count what remains.
    cluster.engine.stop();
    await cluster.settle({ maxMs: 60_000, noTimers: true }).catch(() => undefined);
    const timers = cluster.clock.pendingTimers();
    if (timers > 0) violations.push(`${timers} timers still pending on the clock`);
    // Idle keep-alive sockets belong to the client's pool: close it; then none may remain on either side.
    await cluster.client.close();
    for (let i = 0; i < 1000 && cluster.server.connections > 0; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (cluster.server.connections > 0) violations.push(`${cluster.server.connections} sockets still open`);
    const after = process.getActiveResourcesInfo().filter((t) => !before.has(t) && t !== "Immediate");
    if (after.length > 0) violations.push(`new active handles in the process: ${[...new Set(after)].join(", ")}`);
  } finally {
    await cluster.close();
  }
  return { component, violations };
}

const informerOpts = (cluster: SimCluster) => ({
  clock: cluster.clock,
  rand: seededRand(5),
  logger: silentLogger,
  reflector: { logger: silentLogger },
});

/** Runs the whole check (in the child). Errors are reported in `errors`, never thrown. */
export async function runMemoryCheck(input: MemoryCheckInput): Promise<MemoryCheckOutput> {
  const errors: string[] = [];
  const samples: { sequence: string[]; heapBytes: number }[] = [];
  const listRefs: WeakRef<object>[] = [];
  const eventRefs: WeakRef<object>[] = [];
  let baselineBytes = 0;
  const stopped: { component: string; violations: string[] }[] = [];
  const cluster = await createSimCluster({ seed: input.seed });
  const ac = new AbortController();
  let run: Promise<void> | undefined;
  try {
    await seed(cluster, input.objects);
    const lw = tracked(listWatchFor(cluster.client, configmaps), listRefs, eventRefs);
    const newInformer = (l: ListerWatcher<KubeObject>) =>
      newSharedIndexInformer<KubeObject>(l, undefined, {
        ...informerOpts(cluster),
        name: "memory",
        // LIST + WATCH, so that relists go through list responses (watch-list relists are watch events).
        reflector: { logger: silentLogger, useWatchList: false },
      });
    let informer: SharedIndexInformer<KubeObject>;
    if (input.informerModule !== undefined) {
      const mod = (await import(input.informerModule)) as Record<string, unknown>;
      const make = mod[input.informerExport ?? "default"];
      if (typeof make !== "function") {
        throw new Error(
          `${input.informerModule} does not export a function ${input.informerExport ?? "default"} (ctx) => informer`,
        );
      }
      informer = (await (make as (c: MemoryInformerContext) => unknown)({
        cluster,
        listerWatcher: lw,
        newInformer,
      })) as typeof informer;
    } else {
      informer = newInformer(lw);
    }
    run = informer.run(ac.signal);
    await converge(cluster, informer);
    const rand = seededRand(input.seed);
    const next = () => rand.float();
    // Warm-up: one relist and some churn, so that pools, caches and compiled code reach their steady state.
    let gen = 1;
    const warmUp: MemoryStep[] = [
      { kind: "relist" },
      { kind: "churn", updates: input.objects },
      { kind: "recreate", count: Math.ceil(input.objects / 4) },
      { kind: "churn", updates: input.objects },
      { kind: "relist" },
    ];
    for (const s of warmUp) {
      await applyMemoryStep(cluster, s, input.objects, gen++, next);
      await converge(cluster, informer);
    }
    listRefs.length = 0;
    eventRefs.length = 0;
    // The simulator shares the heap: storage keeps old revisions until compaction and the watch cache an event
    // history sized by the recent write rate. Before each sample both are reset (the informer re-watches, or relists,
    // and converges again), so that the samples compare the informer's memory, not the simulated server's.
    const sample = async () => {
      cluster.engine.faults.reinitializeCache("configmaps", 0);
      await converge(cluster, informer);
      cluster.engine.faults.compact();
      return collect();
    };
    baselineBytes = await sample();
    const sequences = fc.sample(fc.array(memoryStepArb(input.objects), { minLength: 1, maxLength: 5 }), {
      numRuns: input.numRuns,
      seed: input.seed,
    });
    for (const seq of sequences) {
      for (const s of seq) {
        await applyMemoryStep(cluster, s, input.objects, gen++, next);
        await converge(cluster, informer);
      }
      samples.push({ sequence: seq.map(describeMemoryStep), heapBytes: await sample() });
    }
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  } finally {
    ac.abort();
    await cluster.settle({ maxMs: 120_000 }).catch(() => undefined);
    await run?.catch(() => undefined);
    await cluster.close();
  }
  await collect();
  const listResponses = { tracked: listRefs.length, alive: listRefs.filter((r) => r.deref() !== undefined).length };
  const watchEvents = { tracked: eventRefs.length, alive: eventRefs.filter((r) => r.deref() !== undefined).length };
  if (input.lifecycle) {
    try {
      stopped.push(
        await lifecycle("informer", (c, signal) => {
          const inf = newSharedIndexInformer<KubeObject>(listWatchFor(c.client, configmaps), undefined, {
            ...informerOpts(c),
            name: "lifecycle",
          });
          return { run: inf.run(signal), ready: () => inf.hasSynced() };
        }),
      );
      stopped.push(
        await lifecycle("factory", (c, signal) => {
          const f = newSharedInformerFactoryWithOptions<ResourceDescriptor, KubeObject>(
            (r, { namespace }) => listWatchFor(c.client, r, namespace === "" ? {} : { namespace }),
            0,
            withInformerOptions<KubeObject>(informerOpts(c)),
          );
          const a = f.informerFor(configmaps);
          const b = f.informerFor(secrets);
          return { run: f.run(signal), ready: () => a.hasSynced() && b.hasSynced() };
        }),
      );
      stopped.push(
        await lifecycle("controller", (c, signal) => {
          const mgr = new Manager({
            listerWatcherFor: (r, { namespace }) =>
              listWatchFor(c.client, r, namespace === undefined ? {} : { namespace }),
            client: c.client,
            clock: c.clock,
            rand: seededRand(6),
            metrics: noopMetrics,
            quiet: true, // the kit reports reconcile errors itself; the runtime's logs would flood a property run
            informerOptions: { logger: silentLogger, reflector: { logger: silentLogger } },
          });
          let reconciled = false;
          newControllerManagedBy(mgr)
            .for(configmaps)
            .owns(secrets)
            .complete(() => {
              reconciled = true;
            });
          return { run: mgr.run(signal), ready: () => reconciled && mgr.notReadyReason() === undefined };
        }),
      );
    } catch (err) {
      errors.push(`lifecycle: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { baselineBytes, samples, listResponses, watchEvents, stopped, errors };
}
