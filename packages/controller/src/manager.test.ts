import type { KubeObject } from "@informer-ts/apimachinery";
import { type GenericLister, newGenericLister, type SharedIndexInformer, silentLogger } from "@informer-ts/cache";
import { type ConfigMap, customResource, resources } from "@informer-ts/client";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { PromMetrics } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { newControllerManagedBy } from "./builder.js";
import { children, fakeSources, obj, parents } from "./controller.test-util.js";
import { FakeObjectClient } from "./fake-object-client.test-util.js";
import { LeaderElectionLostError, Manager, type ManagerEvent, type ManagerOptions } from "./manager.js";
import { eventsResource } from "./record/event.js";
import { setupSignalHandler } from "./signals.js";

async function turns(n = 30): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function managerOn(clock: FakeClock, sources: ReturnType<typeof fakeSources>, extra: Partial<ManagerOptions> = {}) {
  const m = new Manager({
    quiet: true, // no log assertions here
    listerWatcherFor: (r) => sources.listerWatcherFor(r),
    clock,
    rand: seededRand(7),
    informerOptions: { reflector: { logger: silentLogger } },
    ...extra,
  });
  const events: ManagerEvent[] = [];
  m.events$.subscribe((e) => events.push(e));
  return { m, events };
}

describe("Manager", () => {
  it("shares one informer per resource among controllers, syncs, then runs every controller; stops cleanly", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m, events } = managerOn(clock, sources);
    const seenA: string[] = [];
    const seenB: string[] = [];
    newControllerManagedBy(m)
      .for(parents)
      .owns(children)
      .complete((r) => {
        seenA.push(r.name);
      });
    newControllerManagedBy(m)
      .named("other")
      .for(parents)
      .complete((r) => {
        seenB.push(r.name);
      });
    expect([...m.factory.list().keys()].sort()).toEqual(["configmaps.v1", "parents.v1.example.com"]);
    expect(() =>
      newControllerManagedBy(m)
        .for(parents)
        .complete(() => {}),
    ).toThrow("controller with name parent already exists");
    sources.source(parents).add(obj("p1"));
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await turns();
    await clock.step(100);
    await turns();
    expect(m.notReadyReason()).toBeUndefined();
    expect(seenA).toEqual(["p1"]);
    expect(seenB).toEqual(["p1"]);
    expect(events.map((e) => e.type)).toEqual(["cachesSynced", "controllersStarted"]);
    ac.abort();
    await clock.step(100);
    await run;
    expect(events.at(-1)).toEqual({ type: "stopped" });
    expect(m.notReadyReason()).toBe("manager is stopped");
    await expect(m.run(ac.signal)).rejects.toThrow("manager was started more than once");
  });

  it("informerFor is typed by the descriptor: typed informers, indexers and listers without casts, one informer per resource", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const { m } = managerOn(clock, sources);
    interface Widget extends KubeObject {
      spec?: { replicas?: number };
    }
    const widgets = customResource<Widget>({
      group: "example.com",
      version: "v1",
      resource: "widgets",
      kind: "Widget",
    });
    const cms = m.informerFor(resources.configMaps);
    const ws = m.informerFor(widgets);
    expectTypeOf(cms).toEqualTypeOf<SharedIndexInformer<ConfigMap>>();
    expectTypeOf(cms.getIndexer().getByKey("default/a")).toEqualTypeOf<ConfigMap | undefined>();
    expectTypeOf(ws.getIndexer().list()).toEqualTypeOf<Widget[]>();
    expectTypeOf(m.informerFor(children)).toEqualTypeOf<SharedIndexInformer<KubeObject>>();
    const lister = newGenericLister(cms.getIndexer(), { group: "", resource: "configmaps" });
    expectTypeOf(lister).toEqualTypeOf<GenericLister<ConfigMap>>();
    // @ts-expect-error a ConfigMap's data values are strings
    const wrong: number | undefined = cms.getIndexer().list()[0]?.data?.k;
    // A typed informer still goes wherever an untyped one is expected (WatchSource, newControllerManagedBy…).
    const asUntyped: SharedIndexInformer<KubeObject> = cms;
    // Typed or not, one resource has one informer.
    expect(m.informerFor(children)).toBe(cms);
    expect(asUntyped).toBe(cms);
    expect([...m.factory.list().keys()].sort()).toEqual(["configmaps.v1", "widgets.v1.example.com"]);
    sources.source(children).add(obj("a", { data: { k: "v" } }));
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await turns();
    await clock.step(100);
    await turns();
    const cm = lister.byNamespace("default").get("a");
    expect(cm.data?.k).toBe("v");
    expect(wrong).toBeUndefined();
    ac.abort();
    await clock.step(100);
    await run;
  });

  it("serves /healthz, /readyz and /metrics on loopback; readiness waits for the caches", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const metrics = new PromMetrics();
    const { m, events } = managerOn(clock, sources, { probe: { port: 0 }, metrics });
    newControllerManagedBy(m)
      .for(parents)
      .complete(() => {});
    const down = () => new Error("apiserver down");
    sources.source(parents).raw.failNextList(down(), down(), down());
    sources.source(parents).raw.failNextWatch(down(), down(), down());
    const ac = new AbortController();
    const run = m.run(ac.signal);
    cleanups.push(async () => {
      ac.abort();
      await clock.step(1000);
      await run.catch(() => {});
    });
    for (let i = 0; i < 100 && m.probeAddress() === undefined; i++) await new Promise((r) => setImmediate(r));
    const addr = m.probeAddress()!;
    expect(addr.address).toBe("127.0.0.1");
    const url = `http://127.0.0.1:${addr.port}`;
    expect(events[0]).toEqual({ type: "probeListening", url });
    const health = await fetch(`${url}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toContain("[-]manager failed: informers not synced");
    for (let i = 0; i < 12 && m.notReadyReason() !== undefined; i++) {
      await clock.step(5000);
      await turns();
    }
    const ready = await fetch(`${url}/readyz?verbose`);
    expect([ready.status, await ready.text()]).toEqual([200, "[+]manager ok\nreadyz check passed\n"]);
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="parent"} 1');
    expect(text).toContain("controller_runtime_reconcile_total");
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    expect((await fetch(`${url}/healthz`, { method: "POST" })).status).toBe(405);
    ac.abort();
    await clock.step(1000);
    await run;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("with leader election only the leader runs controllers; standbys are ready and take over when it leaves", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const store = new FakeObjectClient();
    const seen: Record<string, string[]> = { a: [], b: [] };
    const replicas = (["a", "b"] as const).map((id) => {
      const { m, events } = managerOn(clock, sources, {
        client: store,
        leaderElection: { namespace: "kube-system", name: "parents", identity: id, releaseOnCancel: true },
      });
      newControllerManagedBy(m)
        .for(parents)
        .complete((r) => {
          seen[id]!.push(r.name);
        });
      const ac = new AbortController();
      return { id, m, events, ac, run: m.run(ac.signal) };
    });
    sources.source(parents).add(obj("p1"));
    await turns();
    await clock.step(5000);
    await turns();
    expect(seen.a).toEqual(["p1"]);
    expect(seen.b).toEqual([]);
    expect(replicas[0]!.m.elector?.isLeader()).toBe(true);
    expect(replicas[1]!.m.notReadyReason()).toBeUndefined(); // standby, leader known
    // The leader leaves (releasing the lease): the standby takes over within a retry period and reconciles.
    replicas[0]!.ac.abort();
    await clock.step(1000);
    await replicas[0]!.run;
    sources.source(parents).add(obj("p2"));
    await clock.step(5000);
    await turns();
    expect(replicas[1]!.m.elector?.isLeader()).toBe(true);
    expect([...(seen.b ?? [])].sort()).toEqual(["p1", "p2"]);
    expect(seen.a).toEqual(["p1"]);
    replicas[1]!.ac.abort();
    await clock.step(1000);
    await replicas[1]!.run;
  });

  it("a leader that loses its lease stops its controllers and run rejects with LeaderElectionLostError", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const store = new FakeObjectClient();
    const { m } = managerOn(clock, sources, {
      client: store,
      leaderElection: { namespace: "kube-system", name: "parents", identity: "a" },
    });
    let signal: AbortSignal | undefined;
    newControllerManagedBy(m)
      .for(parents)
      .complete((_r, ctx) => {
        signal = ctx.signal;
      });
    sources.source(parents).add(obj("p1"));
    const run = m.run(new AbortController().signal);
    const failed = run.then(
      () => undefined,
      (e: unknown) => e,
    );
    await turns();
    await clock.step(3000);
    await turns();
    expect(signal).toBeDefined();
    store.fault = (req) => {
      if (req.resource === "leases") throw new Error("partitioned");
    };
    await clock.step(20_000);
    const err = await failed;
    expect(err).toBeInstanceOf(LeaderElectionLostError);
    expect((err as Error).message).toBe("leader election lost: a stopped leading");
  });

  it("a standby that never acquires the lease leaves no timer behind when stopped (its controllers' queues are shut down)", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const store = new FakeObjectClient();
    store.fault = (req) => {
      if (req.resource === "leases") throw new Error("lease unavailable");
    };
    const { m } = managerOn(clock, sources, {
      client: store,
      leaderElection: { namespace: "kube-system", name: "parents", identity: "standby" },
    });
    const c = newControllerManagedBy(m)
      .for(parents)
      .complete(() => {});
    sources.source(parents).add(obj("p1"));
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await turns();
    await clock.step(10_000);
    await turns();
    expect(m.elector?.isLeader()).toBe(false);
    expect(c.status().phase).toBe("new");
    ac.abort();
    await clock.step(100);
    await run;
    expect(c.queue.shuttingDown()).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a manager whose caches never sync leaves no timer behind when stopped", async () => {
    const clock = new FakeClock(0);
    const unreachable = {
      list: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1")),
      watch: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1")),
    };
    const m = new Manager({
      quiet: true, // no log assertions here
      listerWatcherFor: () => unreachable,
      clock,
      rand: seededRand(7),
      informerOptions: { reflector: { logger: silentLogger } },
    });
    const c = newControllerManagedBy(m)
      .for(parents)
      .complete(() => {});
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await turns();
    await clock.step(10_000);
    await turns();
    expect(m.notReadyReason()).toMatch(/^informers not synced/);
    ac.abort();
    await clock.step(100);
    await run;
    expect(c.status().phase).toBe("new");
    expect(c.queue.shuttingDown()).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("getEventRecorderFor writes Events through the client while running", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const store = new FakeObjectClient();
    const { m } = managerOn(clock, sources, { client: store });
    const recorder = m.getEventRecorderFor("parent-controller");
    newControllerManagedBy(m)
      .for(parents)
      .complete((r) => {
        recorder.event({ kind: "Parent", namespace: r.namespace, name: r.name }, "Normal", "Reconciled", "done");
      });
    sources.source(parents).add(obj("p1"));
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await turns();
    await clock.step(100);
    await turns();
    const written = [...store.objects.values()];
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ reason: "Reconciled", source: { component: "parent-controller" } });
    expect(store.requests[0]).toMatchObject({ verb: "create", resource: eventsResource.resource });
    ac.abort();
    await clock.step(100);
    await run;
  });
  it("getEventRecorderFor types objects from its caches that carry no apiVersion/kind (listed), as upstream's scheme does", async () => {
    const clock = new FakeClock(0);
    const sources = fakeSources(clock);
    const store = new FakeObjectClient();
    const { m } = managerOn(clock, sources, {
      client: store,
      informerOptions: { reflector: { logger: silentLogger, useWatchList: false } },
    });
    const recorder = m.getEventRecorderFor("parent-controller");
    const cache = m.informerFor(parents);
    newControllerManagedBy(m)
      .for(parents)
      .complete((r) => {
        const p = cache.getIndexer().getByKey(`${r.namespace}/${r.name}`)!;
        expect(p.kind).toBeUndefined(); // from the LIST
        recorder.event(p, "Normal", "Reconciled", "done");
        // A look-alike that is not the cached object is left as it is.
        recorder.event({ metadata: { name: "stranger", namespace: "default" } }, "Normal", "Seen", "a stranger");
      });
    sources.source(parents).raw.add(obj("p1"));
    const ac = new AbortController();
    const run = m.run(ac.signal);
    await turns();
    await clock.step(100);
    await turns();
    const written = [...store.objects.values()] as { reason?: string; involvedObject?: Record<string, unknown> }[];
    const byReason = Object.fromEntries(written.map((e) => [e.reason, e.involvedObject]));
    expect(byReason.Reconciled).toMatchObject({ apiVersion: "example.com/v1", kind: "Parent", name: "p1" });
    expect(byReason.Seen).toEqual({ namespace: "default", name: "stranger" });
    ac.abort();
    await clock.step(100);
    await run;
  });
});

describe("setupSignalHandler", () => {
  it("aborts on the first SIGTERM and calls onSecondSignal on the next; dispose removes the listeners", () => {
    const before = process.listenerCount("SIGTERM");
    const seconds: string[] = [];
    const h = setupSignalHandler({ onSecondSignal: (s) => seconds.push(s) });
    expect(process.listenerCount("SIGTERM")).toBe(before + 1);
    process.emit("SIGTERM");
    expect(h.signal.aborted).toBe(true);
    expect((h.signal.reason as Error).message).toBe("received SIGTERM: shutting down");
    process.emit("SIGINT");
    expect(seconds).toEqual(["SIGINT"]);
    h.dispose();
    expect(process.listenerCount("SIGTERM")).toBe(before);
  });
});
