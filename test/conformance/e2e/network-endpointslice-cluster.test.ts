// The network/endpointslice.go tests that need the endpoints and EndpointSlice controllers, re-implemented with
// @kubernetes/client-node against the simulator and its cluster (`pnpm apiserver --cluster`) over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster({ cluster: { nodes: 1 }, clockRate: 10 });
});
afterAll(async () => {
  await c.close();
});

interface Slice {
  metadata: { labels?: Record<string, string> };
  endpoints?: unknown[];
}

async function slicesOf(ns: string, service: string): Promise<Slice[]> {
  const res = await c.raw(
    "GET",
    `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${service}`,
  );
  return (res.json as { items: Slice[] }).items;
}

describe("[sig-network] EndpointSlice (network/endpointslice.go)", () => {
  it("should create and delete Endpoints and EndpointSlices for a Service with a selector specified", async () => {
    const ns = await c.namespace("endpointslice");
    const svc = await c.core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: "example-empty-selector" },
        spec: {
          selector: { "does-not-match-anything": "endpoints-and-endpoint-slices-should-still-be-created" },
          ports: [{ name: "example", port: 80, protocol: "TCP" }],
        },
      },
    });
    const name = svc.metadata!.name!;
    const endpointsStatus = async () => {
      try {
        await c.core.readNamespacedEndpoints({ namespace: ns, name });
        return 200;
      } catch (err) {
        return codeOf(err);
      }
    };
    await expect.poll(endpointsStatus, { timeout: 10_000, interval: 100 }).toBe(200);
    await expect
      .poll(async () => (await slicesOf(ns, name)).length, { timeout: 10_000, interval: 100 })
      .toBeGreaterThan(0);
    const [slice] = await slicesOf(ns, name);
    expect(slice?.metadata.labels?.["endpointslice.kubernetes.io/managed-by"]).toBe("endpointslice-controller.k8s.io");
    expect(slice?.endpoints ?? []).toHaveLength(0);
    await c.core.deleteNamespacedService({ namespace: ns, name });
    await expect.poll(endpointsStatus, { timeout: 10_000, interval: 100 }).toBe(404);
    await expect.poll(async () => (await slicesOf(ns, name)).length, { timeout: 10_000, interval: 100 }).toBe(0);
  });
});

interface FullSlice extends Slice {
  metadata: { name: string; labels?: Record<string, string> };
  endpoints?: Array<{
    addresses: string[];
    targetRef?: { kind?: string; name?: string; namespace?: string; uid?: string };
  }>;
  ports?: Array<{ name?: string; port?: number; protocol?: string }>;
}

