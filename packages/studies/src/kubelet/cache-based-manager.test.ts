import { type KubeObject, newNotFound } from "@informer-ts/apimachinery";
import type { ListerWatcher } from "@informer-ts/cache";
import { FakeClock } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { CacheBasedManager } from "./cache-based-manager.js";
import type { KubeletPod, ObjectClient } from "./manager.js";

/** A client that answers GETs from a map and records the resourceVersion each asked for ("" = none). */
function recordingClient(objects: Map<string, KubeObject>, fail?: () => unknown) {
  const calls: string[] = [];
  const client: ObjectClient = {
    get: async (ns, name, opts) => {
      calls.push(`${name}@${opts.resourceVersion ?? ""}`);
      const err = fail?.();
      if (err !== undefined) throw err;
      const o = objects.get(`${ns}/${name}`);
      if (o === undefined) throw newNotFound({ group: "", resource: "configmaps" }, name);
      return o;
    },
    singleObjectListerWatcher: () => ({}) as ListerWatcher<KubeObject>,
  };
  return { client, calls };
}

const cm = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: "ns", resourceVersion: rv } });
const pod = (configMaps: string[], name = "p"): KubeletPod => ({
  namespace: "ns",
  name,
  uid: `uid-${name}`,
  configMaps,
});

describe("CacheBasedManager", () => {
  it("kubelet ≤ 1.28: every registration invalidates, so the next read goes to storage; a stale entry is refreshed with RV 0", async () => {
    const clock = new FakeClock();
    const objects = new Map([["ns/a", cm("a", "5")]]);
    const { client, calls } = recordingClient(objects);
    const m = new CacheBasedManager({ client, clock, getTTL: () => 30_000 });
    m.registerPod(pod(["a"]));
    expect(await m.getObject("ns", "a")).toEqual(cm("a", "5"));
    await m.getObject("ns", "a");
    expect(calls).toEqual(["a@"]); // fresh: answered from the cache
    await clock.step(30_000);
    await m.getObject("ns", "a");
    expect(calls).toEqual(["a@", "a@0"]); // stale: refreshed from the watch cache
    m.registerPod(pod(["a"])); // a pod sync
    await m.getObject("ns", "a");
    expect(calls).toEqual(["a@", "a@0", "a@"]); // invalidated: storage again
    expect(m.refCount("ns", "a")).toBe(1);
  });

  it("kubelet ≥ 1.29: registering the same pod again invalidates nothing; a newly referenced object is fetched", async () => {
    const clock = new FakeClock();
    const objects = new Map([
      ["ns/a", cm("a", "5")],
      ["ns/b", cm("b", "6")],
    ]);
    const { client, calls } = recordingClient(objects);
    const m = new CacheBasedManager({ client, clock, getTTL: () => 30_000, invalidateOnEveryRegistration: false });
    m.registerPod(pod(["a"]));
    await m.getObject("ns", "a");
    m.registerPod(pod(["a"]));
    await m.getObject("ns", "a");
    expect(calls).toEqual(["a@"]);
    m.registerPod(pod(["a", "b"]));
    await m.getObject("ns", "b");
    expect(calls).toEqual(["a@", "b@"]);
    m.registerPod(pod(["b"]));
    expect(m.refCount("ns", "a")).toBe(0);
    await expect(m.getObject("ns", "a")).rejects.toThrow('object "ns"/"a" not registered');
  });

  it("uses the default TTL of 1 min without an annotation and a TTL of 0 as always stale", async () => {
    const clock = new FakeClock();
    const { client, calls } = recordingClient(new Map([["ns/a", cm("a", "1")]]));
    let ttl: number | undefined;
    const m = new CacheBasedManager({ client, clock, getTTL: () => ttl, invalidateOnEveryRegistration: false });
    m.registerPod(pod(["a"]));
    await m.getObject("ns", "a");
    await clock.step(59_999);
    await m.getObject("ns", "a");
    expect(calls).toHaveLength(1);
    await clock.step(1);
    await m.getObject("ns", "a");
    expect(calls).toHaveLength(2);
    ttl = 0;
    await m.getObject("ns", "a");
    await m.getObject("ns", "a");
    expect(calls).toEqual(["a@", "a@0", "a@0", "a@0"]);
  });

  it("caches NotFound, keeps the cached object over a failed refresh or an older answer, fails a first fetch", async () => {
    const clock = new FakeClock();
    const objects = new Map([["ns/a", cm("a", "7")]]);
    let failWith: unknown;
    const { client, calls } = recordingClient(objects, () => failWith);
    const m = new CacheBasedManager({ client, clock, getTTL: () => 0 });
    m.registerPod(pod(["a", "gone"]));
    await expect(m.getObject("ns", "gone")).rejects.toMatchObject({ code: 404 });
    await m.getObject("ns", "a");
    failWith = new Error("connection refused");
    expect(await m.getObject("ns", "a")).toEqual(cm("a", "7"));
    failWith = undefined;
    objects.set("ns/a", cm("a", "3")); // an answer older than the cached object is ignored
    expect(await m.getObject("ns", "a")).toEqual(cm("a", "7"));
    m.registerPod(pod(["b"], "q"));
    failWith = new Error("connection refused");
    await expect(m.getObject("ns", "b")).rejects.toThrow("connection refused");
    expect(calls.filter((c) => c.startsWith("a@"))).toEqual(["a@", "a@0", "a@0"]);
  });

  it("shares one fetch between concurrent reads of an object", async () => {
    const clock = new FakeClock();
    const { client, calls } = recordingClient(new Map([["ns/a", cm("a", "1")]]));
    const m = new CacheBasedManager({ client, clock, getTTL: () => 60_000 });
    m.registerPod(pod(["a"]));
    const all = await Promise.all([m.getObject("ns", "a"), m.getObject("ns", "a"), m.getObject("ns", "a")]);
    expect(all.map((o) => o.metadata?.resourceVersion)).toEqual(["1", "1", "1"]);
    expect(calls).toEqual(["a@"]);
    m.unregisterPod(pod(["a"]));
    await expect(m.getObject("ns", "a")).rejects.toThrow("not registered");
  });
});
