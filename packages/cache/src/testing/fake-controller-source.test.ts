import {
  INITIAL_EVENTS_END_ANNOTATION,
  isInvalid,
  isResourceExpired,
  isResourceVersionTooLarge,
  type KubeObject,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { FakeControllerSource, FakeWatch } from "./fake-controller-source.js";

type Obj = KubeObject;
const obj = (name: string, ns?: string): Obj => ({ metadata: { name, ...(ns ? { namespace: ns } : {}) } });

async function drain(w: FakeWatch<Obj>, n: number): Promise<WatchEvent<Obj>[]> {
  const it = w[Symbol.asyncIterator]();
  const out: WatchEvent<Obj>[] = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe("FakeWatch", () => {
  it("delivers pushed events in order, then ends after close", async () => {
    const w = new FakeWatch<Obj>();
    w.push({ type: "ADDED", object: obj("a") });
    w.close();
    w.push({ type: "ADDED", object: obj("ignored") });
    const events: string[] = [];
    for await (const e of w) events.push(`${e.type}:${(e.object as Obj).metadata?.name}`);
    expect(events).toEqual(["ADDED:a"]);
    expect(w.stopped).toBe(false);
  });

  it("stop drops queued events and ends a pending read; fail throws after the queued events", async () => {
    const w = new FakeWatch<Obj>();
    const it = w[Symbol.asyncIterator]();
    const pending = it.next();
    w.stop();
    expect(await pending).toEqual({ value: undefined, done: true });
    const f = new FakeWatch<Obj>();
    f.push({ type: "ADDED", object: obj("a") });
    f.fail(new Error("reset"));
    const it2 = f[Symbol.asyncIterator]();
    expect((await it2.next()).done).toBe(false);
    await expect(it2.next()).rejects.toThrow("reset");
  });
});

describe("FakeControllerSource", () => {
  it("assigns one global RV per change and lists copies at the current RV", async () => {
    const src = new FakeControllerSource<Obj>();
    const a = src.add(obj("a", "ns"));
    src.add(obj("b"));
    src.modify({ ...obj("a", "ns"), data: { x: "1" } });
    expect(a.metadata?.resourceVersion).toBe("1");
    const l = await src.list({});
    expect(l.metadata.resourceVersion).toBe("3");
    expect(l.items.map((o) => [o.metadata?.name, o.metadata?.resourceVersion])).toEqual([
      ["a", "3"],
      ["b", "2"],
    ]);
    l.items[0]!.metadata!.name = "mutated";
    expect(src.items.get("ns/a")?.metadata?.name).toBe("a");
  });

  it("watches replay changes after the RV, 410 when compacted, too-large in the future, synthetic ADDED from ''/'0'", async () => {
    const src = new FakeControllerSource<Obj>();
    src.add(obj("a"));
    src.add(obj("b"));
    src.delete(obj("a"));
    const w = (await src.watch({ resourceVersion: "1" })) as FakeWatch<Obj>;
    expect((await drain(w, 2)).map((e) => `${e.type}:${(e.object as Obj).metadata?.resourceVersion}`)).toEqual([
      "ADDED:2",
      "DELETED:3",
    ]);
    const fromZero = (await src.watch({ resourceVersion: "0" })) as FakeWatch<Obj>;
    expect((await drain(fromZero, 1)).map((e) => e.type)).toEqual(["ADDED"]);
    src.compact(2);
    await expect(src.watch({ resourceVersion: "1" })).rejects.toSatisfy(isResourceExpired);
    expect((await src.watch({ resourceVersion: "2" })) instanceof FakeWatch).toBe(true);
    await expect(src.watch({ resourceVersion: "9" })).rejects.toSatisfy(isResourceVersionTooLarge);
    await expect(src.watch({ resourceVersion: "abc" })).rejects.toMatchObject({ code: 400 });
    expect(src.openWatches).toBe(3);
    src.shutdown();
    expect(src.openWatches).toBe(0);
  });

  it("watch-list: initial events then the annotated bookmark; 'invalid' answers 422; 'ignored' sends no bookmark", async () => {
    const src = new FakeControllerSource<Obj>({ bookmarkKind: { apiVersion: "v1", kind: "ConfigMap" } });
    src.add(obj("a"));
    const w = (await src.watch({ sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" })) as FakeWatch<Obj>;
    const events = await drain(w, 2);
    expect(events[0]!.type).toBe("ADDED");
    expect(events[1]).toEqual({
      type: "BOOKMARK",
      object: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { resourceVersion: "1", annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } },
      },
    });
    src.watchListSupport = "invalid";
    await expect(src.watch({ sendInitialEvents: true })).rejects.toSatisfy(isInvalid);
    src.watchListSupport = "ignored";
    const ignored = (await src.watch({ sendInitialEvents: true })) as FakeWatch<Obj>;
    src.closeWatches();
    expect((await drain(ignored, 5)).map((e) => e.type)).toEqual(["ADDED"]);
  });

  it("faults: queued list/watch failures, listError, hooks, ERROR events, bookmarks, DropWatch, timeouts", async () => {
    const clock = new FakeClock();
    const src = new FakeControllerSource<Obj>({ clock, rand: seededRand(1) });
    src.failNextList(new Error("l1"));
    src.failNextWatch(new Error("w1"));
    await expect(src.list({})).rejects.toThrow("l1");
    await expect(src.watch({})).rejects.toThrow("w1");
    src.listError = new Error("always");
    await expect(src.list({})).rejects.toThrow("always");
    src.clearFailures();
    await expect(src.list({})).resolves.toBeDefined();
    const w = (await src.watch({
      resourceVersion: "0",
      allowWatchBookmarks: true,
      timeoutSeconds: 5,
    })) as FakeWatch<Obj>;
    src.addDropWatch(obj("silent"));
    src.bookmark();
    src.add(obj("loud"));
    expect((await drain(w, 2)).map((e) => `${e.type}:${(e.object as Obj).metadata?.resourceVersion}`)).toEqual([
      "BOOKMARK:1",
      "ADDED:2",
    ]);
    await clock.step(5000);
    expect(w.isDone).toBe(true);
    expect(src.openWatches).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    const w2 = (await src.watch({ resourceVersion: "2" })) as FakeWatch<Obj>;
    src.sendError({ kind: "Status", apiVersion: "v1", metadata: {}, code: 410, reason: "Expired" });
    expect((await drain(w2, 2)).map((e) => e.type)).toEqual(["ERROR"]);
    expect(src.openWatches).toBe(0);
  });

  it("paginates with continue tokens from a snapshot; a compacted snapshot's continue is Expired", async () => {
    const src = new FakeControllerSource<Obj>({ paginate: true });
    for (let i = 0; i < 5; i++) src.add(obj(`o${i}`));
    const p1 = await src.list({ limit: 2 });
    src.add(obj("late"));
    const p2 = await src.list({ limit: 2, continue: p1.metadata.continue! });
    const p3 = await src.list({ limit: 2, continue: p2.metadata.continue! });
    expect([...p1.items, ...p2.items, ...p3.items].map((o) => o.metadata?.name)).toEqual([
      "o0",
      "o1",
      "o2",
      "o3",
      "o4",
    ]);
    expect(p3.metadata.continue).toBeUndefined();
    expect(p2.metadata.resourceVersion).toBe("5");
    const q1 = await src.list({ limit: 2 });
    src.compact();
    await expect(src.list({ limit: 2, continue: q1.metadata.continue! })).rejects.toSatisfy(isResourceExpired);
  });

  it("a watch stops when its request signal aborts", async () => {
    const src = new FakeControllerSource<Obj>();
    const ac = new AbortController();
    const w = (await src.watch({}, ac.signal)) as FakeWatch<Obj>;
    ac.abort();
    expect(w.stopped).toBe(true);
    expect(src.openWatches).toBe(0);
    await expect(src.watch({}, ac.signal)).rejects.toBeDefined();
  });
});
