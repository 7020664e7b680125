import { isAlreadyExists, isBadRequest, isConflict, isNotFound, type WatchEvent } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { CONFIGMAPS, MemoryBackend } from "./memory-backend.js";

const ctx = { signal: new AbortController().signal, user: "t", userAgent: "t" };
const cm = (name: string, labels: Record<string, string> = {}, namespace = "default") => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, labels },
});

async function take(src: { next(): Promise<IteratorResult<WatchEvent>> }, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for (let i = 0; i < n; i++) {
    const r = await src.next();
    if (r.done === true) break;
    out.push(r.value);
  }
  return out;
}

describe("MemoryBackend", () => {
  it("one global RV per write; conflicts, not-found and already-exists are real Status errors", async () => {
    const b = new MemoryBackend();
    const a = await b.create(CONFIGMAPS, "default", cm("a"), ctx);
    const c = await b.create(CONFIGMAPS, "default", cm("c"), ctx);
    expect(Number(c.metadata!.resourceVersion)).toBe(Number(a.metadata!.resourceVersion) + 1);
    await expect(b.create(CONFIGMAPS, "default", cm("a"), ctx)).rejects.toSatisfy(isAlreadyExists);
    await expect(b.get(CONFIGMAPS, "default", "zz", {}, ctx)).rejects.toSatisfy(isNotFound);
    const stale = { ...cm("a"), metadata: { ...cm("a").metadata, resourceVersion: "1" } };
    await expect(b.update(CONFIGMAPS, "default", "a", stale, ctx)).rejects.toSatisfy(isConflict);
    const list = await b.list(CONFIGMAPS, "", {}, ctx);
    expect(list.metadata.resourceVersion).toBe(c.metadata!.resourceVersion);
    expect(list.items.map((i) => i.metadata?.name)).toEqual(["a", "c"]);
  });
  it("label and field selectors filter lists; unknown field labels are 400", async () => {
    const b = new MemoryBackend();
    await b.create(CONFIGMAPS, "default", cm("a", { app: "x" }), ctx);
    await b.create(CONFIGMAPS, "default", cm("b", { app: "y" }), ctx);
    await b.create(CONFIGMAPS, "other", cm("a", { app: "x" }, "other"), ctx);
    const names = async (o: object) =>
      (await b.list(CONFIGMAPS, "", o, ctx)).items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`);
    expect(await names({ labelSelector: "app=x" })).toEqual(["default/a", "other/a"]);
    expect(await names({ labelSelector: "app in (x,y)", fieldSelector: "metadata.namespace!=other" })).toEqual([
      "default/a",
      "default/b",
    ]);
    expect(await names({ fieldSelector: "metadata.name==b" })).toEqual(["default/b"]);
    await expect(b.list(CONFIGMAPS, "", { fieldSelector: "spec.x=1" }, ctx)).rejects.toSatisfy(isBadRequest);
  });
  it("watch-list: initial ADDED events then the init-end bookmark; later writes stream; stop ends it", async () => {
    const b = new MemoryBackend();
    await b.create(CONFIGMAPS, "default", cm("a"), ctx);
    const w = await b.watch(
      CONFIGMAPS,
      "default",
      { sendInitialEvents: true, allowWatchBookmarks: true, resourceVersionMatch: "NotOlderThan" },
      ctx,
    );
    const init = await take(w, 2);
    expect(init.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"]);
    expect((init[1]!.object.metadata as { annotations?: unknown }).annotations).toEqual({
      "k8s.io/initial-events-end": "true",
    });
    await b.update(CONFIGMAPS, "default", "a", cm("a", { v: "2" }), ctx);
    await b.delete(CONFIGMAPS, "default", "a", undefined, ctx);
    expect((await take(w, 2)).map((e) => e.type)).toEqual(["MODIFIED", "DELETED"]);
    const pending = w.next();
    w.stop();
    expect((await pending).done).toBe(true);
  });
});
