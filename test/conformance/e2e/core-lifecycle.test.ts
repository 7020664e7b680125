// The core resource lifecycle e2e tests (common/node/configmap.go, secrets.go, lease.go, instrumentation/events.go
// and core_events.go, auth/service_accounts.go, network/service.go) re-implemented with @kubernetes/client-node
// against the simulator over HTTP — the cases that need no kubelet and no controller.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

const strategicPatch = () => c.k8s.setHeaderOptions("Content-Type", c.k8s.PatchStrategy.StrategicMergePatch);

async function status(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return 200;
  } catch (err) {
    return codeOf(err);
  }
}

describe("[sig-node] ConfigMap (common/node/configmap.go)", () => {
  it("should update ConfigMap successfully", async () => {
    const ns = await c.namespace("configmap");
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "configmap-test-upd" }, data: { "data-1": "value-1" } },
    });
    const cm = await c.core.readNamespacedConfigMap({ namespace: ns, name: "configmap-test-upd" });
    cm.data = { ...cm.data, "data-2": "value-2" };
    await c.core.replaceNamespacedConfigMap({ namespace: ns, name: "configmap-test-upd", body: cm });
    expect((await c.core.readNamespacedConfigMap({ namespace: ns, name: "configmap-test-upd" })).data).toEqual({
      "data-1": "value-1",
      "data-2": "value-2",
    });
  });

  it("should run through a ConfigMap lifecycle", async () => {
    const ns = await c.namespace("configmap");
    const name = "e2e-configmap-lifecycle";
    const labels = { "test-configmap-static": "true" };
    await c.core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name, labels }, data: { valueName: "value" } },
    });
    await c.core.patchNamespacedConfigMap(
      {
        namespace: ns,
        name,
        body: { metadata: { labels: { "test-configmap": "patched" } }, data: { valueName: "value1" } },
      },
      strategicPatch(),
    );
    const got = await c.core.readNamespacedConfigMap({ namespace: ns, name });
    expect(got.data?.valueName).toBe("value1");
    expect(got.metadata?.labels).toEqual({ "test-configmap-static": "true", "test-configmap": "patched" });
    const all = await c.core.listConfigMapForAllNamespaces({ labelSelector: "test-configmap-static=true" });
    expect(all.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`)).toContain(`${ns}/${name}`);
    await c.core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: "test-configmap-static=true" });
    expect(
      (await c.core.listNamespacedConfigMap({ namespace: ns, labelSelector: "test-configmap-static=true" })).items,
    ).toEqual([]);
  });
});

describe("[sig-node] Secrets (common/node/secrets.go)", () => {
  it("should patch a secret", async () => {
    const ns = await c.namespace("secrets");
    const name = "secret-patch";
    await c.core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name, labels: { "testsecret-constant": "true" } },
        data: { key: Buffer.from("value").toString("base64") },
      },
    });
    await c.core.patchNamespacedSecret(
      {
        namespace: ns,
        name,
        body: { metadata: { labels: { testsecret: "true" } }, data: { key: Buffer.from("value1").toString("base64") } },
      },
      strategicPatch(),
    );
    const got = await c.core.readNamespacedSecret({ namespace: ns, name });
    expect(Buffer.from(got.data?.key ?? "", "base64").toString()).toBe("value1");
    expect(got.metadata?.labels?.testsecret).toBe("true");
    await c.core.deleteCollectionNamespacedSecret({ namespace: ns, labelSelector: "testsecret-constant=true" });
    expect(await status(c.core.readNamespacedSecret({ namespace: ns, name }))).toBe(404);
  });
});

describe("[sig-instrumentation] Events API (instrumentation/events.go)", () => {
  const eventsPath = (ns: string) => `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
  const event = (name: string, ns: string) => ({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name, labels: { "test-event": "true" } },
    eventTime: "2026-01-01T00:00:00.000000Z",
    reportingController: "test-controller",
    reportingInstance: "test-node",
    action: "Do",
    reason: "Test",
    type: "Normal",
    note: "This is a test event",
    regarding: { kind: "Pod", name: "test-pod", namespace: ns },
  });

  it("should ensure that an event can be fetched, patched, deleted, and listed", async () => {
    // As upstream 1.34's test: created through events.k8s.io, selected through core v1 by `source` (the reporting
    // controller, the Event having no deprecatedSource) and through events.k8s.io by `reportingController`.
    const ns = await c.namespace("events");
    type Ev = { metadata: { name: string; namespace: string; resourceVersion?: string; managedFields?: unknown } };
    const listNames = async (path: string) =>
      ((await c.raw("GET", path)).json as { items: Ev[] }).items.map(
        (i) => `${i.metadata.namespace}/${i.metadata.name}`,
      );
    expect((await c.raw("POST", eventsPath(ns), event("event-test", ns))).status).toBe(201);
    expect(await listNames("/apis/events.k8s.io/v1/events?labelSelector=test-event%3Dtrue")).toContain(
      `${ns}/event-test`,
    );
    expect(await listNames(`${eventsPath(ns)}?labelSelector=test-event%3Dtrue`)).toEqual([`${ns}/event-test`]);
    expect(await listNames(`/api/v1/namespaces/${ns}/events?fieldSelector=source%3Dtest-controller`)).toEqual([
      `${ns}/event-test`,
    ]);
    expect(await listNames(`${eventsPath(ns)}?fieldSelector=reportingController%3Dtest-controller`)).toEqual([
      `${ns}/event-test`,
    ]);
    const testEvent = (await c.raw("GET", `${eventsPath(ns)}/event-test`)).json as Ev & Record<string, unknown>;
    const series = { count: 2, lastObservedTime: "2017-09-19T13:49:11.000000Z" };
    const patched = await c.raw(
      "PATCH",
      `${eventsPath(ns)}/event-test`,
      { series },
      {
        "content-type": "application/strategic-merge-patch+json",
      },
    );
    expect(patched.status).toBe(200);
    const strip = (e: Ev & Record<string, unknown>) => ({
      ...e,
      metadata: { ...e.metadata, resourceVersion: "", managedFields: undefined },
    });
    const afterPatch = (await c.raw("GET", `${eventsPath(ns)}/event-test`)).json as Ev;
    expect(strip(afterPatch)).toEqual(strip({ ...testEvent, series }));
    const updated = { ...testEvent, series: { count: 100, lastObservedTime: "2017-09-19T13:49:16.000000Z" } };
    delete (updated.metadata as { resourceVersion?: string }).resourceVersion;
    expect((await c.raw("PUT", `${eventsPath(ns)}/event-test`, updated)).status).toBe(200);
    const afterUpdate = (await c.raw("GET", `${eventsPath(ns)}/event-test`)).json as Ev;
    expect(strip(afterUpdate)).toEqual(strip(updated));
    expect((await c.raw("DELETE", `${eventsPath(ns)}/event-test`)).status).toBe(200);
    expect(await listNames("/apis/events.k8s.io/v1/events?labelSelector=test-event%3Dtrue")).not.toContain(
      `${ns}/event-test`,
    );
    expect(await listNames(`${eventsPath(ns)}?labelSelector=test-event%3Dtrue`)).toEqual([]);
  });

  it("should delete a collection of events", async () => {
    const ns = await c.namespace("events");
    for (const name of ["event-1", "event-2", "event-3"]) await c.raw("POST", eventsPath(ns), event(name, ns));
    expect((await c.raw("DELETE", `${eventsPath(ns)}?labelSelector=test-event%3Dtrue`)).status).toBe(200);
    expect(((await c.raw("GET", eventsPath(ns))).json as { items: unknown[] }).items).toEqual([]);
  });
});

