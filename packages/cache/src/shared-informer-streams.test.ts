import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, realClock, seededRand, settle } from "@informer-ts/clock";
import { InMemoryMetrics, subscriberErrorsMetricName } from "@informer-ts/instrumentation";
import { filter, firstValueFrom, type Observable, toArray } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { takeEscapedRxjsErrors } from "../../../test/setup/rxjs-unhandled.js";
import { ListenerOverflowError } from "./listener-overflow-error.js";
import { silentLogger } from "./reflector/logger.js";
import { Reflector } from "./reflector/reflector.js";
import {
  type InformerNotification,
  newSharedIndexInformer,
  type SharedIndexInformer,
  type SharedIndexInformerOptions,
  type SharedInformerEvent,
} from "./shared-informer.js";
import { newStore } from "./store-impl.js";
import { FakeControllerSource } from "./testing/fake-controller-source.js";
import { runUntilSettled } from "./testing/run-until-settled.js";
import { RealFIFO } from "./the-real-fifo.js";
import { isDeletedFinalStateUnknown } from "./tombstone.js";
import { watcher } from "./watcher.js";

interface Pod extends KubeObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

const pod = (name: string): Pod => ({ metadata: { name, namespace: "ns" } });

function setup(options: SharedIndexInformerOptions<Pod> = {}, clock = new FakeClock(0)) {
  const source = new FakeControllerSource<Pod>({ clock, rand: seededRand(7) });
  const metrics = new InMemoryMetrics();
  const informer = newSharedIndexInformer<Pod>(source, undefined, {
    clock,
    rand: seededRand(8),
    name: "pods",
    reflector: { logger: silentLogger },
    logger: silentLogger,
    metrics,
    metricLabels: { name: "pods", group: "", version: "v1", resource: "pods" },
    ...options,
  });
  return { clock, source, informer, metrics, ac: new AbortController() };
}

/** How many listeners the informer's processor holds (one per registration, one for the shared subscriptions). */
function listenerCount(informer: SharedIndexInformer<Pod>): number {
  return (informer as unknown as { sharedProcessor: { size: number } }).sharedProcessor.size;
}

/** Applies a notification stream to a map, checking the order rules a consumer relies on. */
function applyTo(state: Map<string, string>, n: InformerNotification<Pod>): void {
  if (n.type === "relist") {
    state.clear();
  } else if (n.type === "add") {
    expect(state.has(n.newObj.metadata.name)).toBe(false);
    state.set(n.newObj.metadata.name, n.newObj.metadata.resourceVersion ?? "");
  } else if (n.type === "update") {
    expect(state.get(n.oldObj.metadata.name)).toBe(n.oldObj.metadata.resourceVersion);
    state.set(n.newObj.metadata.name, n.newObj.metadata.resourceVersion ?? "");
  } else if (n.type === "delete") {
    const name = isDeletedFinalStateUnknown<Pod>(n.oldObj) ? n.oldObj.key.split("/")[1]! : n.oldObj.metadata.name;
    expect(state.delete(name)).toBe(true);
  }
}

