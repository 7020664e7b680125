// The lifecycle tests of core kinds that need no kubelet — common/node/podtemplates.go, scheduling/limit_range.go,
// instrumentation/core_events.go's collection test, network/endpointslice.go's API-server endpoints — re-implemented with @kubernetes/client-node and raw requests
// against the simulator over HTTP.
import type { V1PodTemplate } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collection, retryOnConflict } from "./api-operations.js";
import { type E2eCluster, failsWith, startE2eCluster, watchEvents } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

let unique = 0;
const suffix = () => `${++unique}${Date.now().toString(36)}`;
const strategicPatch = () => c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch);

describe("[sig-node] PodTemplates (common/node/podtemplates.go)", () => {
  const podTemplate = (name: string, labels: Record<string, string>, container: string): V1PodTemplate => ({
    metadata: { name, labels },
    template: { spec: { containers: [{ name: container, image: "nginx" }] } },
  });

  it("should run the lifecycle of PodTemplates", async () => {
    const ns = await c.namespace("podtemplate");
    const name = `nginx-pod-template-${suffix()}`;
    expect((await c.core.listPodTemplateForAllNamespaces({ labelSelector: "podtemplate-static=true" })).items).toEqual(
      [],
    );
    await c.core.createNamespacedPodTemplate({
      namespace: ns,
      body: podTemplate(name, { "podtemplate-static": "true" }, "nginx"),
    });
    expect((await c.core.readNamespacedPodTemplate({ namespace: ns, name })).metadata?.name).toBe(name);
    await c.core.patchNamespacedPodTemplate(
      { namespace: ns, name, body: { metadata: { labels: { podtemplate: "patched" } } } },
      strategicPatch(),
    );
    expect((await c.core.readNamespacedPodTemplate({ namespace: ns, name })).metadata?.labels?.podtemplate).toBe(
      "patched",
    );
    await c.core.deleteNamespacedPodTemplate({ namespace: ns, name });
    expect((await c.core.listPodTemplateForAllNamespaces({ labelSelector: "podtemplate-static=true" })).items).toEqual(
      [],
    );
  });

  it("should delete a collection of pod templates", async () => {
    const ns = await c.namespace("podtemplate");
    const names = ["test-podtemplate-1", "test-podtemplate-2", "test-podtemplate-3"];
    for (const name of names)
      await c.core.createNamespacedPodTemplate({
        namespace: ns,
        body: podTemplate(name, { "podtemplate-set": "true" }, "token-test"),
      });
    const list = await c.core.listNamespacedPodTemplate({ namespace: ns, labelSelector: "podtemplate-set=true" });
    expect(list.items).toHaveLength(names.length);
    await c.core.deleteCollectionNamespacedPodTemplate({ namespace: ns, labelSelector: "podtemplate-set=true" });
    await expect
      .poll(
        async () =>
          (await c.core.listNamespacedPodTemplate({ namespace: ns, labelSelector: "podtemplate-set=true" })).items
            .length,
      )
      .toBe(0);
  });

  it("should replace a pod template", async () => {
    const ns = await c.namespace("podtemplate");
    const name = `podtemplate-${suffix()}`;
    await c.core.createNamespacedPodTemplate({ namespace: ns, body: podTemplate(name, {}, "e2e-test") });
    const col = collection(c, `/api/v1/namespaces/${ns}/podtemplates`);
    const updated = await retryOnConflict(col, name, (o) => {
      const t = o.template as { spec: { terminationGracePeriodSeconds?: number } };
      t.spec.terminationGracePeriodSeconds = 1;
    });
    expect((updated.template as { spec: { terminationGracePeriodSeconds?: number } }).spec).toMatchObject({
      terminationGracePeriodSeconds: 1,
    });
  });
});

