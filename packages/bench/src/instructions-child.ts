// The deterministic harnesses of `pnpm bench instructions`, one per child process (run under callgrind by
// instructions.ts). Each does a fixed amount of work in-process, fed in fixed chunks, so its instruction count repeats
// on a loaded machine; a harness's `base` variant stops at the same point without the measured phase, and the
// runner subtracts it.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@informer-ts/apimachinery";
import {
  type ListerWatcher,
  metaNamespaceKeyFunc,
  newSharedIndexInformer,
  newStore,
  reflect,
  silentLogger,
  transformStripManagedFields,
  watcher,
} from "@informer-ts/cache";
import { FakeWatch } from "@informer-ts/cache/testing";
import { builtinResources, KubeClient } from "@informer-ts/client";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { Controller } from "@informer-ts/controller";
import { PromMetrics } from "@informer-ts/instrumentation";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import { ADMISSION_CASES, type AdmissionCase, WIDGET_CRD } from "./apiserver-admission.js";
import { type BurstVariant, burst } from "./instructions-burst.js";
import { type FloorVariant, floor } from "./instructions-floor.js";
import { configMapJson } from "./util.js";

/** What one child runs: a harness, its variant, and its size. */
export type InstructionsSpec =
  | { readonly harness: "fanout"; readonly variant: FanoutVariant; readonly events: number }
  | { readonly harness: "reconcile"; readonly variant: "off" | "prom"; readonly keys: number; readonly workers: number }
  | {
      readonly harness: "burst";
      readonly variant: BurstVariant;
      /** Whose setup a `base` run does (the other variants run their own). */
      readonly setup: "informer-ts" | "client-node";
      readonly keys: number;
    }
  | {
      readonly harness: "floor";
      readonly variant: FloorVariant;
      /** Whose setup a `base` run does (the other variants run their own). */
      readonly setup: "floor" | "reflector";
      readonly events: number;
      /** Backlogs replayed before the measured one, in the base run too (default 0: the count includes compiling). */
      readonly warmup?: number;
    }
  | {
      readonly harness: "list";
      readonly variant: "none" | "full" | "meta";
      readonly objects: number;
      readonly lists: number;
    }
  | {
      readonly harness: "decode";
      readonly variant: DecodeVariant;
      readonly objects: number;
      readonly lists: number;
    }
  | {
      readonly harness: "writes";
      /** `on`: the admission chain runs; `off`: `admission: false`; `none`: no writes (the base run). */
      readonly variant: "none" | "on" | "off";
      readonly kind: AdmissionCase["id"];
      readonly writes: number;
    };

/**
 * The client's side of a LIST alone: `none` serves nothing (base); `full` lists full objects into a store; `meta-whole`
 * lists metadata decoded whole, stripped by the store's transform (before `dropManagedFields`); `meta-drop` the same
 * with `dropManagedFields` (what a metadata informer does).
 */
export type DecodeVariant = "none" | "full" | "meta-whole" | "meta-drop";

/**
 * `base`: the informer syncs, one handler sees the initial adds, and it stops (no events); `callback`: one handler;
 * `n<k>`: k `notifications$` subscribers; `reflect`: no informer, `watcher(lw).pipe(reflect(store))` with one
 * subscriber counting the `apply` events (its setup differs from the base's, which is small beside the events).
 */
export type FanoutVariant = "base" | "callback" | "n1" | "n4" | "n16" | "reflect";

const FANOUT_OBJECTS = 100;
/** Events pushed per macrotask, as an HTTP body's chunk arrives. */
const FANOUT_CHUNK = 64;

function fanoutObject(i: number, rv: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `c${i}`, namespace: "ns", resourceVersion: String(rv) },
    data: { a: "x" },
  };
}

/**
 * One shared informer over an in-memory ListerWatcher of 100 ConfigMaps whose watch yields `events` MODIFIED events,
 * 64 per macrotask; resolves when every handler or subscriber saw all of them.
 */