describe("no subscriber can crash the host (issue 9 item 4)", () => {
  const streams = (i: SharedIndexInformer<Pod>): Array<[string, Observable<unknown>]> => [
    ["status$", i.status$],
    ["synced$", i.synced$],
    ["events$", i.events$],
    ["reflectorEvents$", i.reflectorEvents$],
    ["fifoEvents$", i.fifoEvents$],
    ["notifications$", i.notifications$({ name: "n" })],
  ];

  it("FakeClock: a throwing subscriber on every informer stream is reported; the others are still served", async () => {
    const { clock, source, informer, metrics, ac } = setup();
    source.add(pod("a"));
    const served = new Map<string, number>();
    const events: SharedInformerEvent[] = [];
    informer.events$.subscribe((e) => events.push(e));
    for (const [name, stream] of streams(informer)) {
      stream.subscribe(() => {
        throw new Error(`bug in ${name} consumer`);
      });
      stream.subscribe(() => served.set(name, (served.get(name) ?? 0) + 1));
      // A subscriber without an error callback on a stream that completes: nothing to report.
      stream.pipe(filter(() => true)).subscribe({ complete: () => served.set(`${name}:complete`, 1) });
    }
    const running = informer.run(ac.signal);
    await clock.step(0);
    await settle();
    source.add(pod("b"));
    await clock.step(0);
    await settle();
    ac.abort();
    await runUntilSettled(clock, running);

    expect(takeEscapedRxjsErrors()).toEqual([]);
    for (const name of ["status$", "synced$", "events$", "reflectorEvents$", "notifications$"]) {
      expect(served.get(name), name).toBeGreaterThan(0);
    }
    // Every stream completes on stop, the guarded ones too.
    for (const [name] of streams(informer)) expect(served.get(`${name}:complete`), name).toBe(1);
    const reported = events.filter((e) => e.type === "subscriberError");
    expect(new Set(reported.map((e) => (e.type === "subscriberError" ? e.stream : "")))).toEqual(
      new Set([
        // events$'s own consumer threw on an ordinary event: published once; its throw on that report is only
        // counted and logged (no loop).
        "informer pods events$",
        "informer pods status$",
        "informer pods synced$",
        "informer pods reflectorEvents$",
        "informer pods notifications$ n",
      ]),
    );
    // The events$ consumer's own throws cannot be published on events$ without looping: they are counted.
    expect(metrics.value(subscriberErrorsMetricName, { stream: "informer pods events$", callback: "next" })).toBe(
      served.get("events$"),
    );
  });

  it("real time: a throwing status$, events$ and notifications$ subscriber does not reach uncaughtException", async () => {
    const { source, informer, ac } = setup({}, realClock as unknown as FakeClock);
    source.add(pod("a"));
    for (const [, stream] of streams(informer)) {
      stream.subscribe(() => {
        throw new Error("consumer bug");
      });
    }
    const seen: string[] = [];
    informer.notifications$().subscribe((n) => seen.push(n.type));
    const running = informer.run(ac.signal);
    await firstValueFrom(informer.synced$.pipe(filter(Boolean)));
    ac.abort();
    await running;
    expect(takeEscapedRxjsErrors()).toEqual([]);
    expect(seen).toContain("add");
    expect(seen).toContain("synced");
  });
});

describe("the building blocks' streams are read-only and safe too", () => {
  it("RealFIFO.events$: no emit on it; a throwing subscriber is reported and the others are served", async () => {
    const f = new RealFIFO<Pod>({
      knownObjects: {
        listKeys: () => ["ns/gone"],
        getByKey: () => undefined,
      },
    });
    expect("emit" in f.events$).toBe(false);
    const seen: string[] = [];
    f.events$.subscribe(() => {
      throw new Error("consumer bug");
    });
    f.events$.subscribe((e) => seen.push(e.type));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    f.replace([], "1");
    expect(seen).toEqual(["knownObjectLookup"]);
    expect(errors.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringContaining("a subscriber of fifo events$ threw in next"),
    ]);
    errors.mockRestore();
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });

  it("Reflector.events$ (FakeClock): a throwing subscriber never reaches uncaughtException", async () => {
    const clock = new FakeClock(0);
    const source = new FakeControllerSource<Pod>({ clock, rand: seededRand(3) });
    source.add(pod("a"));
    const r = new Reflector<Pod>(
      source,
      undefined,
      newStore<Pod>((o) => (o as Pod).metadata.name),
      {
        clock,
        rand: seededRand(4),
        logger: silentLogger,
      },
    );
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const seen: string[] = [];
    r.events$.subscribe(() => {
      throw new Error("consumer bug");
    });
    r.events$.subscribe((e) => seen.push(e.type));
    const ac = new AbortController();
    const done = r.run(ac.signal);
    await clock.step(0);
    await settle();
    source.add(pod("b"));
    await clock.step(0);
    await settle();
    ac.abort();
    await runUntilSettled(clock, done);
    errors.mockRestore();
    expect(seen.length).toBeGreaterThan(0);
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });
});