describe("[sig-scheduling] LimitRange (scheduling/limit_range.go)", () => {
  const resources = (cpu: string, memory: string, storage: string) => ({
    cpu,
    memory,
    "ephemeral-storage": storage,
  });

  it("should list, patch and delete a LimitRange by collection", async () => {
    const ns = await c.namespace("limitrange");
    const lrName = `e2e-limitrange-${suffix()}`;
    const limitRange = {
      metadata: { name: lrName, labels: { "e2e-test": lrName, [lrName]: "created" } },
      spec: {
        limits: [
          {
            type: "Container",
            min: resources("50m", "100Mi", "100Gi"),
            max: resources("500m", "500Mi", "500Gi"),
            // client-node's model names the field `_default` (its serializer writes `default`, and drops a `default:`).
            _default: resources("500m", "500Mi", "500Gi"),
            defaultRequest: resources("100m", "200Mi", "200Gi"),
            maxLimitRequestRatio: {},
          },
        ],
      },
    };
    const created = await c.core.createNamespacedLimitRange({ namespace: ns, body: limitRange });
    expect(created.spec?.limits[0]?._default).toEqual(resources("500m", "500Mi", "500Gi"));
    const other = await c.namespace(lrName);
    await c.core.createNamespacedLimitRange({ namespace: other, body: limitRange });
    const all = await c.core.listLimitRangeForAllNamespaces({ labelSelector: `e2e-test=${lrName}` });
    expect(all.items).toHaveLength(2);
    const newMin = resources("9m", "49Mi", "49Gi");
    const limits = [{ ...limitRange.spec.limits[0], min: newMin }];
    const patched = await c.core.patchNamespacedLimitRange(
      {
        namespace: ns,
        name: lrName,
        body: {
          metadata: { creationTimestamp: created.metadata?.creationTimestamp, labels: { [lrName]: "patched" } },
          spec: { limits },
        },
      },
      strategicPatch(),
    );
    expect(patched.metadata?.labels?.[lrName]).toBe("patched");
    expect(patched.spec?.limits[0]?.min).toEqual(newMin);
    await c.core.deleteCollectionNamespacedLimitRange({ namespace: ns, labelSelector: `${lrName}=patched` });
    await expect
      .poll(
        async () =>
          (await c.core.listNamespacedLimitRange({ namespace: ns, labelSelector: `${lrName}=patched` })).items.length,
      )
      .toBe(0);
    // upstream then confirms the other namespace's LimitRange is still there
    const rest = await c.core.listLimitRangeForAllNamespaces({ labelSelector: `e2e-test=${lrName}` });
    expect(rest.items.map((i) => i.metadata?.namespace)).toEqual([other]);
  });

  it("should create a LimitRange with defaults and ensure pod has those defaults applied.", async () => {
    const ns = await c.namespace("limitrange");
    /** `getResourceList`: the non-empty ones of cpu, memory and ephemeral-storage. */
    const list = (cpu: string, memory: string, storage: string): Record<string, string> =>
      Object.fromEntries(Object.entries(resources(cpu, memory, storage)).filter(([, v]) => v !== ""));
    const min = list("50m", "100Mi", "100Gi");
    const max = list("500m", "500Mi", "500Gi");
    const defaultLimit = list("500m", "500Mi", "500Gi");
    const defaultRequest = list("100m", "200Mi", "200Gi");
    const value = `${Date.now()}${suffix()}`;
    const body = {
      metadata: { name: "limit-range", labels: { time: value } },
      spec: {
        limits: [{ type: "Container", min, max, _default: defaultLimit, defaultRequest, maxLimitRequestRatio: {} }],
      },
    };
    // Setting up watch: the list is empty, and the watch from its resourceVersion sees the creation.
    const selector = `time=${value}`;
    const initial = await c.core.listNamespacedLimitRange({ namespace: ns, labelSelector: selector });
    expect(initial.items).toEqual([]);
    const events = await watchEvents(
      c,
      `/api/v1/namespaces/${ns}/limitranges`,
      { labelSelector: selector, resourceVersion: initial.metadata?.resourceVersion },
      (evs) => evs.length > 0,
      async () => {
        await c.core.createNamespacedLimitRange({ namespace: ns, body });
      },
    );
    expect(events[0]?.type).toBe("ADDED");
    let limitRange = await c.core.readNamespacedLimitRange({ namespace: ns, name: "limit-range" });
    expect(limitRange.spec?.limits[0]?.defaultRequest).toEqual(defaultRequest);
    expect(limitRange.spec?.limits[0]?._default).toEqual(defaultLimit);

    /** `newTestPod`: one pause container with these requests and limits. */
    const testPod = (name: string, requests: Record<string, string>, limits: Record<string, string>) => ({
      metadata: { name },
      spec: { containers: [{ name: "pause", image: "registry.k8s.io/pause:3.10", resources: { requests, limits } }] },
    });
    const resourcesOf = async (name: string) =>
      (await c.core.readNamespacedPod({ namespace: ns, name })).spec?.containers.map((x) => x.resources);

    // Creating a Pod with no resource requirements: the LimitRange's defaults.
    await c.core.createNamespacedPod({ namespace: ns, body: testPod("pod-no-resources", {}, {}) });
    expect(await resourcesOf("pod-no-resources")).toEqual([{ requests: defaultRequest, limits: defaultLimit }]);
    // Partial requirements: a limit without a request defaults the request to the limit, so defaultRequest only
    // fills what has no limit either.
    await c.core.createNamespacedPod({
      namespace: ns,
      body: testPod("pod-partial-resources", list("", "150Mi", "150Gi"), list("300m", "", "")),
    });
    expect(await resourcesOf("pod-partial-resources")).toEqual([
      { requests: list("300m", "150Mi", "150Gi"), limits: list("300m", "500Mi", "500Gi") },
    ]);
    // Failing to create a Pod with less than min resources, or more than max.
    const pfpod = (requests: Record<string, string>) =>
      c.core.createNamespacedPod({ namespace: ns, body: testPod("pfpod", requests, {}) });
    expect(await failsWith(pfpod(list("10m", "50Mi", "50Gi")))).toBe(403);
    expect(await failsWith(pfpod(list("600m", "600Mi", "600Gi")))).toBe(403);

    // Updating a LimitRange: the lower minimum takes effect for the next pod at once.
    const newMin = list("9m", "49Mi", "49Gi");
    limitRange.spec!.limits[0]!.min = newMin;
    limitRange = await c.core.replaceNamespacedLimitRange({ namespace: ns, name: "limit-range", body: limitRange });
    expect(limitRange.spec?.limits[0]?.min).toEqual(newMin);
    await pfpod(list("10m", "50Mi", "50Gi"));
    expect(
      await failsWith(
        c.core.createNamespacedPod({ namespace: ns, body: testPod("pfpod2", list("600m", "600Mi", "600Gi"), {}) }),
      ),
    ).toBe(403);

    // Deleting a LimitRange: then a pod over the former max is admitted.
    await c.core.deleteNamespacedLimitRange({ namespace: ns, name: "limit-range", body: { gracePeriodSeconds: 30 } });
    const left = await c.core.listNamespacedLimitRange({ namespace: ns, labelSelector: "name=limit-range" });
    expect(left.items.filter((i) => i.metadata?.deletionTimestamp === undefined)).toEqual([]);
    await c.core.createNamespacedPod({ namespace: ns, body: testPod("pfpod2", list("600m", "600Mi", "600Gi"), {}) });
  });
});