describe("[sig-network] EndpointSlice, pods (network/endpointslice.go)", () => {
  it("should create Endpoints and EndpointSlices for Pods matching a Service", async () => {
    const ns = await c.namespace("endpointslice");
    const pod = (name: string, labels: Record<string, string>, ports: Array<[string, number]>) =>
      c.core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name, labels },
          spec: {
            containers: [
              { name: "container1", image: "nginx", ports: ports.map(([n, p]) => ({ name: n, containerPort: p })) },
            ],
          },
        },
      });
    await pod("pod1", { pod1: "on", shared12: "on" }, [["example-name", 3000]]);
    await pod("pod2", { pod2: "on", shared12: "on" }, [
      ["example-name", 3001],
      ["other-port", 3002],
    ]);
    const service = (
      name: string,
      selector: Record<string, string>,
      port: { name: string; targetPort: number | string },
    ) =>
      c.core.createNamespacedService({
        namespace: ns,
        body: {
          metadata: { name },
          spec: { selector, publishNotReadyAddresses: true, ports: [{ ...port, port: 80, protocol: "TCP" }] },
        },
      });
    await service("example-int-port", { pod1: "on" }, { name: "example", targetPort: 3000 });
    await service("example-named-port", { shared12: "on" }, { name: "http", targetPort: "example-name" });
    await service("example-no-match", { pod3: "on" }, { name: "example-no-match", targetPort: 8080 });
    const ipOf = async (name: string) =>
      (await c.core.readNamespacedPod({ namespace: ns, name })).status?.podIPs?.[0]?.ip;
    await expect
      .poll(async () => [await ipOf("pod1"), await ipOf("pod2")].every((ip) => ip !== undefined), {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(true);
    const pods = new Map<string, { name: string; uid: string; port: number }>();
    for (const [name, port] of [
      ["pod1", 3000],
      ["pod2", 3001],
    ] as const) {
      const p = await c.core.readNamespacedPod({ namespace: ns, name });
      pods.set(p.status!.podIPs![0]!.ip, { name, uid: p.metadata!.uid!, port });
    }
    const slices = async (svc: string) => (await slicesOf(ns, svc)) as FullSlice[];

    // upstream's expectEndpointsAndSlices(svc, pods, numSubsets, numSlices, namedPort)
    const expectEndpointsAndSlices = async (
      svc: string,
      podNames: string[],
      numSubsets: number,
      numSlices: number,
      namedPort: boolean,
    ) => {
      const wanted = [...pods.entries()].filter(([, p]) => podNames.includes(p.name));
      await expect
        .poll(
          async () => {
            const s = await slices(svc);
            return s.length === numSlices && s.flatMap((x) => x.endpoints ?? []).length === wanted.length;
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      await expect
        .poll(
          async () => {
            const ep = await c.core.readNamespacedEndpoints({ namespace: ns, name: svc });
            const subsets = ep.subsets ?? [];
            const addrs = subsets.flatMap((s) => [...(s.addresses ?? []), ...(s.notReadyAddresses ?? [])]);
            return subsets.length === numSubsets && addrs.length === wanted.length;
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      const ep = await c.core.readNamespacedEndpoints({ namespace: ns, name: svc });
      for (const subset of ep.subsets ?? []) {
        expect(subset.ports).toHaveLength(1);
        if (!namedPort) expect(subset.ports?.[0]).toMatchObject({ name: "example", protocol: "TCP", port: 3000 });
        for (const a of [...(subset.addresses ?? []), ...(subset.notReadyAddresses ?? [])]) {
          const p = pods.get(a.ip);
          expect(p, a.ip).toBeDefined();
          expect(a.targetRef).toMatchObject({ kind: "Pod", name: p!.name, namespace: ns, uid: p!.uid });
          if (namedPort) expect(subset.ports?.[0]).toMatchObject({ port: p!.port, name: "http" });
        }
      }
      for (const slice of await slices(svc)) {
        if (wanted.length === 0) expect(slice.ports ?? []).toHaveLength(0);
        else expect(slice.ports).toHaveLength(1);
        for (const e of slice.endpoints ?? []) {
          const p = pods.get(e.addresses[0]!);
          expect(p, e.addresses[0]).toBeDefined();
          expect(e.targetRef).toMatchObject({ kind: "Pod", name: p!.name, namespace: ns, uid: p!.uid });
          if (namedPort) expect(slice.ports?.[0]).toMatchObject({ port: p!.port, name: "http" });
          else expect(slice.ports?.[0]).toMatchObject({ port: 3000, name: "example", protocol: "TCP" });
        }
      }
    };
    await expectEndpointsAndSlices("example-int-port", ["pod1"], 1, 1, false);
    await expectEndpointsAndSlices("example-named-port", ["pod1", "pod2"], 2, 2, true);
    await expectEndpointsAndSlices("example-no-match", [], 0, 1, false);
    // recreating EndpointSlices after they have been deleted
    for (const s of await slices("example-named-port"))
      await c.raw("DELETE", `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices/${s.metadata.name}`);
    await expectEndpointsAndSlices("example-named-port", ["pod1", "pod2"], 2, 2, true);
  });
});