describe("watcher() is safe too", () => {
  it("a throwing consumer keeps receiving, is logged, never reaches uncaughtException; piped consumers too", async () => {
    const clock = new FakeClock(0);
    const source = new FakeControllerSource<Pod>({ clock, rand: seededRand(5) });
    source.add(pod("a"));
    const logged: string[] = [];
    const stream = watcher(source, {
      clock,
      rand: seededRand(6),
      name: "pods",
      useWatchList: false,
      logger: { log: (_level, message) => logged.push(message) },
    });
    const seen: string[] = [];
    const sub = stream.subscribe((e) => {
      seen.push(e.type);
      throw new Error("consumer bug");
    });
    const piped = stream.pipe(filter((e) => e.type === "apply")).subscribe(() => {
      throw new Error("piped consumer bug");
    });
    await clock.step(0);
    await settle();
    source.add(pod("b"));
    await clock.step(0);
    await settle();
    sub.unsubscribe();
    piped.unsubscribe();
    expect(seen).toEqual(["init", "initApply", "initDone", "apply"]);
    expect(logged.filter((m) => m === "a subscriber of watcher pods threw in next")).toHaveLength(5);
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });
});

describe("notifications$ (issue 9 items 2 and 5)", () => {
  it("each subscription is a registration: initial list with isInInitialList, synced, changes, tombstones", async () => {
    const { clock, source, informer, ac } = setup();
    source.add(pod("a"));
    source.add(pod("b"));
    const got: string[] = [];
    const state = new Map<string, string>();
    const sub = informer.notifications$({ name: "early" }).subscribe((n) => {
      applyTo(state, n);
      got.push(n.type === "add" ? `add:${n.newObj.metadata.name}:${n.isInInitialList}` : n.type);
    });
    expect(informer.status().handlers.map((h) => h.handlerName)).toEqual(["early"]);
    const running = informer.run(ac.signal);
    await clock.step(0);
    await settle();
    expect(got).toEqual(["add:a:true", "add:b:true", "synced"]);
    const b = source.modify({ ...pod("b") });
    source.delete(b);
    await clock.step(0);
    await settle();
    expect(got.slice(3)).toEqual(["update", "delete"]);
    expect([...state.keys()]).toEqual(["a"]);

    // A late subscriber first gets the cache, then its own synced marker.
    const late: string[] = [];
    const lateSub = informer
      .notifications$({ name: "late" })
      .subscribe((n) => late.push(n.type === "add" ? `add:${n.newObj.metadata.name}:${n.isInInitialList}` : n.type));
    await settle();
    expect(late).toEqual(["add:a:true", "synced"]);
    expect(informer.status().handlers.map((h) => h.handlerName)).toEqual(["early", "late"]);
    lateSub.unsubscribe();
    expect(informer.status().handlers.map((h) => h.handlerName)).toEqual(["early"]);

    const completion = firstValueFrom(informer.notifications$().pipe(toArray()));
    ac.abort();
    await runUntilSettled(clock, running);
    await expect(completion).resolves.toEqual([
      { type: "add", newObj: expect.anything(), isInInitialList: true },
      { type: "synced" },
    ]);
    sub.unsubscribe();
    // Subscribing to a stopped informer completes at once.
    await expect(firstValueFrom(informer.notifications$().pipe(toArray()))).resolves.toEqual([]);
  });

  it("bounded, policy error: the subscription fails with a typed ListenerOverflowError and an event", async () => {
    const { clock, source, informer, ac, metrics } = setup();
    for (let i = 0; i < 5; i++) source.add(pod(`p${i}`));
    const events: SharedInformerEvent[] = [];
    informer.events$.subscribe((e) => events.push(e));
    let error: unknown;
    const seen: string[] = [];
    informer.notifications$({ name: "small", maxPending: 2 }).subscribe({
      next: (n) => seen.push(n.type),
      error: (e) => (error = e),
    });
    const running = informer.run(ac.signal);
    await clock.step(0);
    await settle();
    expect(error).toBeInstanceOf(ListenerOverflowError);
    expect((error as ListenerOverflowError).message).toContain("more than 2 notifications waiting");
    expect(events.filter((e) => e.type === "listenerOverflow")).toEqual([
      { type: "listenerOverflow", handlerName: "small", pendingNotifications: 2, policy: "error" },
    ]);
    expect(informer.status().handlers).toEqual([]);
    expect(
      metrics.value("informer_listener_pending_notifications", {
        name: "pods",
        group: "",
        version: "v1",
        resource: "pods",
        handler: "small",
      }),
    ).toBe(0);
    ac.abort();
    await runUntilSettled(clock, running);
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });

  it("bounded, policy relist: drops the buffer, emits relist, replays the cache and syncs again", async () => {
    const { clock, source, informer, ac } = setup();
    const old = Array.from({ length: 5 }, (_, i) => source.add(pod(`old${i}`)));
    const running = informer.run(ac.signal);
    await clock.step(0);
    await settle();
    const state = new Map<string, string>();
    const types: string[] = [];
    informer.notifications$({ name: "r", maxPending: 8, overflow: "relist" }).subscribe((n) => {
      applyTo(state, n);
      types.push(n.type);
    });
    await settle();
    expect(types).toEqual(["add", "add", "add", "add", "add", "synced"]);
    // Replace every object behind the watch's back: the relist delivers 5 deletes + 5 adds in one turn (> 8).
    for (const o of old) source.deleteDropWatch(o);
    for (let i = 0; i < 5; i++) source.addDropWatch(pod(`new${i}`));
    source.resetWatch();
    await runUntilSettled(
      clock,
      firstValueFrom(informer.status$.pipe(filter(() => informer.getStore().listKeys().includes("ns/new4")))),
    );
    await settle();
    expect(types.slice(6)).toContain("relist");
    expect(types.at(-1)).toBe("synced");
    expect([...state.keys()].sort()).toEqual(["new0", "new1", "new2", "new3", "new4"]);
    ac.abort();
    await runUntilSettled(clock, running);
  });

  it("informer_listener_pending_notifications shows each handler's lag, and drops back as it drains", async () => {
    const { clock, source, informer, ac, metrics } = setup();
    for (let i = 0; i < 5; i++) source.add(pod(`p${i}`));
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    informer.addEventHandlerWithOptions({ onAdd: () => gate }, { handlerName: "slow" });
    const lag = () =>
      metrics.value("informer_listener_pending_notifications", {
        name: "pods",
        group: "",
        version: "v1",
        resource: "pods",
        handler: "slow",
      });
    const running = informer.run(ac.signal);
    await clock.step(0);
    await settle();
    expect(lag()).toBe(4); // one add in flight, four waiting
    release();
    await settle();
    expect(lag()).toBe(0);
    ac.abort();
    await runUntilSettled(clock, running);
  });

  it("subscriptions made before run share one listener: each gets what a handler of its own gets (issue 25)", async () => {
    const { clock, source, informer, ac } = setup();
    source.add(pod("a"));
    source.add(pod("b"));
    const describe = (n: InformerNotification<Pod>) =>
      n.type === "add"
        ? `add:${n.newObj.metadata.name}:${n.isInInitialList}`
        : n.type === "update"
          ? `update:${n.newObj.metadata.name}`
          : n.type === "delete"
            ? `delete:${isDeletedFinalStateUnknown<Pod>(n.oldObj) ? n.oldObj.key : n.oldObj.metadata.name}`
            : n.type;
    const viaHandler: string[] = [];
    const handler = informer.addEventHandlerWithOptions(
      {
        onAdd: (o, initial) => viaHandler.push(`add:${o.metadata.name}:${initial}`),
        onUpdate: (_o, o) => viaHandler.push(`update:${o.metadata.name}`),
        onDelete: (o) => viaHandler.push(`delete:${isDeletedFinalStateUnknown<Pod>(o) ? o.key : o.metadata.name}`),
      },
      { handlerName: "handler" },
    );
    const got: string[][] = [[], [], []];
    let third: { unsubscribe(): void } | undefined;
    const subs = [0, 1, 2].map((i) =>
      informer.notifications$({ name: `s${i}` }).subscribe((n) => {
        got[i]!.push(describe(n));
        // The first subscriber drops the third one in the middle of a delivery to the three.
        if (i === 0 && n.type === "update" && n.newObj.metadata.name === "b") third?.unsubscribe();
      }),
    );
    third = subs[2];
    // One listener for the three, the status still lists each by name.
    expect(listenerCount(informer)).toBe(2);
    expect(informer.status().handlers.map((h) => h.handlerName)).toEqual(["handler", "s0", "s1", "s2"]);
    const running = informer.run(ac.signal);
    await clock.step(0);
    await settle();
    expect(handler.hasSynced()).toBe(true);
    const a = source.modify(pod("a"));
    source.modify(pod("b"));
    source.add(pod("c"));
    source.delete(a);
    await clock.step(0);
    await settle();
    const expected = viaHandler.slice();
    expect(expected).toEqual(["add:a:true", "add:b:true", "update:a", "update:b", "add:c:false", "delete:a"]);
    const withSynced = [...expected.slice(0, 2), "synced", ...expected.slice(2)];
    expect(got[0]).toEqual(withSynced);
    expect(got[1]).toEqual(withSynced);
    expect(got[2]).toEqual(withSynced.slice(0, withSynced.indexOf("update:b")));
    expect(informer.status().handlers.map((h) => h.handlerName)).toEqual(["handler", "s0", "s1"]);
    // A subscription made while running has a listener of its own (its own replay); leaving the shared one keeps the
    // others going; the last one to leave removes the shared listener.
    const late = informer.notifications$({ name: "late" }).subscribe();
    expect(listenerCount(informer)).toBe(3);
    subs[0]!.unsubscribe();
    source.modify(pod("b"));
    await clock.step(0);
    await settle();
    expect(got[1]!.at(-1)).toBe("update:b");
    expect(got[0]!.at(-1)).toBe("delete:a");
    subs[1]!.unsubscribe();
    late.unsubscribe();
    expect(informer.status().handlers.map((h) => h.handlerName)).toEqual(["handler"]);
    expect(listenerCount(informer)).toBe(1);
    ac.abort();
    await runUntilSettled(clock, running);
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });

  it("a direct subscription of the shared listener behaves as a piped one (RxJS's subscriber path) (issue 25)", async () => {
    const { clock, source, informer, metrics, ac } = setup();
    source.add(pod("a"));
    const label = (n: InformerNotification<Pod>) =>
      n.type === "add" || n.type === "update" ? n.newObj.metadata.name : n.type;
    const log: Record<string, string[]> = { direct: [], observer: [], piped: [], throwing: [], left: [] };
    const take = (key: string) => (n: InformerNotification<Pod>) => log[key]!.push(label(n));
    const stream = informer.notifications$({ name: "n" });
    const direct = stream.subscribe(take("direct"), undefined, () => log.direct!.push("complete"));
    const observer = stream.subscribe({ next: take("observer"), complete: () => log.observer!.push("complete") });
    const piped = stream
      .pipe(filter(() => true))
      .subscribe({ next: take("piped"), complete: () => log.piped!.push("complete") });
    const throwing = stream.subscribe({
      next: (n) => {
        take("throwing")(n);
        throw new Error("consumer bug");
      },
      complete: () => {
        log.throwing!.push("complete");
        throw new Error("complete bug");
      },
    });
    const left = stream.subscribe(take("left"));
    expect(listenerCount(informer)).toBe(1);
    const running = informer.run(ac.signal);
    await clock.step(0);
    await settle();
    left.unsubscribe();
    expect(left.closed).toBe(true);
    source.modify(pod("a"));
    await clock.step(0);
    await settle();
    ac.abort();
    await runUntilSettled(clock, running);
    const expected = ["a", "synced", "a", "complete"];
    expect(log.piped).toEqual(expected);
    expect(log.direct).toEqual(expected);
    expect(log.observer).toEqual(expected);
    expect(log.throwing).toEqual(expected);
    expect(log.left).toEqual(["a", "synced"]);
    for (const sub of [direct, observer, piped, throwing]) expect(sub.closed).toBe(true);
    const reports = (callback: string) =>
      metrics.value(subscriberErrorsMetricName, { stream: "informer pods notifications$ n", callback });
    expect(reports("next")).toBe(3);
    expect(reports("complete")).toBe(1);
    // Once stopped, a subscription completes at once, the direct way too.
    let completed = 0;
    const late = stream.subscribe(
      () => {},
      undefined,
      () => completed++,
    );
    expect(completed).toBe(1);
    expect(late.closed).toBe(true);
    expect(takeEscapedRxjsErrors()).toEqual([]);
  });

  it("bounded subscriptions and those with a resync period keep a listener of their own", () => {
    const { informer } = setup();
    const subs = [
      informer.notifications$({ name: "shared-1" }).subscribe(),
      informer.notifications$({ name: "bounded", maxPending: 10 }).subscribe(),
      informer.notifications$({ name: "resync", resyncPeriod: 5000 }).subscribe(),
      informer.notifications$({ name: "shared-2" }).subscribe(),
    ];
    expect(listenerCount(informer)).toBe(3);
    expect(informer.status().handlers.map((h) => h.handlerName)).toEqual(["shared-1", "shared-2", "bounded", "resync"]);
    for (const s of subs) s.unsubscribe();
    expect(listenerCount(informer)).toBe(0);
  });

  it("rejects bad options by name", () => {
    const { informer } = setup();
    expect(() => informer.notifications$({ maxPending: 0 })).toThrow("maxPending must be a positive integer, got 0");
    expect(() => informer.notifications$({ overflow: "drop" as never })).toThrow(
      'overflow must be "error" or "relist"',
    );
  });
});

