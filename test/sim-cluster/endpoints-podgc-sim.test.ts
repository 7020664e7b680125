// The Endpoints, EndpointSlice and pod GC controllers in the simulated cluster (in-process, virtual time).
import type { EndpointSlice, Endpoints, Pod, Service } from "@informer-ts/client";
import { resources } from "@informer-ts/client";
import { createSimCluster, type SimCluster } from "@informer-ts/testing";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { all, available, podsOf, replicaSet, stored } from "./cluster-helpers.js";

let c: SimCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

function service(name: string, selector: Record<string, string>, extra: Partial<Service["spec"]> = {}): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default", labels: { team: "a" } },
    spec: { selector, ports: [{ name: "http", port: 80, targetPort: 8080 }], ...extra },
  } as Service;
}

const slicesOf = (cl: SimCluster, svc: string) =>
  all<EndpointSlice>(cl, "endpointslices.discovery.k8s.io").filter(
    (s) => s.metadata?.labels?.["kubernetes.io/service-name"] === svc,
  );

describe("Endpoints and EndpointSlices from a Service and its ready pods", () => {
  it("TestSyncEndpointsItems (endpoints_controller_test.go): one address per ready pod, ports by targetPort, labels; slices hold the same", async () => {
    c = await createSimCluster({ cluster: { nodes: 2 } });
    const cl = c;
    await cl.client.create(resources.replicaSets, replicaSet("web", 3));
    await cl.client.create(resources.services, service("web", { app: "web" }));
    await cl.settle({ maxMs: 120_000, until: available(cl, "web", 3) });
    await cl.settle({ maxMs: 10_000 });
    const ep = stored<Endpoints>(cl, "endpoints", "default", "web")!;
    const ips = podsOf(cl, "web")
      .map((p) => p.status?.podIP)
      .sort();
    expect(ep.metadata?.labels).toEqual({ team: "a", "endpoints.kubernetes.io/managed-by": "endpoint-controller" });
    expect(ep.subsets).toHaveLength(1);
    expect(ep.subsets?.[0]?.ports).toEqual([{ name: "http", port: 8080, protocol: "TCP" }]);
    expect(ep.subsets?.[0]?.addresses?.map((a) => a.ip)).toEqual(ips);
    expect(ep.subsets?.[0]?.notReadyAddresses).toBeUndefined();
    const slices = slicesOf(cl, "web");
    expect(slices).toHaveLength(1);
    const s = slices[0]!;
    expect(s.metadata?.labels?.["endpointslice.kubernetes.io/managed-by"]).toBe("endpointslice-controller.k8s.io");
    expect(s.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Service", name: "web", controller: true });
    expect(s.addressType).toBe("IPv4");
    expect(s.ports).toEqual([{ name: "http", port: 8080, protocol: "TCP" }]);
    expect(s.endpoints.map((e) => e.addresses[0])).toEqual(ips);
    expect(s.endpoints.every((e) => e.conditions?.ready === true && e.conditions.terminating === false)).toBe(true);
  });

  it("a scaled-down pod is terminating in the slice and gone from Endpoints; deleting the Service removes both", async () => {
    c = await createSimCluster({ cluster: { nodes: 2 } });
    const cl = c;
    await cl.client.create(resources.replicaSets, replicaSet("web", 5));
    await cl.client.create(resources.services, service("web", { app: "web" }));
    await cl.settle({ maxMs: 120_000, until: available(cl, "web", 5) });
    await cl.settle({ maxMs: 10_000 });
    const rs = stored<{ spec: { replicas: number } }>(cl, "replicasets.apps", "default", "web")!;
    await cl.client.patch(resources.replicaSets, "web", { spec: { replicas: 4 } }, { namespace: "default" });
    expect(rs.spec.replicas).toBe(5);
    await cl.settle({
      maxMs: 10_000,
      until: () => slicesOf(cl, "web")[0]?.endpoints.some((e) => e.conditions?.terminating === true) === true,
    });
    const terminating = slicesOf(cl, "web")[0]!.endpoints.filter((e) => e.conditions?.terminating === true);
    expect(terminating).toHaveLength(1);
    expect(terminating[0]?.conditions).toEqual({ ready: false, serving: true, terminating: true });
    const ep = stored<Endpoints>(cl, "endpoints", "default", "web")!;
    expect(ep.subsets?.[0]?.addresses).toHaveLength(4);
    await cl.settle({ maxMs: 120_000, until: () => slicesOf(cl, "web")[0]?.endpoints.length === 4 });
    await cl.client.delete(resources.services, "web", { namespace: "default" });
    await cl.settle({
      maxMs: 10_000,
      until: () => slicesOf(cl, "web").length === 0 && stored(cl, "endpoints", "default", "web") === undefined,
    });
  });

  it("max endpoints per slice (after TestReconcileManyPods, reconciler_test.go): 25 pods at 10 per slice make slices of 10, 10 and 5", async () => {
    c = await createSimCluster({ cluster: { nodes: 2, maxEndpointsPerSlice: 10 } });
    const cl = c;
    await cl.client.create(resources.replicaSets, replicaSet("many", 25, { cpu: "10m" }));
    await cl.client.create(resources.services, service("many", { app: "many" }));
    await cl.settle({ maxMs: 300_000, until: available(cl, "many", 25) });
    await cl.settle({
      maxMs: 30_000,
      until: () => slicesOf(cl, "many").reduce((n, s) => n + s.endpoints.length, 0) === 25,
    });
    expect(
      slicesOf(cl, "many")
        .map((s) => s.endpoints.length)
        .sort((a, b) => a - b),
    ).toEqual([5, 10, 10]);
  });
});

describe("pod GC", () => {
  it("TestGCOrphaned (gc_controller_test.go): a pod bound to a node that does not exist is deleted after the quarantine, not before", async () => {
    c = await createSimCluster({ cluster: { nodes: 1, controllers: ["podgc", "serviceaccount"] } });
    const cl = c;
    await cl.client.create(resources.pods, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "orphan", namespace: "default" },
      spec: { nodeName: "gone-node", containers: [{ name: "c", image: "nginx" }] },
    } as Pod);
    await cl.settle({ maxMs: 30_000 });
    expect(stored(cl, "pods", "default", "orphan")).toBeDefined();
    await cl.settle({
      maxMs: 120_000,
      until: () => stored<Pod>(cl, "pods", "default", "orphan") === undefined,
    });
    expect(cl.runtime!.podGC!.stats.orphaned).toBe(1);
  });

  it("TestGCTerminated (gc_controller_test.go): beyond the threshold the oldest terminated pods go; TestGCUnscheduledTerminating: an unscheduled terminating pod goes", async () => {
    c = await createSimCluster({
      cluster: { nodes: 1, controllers: ["podgc"], podGC: { terminatedPodThreshold: 2 } },
    });
    const cl = c;
    for (const name of ["a", "b", "c", "d"]) {
      const p = await cl.client.create(resources.pods, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "default", finalizers: name === "d" ? ["example.com/hold"] : [] },
        spec: { schedulerName: "none", containers: [{ name: "c", image: "nginx" }] },
      } as Pod);
      if (name !== "d") {
        await cl.client.updateStatus(resources.pods, { ...p, status: { phase: "Succeeded" } } as Pod);
      }
      await cl.clock.step(1000);
    }
    // "d" is terminating and was never scheduled (a finalizer keeps it).
    await cl.client.delete(resources.pods, "d", { namespace: "default" });
    await cl.settle({ maxMs: 60_000, until: () => cl.runtime!.podGC!.stats.terminated >= 1 });
    expect(stored(cl, "pods", "default", "a")).toBeUndefined();
    expect(stored(cl, "pods", "default", "b")).toBeDefined();
    expect(stored(cl, "pods", "default", "c")).toBeDefined();
    expect(cl.runtime!.podGC!.stats.unscheduledTerminating).toBeGreaterThanOrEqual(1);
  });
});

