import { getEventListeners } from "node:events";
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ListerWatcherScope } from "./deprecated.js";
import { NamespaceIndex } from "./index-funcs.js";
import {
  type InformerResource,
  newSharedInformerFactory,
  newSharedInformerFactoryWithOptions,
  resourceKey,
  type SharedInformerFactory,
  type SharedInformerOption,
  syncResultAsError,
  withCustomResyncConfig,
  withInformerName,
  withInformerOptions,
  withNamespace,
  withTransform,
  withTweakListOptions,
} from "./informer-factory.js";
import type { ProcessorListener } from "./processor-listener.js";
import { silentLogger } from "./reflector/logger.js";
import { newSharedIndexInformer } from "./shared-informer.js";
import { FakeControllerSource } from "./testing/fake-controller-source.js";
import { runUntilSettled } from "./testing/run-until-settled.js";

const pods: InformerResource = { group: "", version: "v1", resource: "pods", kind: "Pod" };
const deployments: InformerResource = { group: "apps", version: "v1", resource: "deployments", kind: "Deployment" };
const configmaps: InformerResource = { group: "", version: "v1", resource: "configmaps" };

interface Env {
  clock: FakeClock;
  sources: Map<string, FakeControllerSource<KubeObject>>;
  scopes: { resource: string; scope: ListerWatcherScope }[];
  factory: SharedInformerFactory<InformerResource, KubeObject>;
  ac: AbortController;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  vi.restoreAllMocks();
});

