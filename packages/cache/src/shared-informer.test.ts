import { fc, test } from "@fast-check/vitest";
import { type KubeObject, newResourceExpired } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FilteringResourceEventHandler, type ResourceEventHandler, ResourceEventHandlerFuncs } from "./controller.js";
import type { ProcessorListener, ResourceEventHandlerRegistration } from "./processor-listener.js";
import { silentLogger } from "./reflector/logger.js";
import {
  type InformerFifoMode,
  newSharedIndexInformer,
  newSharedInformer,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
  type SharedInformerEvent,
  type SharedInformerStatus,
  shutDownEventHandler,
} from "./shared-informer.js";
import type { SharedProcessor } from "./shared-processor.js";
import { DoneLatch } from "./synctrack.js";
import { FakeControllerSource } from "./testing/fake-controller-source.js";
import { runUntilSettled } from "./testing/run-until-settled.js";
import { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from "./tombstone.js";
import { waitForCacheSync } from "./wait-for-cache-sync.js";

interface Pod extends KubeObject {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
  };
}

const pod = (name: string, labels?: Record<string, string>): Pod => ({
  metadata: labels === undefined ? { name } : { name, labels },
});

function nameOf(o: Pod | DeletedFinalStateUnknown<Pod>): string {
  if (isDeletedFinalStateUnknown<Pod>(o)) return `tombstone:${o.key}`;
  return o.metadata.name;
}

/** client-go's testListener: records the names of added/updated objects, plus a full log. */
class TestListener implements ResourceEventHandler<Pod> {
  received: string[] = [];
  readonly log: string[] = [];
  constructor(readonly resyncPeriod = 0) {}
  onAdd(obj: Pod, isInInitialList: boolean): void {
    this.received.push(obj.metadata.name);
    this.log.push(`add:${obj.metadata.name}${isInInitialList ? ":initial" : ""}`);
  }
  onUpdate(_old: Pod, obj: Pod): void {
    this.received.push(obj.metadata.name);
    this.log.push(`update:${obj.metadata.name}`);
  }
  onDelete(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    this.log.push(`delete:${nameOf(obj)}`);
  }
  names(): string[] {
    return [...new Set(this.received)].sort();
  }
  reset(): void {
    this.received = [];
  }
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  vi.restoreAllMocks();
});

interface Harness {
  clock: FakeClock;
  source: FakeControllerSource<Pod>;
  informer: SharedIndexInformer<Pod>;
  start(): Promise<void>;
  stop(): Promise<void>;
  flush(): Promise<void>;
}

function harness(options: SharedIndexInformerOptions<Pod> = {}, seed = 1): Harness {
  const clock = new FakeClock(0);
  const source = new FakeControllerSource<Pod>({ clock, rand: seededRand(seed) });
  const informer = newSharedIndexInformer<Pod>(source, undefined, {
    clock,
    rand: seededRand(seed + 1),
    reflector: { logger: silentLogger },
    ...options,
  });
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  const flush = async () => {
    await clock.step(0);
    await settle();
  };
  const h: Harness = {
    clock,
    source,
    informer,
    async start() {
      running = informer.run(ac.signal);
      await flush();
    },
    async stop() {
      ac.abort();
      // Handlers may be sleeping on the fake clock: keep it moving until the informer has stopped.
      if (running !== undefined) await runUntilSettled(clock, running);
    },
    flush,
  };
  stops.push(() => h.stop());
  return h;
}

function processorOf(informer: SharedIndexInformer<Pod>): SharedProcessor<Pod> {
  return (informer as unknown as { sharedProcessor: SharedProcessor<Pod> }).sharedProcessor;
}
const eventHandlerCount = (informer: SharedIndexInformer<Pod>) => processorOf(informer).size;
const isRegistered = (informer: SharedIndexInformer<Pod>, h: ResourceEventHandlerRegistration) =>
  processorOf(informer).getListener(h) !== undefined;
const resyncPeriodOf = (h: ResourceEventHandlerRegistration) => (h as ProcessorListener<Pod>).resyncPeriod;

