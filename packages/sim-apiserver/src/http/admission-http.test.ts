// The admission chain over HTTP: what kube-apiserver answers a client that writes unknown, duplicate or invalid
// fields (the FieldValidation e2e tests of test/e2e/apimachinery/field_validation.go, with a real HTTP client).
import { FakeClock } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crdWithSpec } from "../engine/resources.test-util.js";
import { type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw } from "./http-client.test-util.js";

let s: EngineServer;
const json = { "content-type": "application/json" };
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

beforeAll(async () => {
  s = await startEngineServer(new FakeClock());
});
afterAll(async () => {
  await s.close();
});

// The body of the upstream test, duplicate "replicas" included (JSON.stringify could not write it).
const invalidMetaDeployment = (name: string) => `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "${name}", "labels": {"app": "nginx"}},
  "spec": {
    "unknownField": "foo",
    "replicas": 2,
    "replicas": 3,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {
      "metadata": {"labels": {"app": "nginx"}},
      "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}
    }
  }
}`;

describe("FieldValidation over HTTP", () => {
  it("should detect unknown and duplicate fields of a typed object", async () => {
    const r = await fetchRaw(`${s.url}${DEPLOYMENTS}?fieldManager=field_validation_mgr&fieldValidation=Strict`, {
      method: "POST",
      headers: json,
      body: invalidMetaDeployment("my-dep"),
    });
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toContain(
      'strict decoding error: unknown field "spec.unknownField", duplicate field "spec.replicas"',
    );
    expect((await fetchRaw(`${s.url}${DEPLOYMENTS}/my-dep`)).status).toBe(404);
  });

  it("without fieldValidation (Warn): 201, one Warning: 299 header per problem, nothing unknown stored", async () => {
    const r = await fetchRaw(`${s.url}${DEPLOYMENTS}`, {
      method: "POST",
      headers: json,
      body: invalidMetaDeployment("warned"),
    });
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBe(
      '299 - "unknown field \\"spec.unknownField\\"", 299 - "duplicate field \\"spec.replicas\\""',
    );
    const got = (await fetchRaw(`${s.url}${DEPLOYMENTS}/warned`)).json as { spec: Record<string, unknown> };
    expect(got.spec).not.toHaveProperty("unknownField");
    expect(got.spec.replicas).toBe(3);
  });

  it("Ignore: 201 without warnings", async () => {
    const r = await fetchRaw(`${s.url}${DEPLOYMENTS}?fieldValidation=Ignore`, {
      method: "POST",
      headers: json,
      body: invalidMetaDeployment("ignored"),
    });
    expect([r.status, r.headers.warning]).toEqual([201, undefined]);
  });

  it("a merge patch with an unknown field under Strict is a 400; under Warn a Warning header", async () => {
    const url = `${s.url}${DEPLOYMENTS}/warned`;
    const patch = {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: '{"spec":{"paused":true,"bogus":1}}',
    };
    const strict = await fetchRaw(`${url}?fieldValidation=Strict`, patch);
    expect([strict.status, (strict.json as { message: string }).message]).toEqual([
      400,
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bogus"',
    ]);
    const warn = await fetchRaw(url, patch);
    expect([warn.status, warn.headers.warning]).toEqual([200, '299 - "unknown field \\"spec.bogus\\""']);
  });

  it("an invalid object is 422 with upstream's Status: details.name/group/kind and one cause per field", async () => {
    const r = await fetchRaw(`${s.url}${DEPLOYMENTS}`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "bad" },
        spec: { replicas: -4 },
      }),
    });
    expect(r.status).toBe(422);
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'Deployment.apps "bad" is invalid: [spec.replicas: Invalid value: -4: must be greater than or equal to 0, spec.selector: Required value, spec.template.spec.containers: Required value]',
      reason: "Invalid",
      details: {
        name: "bad",
        group: "apps",
        kind: "Deployment",
        causes: [
          {
            reason: "FieldValueInvalid",
            message: "Invalid value: -4: must be greater than or equal to 0",
            field: "spec.replicas",
          },
          { reason: "FieldValueRequired", message: "Required value", field: "spec.selector" },
          { reason: "FieldValueRequired", message: "Required value", field: "spec.template.spec.containers" },
        ],
      },
      code: 422,
    });
  });
});

describe("a CustomResourceDefinition with a rule the simulator cannot evaluate, over HTTP", () => {
  it("is created (201) with a Warning: 299 header naming the rule and the construct", async () => {
    const crd = crdWithSpec("example.org", "gizmos", "Gizmo", {
      type: "object",
      additionalProperties: { type: "integer" },
      "x-kubernetes-validations": [{ rule: "self.all(k, v, v > 0)" }],
    });
    const r = await fetchRaw(`${s.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(crd),
    });
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBe(
      `299 - ${JSON.stringify(
        `spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: "self.all(k, v, v > 0)" uses the two-variable comprehension 'all', which the simulator cannot evaluate: the rule is not enforced on custom resources`,
      )}`,
    );
  });
});
