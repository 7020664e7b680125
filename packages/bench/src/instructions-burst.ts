// The `burst` harness of `pnpm bench instructions`: a no-op controller consuming a backlog of MODIFIED events that
// arrive as NDJSON bytes in fixed chunks, one chunk per macrotask (as an HTTP body's chunks arrive), in-process so
// that its instruction count repeats. informer-ts (StreamWatcher → shared informer → Controller) beside a
// client-node-like reference (`JSON.parse` per line, a Map, a hand-written dedup queue).
import type { KubeObject, ListOptions } from "@informer-ts/apimachinery";
import { type ListerWatcher, newSharedIndexInformer, silentLogger } from "@informer-ts/cache";
import { StreamWatcher, type WatchBody } from "@informer-ts/client";
import { Controller, enqueueRequestForObject } from "@informer-ts/controller";
import { HandWrittenQueue } from "./hand-written-queue.js";
import { smallConfigMap } from "./util.js";

/** `base`: a setup syncs and reconciles the initial objects, then stops; the others also replay the burst. */
export type BurstVariant = "base" | "informer-ts" | "client-node";

/** Bytes per body chunk (undici hands a loopback body over in chunks of about this size). */
export const BURST_CHUNK_BYTES = 16 * 1024;

/** ConfigMap `i` as JSON, as the server serializes it. */
function burstObjectJson(i: number, rv: number): string {
  const o = smallConfigMap(`cm-${i}`, `ns-${i % 10}`, i);
  const metadata = {
    ...o.metadata,
    uid: `uid-${i}`,
    resourceVersion: String(rv),
    creationTimestamp: "2026-01-01T00:00:00Z",
  };
  return JSON.stringify({ ...o, metadata });
}

/**
 * The LIST's items, parsed from JSON as a client gets them (objects of the same shapes, hence hidden classes, as the
 * watch events' objects).
 */
export function listedObjects(keys: number): KubeObject[] {
  const json = `[${Array.from({ length: keys }, (_, i) => burstObjectJson(i, i + 1)).join(",")}]`;
  return JSON.parse(json) as KubeObject[];
}

/**
 * The burst as the server would send it: every one of `keys` objects modified once, cut into fixed chunks. `round`
 * (default 1) numbers the burst: round r's resource versions follow round r - 1's, so bursts can be replayed in turn.
 */
export function burstChunks(keys: number, round = 1): Buffer[] {
  const lines: string[] = [];
  for (let i = 0; i < keys; i++) {
    lines.push(`{"type":"MODIFIED","object":${burstObjectJson(i, keys * round + 1 + i)}}`);
  }
  const bytes = Buffer.from(`${lines.join("\n")}\n`, "utf8");
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += BURST_CHUNK_BYTES) {
    chunks.push(bytes.subarray(at, Math.min(bytes.length, at + BURST_CHUNK_BYTES)));
  }
  return chunks;
}

const immediate = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * A body that waits for `go`, then yields `chunks` one per macrotask, then stays open (no more bytes) until destroyed.
 * With `chunks` empty it only waits, like an idle watch.
 */
export function replayBody(chunks: readonly Buffer[], go: Promise<void>): WatchBody {
  let destroyed = false;
  let wakeDestroyed = (): void => {};
  const destroyedP = new Promise<void>((r) => (wakeDestroyed = r));
  return {
    destroy() {
      destroyed = true;
      wakeDestroyed();
    },
    async *[Symbol.asyncIterator]() {
      await Promise.race([go, destroyedP]);
      for (const c of chunks) {
        await immediate();
        if (destroyed) return;
        yield c;
      }
      await destroyedP;
    },
  };
}

