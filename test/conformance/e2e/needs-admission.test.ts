// The e2e tests of the list that need the admission chain (issue #21's other half, branch `admission`): strict field
// validation (apimachinery/field_validation.go) and the ConfigMap/Secret key validation (common/node/configmap.go,
// secrets.go), re-implemented with @kubernetes/client-node against the simulator over HTTP. They fail until that
// branch is merged (the simulator stores what they expect rejected); after the merge they are ordinary tests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let crdN = 0;

/** A definition of `<plural>.validation.example.com` (namespaced, v1) with `schema` as its `openAPIV3Schema`. */
async function defineWithSchema(schema: Record<string, unknown>, labels: Record<string, string> = {}) {
  const n = ++crdN;
  const plural = `noxus${n}`;
  const kind = `Noxu${n}`;
  const definition = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.validation.example.com`, labels },
    spec: {
      group: "validation.example.com",
      scope: "Namespaced",
      names: { plural, singular: `noxu${n}`, kind, listKind: `${kind}List` },
      versions: [
        { name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources: { status: {} } },
      ],
    },
  };
  const r = await c.raw("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", definition);
  expect(r.status).toBe(201);
  await expect
    .poll(async () => (await c.raw("GET", `/apis/validation.example.com/v1`)).text.includes(`"${plural}"`))
    .toBe(true);
  return { definition, plural, kind, apiVersion: "validation.example.com/v1", name: definition.metadata.name };
}

const SPEC_SCHEMA = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        replicas: { type: "integer" },
        ports: {
          type: "array",
          items: { type: "object", properties: { name: { type: "string" }, containerPort: { type: "integer" } } },
        },
      },
    },
  },
};

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

describe("[sig-api-machinery] FieldValidation of custom resources (apimachinery/field_validation.go)", () => {
  it("should create/apply a valid CR for CRD with validation schema", async () => {
    const ns = await c.namespace("field-validation");
    const { plural, kind, apiVersion } = await defineWithSchema(SPEC_SCHEMA);
    const cr = {
      apiVersion,
      kind,
      metadata: { name: "valid" },
      spec: { replicas: 1, ports: [{ name: "x", containerPort: 80 }] },
    };
    const path = `/apis/${apiVersion}/namespaces/${ns}/${plural}`;
    expect((await c.raw("POST", `${path}?fieldValidation=Strict`, cr)).status).toBe(201);
    const applied = await c.raw(
      "PATCH",
      `${path}/valid-apply?fieldValidation=Strict&fieldManager=apply_test`,
      { ...cr, metadata: { name: "valid-apply" } },
      {
        "content-type": "application/apply-patch+yaml",
      },
    );
    expect(applied.status).toBe(201);
  });

  it("should create/apply a CR with unknown fields for CRD with no validation schema", async () => {
    const ns = await c.namespace("field-validation");
    const { plural, kind, apiVersion } = await defineWithSchema({
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
    const path = `/apis/${apiVersion}/namespaces/${ns}/${plural}`;
    const r = await c.raw("POST", `${path}?fieldValidation=Strict`, {
      apiVersion,
      kind,
      metadata: { name: "unknown" },
      spec: { foo: "bar" },
    });
    expect(r.status).toBe(201);
    expect((r.json as { spec: { foo: string } }).spec.foo).toBe("bar");
  });

  it("should detect unknown metadata fields in both the root and embedded object of a CR", async () => {
    const ns = await c.namespace("field-validation");
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            template: {
              type: "object",
              "x-kubernetes-embedded-resource": true,
              "x-kubernetes-preserve-unknown-fields": true,
            },
          },
        },
      },
    };
    const { plural, kind, apiVersion } = await defineWithSchema(schema);
    const cr = {
      apiVersion,
      kind,
      metadata: { name: "embedded", unknownMeta: "foo" },
      spec: { template: { apiVersion: "v1", kind: "Pod", metadata: { name: "sub", unknownSubMeta: "bar" } } },
    };
    const r = await c.raw("POST", `/apis/${apiVersion}/namespaces/${ns}/${plural}?fieldValidation=Strict`, cr);
    expect(r.status).toBe(400);
    const message = (r.json as { message: string }).message;
    expect(message).toContain('unknown field "metadata.unknownMeta"');
    expect(message).toContain('unknown field "spec.template.metadata.unknownSubMeta"');
  });

  it("should detect duplicates in a CR when preserving unknown fields", async () => {
    const ns = await c.namespace("field-validation");
    const { plural, kind, apiVersion } = await defineWithSchema({
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
    const body = `{"apiVersion": "${apiVersion}", "kind": "${kind}", "metadata": {"name": "dup"}, "spec": {"foo": "a", "foo": "b"}}`;
    const r = await c.raw("POST", `/apis/${apiVersion}/namespaces/${ns}/${plural}?fieldValidation=Strict`, body);
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toContain('duplicate field "spec.foo"');
  });

  it("should create/apply an invalid CR with extra properties for CRD with validation schema", async () => {
    const ns = await c.namespace("field-validation");
    const { plural, kind, apiVersion } = await defineWithSchema(SPEC_SCHEMA);
    const cr = { apiVersion, kind, metadata: { name: "extra" }, spec: { replicas: 1, extraProperty: "x" } };
    const path = `/apis/${apiVersion}/namespaces/${ns}/${plural}`;
    const strict = await c.raw("POST", `${path}?fieldValidation=Strict`, cr);
    expect(strict.status).toBe(400);
    expect((strict.json as { message: string }).message).toContain('unknown field "spec.extraProperty"');
    // Ignore: created, the unknown field pruned.
    const ignored = await c.raw("POST", `${path}?fieldValidation=Ignore`, cr);
    expect(ignored.status).toBe(201);
    expect((ignored.json as { spec: Record<string, unknown> }).spec.extraProperty).toBeUndefined();
  });
});

describe("[sig-api-machinery] CustomResourceDefinition resources that need schemas (apimachinery/custom_resource_definition.go)", () => {
  it("listing custom resource definition objects works", async () => {
    const selector = { "e2e-list-test-uuid": "list-1" };
    const defs = [];
    for (let i = 0; i < 3; i++)
      defs.push(await defineWithSchema({ type: "object", "x-kubernetes-preserve-unknown-fields": true }, selector));
    const base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    const listed = (await c.raw("GET", `${base}?labelSelector=e2e-list-test-uuid%3Dlist-1`)).json as {
      items: Array<{ metadata: { name: string } }>;
    };
    expect(listed.items.map((i) => i.metadata.name).sort()).toEqual(defs.map((d) => d.name).sort());
    expect((await c.raw("DELETE", `${base}?labelSelector=e2e-list-test-uuid%3Dlist-1`)).status).toBe(200);
    await expect
      .poll(
        async () =>
          ((await c.raw("GET", `${base}?labelSelector=e2e-list-test-uuid%3Dlist-1`)).json as { items: unknown[] }).items
            .length,
        {
          timeout: 10_000,
        },
      )
      .toBe(0);
  });

  it("getting/updating/patching custom resource definition status sub-resource works", async () => {
    const { name } = await defineWithSchema({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}/status`;
    const got = await c.raw("GET", path);
    expect(got.status).toBe(200);
    const crd = got.json as { status: { conditions: Array<Record<string, unknown>> } };
    crd.status.conditions = [
      ...crd.status.conditions,
      {
        type: "StatusUpdated",
        status: "True",
        reason: "E2E",
        message: "Set from an e2e test",
        lastTransitionTime: "2026-01-01T00:00:00Z",
      },
    ];
    const updated = await c.raw("PUT", path, crd);
    expect(updated.status).toBe(200);
    expect((updated.json as typeof crd).status.conditions.map((x) => x.type)).toContain("StatusUpdated");
    const patched = await c.raw(
      "PATCH",
      path,
      { metadata: { annotations: { "e2e-patched": "true" } } },
      {
        "content-type": "application/merge-patch+json",
      },
    );
    expect(patched.status).toBe(200);
    expect(
      (patched.json as { metadata: { annotations: Record<string, string> } }).metadata.annotations["e2e-patched"],
    ).toBe("true");
  });

  it("custom resource defaulting for requests and from storage works", async () => {
    const ns = await c.namespace("crd-defaulting");
    const schema = {
      type: "object",
      properties: {
        spec: { type: "object", properties: { a: { type: "string", default: "A" }, b: { type: "string" } } },
      },
    };
    const { plural, kind, apiVersion } = await defineWithSchema(schema);
    const created = await c.raw("POST", `/apis/${apiVersion}/namespaces/${ns}/${plural}`, {
      apiVersion,
      kind,
      metadata: { name: "d" },
      spec: { b: "B" },
    });
    expect(created.status).toBe(201);
    expect((created.json as { spec: Record<string, string> }).spec).toEqual({ a: "A", b: "B" });
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
