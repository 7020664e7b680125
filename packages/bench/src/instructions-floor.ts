// The `floor` harness of `pnpm bench instructions`: issue 25's "informer at the JSON floor" in-process, so that its
// instruction count repeats. A backlog of MODIFIED events arrives as fixed NDJSON chunks, one per macrotask (the
// `burst` harness's body), and is applied to a cache either by the raw floor of `pnpm bench informer` (split lines,
// `JSON.parse` each, a Map) or by the `Reflector` (StreamWatcher → handleAnyWatch → store), nothing after it.
// With `warmup` rounds, that many backlogs of the same shape are replayed first, in the base run too: the measured
// backlog then runs compiled code, and the optimizing compiler's one-time work (which callgrind counts on its
// threads, and which grows with the amount of code on the path) is left out of the difference.
import type { KubeList, KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import {
  type ListerWatcher,
  metaNamespaceKeyFunc,
  newStore,
  Reflector,
  type ReflectorStore,
  silentLogger,
} from "@informer-ts/cache";
import { StreamWatcher } from "@informer-ts/client";
import { burstChunks, latch, listedObjects, replayBody } from "./instructions-burst.js";

/** `base`: the setup (objects listed into the cache) without the replay. */
export type FloorVariant = "base" | "floor" | "reflector";

/** The floor: every complete line of each chunk parsed and set in a Map under its key, until `events` lines. */
async function floorPath(keys: number, chunks: readonly Buffer[], events: number): Promise<void> {
  const cache = new Map<string, KubeObject>();
  for (const o of listedObjects(keys)) cache.set(metaNamespaceKeyFunc(o), o);
  if (events === 0) return;
  let carry: Buffer | undefined;
  let seen = 0;
  const go = latch();
  go.open();
  for await (const raw of replayBody(chunks, go.opened)) {
    const chunk: Buffer = carry === undefined ? (raw as Buffer) : Buffer.concat([carry, raw as Buffer]);
    carry = undefined;
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      const ev = JSON.parse(chunk.toString("utf8", from, nl)) as WatchEvent<KubeObject>;
      from = nl + 1;
      if (ev.type === "MODIFIED") cache.set(metaNamespaceKeyFunc(ev.object), ev.object);
      if (++seen === events) return;
    }
    if (from < chunk.length) carry = chunk.subarray(from);
  }
}

/** The Reflector over an in-process ListerWatcher whose first watch replays the chunks, into a counting store. */
async function reflectorPath(keys: number, chunks: readonly Buffer[], events: number): Promise<void> {
  const inner = newStore<KubeObject>(metaNamespaceKeyFunc);
  const synced = latch();
  const done = latch();
  let updates = 0;
  const store: ReflectorStore<KubeObject> = {
    add: (o) => inner.add(o),
    update: (o) => {
      inner.update(o);
      if (++updates === events) done.open();
    },
    delete: (o) => inner.delete(o),
    replace: (list, rv) => {
      inner.replace(list, rv);
      synced.open();
    },
    resync: () => inner.resync(),
  };
  let watches = 0;
  const lw: ListerWatcher<KubeObject> = {
    list: async (): Promise<KubeList<KubeObject>> => ({
      metadata: { resourceVersion: String(keys) },
      items: listedObjects(keys),
    }),
    watch: async () => new StreamWatcher<KubeObject>(replayBody(watches++ === 0 ? chunks : [], synced.opened)),
  };
  const reflector = new Reflector<KubeObject>(lw, { apiVersion: "v1", kind: "ConfigMap" }, store, {
    name: "instructions-floor",
    logger: silentLogger,
    useWatchList: false,
  });
  const stop = new AbortController();
  const run = reflector.run(stop.signal);
  await (events > 0 ? done.opened : synced.opened);
  stop.abort();
  await run;
}

/**
 * `keys` objects listed into the cache, then `warmup` backlogs (each object modified once per backlog) and, unless
 * `base`, one more: the measured one.
 */
export async function floor(
  variant: FloorVariant,
  keys: number,
  setup: "floor" | "reflector",
  warmup = 0,
): Promise<void> {
  // Every backlog is made in every run (making one costs more than applying it); the base replays all but the last.
  const backlogs = Array.from({ length: warmup + 1 }, (_, r) => burstChunks(keys, r + 1));
  const rounds = warmup + (variant === "base" ? 0 : 1);
  const chunks = backlogs.slice(0, rounds).flat();
  const who = variant === "base" ? setup : variant;
  await (who === "floor" ? floorPath : reflectorPath)(keys, chunks, rounds * keys);
}
