import { FakeClock, settle } from "@informer-ts/clock";
import { EventStream } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  handlerErrorBackoffMs,
  initialBufferSize,
  type ListenerEvent,
  type ListenerHandler,
  type Notification,
  ProcessorListener,
} from "./processor-listener.js";
import { DoneLatch } from "./synctrack.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";

type Obj = { metadata: { name: string; resourceVersion?: string } };
const obj = (name: string, rv = "1"): Obj => ({ metadata: { name, resourceVersion: rv } });

/** Records every callback as a string. */
class Recorder implements ListenerHandler<Obj> {
  readonly calls: string[] = [];
  onAdd(o: Obj, initial: boolean): void {
    this.calls.push(`add:${o.metadata.name}${initial ? ":initial" : ""}`);
  }
  onUpdate(_old: Obj, o: Obj): void {
    this.calls.push(`update:${o.metadata.name}`);
  }
  onDelete(o: Obj | DeletedFinalStateUnknown<Obj>): void {
    this.calls.push(`delete:${o instanceof DeletedFinalStateUnknown ? `tombstone:${o.key}` : o.metadata.name}`);
  }
}

const add = (name: string, isInInitialList = false): Notification<Obj> => ({
  type: "add",
  newObj: obj(name),
  isInInitialList,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("I10: processorListener delivery", () => {
  it("delivers add/update/delete in order, one callback at a time, and buffers before run", async () => {
    const rec = new Recorder();
    const l = new ProcessorListener(rec, { clock: new FakeClock() });
    l.add(add("a"));
    l.add({ type: "update", oldObj: obj("a"), newObj: obj("a", "2") });
    l.add({ type: "delete", oldObj: new DeletedFinalStateUnknown("ns/a", obj("a")) });
    await settle();
    expect(rec.calls).toEqual([]);
    expect(l.pendingNotifications).toBe(3);
    l.run();
    await settle();
    expect(rec.calls).toEqual(["add:a", "update:a", "delete:tombstone:ns/a"]);
    expect(l.stats()).toMatchObject({ pendingNotifications: 0, highWaterMark: 3, delivered: 3, errors: 0 });
  });

  it("awaits an async callback before the next one (sequential per handler)", async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    let active = 0;
    const handler: ListenerHandler<Obj> = {
      async onAdd(o) {
        active++;
        expect(active).toBe(1);
        log.push(`start:${o.metadata.name}`);
        await clock.sleep(100);
        log.push(`end:${o.metadata.name}`);
        active--;
      },
      onUpdate() {},
      onDelete() {},
    };
    const l = new ProcessorListener(handler, { clock });
    l.run();
    for (const n of ["a", "b", "c"]) l.add(add(n));
    await settle();
    expect(log).toEqual(["start:a"]);
    expect(l.stats().inFlight).toBe(true);
    await clock.step(100);
    expect(log).toEqual(["start:a", "end:a", "start:b"]);
    await clock.runUntilIdle();
    expect(log).toEqual(["start:a", "end:a", "start:b", "end:b", "start:c", "end:c"]);
  });

  it("edge 35: a stalled handler does not hold up another listener", async () => {
    const clock = new FakeClock();
    const stalled = new DoneLatch("never");
    const slow: ListenerHandler<Obj> = { onAdd: () => stalled.done(), onUpdate() {}, onDelete() {} };
    const fast = new Recorder();
    const ls = new ProcessorListener(slow, { clock });
    const lf = new ProcessorListener(fast, { clock });
    ls.run();
    lf.run();
    for (let i = 0; i < 50; i++) {
      ls.add(add(`o${i}`));
      lf.add(add(`o${i}`));
    }
    await settle();
    expect(fast.calls).toHaveLength(50);
    expect(ls.pendingNotifications).toBe(49);
    stalled.complete();
    await settle();
    expect(ls.pendingNotifications).toBe(0);
  });

  it("the buffer grows without bound while stalled and shrinks back once drained", async () => {
    const rec = new Recorder();
    const l = new ProcessorListener(rec, { clock: new FakeClock(), initialBufferSize: 8 });
    const n = 5000;
    for (let i = 0; i < n; i++) l.add(add(`o${i}`));
    expect(l.stats().bufferCapacity).toBeGreaterThanOrEqual(n);
    expect(l.highWaterMark).toBe(n);
    l.run();
    await settle();
    expect(rec.calls).toHaveLength(n);
    expect(rec.calls[0]).toBe("add:o0");
    expect(rec.calls[n - 1]).toBe(`add:o${n - 1}`);
    expect(l.stats()).toMatchObject({ pendingNotifications: 0, highWaterMark: n, bufferCapacity: 8 });
  });

  it("I1: uses client-go's initial buffer size (1024) by default", () => {
    const l = new ProcessorListener(new Recorder());
    expect(l.stats().bufferCapacity).toBe(initialBufferSize);
    expect(() => new ProcessorListener(new Recorder(), { initialBufferSize: 0 })).toThrow(/initialBufferSize/);
  });

  it("rejects a handler that is not an object or whose callbacks are not functions; any subset is fine", async () => {
    expect(() => new ProcessorListener({ onUpdate: 1 } as unknown as ListenerHandler<Obj>)).toThrow(
      "event handler onUpdate is not a function: 1",
    );
    expect(() => new ProcessorListener(null as unknown as ListenerHandler<Obj>)).toThrow(TypeError);
    const adds: string[] = [];
    const l = new ProcessorListener<Obj>({ onAdd: (o) => adds.push(o.metadata.name) }, { clock: new FakeClock() });
    l.run();
    l.add(add("a"));
    l.add({ type: "update", oldObj: { metadata: { name: "a" } }, newObj: { metadata: { name: "a" } } } as never);
    l.add({ type: "delete", oldObj: { metadata: { name: "a" } } } as never);
    l.add(add("b"));
    await settle();
    expect(adds).toEqual(["a", "b"]);
    expect(l.stats()).toMatchObject({ delivered: 4, errors: 0 });
    l.stop();
  });

  it("names handlers after their class, or by option", () => {
    expect(new ProcessorListener(new Recorder()).handlerName).toBe("Recorder");
    expect(new ProcessorListener(new Recorder(), { handlerName: "mine" }).handlerName).toBe("mine");
    expect(new ProcessorListener({ onAdd() {}, onUpdate() {}, onDelete() {} }).handlerName).toMatch(/^handler#\d+$/);
  });
});

describe("I14 / edge 34: stopping a listener", () => {
  it("drops buffered notifications; only the in-flight callback completes; later adds are ignored", async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    const handler: ListenerHandler<Obj> = {
      async onAdd(o) {
        log.push(`start:${o.metadata.name}`);
        await clock.sleep(10);
        log.push(`end:${o.metadata.name}`);
      },
      onUpdate() {},
      onDelete() {},
    };
    const l = new ProcessorListener(handler, { clock });
    l.run();
    for (const n of ["a", "b", "c"]) l.add(add(n));
    await settle();
    let shutdown = false;
    void l.shutdownDone().then(() => {
      shutdown = true;
    });
    l.stop();
    l.stop();
    l.add(add("d"));
    expect(l.pendingNotifications).toBe(0);
    await settle();
    expect(shutdown).toBe(false);
    await clock.runUntilIdle();
    expect(log).toEqual(["start:a", "end:a"]);
    expect(shutdown).toBe(true);
    expect(l.stats().stopped).toBe(true);
  });

  it("shutdownDone of a listener that never ran resolves when it is stopped", async () => {
    const l = new ProcessorListener(new Recorder());
    let done = false;
    void l.shutdownDone().then(() => {
      done = true;
    });
    await settle();
    expect(done).toBe(false);
    l.stop();
    await settle();
    expect(done).toBe(true);
    await l.shutdownDone();
  });
});

describe("I11: handler errors", () => {
  const throwingOn = (bad: string, rec: Recorder, reject = false): ListenerHandler<Obj> => ({
    onAdd(o, initial) {
      if (o.metadata.name === bad) {
        if (reject) return Promise.reject(new Error(`boom ${bad}`));
        throw new Error(`boom ${bad}`);
      }
      rec.onAdd(o, initial);
      return undefined;
    },
    onUpdate: (a, b) => rec.onUpdate(a, b),
    onDelete: (o) => rec.onDelete(o),
  });

  for (const reject of [false, true]) {
    it(`a ${reject ? "rejecting" : "throwing"} handler is reported as an event, skipped, and the next item waits 1 s`, async () => {
      const clock = new FakeClock();
      const rec = new Recorder();
      const events = new EventStream<ListenerEvent>();
      const seen: ListenerEvent[] = [];
      events.events$.subscribe((e) => seen.push(e));
      const l = new ProcessorListener(throwingOn("b", rec, reject), { clock, events, handlerName: "h" });
      l.run();
      for (const n of ["a", "b", "c"]) l.add(add(n));
      await settle();
      expect(rec.calls).toEqual(["add:a"]);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ type: "handlerError", handlerName: "h", notification: "add" });
      expect(String((seen[0] as { error: unknown }).error)).toContain("boom b");
      await clock.step(handlerErrorBackoffMs - 1);
      expect(rec.calls).toEqual(["add:a"]);
      await clock.step(1);
      expect(rec.calls).toEqual(["add:a", "add:c"]);
      expect(l.stats()).toMatchObject({ delivered: 2, errors: 1 });
    });
  }

  it("without onHandlerError or a subscriber the error is logged (never an unhandled rejection)", async () => {
    const warn = vi.fn();
    const rec = new Recorder();
    const l = new ProcessorListener(throwingOn("a", rec), {
      clock: new FakeClock(),
      handlerName: "w",
      logger: { log: (_level, message) => warn(message) },
    });
    l.run();
    l.add(add("a"));
    await settle();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/event handler w failed on add.*boom a/s);
  });

  it("onHandlerError receives the error and the notification; if it throws, that is logged", async () => {
    const warn = vi.fn();
    const got: unknown[] = [];
    const l = new ProcessorListener(throwingOn("a", new Recorder()), {
      logger: { log: (_level, message) => warn(message) },
      clock: new FakeClock(),
      handlerName: "cb",
      onHandlerError: (err, info) => {
        got.push(err, info.handlerName, info.notification.type);
        throw new Error("callback broke");
      },
    });
    l.run();
    l.add(add("a"));
    await settle();
    expect(String(got[0])).toContain("boom a");
    expect(got.slice(1)).toEqual(["cb", "add"]);
    expect(String(warn.mock.calls[0]?.[0])).toContain("callback broke");
  });

  it("crashOnHandlerError (client-go ReallyCrash) crashes via the hook and stops delivering", async () => {
    const crashed: unknown[] = [];
    const rec = new Recorder();
    const l = new ProcessorListener(throwingOn("a", rec), {
      clock: new FakeClock(),
      crashOnHandlerError: true,
      crash: (e) => crashed.push(e),
      onHandlerError: () => {},
    });
    l.run();
    l.add(add("a"));
    l.add(add("b"));
    await settle();
    expect(crashed).toHaveLength(1);
    expect(rec.calls).toEqual([]);
    expect(l.isStopped).toBe(true);
  });

  it("stopping during the post-error pause drops the rest", async () => {
    const clock = new FakeClock();
    const rec = new Recorder();
    const l = new ProcessorListener(throwingOn("a", rec), { clock, onHandlerError: () => {} });
    l.run();
    l.add(add("a"));
    l.add(add("b"));
    await settle();
    l.stop();
    await clock.runUntilIdle();
    await l.shutdownDone();
    expect(rec.calls).toEqual([]);
  });
});

