import { getEventListeners } from "node:events";
import {
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newForbidden,
  newInternalError,
  newResourceExpired,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import type { Subscription } from "rxjs";
import { describe, expect, it } from "vitest";
import { takeEscapedRxjsErrors } from "../../../test/setup/rxjs-unhandled.js";
import type { ListerWatcher, Watch } from "./listwatch.js";
import { appliedObjects } from "./operators/applied-objects.js";
import { silentLogger } from "./reflector/logger.js";
import type { ReflectorStatus } from "./reflector/status.js";
import { FakeWatch } from "./testing/fake-controller-source.js";
import { failAfter, type WatcherConfig, WatcherFailedError, watcher } from "./watcher.js";
import type { WatcherEvent } from "./watcher-event.js";

type Pod = KubeObject;
const pod = (name: string, rv: string, extra: Partial<KubeObject> = {}): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns", resourceVersion: rv },
  ...extra,
});
const list = (rv: string, ...items: Pod[]): KubeList<Pod> => ({ metadata: { resourceVersion: rv }, items });
const bookmark = (rv: string, end = false): WatchEvent<Pod> => ({
  type: "BOOKMARK",
  object: {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { resourceVersion: rv, ...(end ? { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } } : {}) },
  },
});

/** A scripted ListerWatcher: each call takes the next answer (a value, or an Error to reject with). */
class ScriptedLW implements ListerWatcher<Pod> {
  readonly lists: ListOptions[] = [];
  readonly watches: { options: ListOptions; signal: AbortSignal | undefined; at: number }[] = [];
  readonly listAt: number[] = [];
  readonly openWatches: FakeWatch<Pod>[] = [];
  constructor(
    private readonly clock: FakeClock,
    readonly listAnswers: (KubeList<Pod> | Error)[],
    readonly watchAnswers: (FakeWatch<Pod> | Error)[] = [],
  ) {}

  async list(options: ListOptions): Promise<KubeList<Pod>> {
    this.lists.push({ ...options });
    this.listAt.push(this.clock.now());
    const a = this.listAnswers.length > 1 ? this.listAnswers.shift() : this.listAnswers[0];
    if (a === undefined) throw new Error("no list answer scripted");
    if (a instanceof Error) throw a;
    return a;
  }

  async watch(options: ListOptions, signal?: AbortSignal): Promise<Watch<Pod>> {
    this.watches.push({ options: { ...options }, signal, at: this.clock.now() });
    const a = this.watchAnswers.shift() ?? new FakeWatch<Pod>(options);
    if (a instanceof Error) throw a;
    this.openWatches.push(a);
    return a;
  }
}

function config(clock: FakeClock, extra: WatcherConfig<Pod> = {}): WatcherConfig<Pod> {
  return { clock, rand: seededRand(11), logger: silentLogger, name: "w", useWatchList: false, ...extra };
}

const describeEvent = (e: WatcherEvent<Pod>): string => {
  switch (e.type) {
    case "init":
      return "init";
    case "initDone":
    case "bookmark":
      return `${e.type}(${e.resourceVersion})`;
    default:
      return `${e.type}(${e.object.metadata?.name}@${e.object.metadata?.resourceVersion})`;
  }
};

function collect(clock: FakeClock, lw: ListerWatcher<Pod>, extra: WatcherConfig<Pod> = {}) {
  const events: string[] = [];
  let error: unknown;
  const sub: Subscription = watcher(lw, config(clock, extra)).subscribe({
    next: (e) => events.push(describeEvent(e)),
    error: (err: unknown) => {
      error = err;
    },
  });
  return { events, sub, error: () => error };
}

