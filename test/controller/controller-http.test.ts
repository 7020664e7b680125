// The controller package's writes through the real KubeClient over loopback HTTP against the simulated apiserver:
// leader election on coordination.k8s.io/v1 Leases (optimistic concurrency → 409 for the loser, release hands over),
// Events written and then patched (strategic merge) by the recorder, and finalizer patches guarded by resourceVersion
// with a conflict retry. Lives in test/ because it joins packages that may not import each other.
import type { KubeObject } from "@informer-ts/apimachinery";
import { builtinResources, KubeClient } from "@informer-ts/client";
import { FakeClock, seededRand } from "@informer-ts/clock";
import {
  EventBroadcaster,
  formatTime,
  type LeaderElectionEvent,
  LeaderElector,
  LeaseLock,
  patchAddFinalizer,
  patchRemoveFinalizer,
} from "@informer-ts/controller";
import { silentLogger } from "@informer-ts/instrumentation";
import { EngineBackend, SimApiServer, SimHttpServer } from "@informer-ts/sim-apiserver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const { configmaps, events, leases } = builtinResources;

let clock: FakeClock;
let engine: SimApiServer;
let sim: SimHttpServer;
let client: KubeClient;

beforeAll(async () => {
  clock = new FakeClock(Date.UTC(2026, 0, 1));
  engine = new SimApiServer({ clock, rand: seededRand(3) });
  sim = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  const url = await sim.start();
  client = new KubeClient({ server: url }, { clock, rateLimiter: null, maxRetries: 0, quiet: true });
});

afterAll(async () => {
  await client?.close();
  await sim?.close();
  engine?.stop();
});

/** Lets sockets make progress until `cond` holds (bounded in event-loop turns, never a timed wait). */
async function ioUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 20_000 && !cond(); i++) await new Promise<void>((resolve) => setImmediate(resolve));
  expect(cond()).toBe(true);
}

/** Steps the fake clock in small increments, letting HTTP round trips complete in between. */
async function stepIo(ms: number, by = 250): Promise<void> {
  for (let t = 0; t < ms; t += by) {
    await clock.step(by);
    for (let i = 0; i < 50; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describe("controller writes over HTTP (KubeClient → SimHttpServer)", () => {
  it("leader election on a Lease: one leader, the loser of the race sees a 409, release hands over", async () => {
    const mk = (id: string) => {
      const seen: LeaderElectionEvent[] = [];
      let leading = false;
      const elector = new LeaderElector({
        lock: new LeaseLock({ namespace: "kube-system", name: "http-ctrl", identity: id, client }),
        clock,
        logger: silentLogger, // asserted on events$, not on logs
        rand: seededRand(id.charCodeAt(0)),
        releaseOnCancel: true,
        callbacks: {
          onStartedLeading: () => {
            leading = true;
          },
          onStoppedLeading: () => {
            leading = false;
          },
        },
      });
      elector.events$.subscribe((e) => seen.push(e));
      const ac = new AbortController();
      return { id, elector, seen, ac, run: elector.run(ac.signal), leading: () => leading };
    };
    const a = mk("a");
    const b = mk("b");
    await ioUntil(() => a.leading() || b.leading());
    await stepIo(5000);
    expect([a.leading(), b.leading()].filter(Boolean)).toHaveLength(1);
    const [leader, standby] = a.leading() ? [a, b] : [b, a];
    // Both raced for the absent Lease: the loser's create was refused (409 AlreadyExists) or its update conflicted.
    expect(standby.seen.some((e) => e.type === "error" && (e.error as { code?: number }).code === 409)).toBe(true);
    const lease = (await client.get(leases, "http-ctrl", { namespace: "kube-system" })) as KubeObject;
    expect(lease.spec).toMatchObject({ holderIdentity: leader.id, leaseDurationSeconds: 15 });
    expect(standby.elector.getLeader()).toBe(leader.id);
    leader.ac.abort();
    await ioUntil(() => !leader.leading());
    await leader.run;
    await stepIo(5000);
    expect(standby.leading()).toBe(true);
    standby.ac.abort();
    await ioUntil(() => !standby.leading());
    await standby.run;
    const released = (await client.get(leases, "http-ctrl", { namespace: "kube-system" })) as KubeObject;
    expect(released.spec).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1, leaseTransitions: 1 });
  });

  it("the event recorder creates an Event, then patches its count when it repeats", async () => {
    const b = new EventBroadcaster({ client, clock, rand: seededRand(1) });
    const ac = new AbortController();
    const run = b.run(ac.signal);
    const rec = b.newRecorder({ component: "http-test" });
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "ev-target", namespace: "default", uid: "u-1" },
    };
    const t0 = clock.now();
    rec.event(cm, "Normal", "Synced", "all good");
    const list = async () => (await client.list(events, { namespace: "default" })).items as KubeObject[];
    let items: KubeObject[] = [];
    await ioUntil(() => b.pending() === 0);
    for (let i = 0; i < 100 && items.length === 0; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      items = await list();
    }
    expect(items).toHaveLength(1);
    await clock.step(2000);
    rec.event(cm, "Normal", "Synced", "all good");
    for (let i = 0; i < 200; i++) {
      items = await list();
      if (items[0]?.count === 2) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      count: 2,
      reason: "Synced",
      involvedObject: { kind: "ConfigMap", name: "ev-target", uid: "u-1" },
      source: { component: "http-test" },
      firstTimestamp: formatTime(t0),
      lastTimestamp: formatTime(t0 + 2000),
    });
    ac.abort();
    await run;
  });

  it("finalizer patches are guarded by resourceVersion: a stale object conflicts, is re-read and patched", async () => {
    const created = await client.create(configmaps, {
      metadata: { name: "fin", namespace: "default", finalizers: ["other.io/keep"] },
      data: { a: "1" },
    });
    // A third party changes the object after we read it.
    await client.update(configmaps, { ...created, data: { a: "2" } });
    const p = patchAddFinalizer(client, configmaps, created, "example.com/cleanup", { clock });
    const settled = p.then(
      (v) => ({ ok: true as const, v }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    let result: Awaited<typeof settled> | undefined;
    void settled.then((r) => {
      result = r;
    });
    for (let i = 0; i < 200 && result === undefined; i++) await stepIo(10, 10);
    expect(result?.ok).toBe(true);
    const got = (await client.get(configmaps, "fin", { namespace: "default" })) as KubeObject;
    expect(got.metadata?.finalizers).toEqual(["other.io/keep", "example.com/cleanup"]);
    expect(got.data).toEqual({ a: "2" });
    const removed = await patchRemoveFinalizer(client, configmaps, got, "example.com/cleanup", { clock });
    expect(removed?.metadata?.finalizers).toEqual(["other.io/keep"]);
  });
});