async function fanout(variant: FanoutVariant, eventsArg: number): Promise<void> {
  const events = variant === "base" ? 0 : eventsArg;
  let rv = FANOUT_OBJECTS;
  let sent = 0;
  let watch: FakeWatch<KubeObject> | undefined;
  const feed = (): void => {
    for (let j = 0; j < FANOUT_CHUNK && sent < events; j++, sent++) {
      watch?.push({ type: "MODIFIED", object: fanoutObject(sent % FANOUT_OBJECTS, ++rv) });
    }
    if (sent < events) setImmediate(feed);
  };
  const lw: ListerWatcher<KubeObject> = {
    list: async () => ({
      metadata: { resourceVersion: String(FANOUT_OBJECTS) },
      items: Array.from({ length: FANOUT_OBJECTS }, (_, i) => fanoutObject(i, i + 1)),
    }),
    watch: async (options) => {
      watch = new FakeWatch<KubeObject>(options);
      setImmediate(feed);
      return watch;
    },
  };
  if (variant === "reflect") {
    const store = newStore<KubeObject>(metaNamespaceKeyFunc);
    let seen = 0;
    let resolveDone = (): void => {};
    const finished = new Promise<void>((r) => (resolveDone = r));
    const sub = watcher(lw, { logger: silentLogger, useWatchList: false })
      .pipe(reflect(store, { logger: silentLogger }))
      .subscribe((ev) => ev.type === "apply" && ++seen === events && resolveDone());
    await finished;
    sub.unsubscribe();
    return;
  }
  const informer = newSharedIndexInformer(
    lw,
    { apiVersion: "v1", kind: "ConfigMap" },
    { name: "instructions-fanout", reflector: { logger: silentLogger, useWatchList: false } },
  );
  const consumers = variant === "base" || variant === "callback" ? 1 : Number(variant.slice(1));
  const seen = new Array<number>(consumers).fill(0);
  let complete = 0;
  let resolve = (): void => {};
  const done = new Promise<void>((r) => (resolve = r));
  const tick = (i: number): void => {
    if (++seen[i]! === events && ++complete === consumers) resolve();
  };
  const subscriptions: { unsubscribe(): void }[] = [];
  let added = 0;
  let resolveSynced = (): void => {};
  const synced = new Promise<void>((r) => (resolveSynced = r));
  if (variant === "base") informer.addEventHandler({ onAdd: () => ++added === FANOUT_OBJECTS && resolveSynced() });
  else if (variant === "callback") informer.addEventHandler({ onUpdate: () => tick(0) });
  else {
    for (let i = 0; i < consumers; i++) {
      subscriptions.push(informer.notifications$().subscribe((n) => n.type === "update" && tick(i)));
    }
  }
  const stop = new AbortController();
  const run = informer.run(stop.signal);
  if (events > 0) await done;
  else await synced;
  for (const s of subscriptions) s.unsubscribe();
  stop.abort();
  await run;
}

/** `keys` no-op reconciles of a Controller with `workers` workers, with PromMetrics or without metrics. */
async function reconcile(variant: "off" | "prom", keys: number, workers: number): Promise<void> {
  let reconciled = 0;
  let resolve = (): void => {};
  const finished = new Promise<void>((r) => (resolve = r));
  const controller = new Controller({
    name: "instructions-reconcile",
    watches: [],
    maxConcurrentReconciles: workers,
    ...(variant === "prom" && { metrics: new PromMetrics() }),
    reconciler: () => {
      if (++reconciled === keys) resolve();
    },
  });
  for (let i = 0; i < keys; i++) controller.enqueue({ namespace: `ns-${i % 100}`, name: `cm-${i}` });
  const stop = new AbortController();
  const run = controller.run(stop.signal);
  if (keys > 0) await finished;
  stop.abort();
  await run;
}

const METADATA_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

/** `lists` LISTs of `objects` 1 KiB ConfigMaps over loopback HTTP, full or metadata-only, server in this process. */
async function list(variant: "none" | "full" | "meta", objects: number, lists: number): Promise<void> {
  const engine = new SimApiServer({ compactionIntervalMs: 0, namespaceLifecycle: false });
  for (let i = 0; i < objects; i++) {
    const o = JSON.parse(configMapJson(i, 0)) as KubeObject & { metadata: { namespace: string } };
    const { resourceVersion: _rv, uid: _uid, ...metadata } = o.metadata;
    await engine.create("configmaps", metadata.namespace, { ...o, metadata });
  }
  const server = new SimHttpServer({ backend: new EngineBackend(engine) });
  const url = await server.start();
  try {
    const headers = variant === "meta" ? { accept: METADATA_ACCEPT } : undefined;
    for (let r = 0; variant !== "none" && r < lists; r++) {
      const res = await fetch(`${url}/api/v1/configmaps?resourceVersion=0`, { headers });
      if (!res.ok) throw new Error(`LIST answered ${res.status}`);
      await res.arrayBuffer();
    }
  } finally {
    await server.close();
    engine.stop();
  }
}

/** The managedFields entry the simulator writes for a created ConfigMap of {@link configMapJson}. */
const CREATED_BY = {
  manager: "informer-ts-inprocess",
  operation: "Update",
  apiVersion: "v1",
  time: "2026-01-01T00:00:00Z",
  fieldsType: "FieldsV1",
  fieldsV1: {
    "f:data": { ".": {}, "f:extra.txt": {}, "f:settings.yaml": {} },
    "f:metadata": {
      "f:annotations": { ".": {}, "f:example.com/owner": {} },
      "f:labels": { ".": {}, "f:app": {}, "f:tier": {} },
    },
  },
};