describe("watcher(): the reflector as a stream", () => {
  it("lists from RV 0, emits one initApply per object, then watches from the listed RV with bookmarks", async () => {
    const clock = new FakeClock();
    const w = new FakeWatch<Pod>();
    const lw = new ScriptedLW(clock, [list("10", pod("a", "5"), pod("b", "7"))], [w]);
    const { events, sub } = collect(clock, lw);
    await settle();
    expect(lw.lists[0]?.resourceVersion).toBe("0");
    expect(lw.watches[0]?.options).toMatchObject({ resourceVersion: "10", allowWatchBookmarks: true });
    w.push({ type: "ADDED", object: pod("c", "11") });
    w.push({ type: "MODIFIED", object: pod("a", "12") });
    w.push({ type: "DELETED", object: pod("b", "13") });
    w.push(bookmark("14"));
    await settle();
    expect(events).toEqual([
      "init",
      "initApply(a@5)",
      "initApply(b@7)",
      "initDone(10)",
      "apply(c@11)",
      "apply(a@12)",
      "delete(b@13)",
      "bookmark(14)",
    ]);
    sub.unsubscribe();
  });

  it("primes with a watch-list when enabled and keeps the same watch open after the end bookmark", async () => {
    const clock = new FakeClock();
    const w = new FakeWatch<Pod>();
    w.push({ type: "ADDED", object: pod("a", "3") });
    w.push({ type: "ADDED", object: pod("b", "4") });
    w.push(bookmark("5", true));
    const lw = new ScriptedLW(clock, [new Error("LIST must not be used")], [w]);
    const { events, sub } = collect(clock, lw, { useWatchList: true });
    await settle();
    w.push({ type: "MODIFIED", object: pod("a", "6") });
    await settle();
    expect(lw.lists).toEqual([]);
    expect(lw.watches).toHaveLength(1);
    expect(lw.watches[0]?.options).toMatchObject({ sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" });
    expect(events).toEqual(["init", "initApply(a@3)", "initApply(b@4)", "initDone(5)", "apply(a@6)"]);
    sub.unsubscribe();
  });

  it("relists after a 410 from the last synced RV and frames the relist with init … initDone", async () => {
    const clock = new FakeClock();
    const w1 = new FakeWatch<Pod>();
    const lw = new ScriptedLW(clock, [list("10", pod("a", "5")), list("20", pod("a", "15"), pod("b", "18"))], [w1]);
    const { events, sub, error } = collect(clock, lw);
    await settle();
    w1.push({ type: "MODIFIED", object: pod("a", "11") });
    w1.push({ type: "ERROR", object: newResourceExpired("too old").status as never });
    await clock.runUntilIdle(50).catch(() => {});
    await settle();
    expect(lw.lists.map((o) => o.resourceVersion)).toEqual(["0", "11"]);
    expect(events).toEqual([
      "init",
      "initApply(a@5)",
      "initDone(10)",
      "apply(a@11)",
      "init",
      "initApply(a@15)",
      "initApply(b@18)",
      "initDone(20)",
    ]);
    expect(error()).toBeUndefined();
    sub.unsubscribe();
  });

  it("keeps running through failures: they reach the status, the backoff runs on the injected clock", async () => {
    const clock = new FakeClock();
    const lw = new ScriptedLW(clock, [newInternalError("etcd down"), newInternalError("etcd down"), list("3")]);
    const statuses: ReflectorStatus[] = [];
    const { events, sub, error } = collect(clock, lw, { onStatus: (s) => statuses.push(s) });
    await settle();
    expect(lw.lists).toHaveLength(1);
    // First backoff: 800 ms with full jitter → within [0.8 s, 1.6 s).
    await clock.step(1600);
    expect(lw.lists).toHaveLength(2);
    const gap = (lw.listAt[1] ?? 0) - (lw.listAt[0] ?? 0);
    expect(gap).toBeGreaterThanOrEqual(800);
    expect(gap).toBeLessThan(1600);
    await clock.step(3200);
    await settle();
    expect(lw.lists).toHaveLength(3);
    expect(events).toEqual(["init", "initDone(3)"]);
    expect(error()).toBeUndefined();
    expect(statuses.some((s) => s.lastError?.code === 500 && s.failure?.kind === "server-error")).toBe(true);
    expect(statuses.at(-1)?.failure).toBeUndefined();
    sub.unsubscribe();
  });

  it("is deterministic under FakeClock: the same seed gives the same request times", async () => {
    const run = async () => {
      const clock = new FakeClock();
      const lw = new ScriptedLW(clock, [newInternalError("x")]);
      const { sub } = collect(clock, lw);
      await clock.step(120_000);
      sub.unsubscribe();
      return lw.listAt.map((t) => t - lw.listAt[0]!);
    };
    const a = await run();
    const b = await run();
    expect(a.length).toBeGreaterThan(4);
    expect(a).toEqual(b);
  });

  it("a fatal policy ends the stream with WatcherFailedError after the chosen tries, releasing every timer", async () => {
    const clock = new FakeClock();
    const lw = new ScriptedLW(clock, [newForbidden({ group: "", resource: "pods" }, "", "rbac")]);
    const { sub, error } = collect(clock, lw, { fatal: failAfter({ codes: [403], tries: 3 }) });
    await clock.runUntilIdle(100);
    await settle();
    expect(lw.lists).toHaveLength(3);
    const err = error();
    expect(err).toBeInstanceOf(WatcherFailedError);
    expect((err as WatcherFailedError).failure).toMatchObject({ kind: "forbidden", tries: 3, during: "list" });
    expect((err as WatcherFailedError).message).toMatch(/gave up after 3 failed tries \(forbidden during list\)/);
    expect(sub.closed).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("failAfter selects by kind or code and counts tries", () => {
    const f = {
      kind: "unreachable",
      during: "list",
      tries: 2,
      since: 0,
      error: { message: "x", name: "Error" },
      hint: "",
    } as const;
    expect(failAfter({ tries: 2, kinds: ["unreachable"] })(f)).toBe(true);
    expect(failAfter({ tries: 3, kinds: ["unreachable"] })(f)).toBe(false);
    expect(failAfter({ tries: 1, codes: [403] })(f)).toBe(false);
    expect(failAfter({ tries: 2 })(f)).toBe(true);
    expect(() => failAfter({ tries: 0 })).toThrow(/tries ≥ 1/);
  });

  it("unsubscribing closes the watch, aborts its request signal and leaves no timer behind", async () => {
    const clock = new FakeClock();
    const w = new FakeWatch<Pod>();
    const lw = new ScriptedLW(clock, [list("1")], [w]);
    const { sub } = collect(clock, lw, { watchLiveness: { bookmarkPeriod: 60_000 } });
    await settle();
    expect(clock.pendingTimers()).toBeGreaterThan(0); // the liveness timer
    sub.unsubscribe();
    await settle();
    expect(w.stopped).toBe(true);
    const signal = lw.watches[0]?.signal;
    expect(signal?.aborted).toBe(true);
    expect(getEventListeners(signal!, "abort")).toHaveLength(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("unsubscribing during a backoff clears the backoff timer", async () => {
    const clock = new FakeClock();
    const lw = new ScriptedLW(clock, [new Error("boom")]);
    const { sub } = collect(clock, lw);
    await settle();
    expect(clock.pendingTimers()).toBe(1);
    sub.unsubscribe();
    await settle();
    expect(clock.pendingTimers()).toBe(0);
    await clock.step(60_000);
    expect(lw.lists).toHaveLength(1);
  });

  it("is cold: each subscription is its own run with its own list", async () => {
    const clock = new FakeClock();
    const lw = new ScriptedLW(clock, [list("4", pod("a", "4"))]);
    const w$ = watcher(lw, config(clock));
    const first: string[] = [];
    const second: string[] = [];
    const s1 = w$.subscribe((e) => first.push(describeEvent(e)));
    const s2 = w$.subscribe((e) => second.push(describeEvent(e)));
    await settle();
    expect(lw.lists).toHaveLength(2);
    expect(first).toEqual(["init", "initApply(a@4)", "initDone(4)"]);
    expect(second).toEqual(first);
    s1.unsubscribe();
    s2.unsubscribe();
    await settle();
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a throwing onStatus/onEvent callback is logged and does not stop the stream", async () => {
    const clock = new FakeClock();
    const lines: string[] = [];
    const lw = new ScriptedLW(clock, [list("2", pod("a", "2"))]);
    const { events, sub } = collect(clock, lw, {
      logger: { log: (_l, m) => lines.push(m) },
      onStatus: () => {
        throw new Error("bad status observer");
      },
      onEvent: () => {
        throw new Error("bad event observer");
      },
    });
    await settle();
    expect(events).toEqual(["init", "initApply(a@2)", "initDone(2)"]);
    expect(lines).toContain("watcher onStatus callback threw");
    expect(lines).toContain("watcher onEvent callback threw");
    sub.unsubscribe();
  });

  it("a throwing subscriber is reported through the logger, keeps receiving, and never reaches the host", async () => {
    const clock = new FakeClock();
    const lines: string[] = [];
    const w = new FakeWatch<Pod>();
    const lw = new ScriptedLW(clock, [list("1", pod("a", "1"))], [w]);
    const w$ = watcher(lw, config(clock, { logger: { log: (_l, m) => lines.push(m) } }));
    let calls = 0;
    const sub = w$.pipe(appliedObjects()).subscribe(() => {
      calls++;
      throw new Error("consumer bug");
    });
    await settle();
    w.push({ type: "MODIFIED", object: pod("a", "2") });
    await settle();
    expect(takeEscapedRxjsErrors()).toEqual([]); // nothing reached RxJS's unhandled-error path (the host)
    expect(calls).toBe(2);
    expect(lines.filter((m) => m === "a subscriber of watcher w threw in next")).toHaveLength(2);
    // A stream error without an error callback is reported, not thrown.
    let tries = 0;
    const failing = new ScriptedLW(clock, [newForbidden({ group: "", resource: "pods" }, "", "rbac")]);
    watcher(failing, config(clock, { logger: { log: (_l, m) => lines.push(m) }, fatal: () => ++tries >= 1 })).subscribe(
      () => {},
    );
    await settle();
    expect(takeEscapedRxjsErrors()).toEqual([]); // nothing reached RxJS's unhandled-error path (the host)
    expect(lines).toContain("a subscriber of watcher w threw in unhandledError");
    sub.unsubscribe();
  });
});
