import { fc, test } from "@fast-check/vitest";
import type { KubeObject, OwnerReference, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";
import { unresolvedRetryDelayMs } from "./garbage-collector.js";

const CM = "configmaps";
const NS = "default";
const DELAY = 10;

function setup() {
  const clock = new FakeClock();
  const engine = new SimApiServer({
    clock,
    rand: seededRand(4),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
    controllers: { delayMs: DELAY },
  });
  return { clock, engine };
}

/** Steps the clock until neither controller has a pass scheduled. */
async function quiesce(clock: FakeClock, engine: SimApiServer): Promise<number> {
  let steps = 0;
  while ((engine.garbageCollector?.pending === true || engine.namespaceController?.pending === true) && steps < 500) {
    await clock.step(DELAY);
    steps++;
  }
  return steps;
}

function ref(o: KubeObject, block = false, controller = false): OwnerReference {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: o.metadata!.name!,
    uid: o.metadata!.uid!,
    ...(block && { blockOwnerDeletion: true }),
    ...(controller && { controller: true }),
  };
}

async function exists(engine: SimApiServer, name: string): Promise<boolean> {
  return engine.get(CM, NS, name).then(
    () => true,
    () => false,
  );
}

describe("GarbageCollector", () => {
  it("a reference to a kind not served yet keeps the dependent; once a definition serves the kind, the absent owner makes it dangling", async () => {
    const { clock, engine } = setup();
    await engine.create(CM, NS, {
      metadata: {
        name: "d",
        ownerReferences: [{ apiVersion: "example.dev/v1", kind: "Pool", name: "p", uid: "no-such-uid" }],
      },
    });
    await quiesce(clock, engine);
    expect(await exists(engine, "d")).toBe(true);
    await engine.create("customresourcedefinitions.apiextensions.k8s.io", "", {
      metadata: { name: "pools.example.dev" },
      spec: {
        group: "example.dev",
        scope: "Namespaced",
        names: { plural: "pools", kind: "Pool" },
        versions: [{ name: "v1", served: true, storage: true }],
      },
    });
    // A pass armed by any other change re-resolves it.
    const other = await engine.create(CM, NS, { metadata: { name: "o" } });
    await engine.create(CM, NS, { metadata: { name: "o-dep", ownerReferences: [ref(other)] } });
    await quiesce(clock, engine);
    expect(await exists(engine, "d")).toBe(false);
    expect(await exists(engine, "o-dep")).toBe(true);
  });

  it("attemptToDelete requeue: a reference to a kind not served is retried on the clock with backoff, and resolves once the kind is served without another change", async () => {
    const { clock, engine } = setup();
    await engine.create(CM, NS, {
      metadata: {
        name: "d",
        ownerReferences: [
          { apiVersion: "example.dev/v1", kind: "Pool", name: "p", uid: "no-such-uid" },
          { apiVersion: "v1", kind: "ConfigMap", name: "gone", uid: "gone-uid" },
        ],
      },
    });
    await clock.step(DELAY);
    // Unresolvable: nothing is done to it — not even the dangling ConfigMap reference is dropped — and it waits.
    expect(engine.garbageCollector?.unresolvedRetries).toBe(1);
    expect((await engine.get(CM, NS, "d")).metadata?.ownerReferences).toHaveLength(2);
    const passes = engine.garbageCollector!.passes;
    // Retries back off: 5 ms, 10 ms, 20 ms, … each followed by a pass `DELAY` later.
    for (let i = 0; i < 30; i++) await clock.step(DELAY);
    const retried = engine.garbageCollector!.passes - passes;
    expect(retried).toBeGreaterThanOrEqual(3);
    expect(retried).toBeLessThan(10);
    // The kind is served now (the definition's writes concern no dependent, nothing else changes).
    engine.register({
      group: "example.dev",
      version: "v1",
      resource: "pools",
      kind: "Pool",
      singularName: "pool",
      namespaced: true,
      verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
      custom: true,
    });
    for (let i = 0; i < 500 && (await exists(engine, "d")); i++) await clock.step(100);
    expect(await exists(engine, "d")).toBe(false);
    expect(engine.garbageCollector?.unresolvedRetries).toBe(0);
    engine.stop();
  });

  it("an owner kind that is not served is logged once per kind, as a warning at the engine's logger, while it is retried", async () => {
    const clock = new FakeClock();
    const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const engine = new SimApiServer({
      clock,
      rand: seededRand(4),
      compactionIntervalMs: 0,
      progressNotifyIntervalMs: 0,
      controllers: { delayMs: DELAY },
      logger: { log: (level, message, fields) => lines.push({ level, message, ...(fields && { fields }) }) },
    });
    const owned = (name: string, kind: string) => ({
      metadata: { name, ownerReferences: [{ apiVersion: "example.dev/v1", kind, name: "p", uid: `${kind}-uid` }] },
    });
    await engine.create(CM, NS, owned("a", "Pool"));
    await engine.create(CM, NS, owned("b", "Pool"));
    await engine.create(CM, NS, owned("c", "Lake"));
    for (let i = 0; i < 30; i++) await clock.step(DELAY);
    const gc = lines.filter((l) => l.fields?.controller === "garbage-collector");
    // Two kinds, two lines — however many dependents and retries.
    expect(gc.map((l) => l.fields?.ownerKind).sort()).toEqual(["example.dev/v1/Lake", "example.dev/v1/Pool"]);
    for (const l of gc) {
      expect(l.level).toBe("warn");
      expect(l.message).toMatch(
        /^garbage collector: owner kind (Pool|Lake) \(apiVersion example\.dev\/v1\) of configmaps default\/[abc] is not served;/,
      );
    }
    expect(engine.garbageCollector?.unresolvedRetries).toBe(3);
    engine.stop();
  });

  it("unresolvedRetryDelayMs: DefaultControllerRateLimiter's per-item exponential backoff (5 ms doubling, 1000 s cap)", () => {
    expect([0, 1, 2, 10].map(unresolvedRetryDelayMs)).toEqual([5, 10, 20, 5120]);
    expect(unresolvedRetryDelayMs(40)).toBe(1_000_000);
  });

  it("background: dependents of a deleted owner are deleted one delay later; an owner in another kind works", async () => {
    const { clock, engine } = setup();
    const owner = await engine.create(CM, NS, { metadata: { name: "o" } });
    await engine.create(CM, NS, { metadata: { name: "d", ownerReferences: [ref(owner)] } });
    const node = await engine.create("nodes", "", { metadata: { name: "n1" } });
    await engine.create(CM, NS, {
      metadata: {
        name: "by-node",
        ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n1", uid: node.metadata!.uid! }],
      },
    });
    await engine.delete(CM, NS, "o");
    await engine.delete("nodes", "", "n1");
    expect(await exists(engine, "d")).toBe(true);
    await clock.step(DELAY);
    expect(await exists(engine, "d")).toBe(false);
    expect(await exists(engine, "by-node")).toBe(false);
    expect(await quiesce(clock, engine)).toBeLessThan(3);
  });

  it("foreground: the owner waits with foregroundDeletion until its blocking dependents are gone", async () => {
    const { clock, engine } = setup();
    const owner = await engine.create(CM, NS, { metadata: { name: "o" } });
    await engine.create(CM, NS, {
      metadata: { name: "d", ownerReferences: [ref(owner, true)], finalizers: ["example.com/hold"] },
    });
    const held = await engine.delete(CM, NS, "o", { propagationPolicy: "Foreground" });
    expect(held.metadata?.finalizers).toEqual(["foregroundDeletion"]);
    await quiesce(clock, engine);
    expect((await engine.get(CM, NS, "d")).metadata?.deletionTimestamp).toEqual(expect.any(String));
    expect(await exists(engine, "o")).toBe(true);
    await engine.update(CM, NS, "d", { metadata: { name: "d", ownerReferences: [ref(owner, true)] } });
    await quiesce(clock, engine);
    expect(await exists(engine, "o")).toBe(false);
  });

  it("should not be blocked by dependency circle (test/e2e/apimachinery/garbage_collector.go): three pods owning each other in a ring", async () => {
    const { clock, engine } = setup();
    const podRef = (p: KubeObject): OwnerReference => ({
      apiVersion: "v1",
      kind: "Pod",
      name: p.metadata!.name!,
      uid: p.metadata!.uid!,
      blockOwnerDeletion: true,
    });
    const spec = { containers: [{ name: "c", image: "nginx" }] };
    const pod1 = await engine.create("pods", NS, { metadata: { name: "pod1" }, spec });
    const pod2 = await engine.create("pods", NS, { metadata: { name: "pod2", ownerReferences: [podRef(pod1)] }, spec });
    const pod3 = await engine.create("pods", NS, { metadata: { name: "pod3", ownerReferences: [podRef(pod2)] }, spec });
    const fresh = await engine.get("pods", NS, "pod1");
    await engine.update("pods", NS, "pod1", {
      ...fresh,
      metadata: { ...fresh.metadata, ownerReferences: [podRef(pod3)] },
    });
    await engine.delete("pods", NS, "pod1", { propagationPolicy: "Foreground" });
    const steps = await quiesce(clock, engine);
    expect(steps).toBeLessThan(500);
    expect((await engine.list("pods", NS)).items.map((p) => p.metadata?.name)).toEqual([]);
  });

  it("orphan: dependents lose the reference and survive; the orphan finalizer goes, then the owner", async () => {
    const { clock, engine } = setup();
    const owner = await engine.create(CM, NS, { metadata: { name: "o" } });
    const other = await engine.create(CM, NS, { metadata: { name: "p" } });
    await engine.create(CM, NS, { metadata: { name: "d", ownerReferences: [ref(owner), ref(other)] } });
    await engine.delete(CM, NS, "o", { propagationPolicy: "Orphan" });
    await quiesce(clock, engine);
    expect(await exists(engine, "o")).toBe(false);
    expect((await engine.get(CM, NS, "d")).metadata?.ownerReferences).toEqual([ref(other)]);
  });

  it("dangling owners (absent or another uid) collect the dependent; a namespaced kind on a cluster-scoped dependent never does", async () => {
    const { clock, engine } = setup();
    await engine.create(CM, NS, {
      metadata: { name: "d", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "ghost", uid: "u-1" }] },
    });
    await engine.create("nodes", "", {
      metadata: { name: "n", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "ghost", uid: "u-1" }] },
    });
    await quiesce(clock, engine);
    expect(await exists(engine, "d")).toBe(false);
    expect((await engine.get("nodes", "", "n")).metadata?.name).toBe("n");
  });

  it("an engine without owner references never schedules a pass", async () => {
    const { engine } = setup();
    await engine.create(CM, NS, { metadata: { name: "a" } });
    await engine.delete(CM, NS, "a");
    expect(engine.garbageCollector?.pending).toBe(false);
    expect(engine.garbageCollector?.passes).toBe(0);
  });

  type Op =
    | { readonly kind: "delete"; readonly i: number; readonly policy: "Background" | "Foreground" | "Orphan" | "" }
    | { readonly kind: "release"; readonly i: number }
    | { readonly kind: "step" };

  const graph = fc.array(
    fc.record({
      owners: fc.uniqueArray(fc.nat(6), { maxLength: 2 }),
      block: fc.boolean(),
      finalizer: fc.boolean(),
    }),
    { minLength: 2, maxLength: 8 },
  );
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant("delete" as const),
      i: fc.nat(7),
      policy: fc.constantFrom("Background" as const, "Foreground" as const, "Orphan" as const, "" as const),
    }),
    fc.record({ kind: fc.constant("release" as const), i: fc.nat(7) }),
    fc.record({ kind: fc.constant("step" as const) }),
  );

  test.prop([graph, fc.array(op, { maxLength: 12 })], { numRuns: 60 })(
    "model: at quiescence no survivor has a deleted owner, nothing went while a finalizer remained, events match the state",
    async (nodes, ops) => {
      const { clock, engine } = setup();
      const startRV = engine.currentResourceVersion;
      const w = await engine.watch(CM, NS, { resourceVersion: String(startRV), timeoutSeconds: 3600 });
      const created: KubeObject[] = [];
      for (let i = 0; i < nodes.length; i++) {
        const n = nodes[i]!;
        const owners = n.owners.filter((o) => o < i).map((o) => ref(created[o]!, n.block));
        created.push(
          await engine.create(CM, NS, {
            metadata: {
              name: `o${i}`,
              ...(owners.length > 0 && { ownerReferences: owners }),
              ...(n.finalizer && { finalizers: ["example.com/f"] }),
            },
          }),
        );
      }
      for (const o of ops) {
        if (o.kind === "step") {
          await clock.step(DELAY);
          continue;
        }
        const name = `o${o.i % nodes.length}`;
        if (o.kind === "delete") {
          await engine
            .delete(CM, NS, name, o.policy === "" ? {} : { propagationPolicy: o.policy })
            .catch(() => undefined);
        } else {
          const cur = await engine.get(CM, NS, name).catch(() => undefined);
          if (cur !== undefined) {
            const fins = (cur.metadata?.finalizers ?? []).filter((f) => f !== "example.com/f");
            await engine
              .update(CM, NS, name, { ...cur, metadata: { ...cur.metadata, finalizers: fins } })
              .catch(() => undefined);
          }
        }
      }
      await quiesce(clock, engine);
      expect(engine.garbageCollector?.pending).toBe(false);
      const live = (await engine.list(CM, NS)).items;
      const liveUids = new Set(live.map((o) => o.metadata?.uid));
      for (const o of live) {
        // A survivor that is not itself being held by a finalizer has no reference to a deleted owner: its
        // dependents-of-deleted-owners were collected, or orphaned (their reference removed).
        if (o.metadata?.deletionTimestamp !== undefined) continue;
        for (const r of o.metadata?.ownerReferences ?? [])
          expect(liveUids.has(r.uid), `${o.metadata?.name} → ${r.name}`).toBe(true);
      }
      // Replay the watch: it ends at the current revision, never deletes an object that still had finalizers, and
      // folds into exactly the live state.
      const state = new Map<string, KubeObject>();
      const target = engine.currentResourceVersion;
      let rv = startRV;
      while (rv < target) {
        const e = (await w.next()).value as WatchEvent;
        const o = e.object as KubeObject;
        rv = Number(o.metadata?.resourceVersion);
        if (e.type === "DELETED") {
          expect(o.metadata?.finalizers ?? [], `${o.metadata?.name} deleted with finalizers`).toEqual([]);
          state.delete(o.metadata!.name!);
        } else state.set(o.metadata!.name!, o);
      }
      w.stop();
      // List items of built-ins carry no kind/apiVersion; watch objects do.
      const bare = ({ kind: _k, apiVersion: _a, ...rest }: KubeObject) => rest;
      const replayed = [...state.values()].sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
      expect(replayed.map(bare)).toEqual(live.map(bare));
      engine.stop();
    },
  );
});
