// The watch cache's event history: reference/apiserver.md §5.2 (ring buffer 100 → ×2 up to 102 400 while the oldest
// event is younger than 75 s, ÷2 when the event a quarter from the end is older, oldest deliverable RV, the 410
// boundary N < oldest − 1) and §4.2 (selector transitions of a cached event).
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { withResourceVersion } from "../object-util.js";
import { BUILTIN_RESOURCES } from "../resources.js";
import { SimApiServer } from "../sim-apiserver.js";
import {
  CacheEvent,
  EVENT_FRESH_DURATION_MS,
  EventHistory,
  HISTORY_LOWER_BOUND,
  HISTORY_UPPER_BOUND,
} from "./event-history.js";
import type { StorageEvent } from "./storage.js";

const configmaps = BUILTIN_RESOURCES.find((r) => r.resource === "configmaps")!;

function obj(name: string, rev: number, labels: Record<string, string> = {}): KubeObject {
  return { metadata: { name, namespace: "ns", resourceVersion: String(rev), labels } };
}

function storageEvent(
  rev: number,
  type: StorageEvent["type"] = "ADDED",
  object = obj(`o${rev}`, rev),
  prevObject?: KubeObject,
): StorageEvent {
  return { type, resource: configmaps, key: `ns/${object.metadata?.name}`, object, prevObject, rev };
}

/** Adds events with RVs `from`, `from+1`, … at clock times given by `timeOf(rv)`. */
function fill(h: EventHistory, from: number, count: number, timeOf: (rv: number) => number): void {
  for (let rv = from; rv < from + count; rv++) h.add(new CacheEvent(storageEvent(rv), timeOf(rv)));
}

const SEC = 1000;
const stats = (h: EventHistory) => ({ cap: h.cap, size: h.size, oldestRV: h.oldestRV() });

describe("EventHistory: sizing", () => {
  it("kube-apiserver's constants: 100 … 102 400 events, 75 s fresh window", () => {
    expect([HISTORY_LOWER_BOUND, HISTORY_UPPER_BOUND, EVENT_FRESH_DURATION_MS]).toEqual([100, 102_400, 75_000]);
    expect(new EventHistory().cap).toBe(100);
  });

  it("doubles when full while the oldest event is younger than 75 s, without dropping anything", () => {
    const h = new EventHistory();
    h.reset(10);
    fill(h, 11, 100, () => 0);
    expect(stats(h)).toEqual({ cap: 100, size: 100, oldestRV: 11 });
    fill(h, 111, 1, () => 74_999);
    expect(stats(h)).toEqual({ cap: 200, size: 101, oldestRV: 11 });
    fill(h, 112, 100, () => 74_999);
    expect(stats(h)).toEqual({ cap: 400, size: 201, oldestRV: 11 });
  });

  it("grows up to the 102 400 upper bound under a burst, then drops the oldest", () => {
    const h = new EventHistory();
    h.reset(0);
    fill(h, 1, 102_400, () => 0);
    expect(stats(h)).toEqual({ cap: 102_400, size: 102_400, oldestRV: 1 });
    fill(h, 102_401, 2, () => 0);
    expect(stats(h)).toEqual({ cap: 102_400, size: 102_400, oldestRV: 3 });
  });

  it("does not grow when the oldest event is exactly 75 s old: the oldest is dropped instead", () => {
    const h = new EventHistory();
    h.reset(0);
    fill(h, 1, 100, (rv) => rv * 10);
    fill(h, 101, 1, () => 10 + 75 * SEC);
    expect(stats(h)).toEqual({ cap: 100, size: 100, oldestRV: 2 });
  });

  it("halves when the event a quarter of the capacity from the end is more than 75 s old", () => {
    const h = new EventHistory();
    h.reset(0);
    // 200 slots: events 1..101 at t=0 (growth), 102..200 at t=1 s.
    fill(h, 1, 101, () => 0);
    fill(h, 102, 99, () => SEC);
    expect(stats(h)).toEqual({ cap: 200, size: 200, oldestRV: 1 });
    // Event 151 (position end − 50) was recorded at t=1 s: at exactly 76 s it is 75 s old → no shrink yet.
    fill(h, 201, 1, () => 76 * SEC);
    expect(stats(h)).toEqual({ cap: 200, size: 200, oldestRV: 2 });
    // One millisecond later it is older than 75 s → capacity 100, the 100 newest are kept (then the oldest goes).
    fill(h, 202, 1, () => 76 * SEC + 1);
    expect(stats(h)).toEqual({ cap: 100, size: 100, oldestRV: 103 });
  });

  it("never shrinks below the lower bound", () => {
    const h = new EventHistory();
    h.reset(0);
    fill(h, 1, 100, () => 0);
    fill(h, 101, 1, () => 1000 * SEC);
    expect(stats(h)).toEqual({ cap: 100, size: 100, oldestRV: 2 });
  });

  it("custom bounds and window", () => {
    const h = new EventHistory(4, 8, 10 * SEC);
    h.reset(0);
    fill(h, 1, 9, () => 0);
    expect(stats(h)).toEqual({ cap: 8, size: 8, oldestRV: 2 });
  });
});