describe("[sig-instrumentation] Events (instrumentation/core_events.go)", () => {
  it("should manage the lifecycle of an event", async () => {
    const ns = await c.namespace("events");
    const name = "event-test";
    await c.core.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name, labels: { testevent: "true" } },
        involvedObject: { kind: "Pod", name: "test-pod", namespace: ns },
        reason: "Test",
        message: "This is a test event",
        type: "Normal",
        count: 1,
        source: { component: "test-component" },
      },
    });
    const all = await c.core.listEventForAllNamespaces({ labelSelector: "testevent=true" });
    expect(all.items.map((e) => e.metadata?.name)).toContain(name);
    await c.core.patchNamespacedEvent(
      { namespace: ns, name, body: { message: "This is a test event - patched" } },
      strategicPatch(),
    );
    expect((await c.core.readNamespacedEvent({ namespace: ns, name })).message).toBe("This is a test event - patched");
    // One Event storage: the same object through events.k8s.io/v1, converted (beyond upstream's test).
    const other = (await c.raw("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events/${name}`)).json;
    expect(other).toMatchObject({
      note: "This is a test event - patched",
      deprecatedSource: { component: "test-component" },
    });
    const bySource = await c.core.listNamespacedEvent({ namespace: ns, fieldSelector: "source=test-component" });
    expect(bySource.items.map((e) => e.metadata?.name)).toEqual([name]);
    const ev = await c.core.readNamespacedEvent({ namespace: ns, name });
    ev.series = { count: 100, lastObservedTime: new Date("2026-01-01T00:00:00Z") };
    const updated = await c.core.replaceNamespacedEvent({ namespace: ns, name, body: ev });
    expect(updated.series?.count).toBe(100);
    await c.core.deleteNamespacedEvent({ namespace: ns, name });
    expect((await c.core.listNamespacedEvent({ namespace: ns, labelSelector: "testevent=true" })).items).toEqual([]);
  });
});

