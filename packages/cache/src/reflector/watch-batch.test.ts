// The reflector's batch path (`Watch.nextBatch`): the same store operations, resource versions, ERROR handling and
// interrupts as the per-event path, for a watch that hands over several events at once.
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { metaNamespaceKeyFunc } from "../keys.js";
import type { Watch } from "../listwatch.js";
import { newStore } from "../store-impl.js";
import { silentLogger } from "./logger.js";
import { ReflectorStatusTracker } from "./status.js";
import { handleAnyWatch } from "./watch.js";
import { WatchInterrupter } from "./watch-interrupter.js";

type Pod = KubeObject;
const POD_GVK = { apiVersion: "v1", kind: "Pod" } as const;
const pod = (name: string, rv: string): Pod => ({ ...POD_GVK, metadata: { name, resourceVersion: rv } });

/** A watch that hands over `batches` one `nextBatch()` each, then ends; its iterator must not be used. */
function batchWatch(batches: WatchEvent<Pod>[][]): Watch<Pod> & { stopped: boolean; pulls: number } {
  const w = {
    stopped: false,
    pulls: 0,
    stop() {
      w.stopped = true;
    },
    nextBatch: async (): Promise<IteratorResult<readonly WatchEvent<Pod>[]>> => {
      w.pulls++;
      const b = batches.shift();
      return b === undefined ? { done: true, value: undefined } : { done: false, value: b };
    },
    [Symbol.asyncIterator](): AsyncIterator<WatchEvent<Pod>> {
      throw new Error("the reflector iterated a watch that has nextBatch");
    },
  };
  return w;
}

function ctx(clock: FakeClock) {
  const status = new ReflectorStatusTracker("test-reflector", "v1/Pod", clock, () => ({
    lastSyncResourceVersion: "",
    unavailable: false,
  }));
  return {
    name: "test-reflector",
    typeDescription: "/v1, Kind=Pod",
    expectedGVK: POD_GVK,
    clock,
    logger: silentLogger,
    status,
  };
}

describe("handleAnyWatch: the batch path (Watch.nextBatch)", () => {
  it("applies every event of every batch in order and hands each RV over", async () => {
    const clock = new FakeClock();
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const rvs: [string, boolean][] = [];
    const w = batchWatch([
      [
        { type: "ADDED", object: pod("a", "1") },
        { type: "ADDED", object: pod("b", "2") },
        { type: "MODIFIED", object: pod("a", "3") },
      ],
      [{ type: "DELETED", object: pod("b", "4") }],
    ]);
    await clock.step(2000); // past the very-short-watch window
    const result = await handleAnyWatch(ctx(clock), {
      start: 0,
      watch: w,
      store,
      setLastSyncResourceVersion: (rv, besides) => rvs.push([rv, besides]),
      exitOnInitialEventsEndBookmark: false,
      interrupter: new WatchInterrupter(),
    });
    expect(result).toEqual({ initialEventsEnd: false, events: 4, end: "closed" });
    expect(store.listKeys()).toEqual(["a"]);
    expect(store.getByKey("a")?.metadata?.resourceVersion).toBe("3");
    expect(rvs).toEqual([
      ["1", false],
      ["2", false],
      ["3", true],
      ["4", true],
    ]);
    expect(w.pulls).toBe(3);
    expect(w.stopped).toBe(true);
  });

  it("an ERROR event ends the watch: the events before it are applied, those after it are not", async () => {
    const clock = new FakeClock();
    const store = newStore<Pod>(metaNamespaceKeyFunc);
    const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code: 410, reason: "Expired" };
    const w = batchWatch([
      [
        { type: "ADDED", object: pod("a", "1") },
        { type: "ERROR", object: status as never },
        { type: "ADDED", object: pod("b", "2") },
      ],
    ]);
    const result = await handleAnyWatch(ctx(clock), {
      start: 0,
      watch: w,
      store,
      setLastSyncResourceVersion: () => {},
      exitOnInitialEventsEndBookmark: false,
      interrupter: new WatchInterrupter(),
    });
    expect(result.end).toBe("error");
    expect(result.events).toBe(1);
    expect(store.listKeys()).toEqual(["a"]);
    expect(w.stopped).toBe(true);
  });

  it("an interrupt fired by a store operation stops the batch at the next event", async () => {
    const clock = new FakeClock();
    const interrupter = new WatchInterrupter();
    const inner = newStore<Pod>(metaNamespaceKeyFunc);
    const store = Object.assign(Object.create(inner) as typeof inner, {
      add(obj: Pod) {
        inner.add(obj);
        interrupter.fire({ reason: "stopped" });
      },
    });
    const w = batchWatch([
      [
        { type: "ADDED", object: pod("a", "1") },
        { type: "ADDED", object: pod("b", "2") },
      ],
    ]);
    const result = await handleAnyWatch(ctx(clock), {
      start: 0,
      watch: w,
      store,
      setLastSyncResourceVersion: () => {},
      exitOnInitialEventsEndBookmark: false,
      interrupter,
    });
    expect(result).toEqual({ initialEventsEnd: false, events: 1, end: "stopped" });
    expect(inner.listKeys()).toEqual(["a"]);
  });
});
