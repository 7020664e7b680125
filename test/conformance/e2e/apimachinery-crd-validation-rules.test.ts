// test/e2e/apimachinery/crd_validation_rules.go re-implemented with @kubernetes/client-node against the simulator
// over HTTP: custom resources are created and updated with client-node's KubernetesObjectApi, definitions with a raw
// POST (client-node 1.4's serializer drops a schema's `"x-kubernetes-validations"` nested under `properties`, see
// crd-fixture.ts), and each failure is checked for the text upstream checks.
import type * as K8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeOf, type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster();
});
afterAll(async () => {
  await c.close();
});

let n = 0;
/** The framework's `NewRandomNameV1CustomResourceDefinitionWithSchema`: namespaced, one version `v1beta1`. */
function definitionWithSchema(schema: Schema) {
  const plural = `e2e-test-rules${++n}`;
  const kind = `E2eTestRules${n}`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.mygroup.example.com` },
    spec: {
      group: "mygroup.example.com",
      scope: "Namespaced",
      names: { plural, singular: `e2e-test-rules${n}`, kind, listKind: `${kind}List` },
      versions: [{ name: "v1beta1", served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

type Schema = Record<string, unknown>;
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** POSTs a definition of `schema`: the answer's status and, when it failed, the Status message. */
async function post(schema: Schema): Promise<{ code: number; message: string }> {
  const r = await c.raw("POST", CRDS, definitionWithSchema(schema));
  return { code: r.status, message: (r.json as { message?: string }).message ?? "" };
}

/** Creates the definition and waits until its resource is served. */
async function create(schema: Schema) {
  const body = definitionWithSchema(schema);
  expect((await c.raw("POST", CRDS, body)).status).toBe(201);
  const plural = body.spec.names.plural;
  await expect
    .poll(async () => (await c.raw("GET", "/apis/mygroup.example.com/v1beta1")).text.includes(`"${plural}"`))
    .toBe(true);
  return { body, apiVersion: "mygroup.example.com/v1beta1", kind: body.spec.names.kind };
}

/** The message of a failed request (client-node's ApiException carries the Status as its body). */
async function failure(p: Promise<unknown>): Promise<{ code: number | undefined; message: string }> {
  try {
    await p;
  } catch (err) {
    const body = (err as { body?: unknown }).body;
    const text = typeof body === "string" ? body : JSON.stringify(body);
    return { code: codeOf(err), message: (JSON.parse(text) as { message: string }).message };
  }
  throw new Error("expected the request to fail");
}

const SCHEMA_WITH_VALIDATION_EXPRESSION: Schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      "x-kubernetes-validations": [
        { rule: "self.x + self.y > 0" },
        {
          rule: "self.firstArray.isSorted() && self.secondArray.isSorted() && ((self.firstArray.sum() + self.secondArray.sum()) % 2 == 0)",
        },
        { rule: "self.largeArray.all(x, self.largeArray.all(y, y == x))" },
      ],
      properties: {
        x: { type: "integer" },
        y: { type: "integer" },
        firstArray: { type: "array", maxItems: 1000, items: { type: "integer" } },
        secondArray: { type: "array", maxItems: 1000, items: { type: "integer" } },
        largeArray: { type: "array", maxItems: 725, items: { type: "integer" } },
      },
    },
    status: {
      type: "object",
      "x-kubernetes-validations": [{ rule: "self.health == 'ok' || self.health == 'unhealthy'" }],
      properties: { health: { type: "string" } },
    },
  },
};

describe("[sig-api-machinery] CustomResourceValidationRules [Privileged:ClusterAdmin] (apimachinery/crd_validation_rules.go)", () => {
  it("MUST NOT fail validation for create of a custom resource that satisfies the x-kubernetes-validations rules", async () => {
    const ns = await c.namespace("crd-validation-expressions");
    const { body, apiVersion, kind } = await create(SCHEMA_WITH_VALIDATION_EXPRESSION);
    const cr = {
      apiVersion,
      kind,
      metadata: { name: "cr-1", namespace: ns },
      spec: { x: 1, y: 0, firstArray: [3, 4], secondArray: [5, 10], largeArray: [2, 2] },
    };
    const created = await c.objects.create(cr as K8s.KubernetesObject);
    expect(created.metadata?.uid).toEqual(expect.any(String));
    await c.raw("DELETE", `${CRDS}/${body.metadata.name}`);
  });

  it("MUST fail validation for create of a custom resource that does not satisfy the x-kubernetes-validations rules", async () => {
    const ns = await c.namespace("crd-validation-expressions");
    const { body, apiVersion, kind } = await create(SCHEMA_WITH_VALIDATION_EXPRESSION);
    const cr = { apiVersion, kind, metadata: { name: "cr-1", namespace: ns }, spec: { x: 0, y: 0 } };
    const err = await failure(c.objects.create(cr as K8s.KubernetesObject));
    expect(err.code).toBe(422);
    expect(err.message).toContain("failed rule");
    await c.raw("DELETE", `${CRDS}/${body.metadata.name}`);
  });

  it("MUST fail create of a custom resource definition that contains a x-kubernetes-validations rule that refers to a property that do not exist", async () => {
    const schema: Schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": [{ rule: "self.z == 100" }],
          properties: { x: { type: "integer" } },
        },
      },
    };
    const err = await post(schema);
    expect(err.code).toBe(422);
    expect(err.message).toContain("undefined field 'z'");
  });

  it("MUST fail create of a custom resource definition that contains an x-kubernetes-validations rule that contains a syntax error", async () => {
    const schema: Schema = {
      type: "object",
      properties: { spec: { type: "object", "x-kubernetes-validations": [{ rule: "self = 42" }] } },
    };
    const err = await post(schema);
    expect(err.code).toBe(422);
    expect(err.message).toContain("Syntax error");
  });

  it("MUST fail create of a custom resource definition that contains an x-kubernetes-validations rule that exceeds the estimated cost limit", async () => {
    const expensive = (bounds: { maxItems?: number; maxLength?: number }): Schema => ({
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            x: {
              type: "array",
              ...(bounds.maxItems === undefined ? {} : { maxItems: bounds.maxItems }),
              items: {
                type: "array",
                ...(bounds.maxItems === undefined ? {} : { maxItems: bounds.maxItems }),
                items: { type: "string", ...(bounds.maxLength === undefined ? {} : { maxLength: bounds.maxLength }) },
                "x-kubernetes-validations": [{ rule: "self.all(s, s == 'string constant')" }],
              },
            },
          },
        },
      },
    });
    const err = await post(expensive({}));
    expect(err.code).toBe(422);
    expect(err.message).toContain("exceeds budget");
    expect(err.message).toContain(
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x",
    );
    // Beyond upstream's test: bounding the lists and strings, as the message suggests, makes the same rule admissible.
    expect((await post(expensive({ maxItems: 10, maxLength: 64 }))).code).toBe(201);
  });

  it("MUST fail create of a custom resource that exceeds the runtime cost limit for x-kubernetes-validations rule execution", async () => {
    const ns = await c.namespace("crd-validation-expressions");
    const { body, apiVersion, kind } = await create(SCHEMA_WITH_VALIDATION_EXPRESSION);
    const cr = {
      apiVersion,
      kind,
      metadata: { name: "cr-1", namespace: ns },
      spec: { largeArray: Array(725).fill(20) },
    };
    const err = await failure(c.objects.create(cr as K8s.KubernetesObject));
    expect(err.code).toBe(422);
    expect(err.message).toContain("call cost exceeds limit");
    expect((await c.raw("GET", `/apis/${apiVersion}/namespaces/${ns}/${body.spec.names.plural}/cr-1`)).status).toBe(
      404,
    );
    await c.raw("DELETE", `${CRDS}/${body.metadata.name}`);
  });

  it("MUST fail update of a custom resource that does not satisfy a x-kubernetes-validations transition rule", async () => {
    const ns = await c.namespace("crd-validation-expressions");
    const { body, apiVersion, kind } = await create({
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { num: { type: "integer", "x-kubernetes-validations": [{ rule: "self > oldSelf" }] } },
        },
      },
    });
    const created = await c.objects.create({
      apiVersion,
      kind,
      metadata: { name: "cr-1", namespace: ns },
      spec: { num: 10 },
    } as K8s.KubernetesObject);
    const err = await failure(
      c.objects.replace({
        apiVersion,
        kind,
        metadata: { name: "cr-1", namespace: ns, resourceVersion: created.metadata?.resourceVersion },
        spec: { num: 9 },
      } as K8s.KubernetesObject),
    );
    expect(err.code).toBe(422);
    expect(err.message).toContain("failed rule");
    await c.raw("DELETE", `${CRDS}/${body.metadata.name}`);
  });
});