describe("[sig-node] Lease (common/node/lease.go)", () => {
  it("lease API should be available", async () => {
    const ns = await c.namespace("lease-test");
    const coord = c.kc.makeApiClient(c.k8s.CoordinationV1Api);
    const spec = {
      holderIdentity: "holder",
      leaseDurationSeconds: 30,
      acquireTime: new c.k8s.V1MicroTime(),
      renewTime: new c.k8s.V1MicroTime(),
    };
    await coord.createNamespacedLease({ namespace: ns, body: { metadata: { name: "lease" }, spec } });
    const read = await coord.readNamespacedLease({ namespace: ns, name: "lease" });
    expect(read.spec?.holderIdentity).toBe("holder");
    read.spec = { ...read.spec, holderIdentity: "holder2" };
    const updated = await coord.replaceNamespacedLease({ namespace: ns, name: "lease", body: read });
    expect(updated.spec?.holderIdentity).toBe("holder2");
    const patched = await coord.patchNamespacedLease(
      { namespace: ns, name: "lease", body: { spec: { holderIdentity: "holder3", leaseDurationSeconds: 60 } } },
      strategicPatch(),
    );
    expect([patched.spec?.holderIdentity, patched.spec?.leaseDurationSeconds]).toEqual(["holder3", 60]);
    await coord.createNamespacedLease({
      namespace: ns,
      body: { metadata: { name: "lease2", labels: { deletecollection: "true" } }, spec },
    });
    expect((await coord.listLeaseForAllNamespaces({})).items.length).toBeGreaterThanOrEqual(2);
    await coord.deleteCollectionNamespacedLease({ namespace: ns, labelSelector: "deletecollection=true" });
    expect((await coord.listNamespacedLease({ namespace: ns })).items.map((l) => l.metadata?.name)).toEqual(["lease"]);
    await coord.deleteNamespacedLease({ namespace: ns, name: "lease" });
    expect(await status(coord.readNamespacedLease({ namespace: ns, name: "lease" }))).toBe(404);
  });
});

describe("[sig-auth] ServiceAccounts (auth/service_accounts.go)", () => {
  it("should run through the lifecycle of a ServiceAccount", async () => {
    const ns = await c.namespace("svcaccounts");
    const name = "e2e-sa";
    await c.core.createNamespacedServiceAccount({
      namespace: ns,
      body: { metadata: { name, labels: { "e2e-sa": "true" } } },
    });
    await c.core.patchNamespacedServiceAccount(
      { namespace: ns, name, body: { automountServiceAccountToken: false } },
      strategicPatch(),
    );
    expect((await c.core.readNamespacedServiceAccount({ namespace: ns, name })).automountServiceAccountToken).toBe(
      false,
    );
    const listed = await c.core.listNamespacedServiceAccount({ namespace: ns, labelSelector: "e2e-sa=true" });
    expect(listed.items.map((s) => s.metadata?.name)).toEqual([name]);
    await c.core.deleteCollectionNamespacedServiceAccount({ namespace: ns, labelSelector: "e2e-sa=true" });
    expect(await status(c.core.readNamespacedServiceAccount({ namespace: ns, name }))).toBe(404);
  });

  it("should update a ServiceAccount", async () => {
    const ns = await c.namespace("svcaccounts");
    const name = "e2e-sa-update";
    await c.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
    const sa = await c.core.readNamespacedServiceAccount({ namespace: ns, name });
    sa.automountServiceAccountToken = true;
    const updated = await c.core.replaceNamespacedServiceAccount({ namespace: ns, name, body: sa });
    expect(updated.automountServiceAccountToken).toBe(true);
  });
});

