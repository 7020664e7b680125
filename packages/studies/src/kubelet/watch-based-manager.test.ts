import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { SimApiServer } from "@informer-ts/sim-apiserver";
import { afterEach, describe, expect, it } from "vitest";
import type { KubeletPod } from "./manager.js";
import { simObjectClient } from "./sim-object-client.js";
import { WatchBasedManager } from "./watch-based-manager.js";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

async function rig(immutable: string[] = []) {
  const clock = new FakeClock();
  const rand = seededRand(3);
  const sim = new SimApiServer({ clock, rand });
  for (const name of ["a", "b", "c"])
    await sim.create("configmaps", "default", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: "default" },
      data: { k: name },
      ...(immutable.includes(name) && { immutable: true }),
    });
  sim.accounting.reset();
  const m = new WatchBasedManager({ client: simObjectClient(sim), clock, rand });
  stops.push(async () => {
    await m.stop();
    sim.stop();
  });
  const watches = () => sim.caches.watchers("configmaps").length;
  const count = (verb: string) => sim.accounting.count({ verb, resource: "configmaps" });
  return { clock, sim, m, watches, count };
}

const pod = (configMaps: string[], name = "p"): KubeletPod => ({
  namespace: "default",
  name,
  uid: `uid-${name}`,
  configMaps,
});

describe("WatchBasedManager", () => {
  it("opens one LIST + WATCH per referenced object, answers reads from it, and sends nothing per pod sync", async () => {
    const { clock, sim, m, watches, count } = await rig();
    m.registerPod(pod(["a", "b"]));
    m.registerPod(pod(["a"], "q")); // a second pod on the node sharing "a": no second watch
    await settle();
    expect((await m.getObject("default", "a")).data).toEqual({ k: "a" });
    expect(watches()).toBe(2);
    expect(count("list")).toBe(2);
    for (let i = 0; i < 5; i++) {
      m.registerPod(pod(["a", "b"]));
      await m.getObject("default", "b");
    }
    expect(count("get")).toBe(0);
    expect(count("watch")).toBe(2);
    await sim.update("configmaps", "default", "b", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "b", namespace: "default" },
      data: { k: "B" },
    });
    await clock.step(10);
    expect((await m.getObject("default", "b")).data).toEqual({ k: "B" });
    expect(m.stats()).toMatchObject({ reflectorsCreated: 2, reflectorsRunning: 2, stoppedImmutable: 0 });
    m.unregisterPod(pod(["a", "b"]));
    await settle();
    expect(watches()).toBe(1); // "a" is still referenced by the second pod
    await expect(m.getObject("default", "b")).rejects.toThrow('object "default"/"b" not registered');
  });

  it("re-opens a watch when the server ends it (5–10 min), without relisting", async () => {
    const { clock, m, watches, count } = await rig();
    m.registerPod(pod(["a"]));
    await m.getObject("default", "a");
    for (let t = 0; t < 60; t++) {
      await clock.step(30_000);
      await m.getObject("default", "a"); // read as the volume manager would, so the idle sweep leaves it alone
    }
    expect(watches()).toBe(1);
    const opens = count("watch");
    expect(opens).toBeGreaterThanOrEqual(3); // 30 min / 5–10 min
    expect(opens).toBeLessThanOrEqual(7);
    expect(count("list")).toBe(1);
  });

  it("stops the watch of an immutable object after the first read, for good", async () => {
    const { clock, m, watches } = await rig(["c"]);
    m.registerPod(pod(["a", "c"]));
    await m.getObject("default", "c");
    await settle();
    expect(watches()).toBe(1);
    expect((await m.getObject("default", "c")).data).toEqual({ k: "c" });
    m.registerPod(pod(["a", "c"]));
    await clock.step(1000);
    expect(watches()).toBe(1);
    expect(m.stats()).toMatchObject({ stoppedImmutable: 1, restarts: 0, reflectorsRunning: 1 });
  });

  it("stops a watch not read for 5 sync periods and restarts it on the next read", async () => {
    const { clock, m, watches, count } = await rig();
    m.registerPod(pod(["a"]));
    await m.getObject("default", "a");
    await clock.step(6 * 60_000 + 1);
    await settle();
    expect(watches()).toBe(0);
    expect(m.stats().stoppedIdle).toBe(1);
    expect((await m.getObject("default", "a")).data).toEqual({ k: "a" });
    await settle();
    expect(watches()).toBe(1);
    expect(count("list")).toBe(2);
    expect(m.stats().restarts).toBe(1);
  });

  it("fails a read after 1 s when the object's first LIST does not come back", async () => {
    const { clock, sim, m } = await rig();
    sim.faults.latency({ ms: 5000, verbs: ["list"] });
    m.registerPod(pod(["a"]));
    const read = m.getObject("default", "a");
    const outcome = read.then(
      () => "read",
      (e: unknown) => String(e),
    );
    await clock.step(1100);
    expect(await outcome).toContain("failed to sync configmaps cache: timed out waiting for the condition");
    await clock.step(5000);
    expect(((await m.getObject("default", "a")) as KubeObject).data).toEqual({ k: "a" });
  });
});
