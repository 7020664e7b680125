// The measuring side of `list-memory`, run as its own process (`node --expose-gc`): one initial sync of an informer
// over HTTP from the parent's simulated apiserver, with heap sampling, forced GCs, WeakRefs on what the server sent
// and a heap snapshot searched for sliced strings. Prints nothing; sends one result over IPC.
import { getHeapSnapshot } from "node:v8";
import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import { type ListerWatcher, newSharedIndexInformer, type Watch } from "@informer-ts/cache";
import { builtinResources, KubeClient, listWatchFor } from "@informer-ts/client";
import { realClock } from "@informer-ts/clock";

/** The initial syncs compared (see `LIST_MEMORY_VARIANTS`). */
export type ListMemoryVariant = "list-rv0" | "list-rv0-copy" | "list-paginated" | "watch-list";

/** What the parent asks the child to measure (passed in the environment as JSON). */
export interface ListMemoryChildSpec {
  readonly url: string;
  readonly variant: ListMemoryVariant;
  readonly objects: number;
  readonly pageSize: number;
  /** Search a heap snapshot for sliced strings (seconds of work; -1 in the result when skipped). */
  readonly snapshot: boolean;
}

/** What the child measured. Bytes; `ok: false` carries the error instead. */
export interface ListMemoryChildResult {
  readonly variant: ListMemoryVariant;
  readonly ok: boolean;
  readonly error?: string;
  /** Objects in the informer's store after the sync. */
  readonly stored: number;
  /** Highest `heapUsed` above the pre-sync baseline, sampled every 2 ms during the sync (garbage included). */
  readonly peakHeap: number;
  /**
   * Live heap above the baseline just after a LIST response (or page) was decoded, measured after a forced GC: the
   * decoded list while the store does not hold it yet (0 for watch-list). Unlike `peakHeap`, free of GC timing.
   */
  readonly liveAtList: number;
  /**
   * Size of the largest LIST body (its JSON re-encoded; a one-byte string in V8): while `JSON.parse` runs, the body
   * and the objects decoded so far are both alive, so the true peak is about `liveAtList + bodyBytes` — a moment
   * the 2 ms sampler cannot see, since parsing is one synchronous call.
   */
  readonly bodyBytes: number;
  /** `heapUsed` above the baseline after the sync and full GCs (the store, plus whatever else stayed). */
  readonly retainedHeap: number;
  /** `arrayBuffers` (Buffers' backing stores) above the baseline after the GCs. */
  readonly retainedArrayBuffers: number;
  /** List responses (and page `items` arrays) still reachable after the GCs, of those handed to the reflector. */
  readonly listsAlive: number;
  readonly listsSeen: number;
  /**
   * Sliced strings in the heap after the sync and the GCs, and the bytes of the distinct parents of 64 KiB or more
   * they keep alive (a sliced string pins its whole parent: a response body would be one such parent).
   */
  readonly slicedStrings: number;
  readonly slicedParentBytes: number;
  /** Wall-clock ms of the sync (not deterministic). */
  readonly syncMs: number;
}

/** The env variable carrying the spec. */
export const LIST_MEMORY_CHILD_ENV = "INFORMER_LIST_MEMORY_CHILD";

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function settledHeap(): Promise<{ heap: number; arrayBuffers: number }> {
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, arrayBuffers: m.arrayBuffers };
}

/**
 * Counts sliced strings in a heap snapshot and sums the self sizes of the distinct parents of 64 KiB or more they
 * reference (the module sources and such hold a few small ones in any process).
 */
async function slicedStrings(): Promise<{ count: number; parentBytes: number }> {
  const chunks: string[] = [];
  for await (const c of getHeapSnapshot()) chunks.push(typeof c === "string" ? c : String(c));
  const snap = JSON.parse(chunks.join("")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[] } };
    nodes: number[];
    edges: number[];
  };
  chunks.length = 0;
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const typeIx = meta.node_fields.indexOf("type");
  const sizeIx = meta.node_fields.indexOf("self_size");
  const edgeCountIx = meta.node_fields.indexOf("edge_count");
  const toIx = meta.edge_fields.indexOf("to_node");
  const sliced = meta.node_types[0].indexOf("sliced string");
  const parents = new Set<number>();
  let count = 0;
  let edge = 0;
  for (let n = 0; n < snap.nodes.length; n += nf) {
    const edges = snap.nodes[n + edgeCountIx] ?? 0;
    if (snap.nodes[n + typeIx] === sliced) {
      count++;
      for (let e = 0; e < edges; e++) parents.add(snap.edges[(edge + e) * ef + toIx] ?? 0);
    }
    edge += edges;
  }
  let parentBytes = 0;
  for (const p of parents) {
    const size = snap.nodes[p + sizeIx] ?? 0;
    if (size >= 64 * 1024) parentBytes += size;
  }
  return { count, parentBytes };
}

