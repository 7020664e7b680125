import {
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceIndexFunc,
  NamespaceIndex,
  newIndexer,
} from "@informer-ts/cache";
import { type BenchResult, type BenchRow, forceGc, heapUsed } from "./report.js";

interface Obj {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  data: Record<string, string>;
}

const N = 100_000;
const NAMESPACES = 100;
const APPS = 50;

/**
 * One ConfigMap-like object of about 1 KiB of JSON, decoded with `JSON.parse` so that every string is its own
 * heap allocation, as with objects decoded from a LIST response.
 */
function makeObject(i: number, rv: number, app = i % APPS): Obj {
  const filler = (i * 2654435761).toString(36).padEnd(8, "q");
  const json = JSON.stringify({
    metadata: {
      name: `config-${i}`,
      namespace: `namespace-${i % NAMESPACES}`,
      uid: `0b1c2d3e-4f50-6172-8394-${String(i).padStart(12, "0")}`,
      resourceVersion: String(rv),
      labels: { app: `app-${app}`, tier: i % 2 === 0 ? "frontend" : "backend" },
      annotations: { "example.com/owner": `team-${i % 17}`, "example.com/revision": String(rv) },
    },
    data: {
      "settings.yaml": `id: ${i}\n` + `${filler}-`.repeat(60),
      "extra.txt": `${i}:` + filler.repeat(20),
    },
  });
  return JSON.parse(json) as Obj;
}

/** A shallow copy with a new RV (what an update from a watch looks like); every 10th update moves its app. */
function updated(o: Obj, rv: number, step: number): Obj {
  const moveApp = step % 10 === 0;
  return {
    ...o,
    metadata: {
      ...o.metadata,
      resourceVersion: String(rv),
      labels: moveApp ? { ...o.metadata.labels, app: `app-${(step >> 4) % APPS}` } : o.metadata.labels,
    },
  };
}

const byApp = (o: Obj) => [o.metadata.labels.app ?? ""];

function newTestIndexer() {
  return newIndexer<Obj>(deletionHandlingMetaNamespaceKeyFunc, {
    [NamespaceIndex]: metaNamespaceIndexFunc,
    app: byApp,
  });
}

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `fn` over `n` items and returns ops/s, best of `reps` runs after one warm-up. */
function bestOpsPerSecond(reps: number, n: number, setup: () => void, fn: (i: number) => void): number {
  let best = 0;
  for (let r = 0; r <= reps; r++) {
    setup();
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(i);
    const ops = n / (elapsedMs(start) / 1000);
    if (r > 0) best = Math.max(best, ops);
  }
  return best;
}

/**
 * Store/indexer benchmark: add, update and delete throughput on a 100k-object indexer with the namespace
 * index plus one custom index, replace of 100k objects, and the store's heap overhead per object beside the
 * heap size of the objects themselves. The baseline is a plain `Map` keyed the same way (no indexes).
 */