describe("SharedIndexInformer basics", () => {
  it("TestIndexer (S16): lookups by index, later adds are indexed, indexers added after start apply at once", async () => {
    const h = harness({ resyncPeriod: 1000 });
    h.source.add(pod("pod1", { a: "a-val", b: "b-val1" }));
    h.source.add(pod("pod2", { b: "b-val2" }));
    const labelKeys = (o: Pod) => Object.keys(o.metadata.labels ?? {});
    h.informer.addIndexers({ labels: labelKeys });
    await h.start();
    expect(h.informer.hasSynced()).toBe(true);
    const names = (objs: Pod[]) => objs.map((o) => o.metadata.name).sort();
    expect(names(h.informer.getIndexer().byIndex("labels", "a"))).toEqual(["pod1"]);
    h.source.add(pod("pod3", { a: "a-val2" }));
    await h.flush();
    expect(names(h.informer.getIndexer().byIndex("labels", "a"))).toEqual(["pod1", "pod3"]);
    h.informer.addIndexers({ "labels-again": labelKeys });
    expect(names(h.informer.getIndexer().byIndex("labels-again", "a"))).toEqual(["pod1", "pod3"]);
    expect(h.informer.getIndexer().listIndexFuncValues("labels").sort()).toEqual(["a", "b"]);
    await h.stop();
    expect(() => h.informer.addIndexers({ late: labelKeys })).toThrow(/stopped already/);
  });

  it("I2 / I6: the indexer (keyed by deletionHandlingMetaNamespaceKeyFunc) is updated before any handler is notified", async () => {
    const h = harness({ fifo: "real-atomic" });
    const store = h.informer.getStore();
    const seen: string[] = [];
    h.informer.addEventHandler({
      onAdd: (o: Pod) => seen.push(`add:${store.getByKey(`ns/${o.metadata.name}`) === o}`),
      onUpdate: (_old: Pod, o: Pod) => seen.push(`update:${store.getByKey(`ns/${o.metadata.name}`) === o}`),
      onDelete: (o) => {
        const key = isDeletedFinalStateUnknown(o) ? o.key : `ns/${(o as Pod).metadata.name}`;
        seen.push(`delete:${store.getByKey(key) === undefined}`);
      },
    });
    const a = h.source.add({ metadata: { name: "a", namespace: "ns" } });
    await h.start();
    h.source.modify(a);
    h.source.delete(a);
    await h.flush();
    expect(seen).toEqual(["add:true", "update:true", "delete:true"]);
    expect(h.informer.getIndexer().listKeys()).toEqual([]);
  });

  it("I13/I19: hasSynced and lastSyncResourceVersion follow the initial list; hasSynced is bound", async () => {
    const h = harness();
    h.source.add(pod("a"));
    h.source.add(pod("b"));
    expect(h.informer.hasSynced()).toBe(false);
    expect(h.informer.lastSyncResourceVersion()).toBe("");
    const { hasSynced } = h.informer;
    await h.start();
    expect(hasSynced()).toBe(true);
    expect(h.informer.hasSyncedChecker().isDone()).toBe(true);
    expect(h.informer.lastSyncResourceVersion()).toBe(h.source.resourceVersion);
    h.source.modify(pod("a"));
    await h.flush();
    expect(h.informer.lastSyncResourceVersion()).toBe(h.source.resourceVersion);
    expect(h.informer.getStore().getByKey("a")?.metadata.resourceVersion).toBe(h.source.resourceVersion);
  });

  it("I13: the informer can be synced while a handler has not handled its initial adds", async () => {
    const h = harness();
    h.source.add(pod("a"));
    const gate = new DoneLatch("gate");
    const reg = h.informer.addEventHandler({ onAdd: () => gate.done(), onUpdate() {}, onDelete() {} });
    await h.start();
    expect(h.informer.hasSynced()).toBe(true);
    expect(reg.hasSynced()).toBe(false);
    gate.complete();
    await h.flush();
    expect(reg.hasSynced()).toBe(true);
  });

  it("I17: waitForCacheSync over the informer and a registration, polling on the clock", async () => {
    const h = harness();
    h.source.add(pod("a"));
    const reg = h.informer.addEventHandler(new TestListener());
    let result: boolean | undefined;
    void waitForCacheSync({ clock: h.clock }, h.informer.hasSynced, reg.hasSynced).then((r) => {
      result = r;
    });
    await settle();
    expect(result).toBeUndefined();
    await h.start();
    await h.clock.step(100);
    expect(result).toBe(true);
  });

  it("TestSharedInformerTransformer: the transform applies before the cache and handlers see objects", async () => {
    const h = harness();
    h.source.add(pod("pod1"));
    h.source.add(pod("pod2"));
    h.informer.setTransform((o) => ({ ...o, metadata: { ...o.metadata, name: o.metadata.name.toUpperCase() } }));
    const l = new TestListener();
    h.informer.addEventHandler(l);
    await h.start();
    expect(l.names()).toEqual(["POD1", "POD2"]);
  });

  it("TestSharedInformerErrorHandling: a LIST error reaches the watch error handler", async () => {
    const h = harness();
    h.source.add(pod("pod1"));
    h.source.listError = new Error("Access Denied");
    h.source.watchListSupport = "invalid";
    const errors: unknown[] = [];
    h.informer.setWatchErrorHandler((_r, err) => errors.push(err));
    await h.start();
    expect(errors.length).toBeGreaterThan(0);
    expect(String(errors[0])).toContain("Access Denied");
    expect(h.informer.hasSynced()).toBe(false);
    expect(h.informer.status().reflector?.lastError?.message).toContain("Access Denied");
  });

  it("I16 / TestSharedInformerStartRace: setTransform and setWatchErrorHandler are refused after start", async () => {
    const h = harness();
    await h.start();
    expect(() => h.informer.setTransform((o) => o)).toThrow("informer has already started");
    expect(() => h.informer.setWatchErrorHandler(() => {})).toThrow("informer has already started");
  });

  it("I15 / TestStateSharedInformer: started and stopped flags; a second run warns and returns", async () => {
    const warn = vi.fn();
    const h = harness({ logger: { log: (_level, message) => warn(message) } });
    h.source.add(pod("pod1"));
    const l = new TestListener();
    h.informer.addEventHandler(l);
    expect(h.informer.hasStarted()).toBe(false);
    expect(h.informer.isStopped()).toBe(false);
    await h.start();
    expect(l.names()).toEqual(["pod1"]);
    expect(h.informer.hasStarted()).toBe(true);
    expect(h.informer.isStopped()).toBe(false);
    await h.informer.run(new AbortController().signal);
    expect(String(warn.mock.calls[0]?.[0])).toContain("more than once");
    await h.stop();
    expect(h.informer.isStopped()).toBe(true);
    expect(h.informer.hasStarted()).toBe(true);
    expect(h.clock.pendingTimers()).toBe(0);
    expect(h.source.openWatches).toBe(0);
  });

  it("I15: run with an already aborted signal stops at once and leaves the informer stopped", async () => {
    const h = harness();
    const ac = new AbortController();
    ac.abort();
    await h.informer.run(ac.signal);
    expect(h.informer.isStopped()).toBe(true);
    expect(h.informer.hasSynced()).toBe(false);
  });

  it("rejects a bad ListerWatcher, resync period or fifo mode with a clear error", () => {
    expect(() => newSharedIndexInformer({} as unknown as FakeControllerSource<Pod>)).toThrow(/list and watch/);
    const src = new FakeControllerSource<Pod>();
    expect(() => newSharedIndexInformer(src, undefined, { resyncPeriod: -1 })).toThrow(/resyncPeriod/);
    expect(() => newSharedIndexInformer(src, undefined, { fifo: "x" as InformerFifoMode })).toThrow(/fifo/);
    expect(() => newSharedInformer(src).addEventHandlerWithResyncPeriod(new TestListener(), Number.NaN)).toThrow(
      /resyncPeriod/,
    );
  });
});