describe("[sig-network] Services (network/service.go)", () => {
  it("should provide secure master service", async () => {
    const svc = await c.core.readNamespacedService({ namespace: "default", name: "kubernetes" });
    expect(svc.spec?.ports?.map((p) => [p.name, p.port, p.protocol])).toEqual([["https", 443, "TCP"]]);
    expect(svc.spec?.clusterIP).toEqual(expect.any(String));
  });

  it("should test the lifecycle of an Endpoint", async () => {
    const ns = await c.namespace("services");
    const name = "example-empty-endpoint";
    await c.core.createNamespacedEndpoints({
      namespace: ns,
      body: {
        metadata: { name, labels: { "test-endpoint-static": "true" } },
        subsets: [{ addresses: [{ ip: "10.0.0.24" }], ports: [{ name: "http", port: 80, protocol: "TCP" }] }],
      },
    });
    const listed = await c.core.listEndpointsForAllNamespaces({ labelSelector: "test-endpoint-static=true" });
    expect(listed.items.map((e) => e.metadata?.name)).toContain(name);
    await c.core.patchNamespacedEndpoints(
      {
        namespace: ns,
        name,
        body: {
          metadata: { labels: { "test-service": "updated" } },
          subsets: [{ addresses: [{ ip: "10.0.0.25" }], ports: [{ name: "http-test", port: 8080 }] }],
        },
      },
      strategicPatch(),
    );
    const got = await c.core.readNamespacedEndpoints({ namespace: ns, name });
    expect(got.subsets?.[0]?.addresses?.[0]?.ip).toBe("10.0.0.25");
    expect(got.metadata?.labels?.["test-service"]).toBe("updated");
    await c.core.deleteCollectionNamespacedEndpoints({ namespace: ns, labelSelector: "test-endpoint-static=true" });
    expect(await status(c.core.readNamespacedEndpoints({ namespace: ns, name }))).toBe(404);
  });

  it("should delete a collection of services", async () => {
    const ns = await c.namespace("services");
    for (const name of ["e2e-svc-a", "e2e-svc-b", "e2e-svc-c"]) {
      await c.core.createNamespacedService({
        namespace: ns,
        body: {
          metadata: { name, labels: { "e2e-test-service": "delete" } },
          spec: { ports: [{ port: 8080, name: "http" }] },
        },
      });
    }
    await c.core.deleteCollectionNamespacedService({ namespace: ns, labelSelector: "e2e-test-service=delete" });
    expect((await c.core.listNamespacedService({ namespace: ns })).items).toEqual([]);
  });

  it("should complete a service status lifecycle", async () => {
    const ns = await c.namespace("services");
    const name = "test-service-status";
    await c.core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name, labels: { "test-service-static": "true" } },
        spec: { type: "LoadBalancer", ports: [{ port: 80 }] },
      },
    });
    const patched = await c.core.patchNamespacedServiceStatus(
      { namespace: ns, name, body: { status: { loadBalancer: { ingress: [{ ip: "203.0.113.1" }] } } } },
      strategicPatch(),
    );
    expect(patched.status?.loadBalancer?.ingress?.[0]?.ip).toBe("203.0.113.1");
    const current = await c.core.readNamespacedServiceStatus({ namespace: ns, name });
    current.status = {
      ...current.status,
      conditions: [
        {
          type: "StatusUpdate",
          status: "True",
          reason: "E2E",
          message: "Set from e2e test",
          lastTransitionTime: new Date(),
        },
      ],
    };
    const updated = await c.core.replaceNamespacedServiceStatus({ namespace: ns, name, body: current });
    expect(updated.status?.conditions?.map((x) => x.type)).toEqual(["StatusUpdate"]);
    // A status write changes nothing else; a spec write keeps the status.
    const relabeled = await c.core.patchNamespacedService(
      { namespace: ns, name, body: { metadata: { labels: { "test-service": "patched" } } } },
      strategicPatch(),
    );
    expect(relabeled.status?.loadBalancer?.ingress?.[0]?.ip).toBe("203.0.113.1");
    await c.core.deleteNamespacedService({ namespace: ns, name });
    expect(await status(c.core.readNamespacedService({ namespace: ns, name }))).toBe(404);
  });

  it("should find a service from listing all namespaces", async () => {
    const ns = await c.namespace("services");
    await c.core.createNamespacedService({
      namespace: ns,
      body: { metadata: { name: "test-service-find" }, spec: { ports: [{ port: 80 }] } },
    });
    const all = await c.core.listServiceForAllNamespaces({});
    expect(all.items.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`)).toEqual(
      expect.arrayContaining([`${ns}/test-service-find`, "default/kubernetes"]),
    );
  });
});