describe("EventHistory: positions and the oldest deliverable RV", () => {
  it("oldest RV is listRV+1 until an event is dropped, then the RV of the oldest kept event", () => {
    const h = new EventHistory(4, 4);
    h.reset(50);
    expect(h.oldestRV()).toBe(51);
    fill(h, 60, 4, () => 0); // RVs 60..63 (gaps: other resources)
    expect(h.oldestRV()).toBe(51);
    fill(h, 64, 1, () => 0);
    expect([h.oldestRV(), h.start, h.end]).toEqual([61, 1, 5]);
    expect(h.at(0)).toBeUndefined();
    expect(h.at(1)?.rev).toBe(61);
    expect(h.at(5)).toBeUndefined();
  });

  it("firstAfter finds the first kept event with a larger RV", () => {
    const h = new EventHistory();
    h.reset(0);
    for (const rv of [3, 5, 9, 10]) h.add(new CacheEvent(storageEvent(rv), 0));
    expect([0, 3, 4, 5, 9, 10, 99].map((rv) => h.firstAfter(rv))).toEqual([0, 1, 1, 2, 3, 4, 4]);
  });

  it("reset empties the history and starts from the new list RV", () => {
    const h = new EventHistory(4, 4);
    h.reset(0);
    fill(h, 1, 6, () => 0);
    h.reset(100);
    expect([h.size, h.start, h.end, h.oldestRV()]).toEqual([0, 0, 0, 101]);
  });

  // The boundary as a watch sees it: from RV N the watch needs every event after N, so N = oldest − 1 still works.
  it("too-old boundary: a watch from N < oldest − 1 gets 410, from oldest − 1 it starts", async () => {
    const sim = new SimApiServer({
      clock: new FakeClock(),
      rand: seededRand(1),
      historyLowerBound: 4,
      historyUpperBound: 4,
    });
    for (let i = 0; i < 6; i++) await sim.create("configmaps", "default", { metadata: { name: `c${i}` } }); // RVs 2..7
    const oldest = sim.caches.cacher("configmaps").historyStats.oldestRV;
    expect(oldest).toBe(4);
    const first = async (rv: number): Promise<WatchEvent | undefined> => {
      const w = await sim.watch("configmaps", "default", { resourceVersion: String(rv), timeoutSeconds: 5 });
      const r = await w.next();
      w.stop();
      return r.done === false ? r.value : undefined;
    };
    expect(await first(oldest - 2)).toEqual({
      type: "ERROR",
      object: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "too old resource version: 2 (3)",
        reason: "Expired",
        code: 410,
      },
    });
    const ok = await first(oldest - 1);
    expect(ok?.type).toBe("ADDED");
    expect((ok?.object as KubeObject | undefined)?.metadata?.name).toBe("c2");
    sim.stop();
  });
});

describe("CacheEvent: the event a selecting watcher sees", () => {
  const selected = (o: KubeObject) => o.metadata?.labels?.sel === "yes";
  const prev = obj("a", 4, { sel: "yes" });
  it.each([
    {
      what: "entering the selection → ADDED",
      ev: storageEvent(5, "MODIFIED", obj("a", 5, { sel: "yes" }), obj("a", 4)),
      want: "ADDED@5",
    },
    {
      what: "staying in it → MODIFIED",
      ev: storageEvent(5, "MODIFIED", obj("a", 5, { sel: "yes" }), prev),
      want: "MODIFIED@5",
    },
    {
      what: "leaving it → DELETED with the previous object at the event's RV",
      ev: storageEvent(5, "MODIFIED", obj("a", 5), prev),
      want: "DELETED@5:yes",
    },
    {
      what: "a deletion → DELETED with the last state",
      ev: storageEvent(5, "DELETED", withResourceVersion(prev, 5), prev),
      want: "DELETED@5:yes",
    },
    { what: "never selected → nothing", ev: storageEvent(5, "MODIFIED", obj("a", 5), obj("a", 4)), want: undefined },
  ])("$what", ({ ev, want }) => {
    const ce = new CacheEvent(ev, 0);
    const e = ce.forWatcher(selected, withResourceVersion);
    const label = e?.type === "DELETED" ? `:${e.object.metadata?.labels?.sel}` : "";
    expect(e === undefined ? undefined : `${e.type}@${e.object.metadata?.resourceVersion}${label}`).toBe(want);
    // Built once, shared by every watcher that sees the same transition.
    if (e !== undefined) expect(ce.forWatcher(selected, withResourceVersion)).toBe(e);
  });
});