describe("I4: resync periods", () => {
  it("TestResyncCheckPeriod: handlers added before start lower the check period and are re-clamped", () => {
    const informer = newSharedInformer<Pod>(new FakeControllerSource<Pod>(), undefined, 12 * 3600_000);
    const h1 = informer.addEventHandlerWithResyncPeriod(new TestListener(), 0);
    expect(informer.status().resyncCheckPeriod).toBe(12 * 3600_000);
    expect(resyncPeriodOf(h1)).toBe(0);
    const h2 = informer.addEventHandlerWithResyncPeriod(new TestListener(), 60_000);
    expect(informer.status().resyncCheckPeriod).toBe(60_000);
    expect([resyncPeriodOf(h1), resyncPeriodOf(h2)]).toEqual([0, 60_000]);
    const h3 = informer.addEventHandlerWithResyncPeriod(new TestListener(), 55_000);
    expect(informer.status().resyncCheckPeriod).toBe(55_000);
    expect([resyncPeriodOf(h1), resyncPeriodOf(h2), resyncPeriodOf(h3)]).toEqual([0, 60_000, 55_000]);
    const h4 = informer.addEventHandlerWithResyncPeriod(new TestListener(), 5_000);
    expect(informer.status().resyncCheckPeriod).toBe(5_000);
    expect([h1, h2, h3, h4].map(resyncPeriodOf)).toEqual([0, 60_000, 55_000, 5_000]);
  });

  it("a request below 1 s is raised to 1 s; after start a request below the check period is raised to it", async () => {
    const h = harness({ resyncPeriod: 5_000 });
    const tiny = h.informer.addEventHandlerWithResyncPeriod(new TestListener(), 10);
    expect(resyncPeriodOf(tiny)).toBe(1_000);
    expect(h.informer.status().resyncCheckPeriod).toBe(1_000);
    await h.start();
    const late = h.informer.addEventHandlerWithResyncPeriod(new TestListener(), 500);
    expect(resyncPeriodOf(late)).toBe(1_000);
    expect(h.informer.status().resyncCheckPeriod).toBe(1_000);
  });

  it("an informer built with resync 0 never resyncs, whatever handlers ask", async () => {
    const h = harness({ resyncPeriod: 0 });
    h.source.add(pod("a"));
    const l = new TestListener();
    const reg = h.informer.addEventHandlerWithResyncPeriod(l, 1_000);
    expect(resyncPeriodOf(reg)).toBe(0);
    await h.start();
    l.reset();
    await h.clock.step(10_000);
    expect(l.received).toEqual([]);
  });
});

