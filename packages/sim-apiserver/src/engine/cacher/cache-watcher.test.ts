// CacheWatcher in isolation: the input/result channels, initial events served before input is drained, bookmark
// filtering against the process RV, graceful vs non-graceful close, stop and async iteration. No clock is involved:
// a watcher is a synchronous state machine driven by the dispatcher (tryAdd) and the consumer (next).
import { INITIAL_EVENTS_END_ANNOTATION, type KubeObject, type WatchEvent } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES } from "../resources.js";
import { CacheEvent, EventHistory } from "../storage/event-history.js";
import type { StorageEvent } from "../storage/storage.js";
import { CacheWatcher, type CacheWatcherInit, FixedWatch, type InitialSource } from "./cache-watcher.js";

const configmaps = BUILTIN_RESOURCES.find((r) => r.resource === "configmaps")!;

function cm(name: string, rv: number, labels: Record<string, string> = {}): KubeObject {
  return {
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: { name, namespace: "default", resourceVersion: String(rv), labels },
  };
}

function ev(type: WatchEvent["type"], name: string, rv: number): WatchEvent {
  return { type, object: cm(name, rv) } as WatchEvent;
}

function bookmark(rv: number, end = false): WatchEvent {
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  if (end) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: "true" };
  return { type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata } };
}

interface Harness {
  readonly w: CacheWatcher;
  readonly rooms: number[];
  readonly closes: string[];
}

function watcher(opts: Partial<CacheWatcherInit> & { initial?: InitialSource } = {}): Harness {
  const rooms: number[] = [];
  const closes: string[] = [];
  const w = new CacheWatcher({
    id: 1,
    matches: () => true,
    startRV: 10,
    allowBookmarks: true,
    chanSize: 3,
    initial: { kind: "none" },
    bookmarkAfterRV: undefined,
    onRoom: (x) => rooms.push(x.inputLength),
    onClose: (_x, reason) => closes.push(reason),
    triggerValue: undefined,
    description: 'key: "/configmaps", labels: "", fields: ""',
    ...opts,
  });
  return { w, rooms, closes };
}

function label(e: WatchEvent): string {
  const m = (e.object as KubeObject).metadata;
  return `${e.type}:${m?.name ?? ""}@${m?.resourceVersion ?? ""}`;
}

/** Reads until the watch ends (the watcher must be closed or become closed while reading). */
async function drain(w: AsyncIterable<WatchEvent>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of w) out.push(label(e));
  return out;
}

async function take(w: CacheWatcher, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await w.next();
    if (r.done === true) break;
    out.push(label(r.value));
  }
  return out;
}

const snapshot = (n: number): InitialSource => ({
  kind: "snapshot",
  items: Array.from({ length: n }, (_, i) => cm(`s${i}`, i + 1)),
});

function storageEvent(type: StorageEvent["type"], name: string, rev: number, prev?: KubeObject): StorageEvent {
  return {
    type,
    resource: configmaps,
    key: `default/${name}`,
    object: cm(name, rev),
    prevObject: prev,
    rev,
  };
}

