// The e2e tests of the list that need the admission chain (issue #21's other half, branch `admission`): strict field
// validation (apimachinery/field_validation.go) and the ConfigMap/Secret key validation (common/node/configmap.go,
// secrets.go), re-implemented with @kubernetes/client-node against the simulator over HTTP. They fail until that
// branch is merged (the simulator stores what they expect rejected); after the merge they are ordinary tests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

describe("[sig-api-machinery] FieldValidation (apimachinery/field_validation.go)", () => {
  it("should detect unknown and duplicate fields of a typed object", async () => {
    const ns = await c.namespace("field-validation");
    // Raw JSON text: a duplicate key cannot be written as an object literal.
    const body = `{
      "apiVersion": "apps/v1",
      "kind": "Deployment",
      "metadata": {"name": "deployment"},
      "spec": {
        "unknownField": "foo",
        "replicas": 1,
        "replicas": 2,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}}
      }
    }`;
    const r = await c.raw("POST", `/apis/apps/v1/namespaces/${ns}/deployments?fieldValidation=Strict`, body);
    expect(r.status).toBe(400);
    const message = (r.json as { message: string }).message;
    expect(message).toContain('strict decoding error: unknown field "spec.unknownField"');
    expect(message).toContain('duplicate field "spec.replicas"');
    expect((await c.raw("GET", `/apis/apps/v1/namespaces/${ns}/deployments/deployment`)).status).toBe(404);
  });

  it("should detect unknown metadata fields of a typed object", async () => {
    const ns = await c.namespace("field-validation");
    const body = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm", unknownMeta: "foo" },
      data: { a: "b" },
    };
    const r = await c.raw("POST", `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, body);
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toContain('unknown field "metadata.unknownMeta"');
  });
});

describe("[sig-node] ConfigMap and Secrets key validation (common/node/configmap.go, secrets.go)", () => {
  it("should fail to create ConfigMap with empty key", async () => {
    const ns = await c.namespace("configmap");
    const r = await c.raw("POST", `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: "cm-empty-key" },
      data: { "": "value" },
    });
    expect(r.status).toBe(422);
    expect((r.json as { message: string }).message).toContain(
      "a valid config key must consist of alphanumeric characters",
    );
  });

  it("should fail to create secret due to empty secret key", async () => {
    const ns = await c.namespace("secrets");
    const r = await c.raw("POST", `/api/v1/namespaces/${ns}/secrets`, {
      metadata: { name: "secret-empty-key" },
      data: { "": Buffer.from("value-1").toString("base64") },
    });
    expect(r.status).toBe(422);
    expect((r.json as { message: string }).message).toContain(
      "a valid config key must consist of alphanumeric characters",
    );
  });
});