describe("I9: resync delivery", () => {
  it("TestListenerResyncPeriods: 0 s, 2 s and 3 s handlers on a 1 s informer", async () => {
    const h = harness({ resyncPeriod: 1000 });
    h.source.add(pod("pod1"));
    h.source.add(pod("pod2"));
    const ls = [new TestListener(0), new TestListener(2000), new TestListener(3000)];
    for (const l of ls) h.informer.addEventHandlerWithResyncPeriod(l, l.resyncPeriod);
    await h.start();
    for (const l of ls) expect(l.names()).toEqual(["pod1", "pod2"]);
    for (const l of ls) l.reset();
    await h.clock.step(2000);
    expect(ls.map((l) => l.names())).toEqual([[], ["pod1", "pod2"], []]);
    for (const l of ls) l.reset();
    await h.clock.step(1000);
    expect(ls.map((l) => l.names())).toEqual([[], [], ["pod1", "pod2"]]);
  });

  it("TestSharedInformerWatchDisruption / edge 32: relist updates with unchanged RV reach only syncing handlers", async () => {
    const h = harness({ resyncPeriod: 1000 });
    h.source.add({ metadata: { name: "pod1", uid: "pod1" } });
    h.source.add({ metadata: { name: "pod2", uid: "pod2" } });
    const noResync = new TestListener(0);
    const resync = new TestListener(1000);
    h.informer.addEventHandlerWithResyncPeriod(noResync, 0);
    h.informer.addEventHandlerWithResyncPeriod(resync, 1000);
    await h.start();
    for (const l of [noResync, resync]) expect(l.names()).toEqual(["pod1", "pod2"]);
    // Add pod3 and bump pod2 without broadcasting: only a relist can see them.
    h.source.addDropWatch({ metadata: { name: "pod3", uid: "pod3" } });
    h.source.modifyDropWatch({ metadata: { name: "pod2", uid: "pod2" } });
    await h.flush();
    for (const l of [noResync, resync]) expect(l.names()).toEqual(["pod1", "pod2"]);
    noResync.reset();
    resync.reset();
    // The first resync check drops noResync from the syncing set.
    await h.clock.step(1000);
    // A connection loss: the watch closes and its RV is compacted away, forcing a relist after a backoff.
    h.source.resetWatch();
    await h.clock.step(2000);
    expect(h.informer.getStore().listKeys().sort()).toEqual(["pod1", "pod2", "pod3"]);
    expect(noResync.names()).toEqual(["pod2", "pod3"]);
    expect(resync.names()).toEqual(["pod1", "pod2", "pod3"]);
    expect(h.informer.status().reflector?.counts.watchLists).toBeGreaterThanOrEqual(2);
  });

  it("I9: unchanged relist items reach a non-resync handler before the first resync check, not after", async () => {
    const h = harness({ resyncPeriod: 60_000 });
    h.source.add(pod("a"));
    const noResync = new TestListener(0);
    h.informer.addEventHandlerWithResyncPeriod(noResync, 0);
    await h.start();
    const forceRelist = async () => {
      await h.clock.step(2000);
      noResync.reset();
      h.source.failNextWatch(newResourceExpired("too old resource version"));
      h.source.closeWatches();
      await h.clock.step(5000);
    };
    await forceRelist(); // t < 60 s: no check yet, the handler is still flagged as syncing
    expect(noResync.received).toEqual(["a"]);
    await h.clock.step(65_000); // the first check (60 s after the last relist re-armed the timer) clears the flag
    await forceRelist();
    expect(h.informer.status().reflector?.counts.watchLists).toBe(3);
    expect(noResync.received).toEqual([]);
  });

  it("I7 / edge 23: a watch MODIFIED with the cached RV is a sync update (only resync handlers)", async () => {
    const h = harness({ resyncPeriod: 1000 });
    const noResync = new TestListener(0);
    const resync = new TestListener(1000);
    h.informer.addEventHandlerWithResyncPeriod(noResync, 0);
    h.informer.addEventHandlerWithResyncPeriod(resync, 1000);
    const stored = h.source.add(pod("a"));
    await h.start();
    await h.clock.step(1000); // first check: noResync stops syncing; resync is due and stays flagged
    noResync.reset();
    resync.reset();
    for (const w of h.source.watches) w.push({ type: "MODIFIED", object: structuredClone(stored) });
    await h.flush();
    expect(noResync.received).toEqual([]);
    expect(resync.received).toEqual(["a"]);
  });
});

describe("I14 / edge 34: removing handlers", () => {
  it("TestSharedInformerRemoveHandler and TestSharedInformerMultipleRegistration", () => {
    const informer = newSharedIndexInformer<Pod>(new FakeControllerSource<Pod>());
    const handler = new ResourceEventHandlerFuncs<Pod>();
    const r1 = informer.addEventHandler(handler);
    const r2 = informer.addEventHandler(handler);
    expect(eventHandlerCount(informer)).toBe(2);
    informer.removeEventHandler(r1);
    expect(isRegistered(informer, r1)).toBe(false);
    expect(isRegistered(informer, r2)).toBe(true);
    expect(eventHandlerCount(informer)).toBe(1);
    informer.removeEventHandler(r2);
    expect(eventHandlerCount(informer)).toBe(0);
  });

  it("TestSharedInformerRemoveForeignHandler and TestRemovingRemovedSharedInformer: no-ops", () => {
    const informer = newSharedIndexInformer<Pod>(new FakeControllerSource<Pod>());
    const informer2 = newSharedIndexInformer<Pod>(new FakeControllerSource<Pod>());
    const r1 = informer.addEventHandler(new TestListener());
    const r2 = informer.addEventHandler(new TestListener());
    expect(isRegistered(informer2, r1)).toBe(false);
    informer2.removeEventHandler(r1);
    expect(eventHandlerCount(informer)).toBe(2);
    expect(isRegistered(informer, r1)).toBe(true);
    informer.removeEventHandler(r2);
    informer.removeEventHandler(r2);
    expect(eventHandlerCount(informer)).toBe(1);
    expect(() => informer.removeEventHandler({} as ResourceEventHandlerRegistration)).toThrow(TypeError);
  });

  it("TestRemoveWhileActive: no events after removal", async () => {
    const h = harness();
    const l = new TestListener();
    const reg = h.informer.addEventHandler(l);
    await h.start();
    h.source.add(pod("pod1"));
    await h.flush();
    expect(l.names()).toEqual(["pod1"]);
    h.informer.removeEventHandler(reg);
    expect(isRegistered(h.informer, reg)).toBe(false);
    h.source.add(pod("pod2"));
    await h.flush();
    expect(l.names()).toEqual(["pod1"]);
  });

  it("edge 34: buffered notifications are dropped; only the in-flight callback completes; shutDownEventHandler waits for it", async () => {
    const h = harness();
    await h.start();
    const log: string[] = [];
    const reg = h.informer.addEventHandler({
      async onAdd(o: Pod) {
        log.push(`start:${o.metadata.name}`);
        await h.clock.sleep(50);
        log.push(`end:${o.metadata.name}`);
      },
      onUpdate() {},
      onDelete() {},
    });
    for (const n of ["a", "b", "c"]) h.source.add(pod(n));
    await h.flush();
    expect(log).toEqual(["start:a"]);
    expect(reg.stats().pendingNotifications).toBe(2);
    let shutDown = false;
    void shutDownEventHandler(h.informer, reg).then(() => {
      shutDown = true;
    });
    h.informer.removeEventHandler(reg);
    await settle();
    expect(shutDown).toBe(false);
    await h.clock.step(50);
    expect(shutDown).toBe(true);
    h.source.add(pod("d"));
    await h.clock.step(500);
    expect(log).toEqual(["start:a", "end:a"]);
  });

  it("TestRemoveOnStoppedSharedInformer and I3 / TestAddOnStoppedSharedInformer", async () => {
    const h = harness();
    h.source.add(pod("pod1"));
    const reg = h.informer.addEventHandler(new TestListener());
    await h.start();
    await h.stop();
    expect(h.informer.isStopped()).toBe(true);
    h.informer.removeEventHandler(reg);
    expect(() => h.informer.addEventHandler(new TestListener())).toThrow(
      /was not added to shared informer because it has stopped already$/,
    );
  });
});