describe("[sig-network] EndpointSlice (network/endpointslice.go)", () => {
  it("should have Endpoints and EndpointSlices pointing to API Server", async () => {
    await c.core.readNamespacedService({ namespace: "default", name: "kubernetes" });
    const endpoints = await c.core.readNamespacedEndpoints({ namespace: "default", name: "kubernetes" });
    expect(endpoints.subsets?.length ?? 0).toBeGreaterThan(0);
    const slices = (
      await c.raw(
        "GET",
        "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes",
      )
    ).json as {
      items: Array<{
        endpoints?: Array<{ addresses: string[] }>;
        ports?: Array<{ name?: string; port?: number; protocol?: string }>;
      }>;
    };
    expect(slices.items.length).toBeGreaterThan(0);
    // upstream's endpointSlicesEqual: the same addresses and the same ports in both
    const epAddresses = new Set(endpoints.subsets!.flatMap((s) => (s.addresses ?? []).map((a) => a.ip)));
    const esAddresses = new Set(slices.items.flatMap((s) => (s.endpoints ?? []).flatMap((e) => e.addresses)));
    expect(esAddresses).toEqual(epAddresses);
    const epPorts = new Set(
      endpoints.subsets!.flatMap((s) => (s.ports ?? []).map((p) => `${p.name}/${p.port}/${p.protocol}`)),
    );
    const esPorts = new Set(
      slices.items.flatMap((s) => (s.ports ?? []).map((p) => `${p.name}/${p.port}/${p.protocol}`)),
    );
    expect(esPorts).toEqual(epPorts);
  });
});

describe("[sig-instrumentation] Events (instrumentation/core_events.go)", () => {
  it("should delete a collection of events", async () => {
    const ns = await c.namespace("events");
    for (const name of ["test-event-1", "test-event-2", "test-event-3"])
      await c.core.createNamespacedEvent({
        namespace: ns,
        body: {
          metadata: { name, labels: { "testevent-set": "true" } },
          involvedObject: { kind: "Pod", name: "test-pod", namespace: ns },
          reason: "Test",
          message: "This is a test event",
          type: "Normal",
          count: 1,
          source: { component: "test-component" },
        },
      });
    const list = await c.core.listNamespacedEvent({ namespace: ns, labelSelector: "testevent-set=true" });
    expect(list.items).toHaveLength(3);
    await c.core.deleteCollectionNamespacedEvent({ namespace: ns, labelSelector: "testevent-set=true" });
    expect((await c.core.listNamespacedEvent({ namespace: ns, labelSelector: "testevent-set=true" })).items).toEqual(
      [],
    );
  });
});