describe("CacheWatcher channels", () => {
  it("initial events are moved to result before input: input fills to chanSize while they are unread", async () => {
    const { w, rooms } = watcher({ initial: snapshot(5) });
    expect(w.initializing).toBe(true);
    // The dispatcher offers three events: all fit in input (chanSize 3), the fourth does not.
    expect([11, 12, 13].map((rv) => w.tryAdd(ev("MODIFIED", "x", rv)))).toEqual([true, true, true]);
    expect(w.tryAdd(ev("MODIFIED", "x", 14))).toBe(false);
    // result holds three initial events (its capacity), input the three offered events.
    expect([w.resultLength, w.inputLength]).toEqual([3, 3]);
    expect(rooms).toEqual([]);
    // The consumer reads: all five initial events first, then input in order.
    expect(await take(w, 8)).toEqual([
      "ADDED:s0@1",
      "ADDED:s1@2",
      "ADDED:s2@3",
      "ADDED:s3@4",
      "ADDED:s4@5",
      "MODIFIED:x@11",
      "MODIFIED:x@12",
      "MODIFIED:x@13",
    ]);
    expect(w.initializing).toBe(false);
    // Input only starts draining once the initial events are done; then onRoom tells the dispatcher.
    expect(rooms.length).toBeGreaterThan(0);
    expect(w.delivered).toBe(8);
  });

  it("snapshot items that do not match the filter are skipped", async () => {
    const { w } = watcher({
      initial: { kind: "snapshot", items: [cm("a", 1, { app: "x" }), cm("b", 2), cm("c", 3, { app: "x" })] },
      matches: (o) => o.metadata?.labels?.app === "x",
    });
    w.close("stopped", true);
    expect(await drain(w)).toEqual(["ADDED:a@1", "ADDED:c@3"]);
  });

  it("a pending next() is woken by the dispatcher", async () => {
    const { w } = watcher();
    const p = w.next();
    expect(w.tryAdd(ev("ADDED", "a", 11))).toBe(true);
    expect(label((await p).value as WatchEvent)).toBe("ADDED:a@11");
  });

  it("history intervals are read lazily; an overwritten unread position closes the watcher silently", async () => {
    // A ring of fixed size 4 (lower = upper bound) so the fifth event overwrites the first.
    const history = new EventHistory(4, 4, 75_000);
    history.reset(10);
    for (let rv = 11; rv <= 14; rv++) history.add(new CacheEvent(storageEvent("ADDED", `h${rv}`, rv), 0));
    const { w, closes } = watcher({
      chanSize: 2,
      initial: { kind: "history", history, from: history.firstAfter(10), to: history.end },
    });
    expect(await take(w, 1)).toEqual(["ADDED:h11@11"]);
    // result now holds h12 and h13 (chanSize 2); h14 is unread. Two more events overwrite h11 and h12, then h13, h14.
    for (let rv = 15; rv <= 18; rv++) history.add(new CacheEvent(storageEvent("ADDED", `h${rv}`, rv), 0));
    // What result held is still delivered, then the watch ends without an ERROR event.
    expect(await drain(w)).toEqual(["ADDED:h12@12", "ADDED:h13@13"]);
    expect(w.reason).toBe("interval-invalidated");
    expect(closes).toEqual(["interval-invalidated"]);
  });

  it("history selector transitions are converted per watcher (DELETED carries the previous object at the event RV)", async () => {
    const history = new EventHistory(100, 100, 75_000);
    history.reset(10);
    const before = cm("a", 11, { app: "x" });
    history.add(new CacheEvent({ ...storageEvent("ADDED", "a", 11), object: before }, 0));
    history.add(new CacheEvent({ ...storageEvent("MODIFIED", "a", 12), prevObject: before }, 0));
    const { w } = watcher({
      matches: (o) => o.metadata?.labels?.app === "x",
      initial: { kind: "history", history, from: history.firstAfter(10), to: history.end },
    });
    w.close("stopped", true);
    const events: WatchEvent[] = [];
    for await (const e of w) events.push(e);
    expect(events.map(label)).toEqual(["ADDED:a@11", "DELETED:a@12"]);
    expect((events[1]!.object as KubeObject).metadata?.labels).toEqual({ app: "x" });
  });
});

describe("CacheWatcher bookmarks", () => {
  it("bookmarks are offered without blocking and dropped when input is full", () => {
    const { w } = watcher({ initial: snapshot(5) });
    for (const rv of [11, 12, 13]) w.tryAdd(ev("MODIFIED", "x", rv));
    expect(w.tryAddBookmark(bookmark(20), false)).toBe(false);
    expect(w.inputLength).toBe(3);
  });

  it("a periodic bookmark reaches the consumer only when its RV is above the process RV", async () => {
    const { w } = watcher({ startRV: 10, processRV: 10 });
    expect(w.tryAddBookmark(bookmark(10), false)).toBe(true);
    expect(w.tryAddBookmark(bookmark(15), false)).toBe(true);
    expect(w.tryAddBookmark(bookmark(15), false)).toBe(true);
    w.close("stopped", true);
    // RV 10 is not past the start; RV 15 twice is (upstream forwards a repeated bookmark too).
    expect((await drain(w)).map((l) => l.split(":")[0] + l.slice(l.indexOf("@")))).toEqual([
      "BOOKMARK@15",
      "BOOKMARK@15",
    ]);
  });

  it("a waiting consumer gets neither a bookmark at the process RV nor anything while stalled", async () => {
    const { w } = watcher({ startRV: 10, processRV: 10 });
    const p = w.next();
    w.tryAddBookmark(bookmark(10), false);
    w.tryAddBookmark(bookmark(11), false);
    expect(label((await p).value as WatchEvent)).toBe("BOOKMARK:@11");
    w.setStalled(true);
    let got: IteratorResult<WatchEvent> | undefined;
    void w.next().then((r) => {
      got = r;
    });
    w.tryAdd(ev("ADDED", "a", 12));
    await Promise.resolve();
    expect([got, w.resultLength]).toEqual([undefined, 1]);
    w.setStalled(false);
    await Promise.resolve();
    expect(label(got!.value as WatchEvent)).toBe("ADDED:a@12");
  });

  it("initial events raise the process RV (legacy RV=0 watch: the floor starts at 0)", async () => {
    const { w } = watcher({ startRV: 20, processRV: 0, initial: snapshot(3) });
    expect(w.processRV).toBe(0);
    await take(w, 3);
    expect(w.processRV).toBe(3);
  });

  it("the init-end bookmark passes at the process RV and moves the watcher from received to sent", async () => {
    const { w } = watcher({ startRV: 3, processRV: 0, initial: snapshot(3), bookmarkAfterRV: 3 });
    expect(w.tryAddBookmark(bookmark(3, true), true)).toBe(true);
    expect([w.holdsEndBookmark, w.endBookmarkSent]).toEqual([true, false]);
    expect(await take(w, 4)).toEqual(["ADDED:s0@1", "ADDED:s1@2", "ADDED:s2@3", "BOOKMARK:@3"]);
    expect([w.holdsEndBookmark, w.endBookmarkSent]).toEqual([false, true]);
  });

  it("an init-end bookmark behind the initial events is dropped and can be offered again", async () => {
    const { w } = watcher({ startRV: 3, processRV: 0, initial: snapshot(3), bookmarkAfterRV: 2 });
    w.tryAddBookmark(bookmark(2, true), true);
    await take(w, 3);
    // Pumped and dropped (RV 2 < process RV 3): no longer held, not sent.
    expect([w.holdsEndBookmark, w.endBookmarkSent, w.resultLength]).toEqual([false, false, 0]);
    w.tryAddBookmark(bookmark(3, true), true);
    expect(await take(w, 1)).toEqual(["BOOKMARK:@3"]);
    expect(w.endBookmarkSent).toBe(true);
  });
});

