// test/e2e/apimachinery/crd_watch.go and custom_resource_definition.go (what needs no schema handling)
// re-implemented with @kubernetes/client-node against the simulator over HTTP.
import type { KubernetesObject } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDefinition, randomDefinition } from "./crd-fixture.js";
import { codeOf, type E2eCluster, startE2eCluster, watchEvents } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

describe("[sig-api-machinery] CustomResourceDefinition Watch (apimachinery/crd_watch.go)", () => {
  it("watch on custom resource definition objects", async () => {
    const { definition, apiVersion, kind, plural } = randomDefinition("Cluster");
    await createDefinition(c, definition);
    await expect.poll(async () => (await c.raw("GET", `/apis/${apiVersion}`)).status, { timeout: 10_000 }).toBe(200);
    const path = `/apis/${apiVersion}/${plural}`;
    const merge = { "content-type": "application/merge-patch+json" };
    const events = await watchEvents(
      c,
      path,
      {},
      (evs) => evs.length >= 6,
      async () => {
        for (const name of ["name1", "name2"]) {
          await c.objects.create<KubernetesObject>({
            apiVersion,
            kind,
            metadata: { name },
            content: { key: "value" },
          } as KubernetesObject);
        }
        await c.raw("PATCH", `${path}/name1`, { dummy: "test" }, merge);
        await c.raw("PATCH", `${path}/name2`, { dummy: "test" }, merge);
        await c.objects.delete({ apiVersion, kind, metadata: { name: "name1" } });
        await c.objects.delete({ apiVersion, kind, metadata: { name: "name2" } });
      },
    );
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual([
      "ADDED name1",
      "ADDED name2",
      "MODIFIED name1",
      "MODIFIED name2",
      "DELETED name1",
      "DELETED name2",
    ]);
    await c.objects.delete(definition);
  });
});

describe("[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin] (apimachinery/custom_resource_definition.go)", () => {
  it("creating/deleting custom resource definition objects works", async () => {
    const { definition } = randomDefinition();
    const created = await createDefinition(c, definition);
    expect(created.metadata?.uid).toEqual(expect.any(String));
    await c.objects.delete(definition);
    await expect
      .poll(
        async () => {
          try {
            await c.objects.read(definition);
            return 200;
          } catch (err) {
            return codeOf(err);
          }
        },
        { timeout: 10_000 },
      )
      .toBe(404);
  });

  it("should include custom resource definition resources in discovery documents", async () => {
    // Beyond upstream's check of the apiextensions group: a definition with two served versions (v1beta1, the
    // storage version, and v1) and one not served is listed at both served versions, v1 preferred.
    const { definition, apiVersion, plural } = randomDefinition();
    const spec = definition.spec as { versions: Array<Record<string, unknown>> };
    const [beta] = spec.versions;
    spec.versions = [
      beta!,
      { ...beta!, name: "v1", storage: false },
      { ...beta!, name: "v2", served: false, storage: false },
    ];
    await createDefinition(c, definition);
    const apis = (await c.raw("GET", "/apis")).json as {
      groups: Array<{ name: string; versions: Array<{ groupVersion: string }>; preferredVersion: { version: string } }>;
    };
    const apiextensions = apis.groups.find((g) => g.name === "apiextensions.k8s.io");
    expect(apiextensions?.versions.map((v) => v.groupVersion)).toContain("apiextensions.k8s.io/v1");
    const mine = apis.groups.find((g) => g.name === "mygroup.example.com");
    expect(mine?.versions.map((v) => v.groupVersion)).toEqual(
      expect.arrayContaining([apiVersion, "mygroup.example.com/v1"]),
    );
    expect(mine?.versions.map((v) => v.groupVersion)).not.toContain("mygroup.example.com/v2");
    expect(mine?.preferredVersion.version).toBe("v1");
    const group = (await c.raw("GET", "/apis/apiextensions.k8s.io")).json as {
      preferredVersion: { groupVersion: string };
    };
    expect(group.preferredVersion.groupVersion).toBe("apiextensions.k8s.io/v1");
    const crds = (await c.raw("GET", "/apis/apiextensions.k8s.io/v1")).json as { resources: Array<{ name: string }> };
    expect(crds.resources.map((r) => r.name)).toContain("customresourcedefinitions");
    for (const gv of [apiVersion, "mygroup.example.com/v1"]) {
      const resources = (await c.raw("GET", `/apis/${gv}`)).json as { resources: Array<{ name: string }> };
      expect(resources.resources.map((r) => r.name)).toContain(plural);
    }
    expect((await c.raw("GET", "/apis/mygroup.example.com/v2")).status).toBe(404);
    await c.objects.delete(definition);
  });
});