describe("I5 / I12 / edge 31: handlers added after start", () => {
  it("TestAddWhileActive: replays the cache as initial adds before live events; hasSynced after they are handled", async () => {
    const h = harness();
    const l1 = new TestListener();
    const r1 = h.informer.addEventHandler(l1);
    expect(r1.hasSynced()).toBe(false);
    await h.start();
    h.source.add(pod("pod1"));
    await h.flush();
    expect(l1.names()).toEqual(["pod1"]);
    expect(r1.hasSynced()).toBe(true);

    const gate = new DoneLatch("gate");
    const log: string[] = [];
    const r2 = h.informer.addEventHandler({
      async onAdd(o: Pod, initial: boolean) {
        await gate.done();
        log.push(`add:${o.metadata.name}:${initial}`);
      },
      onUpdate() {},
      onDelete() {},
    });
    expect(r2.hasSynced()).toBe(false);
    h.source.add(pod("pod2"));
    await h.flush();
    expect(r2.hasSynced()).toBe(false);
    gate.complete();
    await h.flush();
    expect(log).toEqual(["add:pod1:true", "add:pod2:false"]);
    expect(r2.hasSynced()).toBe(true);
    expect(await r2.hasSyncedChecker().done()).toBeUndefined();
    expect(l1.names()).toEqual(["pod1", "pod2"]);
  });

  it("a handler added before the informer synced becomes synced only after the informer", async () => {
    const h = harness();
    h.source.add(pod("a"));
    h.source.listError = new Error("not yet");
    h.source.watchListSupport = "invalid";
    await h.start();
    const l = new TestListener();
    const reg = h.informer.addEventHandler(l);
    await h.flush();
    expect(reg.hasSynced()).toBe(false);
    h.source.listError = undefined;
    await h.clock.step(2000);
    expect(h.informer.hasSynced()).toBe(true);
    expect(l.log).toEqual(["add:a:initial"]);
    expect(reg.hasSynced()).toBe(true);
  });
});

describe("edge 33: missed deletes", () => {
  for (const fifo of ["real-atomic", "real", "delta"] as const) {
    it(`a relist that drops X delivers OnDelete(DeletedFinalStateUnknown{key, lastKnown}) (${fifo})`, async () => {
      const h = harness({ fifo });
      const x = h.source.add(pod("x"));
      h.source.add(pod("y"));
      const ls = [new TestListener(), new TestListener()];
      const tombstones: DeletedFinalStateUnknown<Pod>[] = [];
      for (const l of ls) h.informer.addEventHandler(l);
      h.informer.addEventHandler({
        onAdd() {},
        onUpdate() {},
        onDelete(o) {
          if (isDeletedFinalStateUnknown<Pod>(o)) tombstones.push(o);
        },
      });
      await h.start();
      h.source.deleteDropWatch(x);
      h.source.resetWatch();
      await h.clock.step(2000);
      for (const l of ls) expect(l.log, JSON.stringify(h.informer.status())).toContain("delete:tombstone:x");
      expect(tombstones).toHaveLength(1);
      expect(tombstones[0]).toBeInstanceOf(DeletedFinalStateUnknown);
      expect(tombstones[0]?.key).toBe("x");
      expect(tombstones[0]?.obj?.metadata.resourceVersion).toBe(x.metadata.resourceVersion);
      expect(h.informer.getStore().listKeys()).toEqual(["y"]);
    });
  }
});

describe("edge 35: handler isolation", () => {
  it("a stalled handler blocks neither the store nor other handlers; per-handler order is the source order", async () => {
    const h = harness();
    await h.start();
    const gate = new DoneLatch("gate");
    const slowLog: string[] = [];
    stops.unshift(async () => gate.complete());
    const slow = h.informer.addEventHandlerWithOptions(
      {
        async onAdd(o: Pod) {
          await gate.done();
          slowLog.push(`add:${o.metadata.name}`);
        },
        async onUpdate(_o: Pod, n: Pod) {
          await gate.done();
          slowLog.push(`update:${n.metadata.name}:${n.metadata.resourceVersion}`);
        },
        async onDelete(o: Pod | DeletedFinalStateUnknown<Pod>) {
          await gate.done();
          slowLog.push(`delete:${nameOf(o)}`);
        },
      },
      { handlerName: "slow" },
    );
    const fast = new TestListener();
    h.informer.addEventHandler(fast);
    const expected: string[] = [];
    for (let i = 0; i < 100; i++) {
      const p = h.source.add(pod(`p${i % 10}-${Math.floor(i / 10)}`));
      expected.push(`add:${p.metadata.name}`);
      const m = h.source.modify(p);
      expected.push(`update:${m.metadata.name}:${m.metadata.resourceVersion}`);
    }
    await h.flush();
    expect(h.informer.getStore().listKeys()).toHaveLength(100);
    expect(fast.log).toHaveLength(200);
    expect(slowLog).toEqual([]);
    expect(slow.stats()).toMatchObject({ handlerName: "slow", inFlight: true, pendingNotifications: 199 });
    const status = h.informer.status();
    expect(status.handlers.map((s) => s.handlerName)).toEqual(["slow", "TestListener"]);
    expect(status.handlers[0]?.highWaterMark).toBe(199);
    gate.complete();
    await h.flush();
    expect(slowLog).toEqual(expected);
    expect(slow.stats()).toMatchObject({ pendingNotifications: 0, delivered: 200 });
  });
});