describe("I12: per-registration hasSynced", () => {
  it("is synced only after upstream synced and every initial-list onAdd returned", async () => {
    const clock = new FakeClock();
    const upstream = new DoneLatch("informer");
    const handler: ListenerHandler<Obj> = {
      onAdd: () => clock.sleep(10),
      onUpdate() {},
      onDelete() {},
    };
    const l = new ProcessorListener(handler, { clock, upstreamHasSynced: upstream });
    l.add(add("a", true));
    l.add(add("b", true));
    l.add(add("c", false));
    l.watchSynced();
    l.run();
    await settle();
    expect(l.hasSynced()).toBe(false);
    upstream.complete();
    await settle();
    expect(l.hasSynced()).toBe(false);
    await clock.step(10);
    expect(l.hasSynced()).toBe(false);
    await clock.step(10);
    expect(l.hasSynced()).toBe(true);
    expect(l.hasSyncedChecker().name()).toContain("informer + event handler");
  });

  it("a failing initial onAdd still counts as handled (differs from client-go, which would never sync)", async () => {
    const upstream = new DoneLatch("informer");
    upstream.complete();
    const l = new ProcessorListener<Obj>(
      {
        onAdd: () => {
          throw new Error("nope");
        },
        onUpdate() {},
        onDelete() {},
      },
      { clock: new FakeClock(), upstreamHasSynced: upstream, onHandlerError: () => {} },
    );
    l.add(add("a", true));
    l.watchSynced();
    expect(l.hasSynced()).toBe(false);
    l.run();
    await settle();
    expect(l.hasSynced()).toBe(true);
  });

  it("a listener stopped before upstream syncs never becomes synced", async () => {
    const upstream = new DoneLatch("informer");
    const l = new ProcessorListener(new Recorder(), { upstreamHasSynced: upstream });
    l.watchSynced();
    l.stop();
    upstream.complete();
    await settle();
    expect(l.hasSynced()).toBe(false);
  });
});

describe("I9: listener resync bookkeeping", () => {
  it("shouldResync is due at now >= nextResync, never for period 0", () => {
    const clock = new FakeClock(0);
    const l = new ProcessorListener(new Recorder(), { clock, resyncPeriod: 1000, requestedResyncPeriod: 1000 });
    expect(l.shouldResync(999)).toBe(false);
    expect(l.shouldResync(1000)).toBe(true);
    l.determineNextResync(1000);
    expect(l.shouldResync(1999)).toBe(false);
    l.setResyncPeriod(0);
    expect(l.shouldResync(5000)).toBe(false);
  });
});
