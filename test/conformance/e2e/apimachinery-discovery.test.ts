// test/e2e/apimachinery/discovery.go, server_version.go, health_handlers.go (and webhook.go's discovery test)
// re-implemented with
// @kubernetes/client-node (and raw requests where upstream uses the discovery REST client) against the simulator
// over HTTP.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDefinition, randomDefinition } from "./crd-fixture.js";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

interface ResourceList {
  groupVersion: string;
  resources: Array<{ name: string; storageVersionHash?: string }>;
}
interface ApiGroup {
  name: string;
  versions: Array<{ groupVersion: string; version: string }>;
  preferredVersion: { groupVersion: string };
}

/** client-go's `discovery.IsResourceEnabled`: the group version's resource list names the resource. */
async function isResourceEnabled(group: string, version: string, resource: string): Promise<boolean> {
  const res = await c.raw("GET", group === "" ? `/api/${version}` : `/apis/${group}/${version}`);
  if (res.status === 404) return false;
  expect(res.status).toBe(200);
  return (res.json as ResourceList).resources.some((r) => r.name === resource);
}

describe("[sig-api-machinery] Discovery (apimachinery/discovery.go)", () => {
  it("should accurately determine present and missing resources", async () => {
    expect(await isResourceEnabled("", "v1", "namespaces")).toBe(true);
    expect(await isResourceEnabled("apps", "v1", "deployments")).toBe(true);
    expect(await isResourceEnabled("apps", "v1", "please-dont-ever-create-this")).toBe(false);
    expect(await isResourceEnabled("not-these-apps", "v1", "deployments")).toBe(false);
  });

  it("Custom resource should have storage version hash", async () => {
    const { definition, apiVersion, plural, kind } = randomDefinition();
    await createDefinition(c, definition);
    await expect.poll(async () => (await c.raw("GET", `/apis/${apiVersion}`)).status, { timeout: 10_000 }).toBe(200);
    const list = (await c.raw("GET", `/apis/${apiVersion}`)).json as ResourceList;
    // upstream's discovery.StorageVersionHash(group, storageVersion, kind), computed as the test computes it
    const expected = createHash("sha256").update(`${apiVersion}/${kind}`).digest().subarray(0, 8).toString("base64");
    expect(list.resources.find((r) => r.name === plural)?.storageVersionHash).toBe(expected);
    await c.objects.delete(definition);
  });

  it("should validate PreferredVersion for each APIGroup", async () => {
    const list = (await c.raw("GET", "/apis/")).json as { groups: ApiGroup[] };
    expect(list.groups.length).toBeGreaterThan(0);
    for (const group of list.groups) {
      if (group.name.endsWith(".example.com")) continue;
      const res = await c.raw("GET", `/apis/${group.name}/`);
      expect(res.status, group.name).toBe(200);
      const checkGroup = res.json as ApiGroup;
      expect(checkGroup.versions.length, group.name).toBeGreaterThan(0);
      expect(
        checkGroup.versions.map((v) => v.groupVersion),
        group.name,
      ).toContain(checkGroup.preferredVersion.groupVersion);
    }
  });

  it("should locate the groupVersion and a resource within each APIGroup", async () => {
    const tests: Array<[base: string, group: string, version: string, resource: string]> = [
      ["/api", "", "v1", "namespaces"],
      ["/apis", "admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"],
      ["/apis", "apiextensions.k8s.io", "v1", "customresourcedefinitions"],
      ["/apis", "apiregistration.k8s.io", "v1", "apiservices"],
      ["/apis", "apps", "v1", "deployments"],
      ["/apis", "authentication.k8s.io", "v1", "tokenreviews"],
      ["/apis", "authorization.k8s.io", "v1", "selfsubjectaccessreviews"],
      ["/apis", "autoscaling", "v1", "horizontalpodautoscalers"],
      ["/apis", "autoscaling", "v2", "horizontalpodautoscalers"],
      ["/apis", "batch", "v1", "jobs"],
      ["/apis", "certificates.k8s.io", "v1", "certificatesigningrequests"],
      ["/apis", "coordination.k8s.io", "v1", "leases"],
      ["/apis", "discovery.k8s.io", "v1", "endpointslices"],
      ["/apis", "events.k8s.io", "v1", "events"],
      ["/apis", "networking.k8s.io", "v1", "ingresses"],
      ["/apis", "node.k8s.io", "v1", "runtimeclasses"],
      ["/apis", "policy", "v1", "poddisruptionbudgets"],
      ["/apis", "scheduling.k8s.io", "v1", "priorityclasses"],
      ["/apis", "storage.k8s.io", "v1", "csinodes"],
    ];
    for (const [base, group, version, resource] of tests) {
      const path = group === "" ? `${base}/${version}` : `${base}/${group}/${version}`;
      const res = await c.raw("GET", path);
      expect(res.status, path).toBe(200);
      const list = res.json as ResourceList;
      expect(list.groupVersion).toBe(group === "" ? version : `${group}/${version}`);
      expect(
        list.resources.map((r) => r.name),
        path,
      ).toContain(resource);
    }
  });
});

