import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { KubeList, KubeObject, ListOptions, WatchEvent } from "@informer-ts/apimachinery";
import { INITIAL_EVENTS_END_ANNOTATION } from "@informer-ts/apimachinery";
import { FakeClock, settle } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { metaNamespaceKeyFunc } from "../keys.js";
import type { ListerWatcher } from "../listwatch.js";
import { newStore } from "../store-impl.js";
import { FakeWatch } from "../testing/fake-controller-source.js";
import { startRun } from "../testing/start-run.js";
import { silentLogger } from "./logger.js";
import { Reflector } from "./reflector.js";

/** A full GC function: `global.gc` when exposed, else V8's, enabled at run time (no child process needed). */
function gcFunction(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

async function collect(): Promise<void> {
  const gc = gcFunction();
  // WeakRef targets stay alive until the end of the job that created or dereferenced them.
  for (let i = 0; i < 3; i++) {
    await settle();
    gc();
  }
}

function item(i: number): KubeObject {
  return { metadata: { name: `o${i}`, namespace: "ns", resourceVersion: String(i + 1) }, data: { v: "x".repeat(100) } };
}

describe("memory (§4, principle 5): nothing keeps a response alive once its objects are stored", () => {
  /** Syncs 30 items in pages of 10; returns weak refs to the pages and page arrays, the items, and the store. */
  async function syncPages(copyListItems: boolean | undefined) {
    const clock = new FakeClock();
    const pageRefs: WeakRef<object>[] = [];
    const itemRefs: WeakRef<object>[] = [];
    const lw: ListerWatcher<KubeObject> = {
      async list(o: ListOptions): Promise<KubeList<KubeObject>> {
        const offset = Number(o.continue ?? "0");
        const items = Array.from({ length: 10 }, (_, j) => item(offset + j));
        const page: KubeList<KubeObject> = { metadata: { resourceVersion: "50" }, items };
        if (offset + 10 < 30) page.metadata.continue = String(offset + 10);
        pageRefs.push(new WeakRef(page), new WeakRef(items));
        for (const it of items) itemRefs.push(new WeakRef(it));
        return page;
      },
      async watch() {
        return new FakeWatch<KubeObject>();
      },
    };
    const store = newStore<KubeObject>(metaNamespaceKeyFunc);
    const r = new Reflector(lw, undefined, store, {
      clock,
      logger: silentLogger,
      name: "mem",
      useWatchList: false,
      watchListPageSize: 10,
      ...(copyListItems !== undefined && { copyListItems }),
    });
    const sub = startRun(r);
    await settle();
    expect(store.size).toBe(30);
    await collect();
    expect(pageRefs).toHaveLength(6);
    return { pageRefs, itemRefs, store, sub };
  }

  it("LIST: no page or list body is reachable after the sync; the store holds the response's items (no copy)", async () => {
    const { pageRefs, itemRefs, store, sub } = await syncPages(undefined);
    expect(pageRefs.filter((w) => w.deref() !== undefined)).toHaveLength(0);
    // Without the copy the stored objects are the decoded items themselves, and they pin nothing else.
    const alive = itemRefs.map((w) => w.deref()).filter((o) => o !== undefined);
    expect(alive).toHaveLength(30);
    expect(alive.every((o) => store.getByKey(metaNamespaceKeyFunc(o)) === o)).toBe(true);
    await sub.stop();
  });

  it("LIST with copyListItems: the store holds copies and no original item stays reachable", async () => {
    const { pageRefs, itemRefs, store, sub } = await syncPages(true);
    expect(pageRefs.filter((w) => w.deref() !== undefined)).toHaveLength(0);
    expect(itemRefs.filter((w) => w.deref() !== undefined)).toHaveLength(0);
    expect(store.size).toBe(30);
    expect(store.getByKey("ns/o0")).toMatchObject({ metadata: { name: "o0" }, data: { v: "x".repeat(100) } });
    await sub.stop();
  });

  it("watch-list: the event wrappers and the end bookmark are released after the sync", async () => {
    const clock = new FakeClock();
    const eventRefs: WeakRef<object>[] = [];
    const w = new FakeWatch<KubeObject>();
    const lw: ListerWatcher<KubeObject> = {
      list: async () => ({ metadata: {}, items: [] }),
      watch: async () => w,
    };
    const store = newStore<KubeObject>(metaNamespaceKeyFunc);
    const r = new Reflector(lw, undefined, store, { clock, logger: silentLogger, name: "mem-wl", useWatchList: true });
    const sub = startRun(r);
    await settle();
    const pushAdded = (i: number) => {
      const e: WatchEvent<KubeObject> = { type: "ADDED", object: item(i) };
      eventRefs.push(new WeakRef(e));
      w.push(e);
    };
    for (let i = 0; i < 20; i++) pushAdded(i);
    const pushBookmark = () => {
      const bookmark: WatchEvent<KubeObject> = {
        type: "BOOKMARK",
        object: { metadata: { resourceVersion: "21", annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } } },
      };
      eventRefs.push(new WeakRef(bookmark), new WeakRef(bookmark.object as object));
      w.push(bookmark);
    };
    pushBookmark();
    await settle();
    expect(store.size).toBe(20);
    await collect();
    const alive = eventRefs.flatMap((ref, i) => (ref.deref() === undefined ? [] : [i]));
    expect(alive).toEqual([]);
    await sub.stop();
  });
});
