import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import { describe, expect, it } from "vitest";
import { kubeletMinorVersion, newConfigMapManager, nodeObjectTTLMs, SimKubelet } from "./kubelet.js";
import type { ChangeDetectionStrategy, KubeletPod } from "./manager.js";
import { KUBELET_USER_AGENT, simObjectClient } from "./sim-object-client.js";

async function runNode(strategy: ChangeDetectionStrategy, kubeletVersion: string, ttlSeconds: string, minutes: number) {
  const clock = new FakeClock();
  const rand = seededRand(2);
  const sim = new SimApiServer({ clock, rand });
  for (const name of ["a", "b"])
    await sim.create("configmaps", "default", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: "default" },
    });
  sim.accounting.reset();
  const node: KubeObject = { metadata: { name: "n1", annotations: { "node.alpha.kubernetes.io/ttl": ttlSeconds } } };
  const k = new SimKubelet({
    nodeName: "n1",
    clock,
    rand,
    strategy,
    client: simObjectClient(sim),
    getNode: () => node,
    kubeletVersion,
  });
  const ac = new AbortController();
  const run = k.run(ac.signal);
  const pod: KubeletPod = { namespace: "default", name: "p", uid: "u", configMaps: ["a", "b"] };
  k.updatePod(pod);
  await clock.step(minutes * 60_000);
  ac.abort();
  await run;
  sim.stop();
  const gets = (servedFrom: string) => sim.accounting.count({ verb: "get", servedFrom, userAgent: KUBELET_USER_AGENT });
  return {
    stats: k.stats(),
    storage: gets("storage"),
    cache: gets("cache"),
    watches: sim.accounting.count({ verb: "watch" }),
  };
}

describe("SimKubelet", () => {
  it("Cache on kubelet 1.28: one GET from etcd per ConfigMap per pod sync", async () => {
    const r = await runNode("Cache", "1.28", "60", 30);
    expect(r.stats.podSyncs).toBeGreaterThanOrEqual(20); // 30 min / 60–90 s, plus the first
    expect(r.stats.podSyncs).toBeLessThanOrEqual(31);
    expect(r.storage).toBe(2 * r.stats.podSyncs);
    expect(r.cache).toBe(0);
    expect(r.stats.remounts).toBe(2 * (r.stats.podSyncs - 1));
  });

  it("Cache on kubelet 1.29: the first read from etcd, then RV=0 reads from the watch cache once the TTL ran out", async () => {
    const long = await runNode("Cache", "1.29", "300", 30);
    expect(long.storage).toBe(2);
    const short = await runNode("Cache", "1.29", "60", 30);
    expect(short.storage).toBe(2);
    // with 60 s the entry is stale at (almost) every 60–90 s resync; with 300 s at about one in four
    expect(short.cache).toBeGreaterThan(2 * long.cache);
    expect(long.cache).toBeGreaterThan(0);
  });

  it("Get: a GET from etcd per remount; Watch: none, two watches", async () => {
    const get = await runNode("Get", "1.22", "0", 10);
    expect(get.storage).toBe(2 * get.stats.podSyncs);
    const watch = await runNode("Watch", "1.28", "0", 10);
    expect(watch.storage + watch.cache).toBe(0);
    expect(watch.watches).toBeGreaterThanOrEqual(2);
    expect(watch.stats.remounts).toBeGreaterThan(0);
  });

  it("Watch stops the watch of an immutable ConfigMap from kubelet 1.19 on (ImmutableEphemeralVolumes)", async () => {
    const open = async (version: string) => {
      const clock = new FakeClock();
      const rand = seededRand(2);
      const sim = new SimApiServer({ clock, rand });
      await sim.create("configmaps", "default", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "a", namespace: "default" },
        immutable: true,
      });
      const k = new SimKubelet({
        nodeName: "n1",
        clock,
        rand,
        strategy: "Watch",
        client: simObjectClient(sim),
        getNode: () => undefined,
        kubeletVersion: version,
      });
      const ac = new AbortController();
      const run = k.run(ac.signal);
      k.updatePod({ namespace: "default", name: "p", uid: "u", configMaps: ["a"] });
      await clock.step(5000);
      const watches = sim.caches.watchers("configmaps").length;
      ac.abort();
      await run;
      sim.stop();
      return watches;
    };
    expect(await open("1.18")).toBe(1);
    expect(await open("1.19")).toBe(0);
  });

  it("adopts a running pod: no request until its resync is due (Cache), its watch opened at once (Watch)", async () => {
    const adopt = async (strategy: ChangeDetectionStrategy) => {
      const clock = new FakeClock();
      const rand = seededRand(4);
      const sim = new SimApiServer({ clock, rand });
      await sim.create("configmaps", "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } });
      sim.accounting.reset();
      const k = new SimKubelet({
        nodeName: "n1",
        clock,
        rand,
        strategy,
        client: simObjectClient(sim),
        getNode: () => undefined,
      });
      const ac = new AbortController();
      const run = k.run(ac.signal);
      k.adoptRunningPod({ namespace: "default", name: "p", uid: "u", configMaps: ["a"] }, 30_000);
      await clock.step(29_000);
      const before = { gets: sim.accounting.count({ verb: "get" }), watches: sim.caches.watchers("configmaps").length };
      await clock.step(2_000);
      const after = { gets: sim.accounting.count({ verb: "get", servedFrom: "storage" }), syncs: k.stats().podSyncs };
      ac.abort();
      await run;
      sim.stop();
      return { before, after };
    };
    const cache = await adopt("Cache");
    expect(cache.before).toEqual({ gets: 0, watches: 0 });
    expect(cache.after).toEqual({ gets: 1, syncs: 1 });
    const watch = await adopt("Watch");
    expect(watch.before).toEqual({ gets: 0, watches: 1 });
    expect(watch.after).toEqual({ gets: 0, syncs: 1 });
  });

  it("parses versions and the TTL annotation, and names bad input", () => {
    expect(kubeletMinorVersion("1.28")).toBe(28);
    expect(kubeletMinorVersion("v1.22.13")).toBe(22);
    expect(() => kubeletMinorVersion("1.x")).toThrow('kubelet version must look like 1.28 or v1.28.0, got "1.x"');
    expect(nodeObjectTTLMs({ metadata: { annotations: { "node.alpha.kubernetes.io/ttl": "15" } } })).toBe(15_000);
    expect(nodeObjectTTLMs({ metadata: { annotations: { "node.alpha.kubernetes.io/ttl": "soon" } } })).toBeUndefined();
    expect(nodeObjectTTLMs(undefined)).toBeUndefined();
    const clock = new FakeClock();
    const deps = {
      client: simObjectClient(new SimApiServer({ clock })),
      clock,
      rand: seededRand(1),
      getTTL: () => undefined,
    };
    expect(() => newConfigMapManager("Poll" as ChangeDetectionStrategy, deps)).toThrow(
      'unknown change-detection strategy "Poll"',
    );
  });
});

