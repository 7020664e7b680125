// test/e2e/apimachinery/aggregated_discovery.go re-implemented against the simulator over HTTP: raw requests with
// the aggregated Accept header where upstream uses the discovery REST client, and @informer-ts/client's
// DiscoveryClient (the port of client-go's discovery client, which asks for APIGroupDiscoveryList first) where
// upstream uses the AggregatedDiscoveryInterface.
import { type DiscoveredResource, DiscoveryClient, KubeClient } from "@informer-ts/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDefinition } from "./crd-fixture.js";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
let client: KubeClient;
beforeAll(async () => {
  c = await startE2eCluster();
  client = new KubeClient({ server: c.url, qps: -1 });
});
afterAll(async () => {
  await client.close();
  await c.close();
});

type Gvr = readonly [group: string, version: string, resource: string];

const expectedLegacyGVR: readonly Gvr[] = [["", "v1", "namespaces"]];
const expectedGVR: readonly Gvr[] = [
  ["admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"],
  ["apiextensions.k8s.io", "v1", "customresourcedefinitions"],
  ["apiregistration.k8s.io", "v1", "apiservices"],
  ["apps", "v1", "deployments"],
  ["authentication.k8s.io", "v1", "tokenreviews"],
  ["authorization.k8s.io", "v1", "selfsubjectaccessreviews"],
  ["autoscaling", "v1", "horizontalpodautoscalers"],
  ["autoscaling", "v2", "horizontalpodautoscalers"],
  ["batch", "v1", "jobs"],
  ["certificates.k8s.io", "v1", "certificatesigningrequests"],
  ["coordination.k8s.io", "v1", "leases"],
  ["discovery.k8s.io", "v1", "endpointslices"],
  ["events.k8s.io", "v1", "events"],
  ["networking.k8s.io", "v1", "ingresses"],
  ["node.k8s.io", "v1", "runtimeclasses"],
  ["policy", "v1", "poddisruptionbudgets"],
  ["scheduling.k8s.io", "v1", "priorityclasses"],
  ["storage.k8s.io", "v1", "csinodes"],
];

const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

interface GroupDiscoveryList {
  kind: string;
  apiVersion: string;
  items: Array<{
    metadata: { name?: string };
    versions: Array<{ version: string; resources: Array<{ resource: string }> }>;
  }>;
}

/** upstream's `isGVRPresentAPIDiscovery`. */
function isGVRPresentAPIDiscovery(list: GroupDiscoveryList, [group, version, resource]: Gvr): boolean {
  return list.items.some(
    (g) =>
      (g.metadata.name ?? "") === group &&
      g.versions.some((v) => v.version === version && v.resources.some((r) => r.resource === resource)),
  );
}

/** upstream's `isGVRPresent`: the group version's resources (from the discovery client) name the resource. */
function isGVRPresent(resources: readonly DiscoveredResource[], [group, version, resource]: Gvr): boolean {
  return resources.some((r) => r.group === group && r.version === version && r.resource === resource);
}

/** The raw aggregated document of `path`, parsed (upstream's `json.Unmarshal` into `APIGroupDiscoveryList`). */
async function rawAggregated(path: string): Promise<GroupDiscoveryList> {
  const res = await c.raw("GET", path, undefined, { accept: aggregatedAccept });
  expect(res.status, `Failed to get raw aggregated discovery document ${path}`).toBe(200);
  const list = res.json as GroupDiscoveryList;
  expect(list.kind).toBe("APIGroupDiscoveryList");
  return list;
}

let groupCounter = 0;
/** The test's CRD: `testcrds.<random group>.example.com`, v1, namespaced, an allow-all schema. */
function testCrd() {
  const resourceName = "testcrd";
  const groupName = `group${Date.now().toString(36)}${++groupCounter}.example.com`;
  const definition = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${resourceName}s.${groupName}` },
    spec: {
      group: groupName,
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
      names: {
        plural: `${resourceName}s`,
        singular: resourceName,
        kind: resourceName,
        listKind: `${resourceName}List`,
      },
      scope: "Namespaced",
    },
  };
  const gvr: Gvr = [groupName, "v1", `${resourceName}s`];
  return { definition, gvr };
}

describe("[sig-api-machinery] AggregatedDiscovery (apimachinery/aggregated_discovery.go)", () => {
  it("should support raw aggregated discovery endpoint Accept headers", async () => {
    const groupList = await rawAggregated("/apis");
    for (const gvr of expectedGVR) {
      expect(isGVRPresentAPIDiscovery(groupList, gvr), `Expected gvr ${gvr.join(" ")} to exist in discovery`).toBe(
        true,
      );
    }
    const groupListLegacy = await rawAggregated("/api");
    for (const gvr of expectedLegacyGVR) {
      expect(
        isGVRPresentAPIDiscovery(groupListLegacy, gvr),
        `Expected legacy gvr api ${gvr[1]} ${gvr[2]} to exist in discovery`,
      ).toBe(true);
    }
  });

  it("should support raw aggregated discovery request for CRDs", async () => {
    const { definition, gvr } = testCrd();
    await createDefinition(c, definition);
    try {
      await expect
        .poll(async () => isGVRPresentAPIDiscovery(await rawAggregated("/apis"), gvr), {
          timeout: 30_000,
          message: "timed out waiting for CustomResourceDefinition GVR to appear in Discovery",
        })
        .toBe(true);
    } finally {
      await c.raw("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${definition.metadata.name}`);
    }
  });

  it("should support aggregated discovery interface", async () => {
    const d = new DiscoveryClient(client);
    const resources = await d.serverResources();
    expect(d.aggregated, "Expected client to support aggregated discovery").toBe(true);
    const expectedCombinedGVR = [...expectedGVR, ...expectedLegacyGVR];
    for (const gvr of expectedCombinedGVR) {
      expect(isGVRPresent(resources, gvr), `Expected ${gvr.join("/")} to be present`).toBe(true);
    }
    // serverGroups: every group version the discovery client saw (upstream's isGVPresent on the APIGroupList)
    const serverGroups = new Set(resources.map((r) => `${r.group}/${r.version}`));
    expect(serverGroups.size, "Expected serverGroups to be non-empty").toBeGreaterThan(0);
    for (const [group, version] of expectedCombinedGVR) {
      expect(serverGroups.has(`${group}/${version}`), `Expected ${group}/${version} to be present`).toBe(true);
    }
  });

  it("should support aggregated discovery interface for CRDs", async () => {
    const { definition, gvr } = testCrd();
    await createDefinition(c, definition);
    const d = new DiscoveryClient(client, { ttlMs: 0 });
    try {
      await expect
        .poll(async () => isGVRPresent(await d.serverResources(), gvr), {
          timeout: 30_000,
          message: "timed out waiting for CustomResourceDefinition GVR to appear in Discovery",
        })
        .toBe(true);
      expect(d.aggregated, "Expected client to support aggregated discovery").toBe(true);
    } finally {
      await c.raw("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${definition.metadata.name}`);
    }
  });
});