describe("edge 36: FilteringResourceEventHandler through an informer", () => {
  it("add/update/delete transitions by filter result", async () => {
    const h = harness();
    const inner = new TestListener();
    h.informer.addEventHandler(
      new FilteringResourceEventHandler<Pod>({
        filterFunc: (o) => !isDeletedFinalStateUnknown(o) && o.metadata.labels?.app === "web",
        handler: inner,
      }),
    );
    await h.start();
    let p = h.source.add(pod("a", { app: "db" })); // neither: nothing
    p = h.source.modify({ ...p, metadata: { ...p.metadata, labels: { app: "web" } } }); // only new: add
    p = h.source.modify({ ...p, metadata: { ...p.metadata, labels: { app: "web", v: "2" } } }); // both: update
    p = h.source.modify({ ...p, metadata: { ...p.metadata, labels: { app: "db" } } }); // only old: delete
    h.source.delete(p); // filtered out
    await h.flush();
    expect(inner.log).toEqual(["add:a", "update:a", "delete:a"]);
  });
});

describe("I11: handler errors", () => {
  it("a throwing handler is reported as an informer event and skipped; other handlers are unaffected", async () => {
    const h = harness();
    const events: SharedInformerEvent[] = [];
    h.informer.events$.subscribe((e) => events.push(e));
    const good = new TestListener();
    const seen: string[] = [];
    h.informer.addEventHandler(good);
    h.informer.addEventHandlerWithOptions(
      {
        onAdd(o: Pod) {
          if (o.metadata.name === "bad") throw new Error("handler bug");
          seen.push(o.metadata.name);
        },
        onUpdate() {},
        onDelete() {},
      },
      { handlerName: "flaky" },
    );
    await h.start();
    h.source.add(pod("bad"));
    h.source.add(pod("next"));
    await h.flush();
    expect(good.names()).toEqual(["bad", "next"]);
    expect(seen).toEqual([]);
    const err = events.find((e) => e.type === "handlerError");
    expect(err).toMatchObject({ type: "handlerError", handlerName: "flaky", notification: "add" });
    await h.clock.step(1000);
    expect(seen).toEqual(["next"]);
    expect(h.informer.status().handlers[1]).toMatchObject({ errors: 1, delivered: 1 });
  });

  it("informer-level onHandlerError is the default for every handler, overridable per handler", async () => {
    const h = harness({ onHandlerError: (e) => informerLevel.push(String(e)) });
    const informerLevel: string[] = [];
    const perHandler: string[] = [];
    const boom = {
      onAdd: () => {
        throw new Error("boom");
      },
      onUpdate() {},
      onDelete() {},
    };
    h.informer.addEventHandler(boom);
    h.informer.addEventHandlerWithOptions(boom, { onHandlerError: (e) => perHandler.push(String(e)) });
    h.source.add(pod("a"));
    await h.start();
    expect(informerLevel).toEqual(["Error: boom"]);
    expect(perHandler).toEqual(["Error: boom"]);
  });
  it("I11/C10: a FilteringResourceEventHandler around an async handler: its rejection reaches onHandlerError", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const errors: string[] = [];
      const h = harness();
      const filtered = new FilteringResourceEventHandler<Pod>({
        filterFunc: (o) => !isDeletedFinalStateUnknown(o) && o.metadata.labels?.app === "web",
        handler: {
          onAdd: async (o: Pod) => {
            throw new Error(`async add ${o.metadata.name}`);
          },
          onUpdate: async () => {},
          onDelete: async () => {},
        },
      });
      h.informer.addEventHandlerWithOptions(filtered, { onHandlerError: (e) => errors.push(String(e)) });
      h.source.add(pod("a", { app: "web" }));
      h.source.add(pod("b", { app: "db" }));
      await h.start();
      await h.clock.step(1000);
      await h.flush();
      expect(errors).toEqual(["Error: async add a"]);
      expect(h.informer.status().handlers[0]).toMatchObject({ errors: 1 });
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("I18: mutation detector", () => {
  it("freeze mode: a handler mutating a cached object fails at the mutation and is reported", async () => {
    const errors: unknown[] = [];
    const h = harness({ mutationDetector: { enabled: true, mode: "freeze" }, onHandlerError: (e) => errors.push(e) });
    h.source.add(pod("a", { app: "web" }));
    h.informer.addEventHandler({
      onAdd(o: Pod) {
        o.metadata.labels!.app = "hacked";
      },
      onUpdate() {},
      onDelete() {},
    });
    await h.start();
    expect(errors[0]).toBeInstanceOf(TypeError);
    expect(h.informer.getStore().getByKey("a")?.metadata.labels?.app).toBe("web");
  });

  it("check mode: a mutation is found by the periodic comparison on the informer's clock", async () => {
    const reports: string[] = [];
    const h = harness({
      mutationDetector: { enabled: true, mode: "check", onMutation: (r) => reports.push(r.mutations[0]!.path) },
    });
    h.source.add(pod("a", { app: "web" }));
    await h.start();
    h.informer.getStore().getByKey("a")!.metadata.labels!.app = "changed";
    await h.clock.step(1000);
    expect(reports).toEqual(["metadata.labels.app"]);
  });
});

describe("status, events and metrics", () => {
  it("status$ emits a snapshot, then on lifecycle and reflector changes; reflector and FIFO events pass through", async () => {
    const h = harness({ name: "pods" });
    const statuses: SharedInformerStatus[] = [];
    const reflectorEvents: string[] = [];
    h.informer.status$.subscribe((s) => statuses.push(s));
    h.informer.reflectorEvents$.subscribe((e) => reflectorEvents.push(e.type));
    h.informer.fifoEvents$.subscribe(() => {});
    h.informer.addEventHandler(new TestListener());
    h.source.add(pod("a"));
    await h.start();
    expect(statuses[0]).toMatchObject({ name: "pods", started: false, synced: false, reflector: undefined });
    const last = statuses[statuses.length - 1]!;
    expect(last).toMatchObject({ started: true, synced: true, storeSize: 1 });
    expect(last.reflector?.phase).toBe("watching");
    expect(last.reflector?.hasSynced).toBe(true);
    expect(h.informer.status().handlers).toHaveLength(1);
    expect(reflectorEvents).toContain("watch-list-done");
    let completed = false;
    h.informer.reflectorEvents$.subscribe({ complete: () => (completed = true) });
    await h.stop();
    expect(statuses[statuses.length - 1]).toMatchObject({ stopped: true });
    expect(completed).toBe(true);
    let lateCompleted = false;
    h.informer.status$.subscribe({ complete: () => (lateCompleted = true) });
    expect(lateCompleted).toBe(true);
  });

  it("a delta that cannot be processed (index function throws) is a processError event, and processing goes on", async () => {
    const h = harness({
      indexers: {
        bad: (o: Pod) => {
          if (o.metadata.name === "bad") throw new Error("index bug");
          return [];
        },
      },
    });
    const events: SharedInformerEvent[] = [];
    h.informer.events$.subscribe((e) => events.push(e));
    await h.start();
    h.source.add(pod("bad"));
    h.source.add(pod("good"));
    await h.flush();
    expect(events.filter((e) => e.type === "processError")).toHaveLength(1);
    expect(h.informer.getStore().listKeys()).toEqual(["good"]);
    expect(h.informer.status().processErrors).toBe(1);
  });

  it("§2b: informer metrics are published under the given labels", async () => {
    const metrics = new InMemoryMetrics();
    const labels = { name: "test", group: "", version: "v1", resource: "pods" };
    const h = harness({ metrics, metricLabels: labels });
    h.source.add(pod("a"));
    h.source.add(pod("b"));
    await h.start();
    expect(metrics.value("informer_store_resource_version", labels)).toBe(Number(h.source.resourceVersion));
    expect(metrics.value("informer_queued_items", labels)).toBe(0);
    expect(metrics.histogramValue("informer_processing_latency_seconds", labels).count).toBeGreaterThan(0);
  });
});

describe("FIFO modes", () => {
  for (const fifo of ["real-atomic", "real", "delta"] as const) {
    it(`the informer converges with fifo ${fifo}`, async () => {
      const h = harness({ fifo, resyncPeriod: 1000 });
      h.source.add(pod("a"));
      const b = h.source.add(pod("b"));
      const l = new TestListener(1000);
      h.informer.addEventHandlerWithResyncPeriod(l, 1000);
      await h.start();
      h.source.modify(pod("a"));
      h.source.delete(b);
      h.source.add(pod("c"));
      await h.clock.step(1000);
      expect(h.informer.getStore().listKeys().sort()).toEqual(["a", "c"]);
      expect(l.log).toContain("delete:b");
      expect(l.log.filter((e) => e === "update:a").length).toBeGreaterThanOrEqual(2); // a change and a resync
    });
  }
});

// ---- model-based property --------------------------------------------------------------------------------------

type Cmd =
  | { readonly op: "add" | "modify" | "delete"; readonly key: string; readonly drop: boolean }
  | { readonly op: "reset" | "close" | "addHandler" | "removeHandler" }
  | { readonly op: "step"; readonly ms: number };

const keyArb = fc.constantFrom("a", "b", "c", "d");
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ op: fc.constantFrom("add", "modify", "delete"), key: keyArb, drop: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom("reset", "close", "addHandler", "removeHandler") }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("step"), ms: fc.integer({ min: 0, max: 1500 }) }) },
) as fc.Arbitrary<Cmd>;