describe("endpoints follow the ready pods (property)", () => {
  it("after any sequence of scales, the Endpoints addresses and the slices' ready endpoints are the IPs of the ready, live pods selected", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          scales: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 3 }),
          max: fc.integer({ min: 1, max: 4 }),
        }),
        async ({ seed, scales, max }) => {
          const cl = await createSimCluster({ seed, cluster: { nodes: 2, events: false, maxEndpointsPerSlice: max } });
          try {
            await cl.client.create(resources.replicaSets, replicaSet("web", 2));
            await cl.client.create(resources.services, service("web", { app: "web" }));
            for (const n of scales) {
              await cl.client.patch(resources.replicaSets, "web", { spec: { replicas: n } }, { namespace: "default" });
              await cl.clock.step(700);
            }
            const want = scales[scales.length - 1]!;
            const readyIPs = () =>
              podsOf(cl, "web")
                .filter((p) => p.metadata?.deletionTimestamp == null)
                .filter((p) => p.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"))
                .map((p) => p.status?.podIP ?? "")
                .sort();
            const endpointIPs = () =>
              (stored<Endpoints>(cl, "endpoints", "default", "web")?.subsets ?? [])
                .flatMap((s) => s.addresses ?? [])
                .map((a) => a.ip)
                .sort();
            const sliceIPs = () =>
              slicesOf(cl, "web")
                .flatMap((s) => s.endpoints)
                .filter((e) => e.conditions?.ready === true)
                .map((e) => e.addresses[0] ?? "")
                .sort();
            const settled = () =>
              podsOf(cl, "web").length === want &&
              readyIPs().length === want &&
              JSON.stringify(endpointIPs()) === JSON.stringify(readyIPs()) &&
              JSON.stringify(sliceIPs()) === JSON.stringify(readyIPs()) &&
              slicesOf(cl, "web").reduce((n, s) => n + s.endpoints.length, 0) === want;
            await cl.settle({ maxMs: 300_000, until: settled });
            expect(endpointIPs()).toEqual(readyIPs());
            expect(slicesOf(cl, "web").every((s) => s.endpoints.length <= max)).toBe(true);
          } finally {
            await cl.close();
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