describe("[sig-api-machinery] server version (apimachinery/server_version.go)", () => {
  it("should find the server version", async () => {
    const version = (await c.raw("GET", "/version")).json as { major: string; minor: string };
    expect(/[1-9]/.exec(version.major)?.[0]).toBe(version.major);
    const cleanMinor = version.minor.replace(/[^0-9]+/g, "");
    expect(/[0-9]+/.exec(version.minor)?.[0]).toBe(cleanMinor);
  });
});

describe("[sig-api-machinery] health handlers (apimachinery/health_handlers.go)", () => {
  const common = [
    "[+]ping ok",
    "[+]log ok",
    "[+]etcd ok",
    "[+]poststarthook/start-kube-apiserver-admission-initializer ok",
    "[+]poststarthook/generic-apiserver-start-informers ok",
    "[+]poststarthook/start-apiextensions-informers ok",
    "[+]poststarthook/start-apiextensions-controllers ok",
    "[+]poststarthook/crd-informer-synced ok",
    "[+]poststarthook/bootstrap-controller ok",
    "[+]poststarthook/start-system-namespaces-controller ok",
    "[+]poststarthook/scheduling/bootstrap-system-priority-classes ok",
    "[+]poststarthook/start-cluster-authentication-info-controller ok",
    "[+]poststarthook/start-kube-aggregator-informers ok",
    "[+]poststarthook/apiservice-registration-controller ok",
    // upstream's list names `apiservice-status-available-controller`, which kube-apiserver split into a local and
    // a remote one in v1.31; a v1.34 server lists the local one
    "[+]poststarthook/apiservice-status-local-available-controller ok",
    "[+]poststarthook/kube-apiserver-autoregistration ok",
    "[+]autoregister-completion ok",
    "[+]poststarthook/apiservice-openapi-controller ok",
  ];

  it("should contain necessary checks", async () => {
    for (const [path, required] of [
      ["/healthz?verbose=1", common],
      ["/livez?verbose=1", common],
      ["/readyz?verbose=1", [...common, "[+]informer-sync ok"]],
    ] as const) {
      const res = await c.raw("GET", path);
      expect(res.status, path).toBe(200);
      const checks = new Set(res.text.split("\n"));
      expect(
        required.filter((r) => !checks.has(r)),
        path,
      ).toEqual([]);
    }
  });
});

describe("[sig-api-machinery] AdmissionWebhook [Privileged:ClusterAdmin] (apimachinery/webhook.go)", () => {
  // Upstream's BeforeEach deploys a webhook server pod this test does not call; the test itself reads discovery only.
  it("should include webhook resources in discovery documents", async () => {
    const groups = (await c.raw("GET", "/apis")).json as { groups: ApiGroup[] };
    const group = groups.groups.find((g) => g.name === "admissionregistration.k8s.io");
    expect(group?.versions.map((v) => v.groupVersion)).toContain("admissionregistration.k8s.io/v1");
    const g = (await c.raw("GET", "/apis/admissionregistration.k8s.io")).json as ApiGroup;
    expect(g.preferredVersion.groupVersion).toBe("admissionregistration.k8s.io/v1");
    const list = (await c.raw("GET", "/apis/admissionregistration.k8s.io/v1")).json as ResourceList;
    const names = list.resources.map((r) => r.name);
    expect(names).toContain("mutatingwebhookconfigurations");
    expect(names).toContain("validatingwebhookconfigurations");
  });
});