describe("CacheWatcher close", () => {
  function filled(): Harness {
    const h = watcher({ initial: snapshot(5) });
    for (const rv of [11, 12]) h.w.tryAdd(ev("MODIFIED", "x", rv));
    return h;
  }

  it.each([
    // graceful: result, the remaining initial events and input are all delivered
    {
      reason: "terminated-unresponsive" as const,
      graceful: true,
      want: ["ADDED:s0@1", "ADDED:s1@2", "ADDED:s2@3", "ADDED:s3@4", "ADDED:s4@5", "MODIFIED:x@11", "MODIFIED:x@12"],
    },
    // server-side, not graceful: what result holds, nothing else
    { reason: "terminated-unresponsive" as const, graceful: false, want: ["ADDED:s0@1", "ADDED:s1@2", "ADDED:s2@3"] },
    { reason: "cache-reinitialized" as const, graceful: false, want: ["ADDED:s0@1", "ADDED:s1@2", "ADDED:s2@3"] },
    // the request ended (timeout, client stop, dropped connection): nothing more
    { reason: "timeout" as const, graceful: false, want: [] },
    { reason: "stopped" as const, graceful: false, want: [] },
    { reason: "dropped" as const, graceful: false, want: [] },
  ])("$reason graceful=$graceful delivers $want.length more events, then ends", async ({ reason, graceful, want }) => {
    const { w, closes } = filled();
    w.close(reason, graceful);
    expect(w.isClosed).toBe(true);
    expect(closes).toEqual([reason]);
    // Nothing is accepted any more (the dispatcher treats a closed watcher as done).
    expect(w.tryAdd(ev("MODIFIED", "x", 13))).toBe(true);
    expect(await drain(w)).toEqual(want);
    expect(w.reason).toBe(reason);
    expect(await w.next()).toEqual({ done: true, value: undefined });
  });

  it("close is idempotent: onClose runs once, the first reason wins", () => {
    const { w, closes } = watcher();
    w.close("timeout", false);
    w.close("dropped", false);
    w.stop();
    expect(closes).toEqual(["timeout"]);
    expect(w.reason).toBe("timeout");
  });

  it("stop() settles a pending next() with done", async () => {
    const { w, closes } = watcher();
    const p = w.next();
    w.stop();
    expect(await p).toEqual({ done: true, value: undefined });
    expect(closes).toEqual(["stopped"]);
  });

  it("a close with a failure makes in-process iteration throw it", async () => {
    const { w } = watcher();
    const p = w.next();
    const boom = new Error("connection reset");
    w.close("dropped", false, boom);
    await expect(p).rejects.toBe(boom);
    await expect(w.next()).rejects.toBe(boom);
  });

  it("breaking out of for-await stops the watcher", async () => {
    const { w, closes } = watcher({ initial: snapshot(5) });
    const seen: string[] = [];
    for await (const e of w) {
      seen.push(label(e));
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(["ADDED:s0@1", "ADDED:s1@2"]);
    expect(closes).toEqual(["stopped"]);
    expect(w.isClosed).toBe(true);
  });

  it("a stalled consumer gets nothing until resumed, and a close while stalled drops everything", async () => {
    const { w } = watcher({ initial: snapshot(2) });
    w.setStalled(true);
    let got: IteratorResult<WatchEvent> | undefined;
    void w.next().then((r) => {
      got = r;
    });
    await Promise.resolve();
    expect(got).toBeUndefined();
    w.close("terminated-unresponsive", true);
    await Promise.resolve();
    expect(got).toEqual({ done: true, value: undefined });
  });
});

describe("FixedWatch", () => {
  it("delivers its events and ends; stop ends it early", async () => {
    const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code: 410 } as const;
    expect((await drain(new FixedWatch([{ type: "ERROR", object: status }]))).length).toBe(1);
    const f = new FixedWatch([ev("ADDED", "a", 1), ev("ADDED", "b", 2)]);
    expect(label((await f.next()).value as WatchEvent)).toBe("ADDED:a@1");
    f.stop();
    expect(await f.next()).toEqual({ done: true, value: undefined });
  });
});