describe("SimKubelet per release (Cache strategy; write-up 001's 2020 mitigation: TTL controller off, TTL 1000 days)", () => {
  const TTL_1000_DAYS = String(1000 * 86_400);
  it("sends no GET to etcd after the first reads before 1.22 and from 1.29, and one per ConfigMap per sync in 1.22–1.28", async () => {
    const byVersion: Record<string, { storage: number; cache: number; syncs: number }> = {};
    for (const v of ["1.18", "1.21", "1.22", "1.28", "1.29"]) {
      const r = await runNode("Cache", v, TTL_1000_DAYS, 20);
      byVersion[v] = { storage: r.storage, cache: r.cache, syncs: r.stats.podSyncs };
    }
    // before 1.22 a resync does not register (and so does not invalidate): the first read per ConfigMap only
    expect(byVersion["1.18"]).toMatchObject({ storage: 2, cache: 0 });
    expect(byVersion["1.21"]).toMatchObject({ storage: 2, cache: 0 });
    // 1.22 (kubernetes#107821's backport) … 1.28: every sync registers and invalidates, a GET to etcd per remount
    for (const v of ["1.22", "1.28"]) {
      const r = byVersion[v];
      expect(r?.syncs).toBeGreaterThanOrEqual(13);
      expect(r?.storage).toBe(2 * (r?.syncs ?? 0));
      expect(r?.cache).toBe(0);
    }
    // 1.29 (kubernetes#120255): registration on every sync no longer invalidates; the TTL never runs out
    expect(byVersion["1.29"]).toMatchObject({ storage: 2, cache: 0 });
  });

  it("before 1.22 the TTL alone decides: a 60 s TTL refreshes from the watch cache (RV 0), never from etcd", async () => {
    const r = await runNode("Cache", "1.21", "60", 20);
    expect(r.storage).toBe(2);
    expect(r.cache).toBeGreaterThan(2 * 10);
  });

  it("a pod update registers (and invalidates) in every release before 1.29", async () => {
    for (const v of ["1.18", "1.28"]) {
      const clock = new FakeClock();
      const rand = seededRand(3);
      const sim = new SimApiServer({ clock, rand });
      await sim.create("configmaps", "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } });
      sim.accounting.reset();
      const node: KubeObject = {
        metadata: { name: "n1", annotations: { "node.alpha.kubernetes.io/ttl": "86400000" } },
      };
      const k = new SimKubelet({
        nodeName: "n1",
        clock,
        rand,
        strategy: "Cache",
        client: simObjectClient(sim),
        getNode: () => node,
        kubeletVersion: v,
      });
      const ac = new AbortController();
      const run = k.run(ac.signal);
      const pod: KubeletPod = { namespace: "default", name: "p", uid: "u", configMaps: ["a"] };
      k.updatePod(pod);
      await clock.step(5_000);
      k.updatePod({ ...pod });
      await clock.step(5_000);
      ac.abort();
      await run;
      sim.stop();
      expect([v, sim.accounting.count({ verb: "get", servedFrom: "storage" })]).toEqual([v, 2]);
    }
  });
});
