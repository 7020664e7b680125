// Property: whatever interleaving of writes and server faults happens (dropped watches, compaction, watch-cache
// re-initialization, 429s, 500s, truncated watch lines, missing bookmarks, time passing), once the faults stop the
// reflector's store converges to the server's list. One FakeClock, one in-process sim-apiserver per run; fast-check shrinks a failure
// to a minimal sequence of steps.

import type { KubeObject } from "@informer-ts/apimachinery";
import { DeletedFinalStateUnknown, newSharedIndexInformer, silentLogger } from "@informer-ts/cache";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { CONFIGMAP_TYPE, fixedRand, flush, scenarios } from "./sim-harness.js";
import { apply, step } from "./sim-steps.js";

const sc = scenarios();
afterEach(() => sc.stopAll());

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