const rvOf = (o: Pod | DeletedFinalStateUnknown<Pod>): number =>
  Number((isDeletedFinalStateUnknown<Pod>(o) ? o.obj?.metadata.resourceVersion : o.metadata.resourceVersion) ?? -1);
const keyOf = (o: Pod | DeletedFinalStateUnknown<Pod>): string =>
  isDeletedFinalStateUnknown<Pod>(o) ? o.key : o.metadata.name;

/**
 * Checks, per key, that a handler's notifications follow the source: RVs never go backwards, an update's old
 * object is what the handler last saw, and the handler's view ends equal to the source.
 */
class ModelHandler implements ResourceEventHandler<Pod> {
  readonly view = new Map<string, number>();
  readonly lastRV = new Map<string, number>();
  readonly violations: string[] = [];
  constructor(private readonly delay?: { clock: FakeClock; rand: () => number }) {}
  private pause(): Promise<void> | undefined {
    if (this.delay === undefined) return undefined;
    return this.delay.clock.sleep(Math.floor(this.delay.rand() * 100));
  }
  private see(key: string, rv: number, what: string): void {
    const last = this.lastRV.get(key) ?? -1;
    if (rv < last) this.violations.push(`${what} ${key}@${rv} after @${last}`);
    this.lastRV.set(key, rv);
  }
  onAdd(obj: Pod): Promise<void> | undefined {
    this.see(obj.metadata.name, rvOf(obj), "add");
    this.view.set(obj.metadata.name, rvOf(obj));
    return this.pause();
  }
  onUpdate(old: Pod, obj: Pod): Promise<void> | undefined {
    const key = obj.metadata.name;
    if (this.view.get(key) !== rvOf(old))
      this.violations.push(`update ${key}: old @${rvOf(old)} but saw @${this.view.get(key)}`);
    this.see(key, rvOf(obj), "update");
    this.view.set(key, rvOf(obj));
    return this.pause();
  }
  onDelete(obj: Pod | DeletedFinalStateUnknown<Pod>): Promise<void> | undefined {
    const key = keyOf(obj);
    const seen = this.view.get(key);
    if (seen !== undefined && rvOf(obj) !== -1 && rvOf(obj) < seen)
      this.violations.push(`delete ${key}@${rvOf(obj)} < @${seen}`);
    if (rvOf(obj) !== -1) this.see(key, rvOf(obj), "delete");
    this.view.delete(key);
    return this.pause();
  }
}

