// Property: whatever interleaving of writes and server faults happens (dropped watches, compaction, watch-cache
// re-initialization, 429s, 500s, truncated watch lines, missing bookmarks, time passing), once the faults stop the
// reflector's store converges to the server's list. One FakeClock, one in-process sim-apiserver per run; fast-check shrinks a failure
// to a minimal sequence of steps.

import type { KubeObject } from "@informer-ts/apimachinery";
import { DeletedFinalStateUnknown, newSharedIndexInformer, silentLogger } from "@informer-ts/cache";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { CONFIGMAP_TYPE, fixedRand, flush, type SimScenario, scenarios } from "./sim-harness.js";

const sc = scenarios();
afterEach(() => sc.stopAll());

const NAMES = ["a", "b", "c", "d", "e"];

type Step =
  | { readonly op: "put"; readonly name: string; readonly v: number }
  | { readonly op: "delete"; readonly name: string }
  | { readonly op: "drop-watches"; readonly asError: boolean }
  | { readonly op: "compact" }
  | { readonly op: "reinitialize"; readonly downtimeMs: number }
  | { readonly op: "fault"; readonly verb: "list" | "watch"; readonly code: 429 | 500 }
  | { readonly op: "truncate"; readonly afterEvents: number }
  | { readonly op: "bookmarks"; readonly mode: "on" | "no-periodic" | "off" }
  | { readonly op: "step"; readonly ms: number };

const name = fc.constantFrom(...NAMES);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("put" as const), name, v: fc.nat(9) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), name }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("drop-watches" as const), asError: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("compact" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("reinitialize" as const), downtimeMs: fc.constantFrom(0, 2000, 8000) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("fault" as const),
      verb: fc.constantFrom("list" as const, "watch" as const),
      code: fc.constantFrom(429 as const, 500 as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("truncate" as const), afterEvents: fc.nat(2) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("bookmarks" as const),
      mode: fc.constantFrom("on" as const, "no-periodic" as const, "off" as const),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("step" as const), ms: fc.constantFrom(0, 500, 1500, 60_000) }) },
);

async function apply(s: SimScenario, st: Step): Promise<void> {
  const exists = (n: string) => s.sim.storage.get(s.sim.resource("configmaps"), "default", n) !== undefined;
  switch (st.op) {
    case "put":
      if (exists(st.name)) await s.update(st.name, String(st.v));
      else await s.create(st.name, String(st.v));
      break;
    case "delete":
      if (exists(st.name)) await s.remove(st.name);
      break;
    case "drop-watches":
      s.sim.dropWatches(undefined, st.asError);
      break;
    case "compact":
      s.sim.compact();
      break;
    case "reinitialize":
      s.sim.reinitializeCache("configmaps", st.downtimeMs);
      break;
    case "fault":
      if (st.code === 429) s.sim.faults.add({ type: "apf-429", verbs: [st.verb], count: 1, retryAfterSeconds: 1 });
      else s.sim.faults.add({ type: "status", code: 500, verbs: [st.verb], count: 1 });
      break;
    case "truncate":
      s.sim.faults.add({ type: "truncate-watch", verbs: ["watch"], count: 1, afterEvents: st.afterEvents });
      break;
    case "bookmarks":
      s.sim.setBookmarkMode(st.mode);
      break;
    case "step":
      await s.clock.step(st.ms);
      break;
  }
  await flush();
}

describe("reflector against the sim-apiserver under random faults", () => {
  it("converges: after any interleaving of writes and faults, the store equals the server's list", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.constantFrom(0, 2),
        fc.array(step, { maxLength: 25 }),
        async (useWatchList, watchListPageSize, steps) => {
          const s = sc.make({ reflector: { useWatchList, watchListPageSize } });
          try {
            await s.seed(2, "seed");
            await s.start();
            for (const st of steps) await apply(s, st);
            s.sim.faults.clear();
            s.sim.setBookmarkMode("on"); // "off" leaves a watch-list waiting forever, as upstream (kubernetes#140890)
            await s.until(
              () => s.status().hasSynced && JSON.stringify(s.stored()) === JSON.stringify(s.truth()),
              "convergence",
              15 * 60_000,
            );
            expect(s.stored()).toEqual(s.truth());
            expect(s.r.lastSyncResourceVersion()).not.toBe("");
          } finally {
            await sc.stopAll();
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("converges through a SharedIndexInformer too: its indexer and every handler's view end equal to the server's list", async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(step, { maxLength: 25 }), async (useWatchList, steps) => {
        const s = sc.make({ noReflector: true });
        try {
          await s.seed(2, "seed");
          const informer = newSharedIndexInformer<KubeObject>(s.lw, CONFIGMAP_TYPE, {
            clock: s.clock,
            rand: fixedRand(0),
            name: "prop",
            reflector: { useWatchList, logger: silentLogger },
          });
          // A handler's own view, built only from notifications.
          const view = new Map<string, string>();
          const key = (o: KubeObject) => o.metadata?.name ?? "";
          informer.addEventHandler({
            onAdd: (o) => view.set(key(o), `${key(o)}@${o.metadata?.resourceVersion}`),
            onUpdate: (_o, n) => view.set(key(n), `${key(n)}@${n.metadata?.resourceVersion}`),
            onDelete: (o) => view.delete(o instanceof DeletedFinalStateUnknown ? o.key.split("/")[1]! : key(o)),
          });
          const ac = new AbortController();
          const done = informer.run(ac.signal);
          s.onStop(async () => {
            ac.abort();
            await done;
          });
          await flush();
          for (const st of steps) await apply(s, st);
          s.sim.faults.clear();
          s.sim.setBookmarkMode("on"); // "off" leaves a watch-list waiting forever, as upstream (kubernetes#140890)
          const indexed = () => s.stored(informer.getIndexer());
          const viewed = () => [...view.values()].sort();
          await s.until(
            () =>
              informer.hasSynced() &&
              JSON.stringify(indexed()) === JSON.stringify(s.truth()) &&
              JSON.stringify(viewed()) === JSON.stringify(s.truth()),
            "convergence",
            15 * 60_000,
          );
          expect(indexed()).toEqual(s.truth());
          expect(viewed()).toEqual(s.truth());
        } finally {
          await sc.stopAll();
        }
      }),
      { numRuns: 50 },
    );
  });
});