/** A latch: `open()` resolves `opened`. */
export function latch(): { opened: Promise<void>; open: () => void } {
  let open = (): void => {};
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** informer-ts: the Controller of controller-http.ts's child on an in-process source whose watch replays `chunks`. */
async function informerTs(keys: number, chunks: readonly Buffer[], replay: boolean): Promise<void> {
  const go = latch();
  const burstDone = latch();
  let watches = 0;
  const lw: ListerWatcher<KubeObject> = {
    list: async () => ({
      metadata: { resourceVersion: String(keys) },
      items: listedObjects(keys),
    }),
    // The first watch replays the burst; a later one (after the first ends) stays idle.
    watch: async (_options: ListOptions) =>
      new StreamWatcher<KubeObject>(replayBody(watches++ === 0 && replay ? chunks : [], go.opened)),
  };
  const informer = newSharedIndexInformer<KubeObject>(
    lw,
    { apiVersion: "v1", kind: "ConfigMap" },
    { name: "instructions-burst", reflector: { logger: silentLogger, useWatchList: false } },
  );
  const indexer = informer.getIndexer();
  let reconciled = 0;
  let seen = 0;
  const controller = new Controller({
    name: "instructions-burst",
    logger: silentLogger,
    watches: [{ informer, handler: enqueueRequestForObject() }],
    reconciler: (req) => {
      if (indexer.getByKey(`${req.namespace}/${req.name}`) !== undefined) seen++;
      if (++reconciled === keys) go.open();
      else if (reconciled === 2 * keys) burstDone.open();
    },
  });
  const stop = new AbortController();
  const informerRun = informer.run(stop.signal);
  const controllerRun = controller.run(stop.signal);
  await (replay ? burstDone.opened : go.opened);
  stop.abort();
  await controllerRun;
  await informerRun;
  if (seen !== reconciled) throw new Error(`burst: ${reconciled - seen} reconciles found no object in the cache`);
}

/**
 * The client-node-like reference: what `makeInformer` and a hand-written queue do per event — decode the chunk to a
 * string, split lines, `JSON.parse` each, set it in a Map under its key, and add the key to a dedup queue; one
 * worker reads the object from the Map.
 */
async function clientNodeLike(keys: number, chunks: readonly Buffer[], replay: boolean): Promise<void> {
  const cache = new Map<string, KubeObject>();
  const queue = new HandWrittenQueue();
  const keyOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
  const listed = listedObjects(keys);
  for (const o of listed) {
    const key = keyOf(o);
    cache.set(key, o);
    queue.add(key);
  }
  const go = latch();
  const burstDone = latch();
  let reconciled = 0;
  let seen = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      if (cache.get(key) !== undefined) seen++;
      if (++reconciled === keys) go.open();
      else if (reconciled === 2 * keys) burstDone.open();
      queue.done(key);
    }
  };
  const running = worker();
  await go.opened;
  if (replay) {
    const decoder = new TextDecoder();
    let partial = "";
    for await (const chunk of replayBody(chunks, go.opened)) {
      const text = partial + decoder.decode(chunk as Buffer, { stream: true });
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (line.length === 0) continue;
        const event = JSON.parse(line) as { type: string; object: KubeObject };
        const key = keyOf(event.object);
        if (event.type === "DELETED") cache.delete(key);
        else cache.set(key, event.object);
        queue.add(key);
      }
      if (chunk === chunks.at(-1)) break;
    }
    await burstDone.opened;
  }
  queue.close();
  await running;
  if (seen !== reconciled) throw new Error(`burst: ${reconciled - seen} reconciles found no object in the cache`);
}

/**
 * `keys` objects listed and reconciled once, then (unless `base`) every one modified once through a watch body of
 * fixed {@link BURST_CHUNK_BYTES} chunks and reconciled again. `base` runs `setup`'s setup without the replay: each
 * variant has its own base, subtracted from its count.
 */
export async function burst(variant: BurstVariant, keys: number, setup: "informer-ts" | "client-node"): Promise<void> {
  const chunks = burstChunks(keys);
  const who = variant === "base" ? setup : variant;
  const run = who === "client-node" ? clientNodeLike : informerTs;
  await run(keys, chunks, variant !== "base");
}