describe("property: handlers and the indexer converge on the source", () => {
  test.prop(
    [
      fc.array(cmdArb, { minLength: 5, maxLength: 60, size: "large" }),
      fc.constantFrom<InformerFifoMode>("real-atomic", "real", "delta"),
      fc.constantFrom(0, 1000),
      fc.integer({ min: 1, max: 1_000_000 }),
    ],
    { numRuns: 40 },
  )(
    "every handler sees each key's changes in source order and ends equal to the source",
    async (cmds, fifo, resync, seed) => {
      const h = harness({ fifo, resyncPeriod: resync }, seed);
      const rand = seededRand(seed + 7);
      const sourceView = () => new Map([...h.source.items].map(([k, o]) => [k, Number(o.metadata.resourceVersion)]));
      const handlers: { model: ModelHandler; reg: ResourceEventHandlerRegistration; removed: boolean }[] = [];
      const addHandler = (slow: boolean) => {
        const model = new ModelHandler(slow ? { clock: h.clock, rand: () => rand.float() } : undefined);
        handlers.push({ model, reg: h.informer.addEventHandlerWithResyncPeriod(model, resync), removed: false });
      };
      addHandler(false);
      addHandler(true);
      h.source.add(pod("a"));
      h.source.add(pod("b"));
      await h.start();
      for (const c of cmds) {
        switch (c.op) {
          case "add":
          case "modify":
          case "delete": {
            const existing = h.source.items.get(c.key);
            const p = (c.drop ? 0 : 1) as 0 | 1;
            if (existing === undefined) h.source.change("ADDED", pod(c.key), p);
            else if (c.op === "delete") h.source.change("DELETED", existing, p);
            else h.source.change("MODIFIED", existing, p);
            break;
          }
          case "reset":
            h.source.resetWatch();
            break;
          case "close":
            h.source.closeWatches();
            break;
          case "addHandler":
            addHandler(rand.float() < 0.5);
            break;
          case "removeHandler": {
            const live = handlers.filter((x) => !x.removed);
            const victim = live[Math.floor(rand.float() * live.length)];
            if (victim !== undefined && live.length > 1) {
              h.informer.removeEventHandler(victim.reg);
              victim.removed = true;
            }
            break;
          }
          case "step":
            await h.clock.step(c.ms);
            break;
        }
        await settle();
      }
      // Force a relist so that dropped changes are seen (the next watch gets 410), then let every handler drain.
      h.source.failNextWatch(newResourceExpired("too old resource version"));
      h.source.closeWatches();
      const expected = sourceView();
      const converged = () => {
        const store = new Map(
          h.informer
            .getStore()
            .list()
            .map((o) => [o.metadata.name, rvOf(o)]),
        );
        if (!sameMap(store, expected)) return false;
        return handlers.every(
          (x) =>
            x.removed ||
            (sameMap(x.model.view, expected) && x.reg.stats().pendingNotifications === 0 && !x.reg.stats().inFlight),
        );
      };
      for (let i = 0; i < 60 && !converged(); i++) await h.clock.step(1000);
      const store = new Map(
        h.informer
          .getStore()
          .list()
          .map((o) => [o.metadata.name, rvOf(o)]),
      );
      expect(store).toEqual(expected);
      for (const x of handlers) {
        expect(x.model.violations).toEqual([]);
        if (x.removed) continue;
        expect(x.model.view).toEqual(expected);
        expect(x.reg.hasSynced()).toBe(true);
      }
      await h.stop();
    },
  );
});

function sameMap(a: Map<string, number>, b: Map<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