export async function runCacheStore(): Promise<BenchResult> {
  const gcAvailable = forceGc();
  const rows: BenchRow[] = [];

  // ---- Memory: objects alone, then the same objects inside the indexer (measured in this run).
  const h0 = heapUsed();
  let objects: Obj[] | undefined = Array.from({ length: N }, (_, i) => makeObject(i, 1000 + i));
  const h1 = heapUsed();
  const memStore = newTestIndexer();
  memStore.replace(objects, "200000");
  const h2 = heapUsed();
  const objectBytes = (h1 - h0) / N;
  const storeBytes = (h2 - h1) / N;
  const jsonBytes = JSON.stringify(objects[0]).length;
  const naiveMap = new Map<string, Obj>();
  for (const o of objects) naiveMap.set(deletionHandlingMetaNamespaceKeyFunc(o), o);
  const h3 = heapUsed();
  const mapBytes = (h3 - h2) / N;
  naiveMap.clear();
  rows.push({
    case: `heap of one object alone (~${jsonBytes} B of JSON)`,
    value: objectBytes,
    unit: "B/object",
  });
  rows.push({
    case: "store overhead per object (map + keys + namespace index + app index)",
    value: storeBytes,
    unit: "B/object",
    baseline: mapBytes,
    ratioLabel: "ours/plain Map with keys",
    ratio: storeBytes / mapBytes,
    goal: "≤ 15% of object size",
    met: storeBytes <= 0.15 * objectBytes,
    note: `${((100 * storeBytes) / objectBytes).toFixed(1)}% of the object`,
  });

  // ---- Replace of 100k objects.
  let replaceMs = Number.POSITIVE_INFINITY;
  let mapReplaceMs = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 4; r++) {
    const s = newTestIndexer();
    let start = process.hrtime.bigint();
    s.replace(objects, "1");
    if (r > 0) replaceMs = Math.min(replaceMs, elapsedMs(start));
    start = process.hrtime.bigint();
    const m = new Map<string, Obj>();
    for (const o of objects) m.set(deletionHandlingMetaNamespaceKeyFunc(o), o);
    if (r > 0) mapReplaceMs = Math.min(mapReplaceMs, elapsedMs(start));
  }
  rows.push({
    case: "replace 100k objects (2 indexes)",
    value: replaceMs,
    unit: "ms",
    baseline: mapReplaceMs,
    ratioLabel: "ours/plain Map",
    ratio: replaceMs / mapReplaceMs,
  });

  // ---- Throughput on a 100k-object store.
  const store = memStore;
  const extra = Array.from({ length: N / 2 }, (_, i) => makeObject(N + i, 500000 + i));
  const updates = Array.from({ length: N }, (_, i) => updated(objects![i]!, 300000 + i, i));
  const plain = new Map<string, Obj>();

  const addOps = bestOpsPerSecond(
    3,
    extra.length,
    () => {
      for (const o of extra) store.delete(o);
    },
    (i) => store.add(extra[i]!),
  );
  const addBase = bestOpsPerSecond(
    3,
    extra.length,
    () => {
      for (const o of objects!) plain.set(deletionHandlingMetaNamespaceKeyFunc(o), o);
      for (const o of extra) plain.delete(deletionHandlingMetaNamespaceKeyFunc(o));
    },
    (i) => {
      const o = extra[i]!;
      plain.set(deletionHandlingMetaNamespaceKeyFunc(o), o);
    },
  );
  rows.push({
    case: "add (new keys into a 100k store, 2 indexes)",
    value: addOps,
    unit: "ops/s",
    baseline: addBase,
    ratioLabel: "plain Map/ours",
    ratio: addBase / addOps,
  });

  // Alternate between the updated and the original versions so that every run moves 10% of the app buckets.
  let round = 0;
  let source: Obj[] = updates;
  const nextRound = () => {
    source = round++ % 2 === 0 ? updates : objects!;
  };
  const updOps = bestOpsPerSecond(3, updates.length, nextRound, (i) => store.update(source[i]!));
  const updBase = bestOpsPerSecond(3, updates.length, nextRound, (i) => {
    const o = source[i]!;
    plain.set(deletionHandlingMetaNamespaceKeyFunc(o), o);
  });
  rows.push({
    case: "update (100k store, 2 indexes, 10% move their app bucket)",
    value: updOps,
    unit: "ops/s",
    baseline: updBase,
    ratioLabel: "plain Map/ours",
    ratio: updBase / updOps,
    goal: "≥ 500k updates/s",
    met: updOps >= 500_000,
  });

  const delOps = bestOpsPerSecond(
    3,
    extra.length,
    () => {
      for (const o of extra) store.add(o);
    },
    (i) => store.delete(extra[i]!),
  );
  const delBase = bestOpsPerSecond(
    3,
    extra.length,
    () => {
      for (const o of extra) plain.set(deletionHandlingMetaNamespaceKeyFunc(o), o);
    },
    (i) => {
      plain.delete(deletionHandlingMetaNamespaceKeyFunc(extra[i]!));
    },
  );
  rows.push({
    case: "delete (from a 150k store, 2 indexes)",
    value: delOps,
    unit: "ops/s",
    baseline: delBase,
    ratioLabel: "plain Map/ours",
    ratio: delBase / delOps,
  });

  objects = undefined;
  return {
    name: "cache-store",
    rows,
    meta: {
      node: process.version,
      objects: N,
      namespaces: NAMESPACES,
      indexes: "namespace, app",
      gcExposed: gcAvailable,
      finalStoreSize: store.size,
    },
  };
}
