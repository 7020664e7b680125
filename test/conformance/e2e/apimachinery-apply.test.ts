// test/e2e/apimachinery/apply.go re-implemented against the simulator over HTTP (apply patches sent as
// `application/apply-patch+yaml`, as client-go's Apply does; reads with @kubernetes/client-node).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

const APPLY = { "content-type": "application/apply-patch+yaml" };

function deployment(name: string, containers: Array<Record<string, unknown>>, replicas?: number) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      ...(replicas !== undefined && { replicas }),
      selector: { matchLabels: { app: "nginx" } },
      template: { metadata: { labels: { app: "nginx" } }, spec: { containers } },
    },
  };
}

describe("[sig-api-machinery] ServerSideApply (apimachinery/apply.go)", () => {
  it("should create an applied object if it does not already exist", async () => {
    const ns = await c.namespace("apply");
    const path = `/api/v1/namespaces/${ns}/pods/test-pod?fieldManager=apply_test`;
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "test-pod" },
      spec: { containers: [{ name: "nginx", image: "nginx:latest" }] },
    };
    const created = await c.raw("PATCH", path, pod, APPLY);
    expect(created.status).toBe(201);
    const got = await c.core.readNamespacedPod({ namespace: ns, name: "test-pod" });
    expect(got.spec?.containers[0]?.image).toBe("nginx:latest");
    const again = await c.raw("PATCH", path, pod, APPLY);
    expect(again.status).toBe(200);
    const managers = (again.json as { metadata: { managedFields: Array<{ manager: string; operation: string }> } })
      .metadata.managedFields;
    expect(managers.map((m) => [m.manager, m.operation])).toEqual([["apply_test", "Apply"]]);
  });

  it("should work for subresources", async () => {
    const ns = await c.namespace("apply");
    await c.raw(
      "PATCH",
      `/api/v1/namespaces/${ns}/pods/test-pod?fieldManager=apply_test`,
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "test-pod" },
        spec: { containers: [{ name: "nginx", image: "nginx:latest" }] },
      },
      APPLY,
    );
    const status = await c.raw(
      "PATCH",
      `/api/v1/namespaces/${ns}/pods/test-pod/status?fieldManager=apply_test`,
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "test-pod" },
        status: { conditions: [{ type: "MyStatus", status: "True" }] },
      },
      APPLY,
    );
    expect(status.status).toBe(200);
    const got = await c.core.readNamespacedPodStatus({ namespace: ns, name: "test-pod" });
    expect(got.status?.conditions).toContainEqual(expect.objectContaining({ type: "MyStatus", status: "True" }));
  });

  it("should remove a field if it is owned but removed in the apply request", async () => {
    const ns = await c.namespace("apply");
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/deployment?fieldManager=apply_test`;
    const first = await c.raw(
      "PATCH",
      path,
      deployment(
        "deployment",
        [{ name: "nginx", image: "nginx:latest", ports: [{ containerPort: 80, protocol: "TCP" }] }],
        3,
      ),
      APPLY,
    );
    expect(first.status).toBe(201);
    const second = await c.raw(
      "PATCH",
      path,
      deployment("deployment", [{ name: "nginx", image: "nginx:latest" }], 3),
      APPLY,
    );
    expect(second.status).toBe(200);
    const got = (second.json as { spec: { template: { spec: { containers: Array<{ ports?: unknown }> } } } }).spec;
    expect(got.template.spec.containers[0]?.ports).toBeUndefined();
  });

  it("should ignore conflict errors if force apply is used", async () => {
    const ns = await c.namespace("apply");
    const base = `/apis/apps/v1/namespaces/${ns}/deployments/deployment`;
    const containers = [{ name: "nginx", image: "nginx:latest" }];
    expect(
      (await c.raw("PATCH", `${base}?fieldManager=apply_test`, deployment("deployment", containers, 3), APPLY)).status,
    ).toBe(201);
    const conflict = await c.raw(
      "PATCH",
      `${base}?fieldManager=apply_test_2`,
      deployment("deployment", containers, 5),
      APPLY,
    );
    expect(conflict.status).toBe(409);
    expect((conflict.json as { reason: string }).reason).toBe("Conflict");
    const forced = await c.raw(
      "PATCH",
      `${base}?fieldManager=apply_test_2&force=true`,
      deployment("deployment", containers, 5),
      APPLY,
    );
    expect(forced.status).toBe(200);
    expect((forced.json as { spec: { replicas: number } }).spec.replicas).toBe(5);
  });

  it("should not remove a field if an owner unsets the field but other managers still have ownership of the field", async () => {
    const ns = await c.namespace("apply");
    const base = `/apis/apps/v1/namespaces/${ns}/deployments/deployment`;
    const containers = [{ name: "nginx", image: "nginx:latest" }];
    expect(
      (await c.raw("PATCH", `${base}?fieldManager=apply_test`, deployment("deployment", containers, 3), APPLY)).status,
    ).toBe(201);
    // A second applier sets the same value: no conflict, both own spec.replicas.
    expect(
      (await c.raw("PATCH", `${base}?fieldManager=apply_test_2`, deployment("deployment", containers, 3), APPLY))
        .status,
    ).toBe(200);
    const unset = await c.raw("PATCH", `${base}?fieldManager=apply_test`, deployment("deployment", containers), APPLY);
    expect(unset.status).toBe(200);
    expect((unset.json as { spec: { replicas: number } }).spec.replicas).toBe(3);
  });

  it("should give up ownership of a field if forced applied by a controller", async () => {
    const ns = await c.namespace("apply");
    const base = `/apis/apps/v1/namespaces/${ns}/deployments/deployment`;
    const containers = [{ name: "nginx", image: "nginx:latest" }];
    expect(
      (await c.raw("PATCH", `${base}?fieldManager=apply_test`, deployment("deployment", containers, 3), APPLY)).status,
    ).toBe(201);
    const forced = await c.raw(
      "PATCH",
      `${base}?fieldManager=controller&force=true`,
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "deployment" }, spec: { replicas: 4 } },
      APPLY,
    );
    expect(forced.status).toBe(200);
    const managed = (
      forced.json as {
        metadata: { managedFields: Array<{ manager: string; fieldsV1: { "f:spec"?: Record<string, unknown> } }> };
      }
    ).metadata.managedFields;
    expect(managed.find((m) => m.manager === "apply_test")?.fieldsV1["f:spec"]?.["f:replicas"]).toBeUndefined();
    expect(managed.find((m) => m.manager === "controller")?.fieldsV1["f:spec"]?.["f:replicas"]).toEqual({});
    // The first applier no longer owns the field: applying its old config without it leaves the controller's value.
    const reapplied = await c.raw(
      "PATCH",
      `${base}?fieldManager=apply_test`,
      deployment("deployment", containers),
      APPLY,
    );
    expect((reapplied.json as { spec: { replicas: number } }).spec.replicas).toBe(4);
  });
});