function env(...options: SharedInformerOption<KubeObject>[]): Env {
  const clock = new FakeClock(0);
  const sources = new Map<string, FakeControllerSource<KubeObject>>();
  const scopes: Env["scopes"] = [];
  const sourceFor = (r: InformerResource) => {
    let s = sources.get(r.resource);
    if (s === undefined) {
      s = new FakeControllerSource<KubeObject>({
        clock,
        rand: seededRand(1),
        ...(r.kind === undefined
          ? {}
          : { bookmarkKind: { apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`, kind: r.kind } }),
      });
      sources.set(r.resource, s);
    }
    return s;
  };
  const factory = newSharedInformerFactoryWithOptions<InformerResource, KubeObject>(
    (r, scope) => {
      scopes.push({ resource: r.resource, scope });
      return sourceFor(r);
    },
    0,
    withInformerOptions({ clock, rand: seededRand(2), reflector: { logger: silentLogger } }),
    ...options,
  );
  const ac = new AbortController();
  cleanups.push(async () => {
    ac.abort();
    await runUntilSettled(clock, factory.shutdown());
  });
  for (const r of [pods, deployments, configmaps]) sourceFor(r);
  return { clock, sources, scopes, factory, ac };
}

const obj = (r: InformerResource, name: string, namespace = "default"): KubeObject => ({
  ...(r.kind === undefined ? {} : { apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`, kind: r.kind }),
  metadata: { name, namespace },
});

describe("X1: one informer per resource", () => {
  it("informerFor returns the existing informer; keys are kubectl-style resource names", () => {
    const { factory } = env();
    const a = factory.informerFor(pods);
    expect(factory.informerFor({ ...pods })).toBe(a);
    expect(factory.informerFor(deployments)).not.toBe(a);
    expect([...factory.list().keys()]).toEqual(["pods.v1", "deployments.v1.apps"]);
    expect(resourceKey(configmaps)).toBe("configmaps.v1");
  });

  it("uses the custom resync for a resource, else the default; installs the namespace index", () => {
    const { factory } = env(
      withCustomResyncConfig({ "pods.v1": 30_000 }),
      withCustomResyncConfig(new Map([[deployments, 5_000]])),
    );
    const p = factory.informerFor(pods);
    const d = factory.informerFor(deployments);
    const c = factory.informerFor(configmaps);
    expect([p, d, c].map((i) => i.status().resyncCheckPeriod)).toEqual([30_000, 5_000, 0]);
    expect(Object.keys(p.getIndexer().getIndexers())).toEqual([NamespaceIndex]);
    const reg = p.addEventHandler({ onAdd() {}, onUpdate() {}, onDelete() {} });
    expect((reg as ProcessorListener<KubeObject>).resyncPeriod).toBe(30_000);
    expect(() => withCustomResyncConfig({ x: -1 })).toThrow(/≥ 0/);
  });

  it("a custom NewInformerFunc builds the informer from the scoped lister-watcher and resync", () => {
    const { factory } = env(withCustomResyncConfig({ "pods.v1": 7_000 }));
    const seen: number[] = [];
    const i = factory.informerFor(pods, (lw, _r, resync) => {
      seen.push(resync);
      return newSharedIndexInformer(lw, undefined, { resyncPeriod: resync });
    });
    expect(seen).toEqual([7_000]);
    expect(factory.informerFor(pods)).toBe(i);
  });
});

describe("X2: scoping options", () => {
  it("withNamespace and withTweakListOptions shape every list and watch request", async () => {
    const e = env(
      withNamespace("kube-system"),
      withTweakListOptions((o) => {
        o.labelSelector = "app=web";
      }),
    );
    e.factory.informerFor(pods);
    e.factory.start(e.ac.signal);
    await e.clock.step(0);
    expect(e.scopes).toEqual([{ resource: "pods", scope: { namespace: "kube-system" } }]);
    const src = e.sources.get("pods")!;
    const calls = [...src.listCalls, ...src.watchCalls];
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.labelSelector).toBe("app=web");
    expect(e.factory.namespace).toBe("kube-system");
  });

  it("a tweak may return replacement options instead of editing them", async () => {
    const e = env(withTweakListOptions((o) => ({ ...o, fieldSelector: "spec.nodeName=n1" })));
    e.factory.informerFor(pods);
    e.factory.start(e.ac.signal);
    await e.clock.step(0);
    for (const c of e.sources.get("pods")!.watchCalls) expect(c.fieldSelector).toBe("spec.nodeName=n1");
  });

  it("withTransform sets every informer's transform; withInformerName labels the metrics", async () => {
    const metrics = new InMemoryMetrics();
    const e = env(
      withTransform<KubeObject>((o) => ({ ...o, metadata: { ...o.metadata, annotations: { t: "1" } } })),
      withInformerName("ctrl"),
      withInformerOptions({ metrics }),
    );
    e.sources.get("deployments")!.add(obj(deployments, "d1"));
    const inf = e.factory.informerFor(deployments);
    e.factory.start(e.ac.signal);
    await e.clock.step(0);
    expect(inf.getStore().getByKey("default/d1")?.metadata?.annotations).toEqual({ t: "1" });
    const labels = { name: "ctrl", group: "apps", version: "v1", resource: "deployments" };
    expect(metrics.value("informer_store_resource_version", labels)).toBe(1);
  });

  it("option constructors reject bad input", () => {
    expect(() => withNamespace(3 as unknown as string)).toThrow(TypeError);
    expect(() => withTweakListOptions(null as unknown as () => undefined)).toThrow(TypeError);
    expect(() => withTransform(null as unknown as (o: unknown) => unknown)).toThrow(TypeError);
    expect(() => newSharedInformerFactory(null as unknown as () => FakeControllerSource, 0)).toThrow(TypeError);
    expect(() => newSharedInformerFactory(() => new FakeControllerSource(), -5)).toThrow(RangeError);
  });
});

describe("X3: start", () => {
  it("starts each informer once; later informers need another start; a no-op after shutdown", async () => {
    const warn = vi.fn();
    const e = env(withInformerOptions({ logger: { log: (_level, message) => warn(message) } }));
    const p = e.factory.informerFor(pods);
    e.factory.start(e.ac.signal);
    e.factory.start(e.ac.signal);
    await e.clock.step(0);
    expect(p.hasStarted()).toBe(true);
    expect(warn).not.toHaveBeenCalled();
    const d = e.factory.informerFor(deployments);
    await e.clock.step(0);
    expect(d.hasStarted()).toBe(false);
    e.factory.start(e.ac.signal);
    expect(d.hasStarted()).toBe(true);
    e.ac.abort();
    await runUntilSettled(e.clock, e.factory.shutdown());
    const c = e.factory.informerFor(configmaps);
    e.factory.start(new AbortController().signal);
    expect(c.hasStarted()).toBe(false);
  });
});

describe("X4: waitForCacheSync", () => {
  it("waits for started informers only and reports each one", async () => {
    const e = env();
    e.sources.get("pods")!.add(obj(pods, "p1"));
    e.factory.informerFor(pods);
    e.factory.start(e.ac.signal);
    const notStarted = e.factory.informerFor(deployments);
    const result = await runUntilSettled(e.clock, e.factory.waitForCacheSync(e.ac.signal));
    expect(result.err).toBeUndefined();
    expect([...result.synced]).toEqual([["pods.v1", true]]);
    expect(syncResultAsError(result)).toBeUndefined();
    expect(notStarted.hasSynced()).toBe(false);
  });

  it("reports the unsynced informers and the signal's reason when stopped first", async () => {
    const e = env();
    e.sources.get("pods")!.add(obj(pods, "p1"));
    const blocked = e.sources.get("deployments")!;
    blocked.listError = new Error("forbidden");
    blocked.watchListSupport = "invalid";
    e.factory.informerFor(pods);
    e.factory.informerFor(deployments);
    e.factory.start(e.ac.signal);
    const waiting = new AbortController();
    const pending = e.factory.waitForCacheSync(waiting.signal);
    await e.clock.step(5_000);
    waiting.abort(new Error("timed out"));
    const result = await pending;
    expect(result.synced.get("pods.v1")).toBe(true);
    expect(result.synced.get("deployments.v1.apps")).toBe(false);
    expect(String(result.err)).toContain("timed out");
    expect(syncResultAsError(result)?.message).toBe("failed to sync all caches: deployments.v1.apps: timed out");
  });
});

describe("X5: shutdown", () => {
  it("resolves only after the informers' signal aborts and they stopped; repeatable", async () => {
    const e = env();
    const p = e.factory.informerFor(pods);
    e.factory.start(e.ac.signal);
    await e.clock.step(0);
    let done = 0;
    void e.factory.shutdown().then(() => done++);
    void e.factory.shutdown().then(() => done++);
    await e.clock.step(1000);
    expect(done).toBe(0);
    e.ac.abort();
    await e.clock.step(0);
    await settle();
    expect(done).toBe(2);
    expect(p.isStopped()).toBe(true);
    await e.factory.shutdown();
  });

  it("shutdown with nothing started resolves at once", async () => {
    const factory = newSharedInformerFactory(() => new FakeControllerSource(), 0);
    factory.informerFor(pods);
    await factory.shutdown();
  });
});

describe("one lifecycle: run(signal)", () => {
  it("50 informers on one signal: one abort listener, no MaxListenersExceededWarning, none left after stop", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const e = env();
      const resources: InformerResource[] = Array.from({ length: 50 }, (_, i) => ({
        group: "",
        version: "v1",
        resource: `things${i}`,
      }));
      for (const r of resources) {
        e.sources.set(r.resource, new FakeControllerSource<KubeObject>({ clock: e.clock, rand: seededRand(3) }));
        e.factory.informerFor(r);
      }
      const running = e.factory.run(e.ac.signal);
      await e.clock.step(0);
      await settle();
      const result = await runUntilSettled(e.clock, e.factory.waitForCacheSync(e.ac.signal));
      expect([...result.synced.values()].filter(Boolean)).toHaveLength(50);
      expect(getEventListeners(e.ac.signal, "abort")).toHaveLength(1);
      e.ac.abort();
      await runUntilSettled(e.clock, running);
      expect([...e.factory.list().values()].every((i) => i.isStopped())).toBe(true);
      expect(getEventListeners(e.ac.signal, "abort")).toHaveLength(0);
      expect(e.clock.pendingTimers()).toBe(0);
      // Node reports MaxListenersExceededWarning on process 'warning' from a later tick.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("run$(): the subscription is the run; unsubscribing stops every informer and completes after release", async () => {
    const e = env();
    const p = e.factory.informerFor(pods);
    let completed = false;
    const sub = e.factory.run$().subscribe({ complete: () => (completed = true) });
    await e.clock.step(0);
    expect(p.hasStarted()).toBe(true);
    sub.unsubscribe();
    await runUntilSettled(e.clock, e.factory.shutdown());
    expect(p.isStopped()).toBe(true);
    expect(completed).toBe(false); // unsubscribed: no completion is delivered to a closed subscriber
  });
});