/** A full ConfigMapList and the PartialObjectMetadataList of the same objects, as the simulator renders them. */
function listBodies(objects: number): { full: Buffer; meta: Buffer } {
  const items = Array.from({ length: objects }, (_, i) => {
    const o = JSON.parse(configMapJson(i, i + 1)) as KubeObject & { metadata: Record<string, unknown> };
    return {
      ...o,
      metadata: { ...o.metadata, creationTimestamp: "2026-01-01T00:00:00Z", managedFields: [CREATED_BY] },
    };
  });
  const listMeta = { resourceVersion: String(objects) };
  const full = { kind: "ConfigMapList", apiVersion: "v1", metadata: listMeta, items };
  const meta = {
    kind: "PartialObjectMetadataList",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    items: items.map((o) => ({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata })),
  };
  return { full: Buffer.from(JSON.stringify(full)), meta: Buffer.from(JSON.stringify(meta)) };
}

/**
 * `lists` LISTs of `objects` 1 KiB ConfigMaps through the client into a store, from a loopback server that writes a
 * prepared body (its cost is small and the same for every LIST of a kind): the client's decode and store, full
 * objects or metadata only.
 */
async function decode(variant: DecodeVariant, objects: number, lists: number): Promise<void> {
  const bodies = listBodies(objects);
  const server = createServer((req, res) => {
    const body = String(req.headers.accept ?? "").includes("as=PartialObjectMetadataList") ? bodies.meta : bodies.full;
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = new KubeClient(
    { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    { rateLimiter: null, quiet: true },
  );
  try {
    const store = newStore<KubeObject>(
      metaNamespaceKeyFunc,
      variant === "full" ? {} : { transformer: transformStripManagedFields },
    );
    for (let r = 0; variant !== "none" && r < lists; r++) {
      const list =
        variant === "full"
          ? await client.list(builtinResources.configmaps)
          : await client.listMetadata(builtinResources.configmaps, {}, undefined, {
              dropManagedFields: variant === "meta-drop",
            });
      store.replace(list.items, list.metadata.resourceVersion ?? "");
    }
  } finally {
    await client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Writes per engine (admission on and off) before the measured phase, so that the count is of JIT-compiled code. */
const WRITES_WARMUP = 300;

/** A fresh engine of the admission rows, with the custom resource's CRD created. */
async function writesEngine(admission: boolean): Promise<SimApiServer> {
  const engine = new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(1),
    admission,
    controllers: false,
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
  });
  await engine.create("customresourcedefinitions.apiextensions.k8s.io", "", WIDGET_CRD);
  return engine;
}

async function createThenUpdate(engine: SimApiServer, c: AdmissionCase, n: number, prefix: string): Promise<void> {
  for (let i = 0; i < n; i++) await engine.create(c.resource, "default", c.make(`${prefix}-${i}`, i));
  for (let i = 0; i < n; i++)
    await engine.update(c.resource, "default", `${prefix}-${i}`, c.make(`${prefix}-${i}`, i + 1));
}

/**
 * The admission rows' writes (apiserver-admission.ts) in-process: after a warm-up of 300 creates and updates of the
 * kind on an engine with admission on and one with it off (every variant, the base too), `writes` creates then
 * `writes` updates of one kind on a fresh engine with the admission chain on or off.
 */
async function writesHarness(variant: "none" | "on" | "off", kind: AdmissionCase["id"], writes: number): Promise<void> {
  const c = ADMISSION_CASES.find((x) => x.id === kind);
  if (c === undefined) throw new Error(`writes: unknown kind ${JSON.stringify(kind)}`);
  for (const admission of [true, false]) {
    const warm = await writesEngine(admission);
    await createThenUpdate(warm, c, WRITES_WARMUP, "warm");
    warm.stop();
  }
  if (variant === "none") return;
  const engine = await writesEngine(variant === "on");
  await createThenUpdate(engine, c, writes, "o");
  engine.stop();
}

/** Runs one harness to the end. */
export async function runInstructionsChild(spec: InstructionsSpec): Promise<void> {
  if (spec.harness === "fanout") await fanout(spec.variant, spec.events);
  else if (spec.harness === "reconcile") await reconcile(spec.variant, spec.keys, spec.workers);
  else if (spec.harness === "decode") await decode(spec.variant, spec.objects, spec.lists);
  else if (spec.harness === "burst") await burst(spec.variant, spec.keys, spec.setup);
  else if (spec.harness === "floor") await floor(spec.variant, spec.events, spec.setup, spec.warmup ?? 0);
  else if (spec.harness === "list") await list(spec.variant, spec.objects, spec.lists);
  else await writesHarness(spec.variant, spec.kind, spec.writes);
}

// Child-process entry: `node instructions-child.js '<spec JSON>'`; a failure exits 1 with the message on stderr.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] !== undefined) {
  try {
    await runInstructionsChild(JSON.parse(process.argv[2]) as InstructionsSpec);
  } catch (err) {
    process.stderr.write(`instructions child: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
