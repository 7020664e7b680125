// The builder's `finalize` hook end to end against the simulator's deletion semantics (registry finalizers,
// deletionTimestamp) and its garbage collector: the object is held until the hook succeeds, a failing hook is retried
// with the rate limiter's backoff, another controller's finalizer is left alone, bad finalizer names are refused up
// front, and once the owner is gone the garbage collector deletes the children `owns` was tracking.
import type { KubeObject } from "@informer-ts/apimachinery";
import { silentLogger } from "@informer-ts/cache";
import { builtinResources, customResource } from "@informer-ts/client";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import {
  type ControllerEvent,
  InvalidFinalizerError,
  Manager,
  newControllerManagedBy,
  setControllerReference,
} from "@informer-ts/controller";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { DEFAULT_VERBS, SimApiServer } from "@informer-ts/sim-apiserver";
import { describe, expect, it } from "vitest";
import { EngineClient, ref } from "./engine-client.js";

const widgets = customResource({
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
});
const { configmaps } = builtinResources;
const NS = "default";
const FINALIZER = "example.com/cleanup";

async function flush(n = 30): Promise<void> {
  for (let i = 0; i < n; i++) await settle();
}

function setup() {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const engine = new SimApiServer({ clock, rand: seededRand(11) });
  engine.register({
    group: widgets.group,
    version: widgets.version,
    resource: widgets.resource,
    kind: widgets.kind,
    namespaced: true,
    singularName: "widget",
    verbs: DEFAULT_VERBS,
    custom: true,
  });
  const client = new EngineClient(engine);
  const manager = new Manager({
    quiet: true, // no log assertions here
    listerWatcherFor: (r, { namespace }) => engine.listerWatcher(ref(r), { namespace }) as never,
    client,
    clock,
    rand: seededRand(12),
    metrics: new InMemoryMetrics(),
    informerOptions: { reflector: { logger: silentLogger } },
  });
  return { clock, engine, client, manager };
}

const stored = (engine: SimApiServer, res: string, name: string) =>
  engine.storage.get(engine.resource(res), NS, name) as KubeObject | undefined;

describe("finalize hook against the simulator's deletion semantics", () => {
  it("holds the object until the hook succeeds, retries a failing hook with backoff, leaves other finalizers alone; GC removes the children", async () => {
    const { clock, engine, client, manager } = setup();
    const hookTimes: number[] = [];
    let hookFailures = 2;
    const controller = newControllerManagedBy(manager)
      .for(widgets)
      .owns(configmaps)
      .finalize(FINALIZER, async (obj) => {
        hookTimes.push(clock.now());
        expect(obj.metadata?.deletionTimestamp).toBeDefined();
        if (hookFailures-- > 0) throw new Error("cleanup failed");
      })
      .complete(async (req, ctx) => {
        const w = manager.informerFor(widgets).getIndexer().getByKey(`${req.namespace}/${req.name}`);
        if (w === undefined) return;
        const child: KubeObject = {
          metadata: { name: `${req.name}-child`, namespace: req.namespace },
          data: { x: "1" },
        };
        setControllerReference(w, child);
        await client.create(configmaps, child, {}, ctx.signal).catch(() => undefined);
      });
    const events: ControllerEvent[] = [];
    controller.events$.subscribe((e) => events.push(e));
    const ac = new AbortController();
    const run = manager.run(ac.signal);
    await engine.create("widgets.example.com", NS, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1", namespace: NS, finalizers: ["other.io/keep"] },
    });
    for (let i = 0; i < 50 && manager.notReadyReason() !== undefined; i++) {
      await clock.step(100);
      await flush();
    }
    await flush();
    // The finalizer was added (by patch) before the reconcile made the child.
    expect(stored(engine, "widgets.example.com", "w1")?.metadata?.finalizers).toEqual(["other.io/keep", FINALIZER]);
    expect(stored(engine, "configmaps", "w1-child")?.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "Widget",
      name: "w1",
      controller: true,
    });

    // Delete: held by both finalizers; the hook fails twice and is retried with the rate limiter's backoff.
    await engine.delete("widgets.example.com", NS, "w1");
    await flush();
    expect(stored(engine, "widgets.example.com", "w1")?.metadata?.deletionTimestamp).toBeDefined();
    for (let i = 0; i < 10; i++) {
      await clock.step(10);
      await flush();
    }
    expect(hookTimes).toHaveLength(3);
    expect(hookTimes.slice(1).map((t, i) => t - hookTimes[i]!)).toEqual([5, 10]);
    expect(events.filter((e) => e.type === "reconcileError").map((e) => (e as { error: Error }).error.message)).toEqual(
      ["cleanup failed", "cleanup failed"],
    );
    // Our finalizer is gone; the other controller's still holds the object (and its child).
    const held = stored(engine, "widgets.example.com", "w1");
    expect(held?.metadata?.finalizers).toEqual(["other.io/keep"]);
    expect(stored(engine, "configmaps", "w1-child")).toBeDefined();

    // The other controller finishes: the object goes, and the garbage collector deletes the child.
    await engine.patch(
      "widgets.example.com",
      NS,
      "w1",
      "application/merge-patch+json",
      JSON.stringify({ metadata: { finalizers: null } }),
    );
    await flush();
    await clock.step(1000);
    await flush();
    expect(stored(engine, "widgets.example.com", "w1")).toBeUndefined();
    expect(stored(engine, "configmaps", "w1-child")).toBeUndefined();
    expect(hookTimes).toHaveLength(3); // not run again once our finalizer was removed

    ac.abort();
    await clock.step(1000);
    await run;
    engine.stop();
  });

  it("a finalizer name that is not a qualified name is refused when building, naming it", () => {
    const { manager } = setup();
    expect(() =>
      newControllerManagedBy(manager)
        .for(widgets)
        .finalize("Not A/Valid/Name", () => {}),
    ).toThrow(InvalidFinalizerError);
    expect(() =>
      newControllerManagedBy(manager)
        .for(widgets)
        .finalize("bad name", () => {}),
    ).toThrow('invalid finalizer name "bad name"');
  });
});