describe("lifecycle (issue 9 item 3) and handler subsets (issue 10 item 4)", () => {
  it("synced$ gives the current value, then true, then completes; run$ is the run", async () => {
    const { clock, source, informer } = setup();
    source.add(pod("a"));
    const values: boolean[] = [];
    let completed = false;
    informer.synced$.subscribe({ next: (v) => values.push(v), complete: () => (completed = true) });
    const sub = informer.run$().subscribe();
    await clock.step(0);
    await settle();
    expect(values).toEqual([false, true]);
    expect(completed).toBe(true);
    await expect(firstValueFrom(informer.synced$.pipe(toArray()))).resolves.toEqual([true]);
    sub.unsubscribe();
    await runUntilSettled(clock, firstValueFrom(informer.status$.pipe(filter((s) => s.stopped))));
    expect(informer.isStopped()).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a handler may implement only onAdd (or nothing else); it type-checks and receives adds", async () => {
    const { clock, source, informer, ac } = setup();
    source.add(pod("a"));
    const added: string[] = [];
    const reg = informer.addEventHandler({ onAdd: (p) => added.push(p.metadata.name) });
    const deletes: string[] = [];
    informer.addEventHandler({
      onDelete: (p) => void deletes.push(isDeletedFinalStateUnknown(p) ? p.key : p.metadata.name),
    });
    const running = informer.run(ac.signal);
    await clock.step(0);
    await settle();
    const a = source.modify(pod("a"));
    source.delete(a);
    await clock.step(0);
    await settle();
    expect(added).toEqual(["a"]);
    expect(deletes).toEqual(["a"]);
    expect(reg.hasSynced()).toBe(true);
    ac.abort();
    await runUntilSettled(clock, running);
  });
});
