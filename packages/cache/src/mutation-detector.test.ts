import { getEventListeners } from "node:events";
import { FakeClock } from "@informer-ts/clock";
import { type SubscriberErrorReport, SubscriberErrorReporter } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it, vi } from "vitest";
import { metaNamespaceKeyFunc } from "./keys.js";
import {
  firstDifferencePath,
  MutationDetectedError,
  type MutationReport,
  mutationDetectionEnabledFromEnv,
  newCacheMutationDetector,
} from "./mutation-detector.js";
import { newStore } from "./store-impl.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";

const mkPod = (name: string, app = "web") => ({
  metadata: { namespace: "ns", name, labels: { app }, annotations: { "a.b/c": "x" } as Record<string, string> },
  spec: { containers: [{ name: "c", image: "img:1" }] },
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("I18: mutation detector", () => {
  it("KUBE_CACHE_MUTATION_DETECTOR is parsed like Go's strconv.ParseBool", () => {
    for (const v of ["1", "t", "T", "true", "TRUE", "True"]) expect(mutationDetectionEnabledFromEnv(v)).toBe(true);
    for (const v of [undefined, "", "0", "false", "yes", "on"]) expect(mutationDetectionEnabledFromEnv(v)).toBe(false);
  });

  it("is inert unless enabled (by option or environment)", () => {
    const prev = process.env.KUBE_CACHE_MUTATION_DETECTOR;
    try {
      delete process.env.KUBE_CACHE_MUTATION_DETECTOR;
      const off = newCacheMutationDetector("pods");
      expect(off.enabled).toBe(false);
      const obj = mkPod("a");
      off.addObject(obj);
      obj.metadata.labels.app = "changed";
      expect(off.compareObjects()).toEqual([]);
      process.env.KUBE_CACHE_MUTATION_DETECTOR = "true";
      expect(newCacheMutationDetector("pods").enabled).toBe(true);
      expect(newCacheMutationDetector("pods", { enabled: false }).enabled).toBe(false);
    } finally {
      if (prev === undefined) delete process.env.KUBE_CACHE_MUTATION_DETECTOR;
      else process.env.KUBE_CACHE_MUTATION_DETECTOR = prev;
    }
  });

  describe("freeze mode", () => {
    it("deep-freezes recorded objects so a mutation throws a TypeError at the mutating statement", () => {
      const d = newCacheMutationDetector("pods", { enabled: true, mode: "freeze" });
      const obj = mkPod("a");
      d.addObject(obj);
      expect(() => {
        obj.metadata.labels.app = "db";
      }).toThrow(TypeError);
      expect(() => {
        obj.spec.containers[0]!.image = "img:2";
      }).toThrow(TypeError);
      expect(() => obj.spec.containers.push({ name: "d", image: "x" })).toThrow(TypeError);
      expect(obj.metadata.labels.app).toBe("web");
      expect(d.compareObjects()).toEqual([]);
    });

    it("ignores tombstones and non-objects", () => {
      const d = newCacheMutationDetector("pods", { enabled: true, mode: "freeze" });
      const inner = mkPod("a");
      const tomb = new DeletedFinalStateUnknown("ns/a", inner);
      d.addObject(tomb);
      d.addObject("str");
      d.addObject(null);
      inner.metadata.labels.app = "still mutable";
      expect(inner.metadata.labels.app).toBe("still mutable");
    });

    it("a store with a freezing detector hands out frozen objects", () => {
      const d = newCacheMutationDetector("pods", { enabled: true, mode: "freeze" });
      const store = newStore<ReturnType<typeof mkPod>>(metaNamespaceKeyFunc, { mutationDetector: d });
      store.add(mkPod("a"));
      store.replace([mkPod("b")], "1");
      store.transaction([{ type: "add", object: mkPod("c") }]);
      for (const obj of store.list()) {
        expect(Object.isFrozen(obj.metadata.labels)).toBe(true);
        expect(() => {
          obj.metadata.labels.app = "x";
        }).toThrow(TypeError);
      }
    });
  });

  describe("check mode", () => {
    it("reports each mutated object with its key and the first differing path, once", () => {
      const reports: MutationReport[] = [];
      const d = newCacheMutationDetector("pods", { enabled: true, onMutation: (r) => reports.push(r) });
      const a = mkPod("a");
      const b = mkPod("b");
      const c = mkPod("c");
      for (const o of [a, b, c]) d.addObject(o);
      expect(d.compareObjects()).toEqual([]);
      a.metadata.labels.app = "db";
      c.spec.containers[0]!.image = "img:2";
      const found = d.compareObjects();
      expect(found).toEqual([
        { key: "ns/a", path: "metadata.labels.app", before: "web", after: "db" },
        { key: "ns/c", path: "spec.containers[0].image", before: "img:1", after: "img:2" },
      ]);
      expect(reports).toEqual([{ name: "pods", mutations: found }]);
      expect(d.compareObjects()).toEqual([]);
      b.metadata.annotations["a.b/c"] = "y";
      expect(d.compareObjects().map((m) => [m.key, m.path])).toEqual([["ns/b", 'metadata.annotations["a.b/c"]']]);
    });

    it("the snapshot is a deep copy taken at add time", () => {
      const d = newCacheMutationDetector("pods", { enabled: true, onMutation: () => {} });
      const a = mkPod("a");
      d.addObject(a);
      a.spec.containers.push({ name: "d", image: "x" });
      expect(d.compareObjects().map((m) => m.path)).toEqual(["spec.containers[1]"]);
    });

    it("panic: true makes compareObjects throw MutationDetectedError with the report", () => {
      const d = newCacheMutationDetector("cms", { enabled: true, panic: true, onMutation: () => {} });
      const a = mkPod("a");
      d.addObject(a);
      a.metadata.labels.app = "x";
      let caught: unknown;
      try {
        d.compareObjects();
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(MutationDetectedError);
      expect((caught as MutationDetectedError).message).toBe("cache cms modified: ns/a at metadata.labels.app");
      expect((caught as MutationDetectedError).report.mutations).toHaveLength(1);
    });

    it("without a callback or subscriber, a report is logged at error level (never a crash)", () => {
      const lines: Array<[string, string]> = [];
      const logger = { log: (level: string, message: string) => lines.push([level, message]) };
      const d = newCacheMutationDetector("pods", { enabled: true, logger });
      const a = mkPod("a");
      d.addObject(a);
      a.metadata.name = "renamed";
      d.compareObjects();
      expect(lines).toEqual([["error", "cache pods modified: ns/a at metadata.name"]]);
    });

    it("a throwing callback does not stop the detector; the report goes to the logger instead", () => {
      const lines: string[] = [];
      const d = newCacheMutationDetector("pods", {
        enabled: true,
        logger: { log: (_level, message) => lines.push(message) },
        onMutation: () => {
          throw new Error("callback bug");
        },
      });
      const a = mkPod("a");
      d.addObject(a);
      a.metadata.labels.app = "db";
      expect(d.compareObjects()).toHaveLength(1);
      expect(lines).toHaveLength(1);
    });

    it("events$ is read-only and a throwing subscriber is reported while the others are served", () => {
      const reports: SubscriberErrorReport[] = [];
      const d = newCacheMutationDetector("pods", {
        enabled: true,
        subscriberErrors: new SubscriberErrorReporter({ publish: (r) => reports.push(r) > 0 }),
      });
      expect("emit" in d.events$).toBe(false);
      const seen: string[] = [];
      d.events$.subscribe(() => {
        throw new Error("subscriber bug");
      });
      d.events$.subscribe((e) => seen.push(e.report.name));
      const a = mkPod("a");
      d.addObject(a);
      a.metadata.labels.app = "db";
      d.compareObjects();
      expect(seen).toEqual(["pods"]);
      expect(reports.map((r) => [r.stream, r.callback])).toEqual([["mutation detector pods events$", "next"]]);
    });

    it("reports on the events stream", () => {
      const d = newCacheMutationDetector("pods", { enabled: true });
      const seen: string[] = [];
      const sub = d.events$.subscribe((e) => seen.push(e.report.mutations[0]!.path));
      const a = mkPod("a");
      d.addObject(a);
      a.metadata.labels.app = "db";
      d.compareObjects();
      sub.unsubscribe();
      expect(seen).toEqual(["metadata.labels.app"]);
    });

    it("run(): checks every period on the Clock and keeps snapshots between 2 and 4 minutes", async () => {
      const clock = new FakeClock();
      const reports: MutationReport[] = [];
      const d = newCacheMutationDetector("pods", { enabled: true, clock, onMutation: (r) => reports.push(r) });
      const ctl = new AbortController();
      const running = d.run(ctl.signal);
      const early = mkPod("early");
      d.addObject(early);
      await clock.step(999);
      early.metadata.labels.app = "db";
      expect(reports).toHaveLength(0);
      await clock.step(1);
      expect(reports.map((r) => r.mutations.map((m) => m.key))).toEqual([["ns/early"]]);

      // An object added at t≈1 s is rotated into the retained set after 2 min, still checked, and dropped after
      // the next rotation.
      const late = mkPod("late");
      d.addObject(late);
      await clock.step(1000); // moved to the cached set by this check
      await clock.step(2 * 60 * 1000); // first rotation: cached → retained
      late.metadata.labels.app = "db";
      await clock.step(1000);
      expect(reports.map((r) => r.mutations.map((m) => m.key))).toEqual([["ns/early"], ["ns/late"]]);

      const dropped = mkPod("dropped");
      d.addObject(dropped);
      await clock.step(1000);
      await clock.step(5 * 60 * 1000); // two rotations: the snapshot is gone
      dropped.metadata.labels.app = "db";
      await clock.step(2000);
      expect(reports).toHaveLength(2);

      ctl.abort();
      await running;
      expect(clock.pendingTimers()).toBe(0);
    });

    it("run(signal) in freeze mode schedules nothing; a second run resolves at once; abort releases all", async () => {
      const clock = new FakeClock();
      const ctl = new AbortController();
      const d = newCacheMutationDetector("pods", { enabled: true, clock, mode: "freeze" });
      await d.run(ctl.signal);
      expect(clock.pendingTimers()).toBe(0);
      const c = newCacheMutationDetector("pods", { enabled: true, clock });
      const first = c.run(ctl.signal);
      await c.run(ctl.signal);
      expect(clock.pendingTimers()).toBe(1);
      expect(getEventListeners(ctl.signal, "abort")).toHaveLength(1);
      ctl.abort();
      await first;
      expect(clock.pendingTimers()).toBe(0);
      expect(getEventListeners(ctl.signal, "abort")).toHaveLength(0);
    });

    it("a store with a checking detector records every stored object", () => {
      const d = newCacheMutationDetector("pods", { enabled: true, onMutation: () => {} });
      const store = newStore<ReturnType<typeof mkPod>>(metaNamespaceKeyFunc, { mutationDetector: d });
      store.add(mkPod("a"));
      store.update(mkPod("b"));
      store.replace([mkPod("c"), mkPod("d")], "1");
      for (const obj of store.list()) obj.metadata.labels.app = "mutated";
      expect(
        d
          .compareObjects()
          .map((m) => m.key)
          .sort(),
      ).toEqual(["ns/c", "ns/d"]);
    });
  });

  it("firstDifferencePath: JSON-style comparison", () => {
    expect(firstDifferencePath({ a: 1 }, { a: 1 })).toBeUndefined();
    expect(firstDifferencePath({ a: 1 }, { a: 1, b: undefined })).toBeUndefined();
    expect(firstDifferencePath({ a: { b: [1, 2] } }, { a: { b: [1, 3] } })).toBe("a.b[1]");
    expect(firstDifferencePath({ a: 1 }, { a: 1, c: 2 })).toBe("c");
    expect(firstDifferencePath({ a: [] }, { a: {} })).toBe("a");
    expect(firstDifferencePath(1, 2)).toBe("");
    const cyclic: Record<string, unknown> = { x: 1 };
    cyclic.self = cyclic;
    expect(firstDifferencePath(cyclic, cyclic)).toBeUndefined();
  });

  it("rejects non-positive periods", () => {
    expect(() => newCacheMutationDetector("x", { enabled: true, periodMs: 0 })).toThrow(RangeError);
  });
});
