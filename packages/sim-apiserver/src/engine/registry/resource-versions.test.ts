// One resource served at two versions over one storage (autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscalers):
// the resource table keyed by version (register, lookup by group/resource and by `<resource>.<version>.<group>`),
// in-process watches at the other version, and the controllers seeing each stored object once (the namespace
// controller deletes it once, the garbage collector resolves an owner reference of either version).
import type { KubeObject, WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";

const V1 = "horizontalpodautoscalers.v1.autoscaling";
const V2 = "horizontalpodautoscalers.autoscaling";
const DELAY = 10;

function setup() {
  const clock = new FakeClock();
  const engine = new SimApiServer({
    clock,
    rand: seededRand(7),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
    controllers: { delayMs: DELAY },
  });
  return { clock, engine };
}

const hpa = (name: string): KubeObject => ({
  metadata: { name },
  spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 4 },
});

describe("a resource served at two versions (ResourceTable keyed by version)", () => {
  it("lookups: group/resource answers the preferred v2, the fully specified name v1; both are listed", () => {
    const { engine } = setup();
    const v2 = engine.resource(V2);
    const v1 = engine.resource(V1);
    expect([v2.version, v1.version]).toEqual(["v2", "v1"]);
    expect(engine.resource("horizontalpodautoscalers.v2.autoscaling")).toBe(v2);
    expect(engine.resource({ ...v1 })).toBe(v1);
    expect(engine.resources().filter((r) => r.resource === "horizontalpodautoscalers")).toEqual([v2, v1]);
    expect(() => engine.register({ ...v1, storedAs: undefined })).toThrow(/already registered at v1/);
    expect(() => engine.resource("horizontalpodautoscalers.v3.autoscaling")).toThrow();
    engine.stop();
  });

  it("a watch at v1 sees a v2 create and update converted, with the same resourceVersions", async () => {
    const { engine } = setup();
    const w = await engine.watch(V1, "default", { resourceVersion: String(engine.currentResourceVersion) });
    const created = await engine.create(V2, "default", hpa("h"));
    const updated = await engine.update(V2, "default", "h", {
      ...created,
      spec: {
        ...(created.spec as object),
        metrics: [
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 42 } } },
        ],
      },
    });
    const a = (await w.next()).value as WatchEvent;
    const b = (await w.next()).value as WatchEvent;
    expect([a.type, b.type]).toEqual(["ADDED", "MODIFIED"]);
    expect((a.object as KubeObject).apiVersion).toBe("autoscaling/v1");
    expect((a.object as KubeObject).metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect((b.object as KubeObject).spec).toMatchObject({ targetCPUUtilizationPercentage: 42 });
    expect((b.object as KubeObject).metadata?.resourceVersion).toBe(updated.metadata?.resourceVersion);
    expect((await engine.list(V1, "default")).items).toHaveLength(1);
    w.stop();
    engine.stop();
  });

  it("the namespace controller deletes each HPA once; the garbage collector resolves an autoscaling/v1 owner", async () => {
    const { clock, engine } = setup();
    await engine.create("namespaces", "", { metadata: { name: "team" } });
    const owner = await engine.create(V1, "team", hpa("owner"));
    await engine.create("configmaps", "team", {
      metadata: {
        name: "dep",
        ownerReferences: [
          { apiVersion: "autoscaling/v1", kind: "HorizontalPodAutoscaler", name: "owner", uid: owner.metadata!.uid! },
        ],
      },
    });
    await engine.delete(V2, "team", "owner");
    for (let i = 0; i < 5; i++) await clock.step(DELAY);
    await expect(engine.get("configmaps", "team", "dep")).rejects.toMatchObject({ status: { code: 404 } });
    expect(engine.garbageCollector?.unresolvedRetries).toBe(0);
    await engine.create(V2, "team", hpa("a"));
    await engine.delete("namespaces", "", "team");
    for (let i = 0; i < 20; i++) await clock.step(DELAY);
    await expect(engine.get("namespaces", "", "team")).rejects.toMatchObject({ status: { code: 404 } });
    expect((await engine.list(V1, "")).items).toEqual([]);
    engine.stop();
  });
});