/** Runs one measurement (in the child process). */
export async function measureListMemory(spec: ListMemoryChildSpec): Promise<ListMemoryChildResult> {
  const client = new KubeClient({ server: spec.url }, { clock: realClock, quiet: true });
  const refs: WeakRef<object>[] = [];
  const inner = listWatchFor(client, builtinResources.configmaps) as ListerWatcher<KubeObject>;
  // Watches the list responses the reflector receives, without keeping them.
  let base = { heap: 0, arrayBuffers: 0 };
  const lw: ListerWatcher<KubeObject> = {
    async list(o: ListOptions, signal?: AbortSignal): Promise<KubeList<KubeObject>> {
      // The watch cache answers RV "0" whole whatever the limit: pages come from a consistent read (RV ""), as
      // after a 410 or with the watch cache off.
      const paged = spec.variant === "list-paginated" && o.resourceVersion === "0" ? { ...o, resourceVersion: "" } : o;
      const l = await inner.list(paged, signal);
      refs.push(new WeakRef(l), new WeakRef(l.items));
      // The body this response was decoded from (re-encoded: the same JSON, ASCII, one byte per character).
      const body = JSON.stringify(l).length;
      if (body > bodyBytes) bodyBytes = body;
      // Live heap with this response decoded (its body is garbage by now); pages count once each.
      gc();
      const live = process.memoryUsage().heapUsed - base.heap;
      if (live > liveAtList) liveAtList = live;
      return l;
    },
    watch: (o: ListOptions, signal?: AbortSignal): Promise<Watch<KubeObject>> => inner.watch(o, signal),
  };
  let liveAtList = 0;
  let bodyBytes = 0;
  base = await settledHeap();
  let peak = 0;
  const sampler = setInterval(() => {
    const h = process.memoryUsage().heapUsed - base.heap;
    if (h > peak) peak = h;
  }, 2);
  const informer = newSharedIndexInformer<KubeObject>(lw, undefined, {
    clock: realClock,
    name: `list-memory/${spec.variant}`,
    logger: { log: () => {} },
    reflector: {
      logger: { log: () => {} },
      useWatchList: spec.variant === "watch-list",
      copyListItems: spec.variant === "list-rv0-copy",
      ...(spec.variant === "list-paginated" && { watchListPageSize: spec.pageSize }),
    },
  });
  const ac = new AbortController();
  const started = performance.now();
  const running = informer.run(ac.signal);
  while (!informer.hasSynced()) await new Promise((r) => setTimeout(r, 1));
  const syncMs = performance.now() - started;
  clearInterval(sampler);
  const after = await settledHeap();
  const stored = informer.getStore().listKeys().length;
  const sliced = spec.snapshot ? await slicedStrings() : { count: -1, parentBytes: 0 };
  const result: ListMemoryChildResult = {
    variant: spec.variant,
    ok: true,
    stored,
    peakHeap: Math.max(peak, after.heap - base.heap),
    liveAtList,
    bodyBytes,
    retainedHeap: after.heap - base.heap,
    retainedArrayBuffers: after.arrayBuffers - base.arrayBuffers,
    listsAlive: refs.filter((r) => r.deref() !== undefined).length,
    listsSeen: refs.length,
    slicedStrings: sliced.count,
    slicedParentBytes: sliced.parentBytes,
    syncMs,
  };
  ac.abort();
  await running;
  await client.close();
  return result;
}

const raw = process.env[LIST_MEMORY_CHILD_ENV];
if (raw !== undefined && process.send !== undefined) {
  const spec = JSON.parse(raw) as ListMemoryChildSpec;
  measureListMemory(spec).then(
    (r) => process.send?.(r, () => process.exit(0)),
    (err: unknown) =>
      process.send?.(
        {
          variant: spec.variant,
          ok: false,
          error: err instanceof Error ? err.message : String(err),
        } satisfies Partial<ListMemoryChildResult>,
        () => process.exit(0),
      ),
  );
}
