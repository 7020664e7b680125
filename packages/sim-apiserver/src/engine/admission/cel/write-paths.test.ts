// Every write of a custom resource runs the same validation (apiextensions-apiserver's customresource strategy.go
// `Validate`/`ValidateUpdate` and status_strategy.go `ValidateUpdate`, fed by the registry's create, update and
// patch): the schema, then x-kubernetes-validations with oldSelf and ratcheting — for JSON, merge and apply patches
// and for /status writes, in the 422's causes with the rule's reason and fieldPath (upstream's
// test/integration/apiserver/crd_validation_expressions_test.go, TestCustomResourceValidators, and
// test/integration/ratcheting_test.go for what the engine does).
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "../../request-context.js";
import { SimApiServer } from "../../sim-apiserver.js";
import { failure } from "../../status-failure.test-util.js";

const CRDS = "customresourcedefinitions.apiextensions.k8s.io";
const WIDGETS = "widgets.example.com";

/** `Widget` with /status: spec `replicas` (≤ 10 by schema, ≥ 1 by a Forbidden rule at `.replicas`), a transition rule on `mode`, status `ready` ≤ spec's. */
function definition(extraSpecRules: unknown[] = []): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: WIDGETS },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", kind: "Widget" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              "x-kubernetes-validations": [
                {
                  rule: "!has(self.status) || self.status.ready <= self.spec.replicas",
                  messageExpression: "'ready ' + string(self.status.ready) + ' exceeds replicas'",
                  fieldPath: ".status.ready",
                },
              ],
              properties: {
                spec: {
                  type: "object",
                  properties: {
                    replicas: { type: "integer", maximum: 10 },
                    mode: {
                      type: "string",
                      "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "mode is immutable" }],
                    },
                  },
                  "x-kubernetes-validations": [
                    {
                      rule: "self.replicas >= 1",
                      message: "at least one replica",
                      fieldPath: ".replicas",
                      reason: "FieldValueForbidden",
                    },
                    ...extraSpecRules,
                  ],
                },
                status: { type: "object", properties: { ready: { type: "integer" } } },
              },
            },
          },
        },
      ],
    },
  };
}

const widget = (spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "default" },
  spec,
  ...(status !== undefined && { status }),
});

async function setup(extraSpecRules: unknown[] = []) {
  const e = new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(2),
    compactionIntervalMs: 0,
    progressNotifyIntervalMs: 0,
  });
  await e.create(CRDS, "", definition(extraSpecRules));
  await e.create(WIDGETS, "default", widget({ replicas: 2, mode: "a" }));
  return e;
}

const FORBIDDEN = 'Widget.example.com "w" is invalid: spec.replicas: Forbidden: at least one replica';

describe("TestCustomResourceValidators: every write path", () => {
  it("JSON patch", async () => {
    const e = await setup();
    const p = JSON.stringify([{ op: "replace", path: "/spec/replicas", value: 0 }]);
    const err = await failure(e.patch(WIDGETS, "default", "w", "application/json-patch+json", p));
    expect([err.code, err.message]).toEqual([422, FORBIDDEN]);
    expect(err.details?.causes).toEqual([
      { reason: "FieldValueForbidden", message: "Forbidden: at least one replica", field: "spec.replicas" },
    ]);
  });

  it("merge patch: the schema first, then the rules; a transition rule sees oldSelf", async () => {
    const e = await setup();
    const merge = "application/merge-patch+json";
    expect((await failure(e.patch(WIDGETS, "default", "w", merge, '{"spec":{"replicas":0}}'))).message).toBe(FORBIDDEN);
    expect((await failure(e.patch(WIDGETS, "default", "w", merge, '{"spec":{"replicas":11}}'))).message).toBe(
      'Widget.example.com "w" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    );
    expect((await failure(e.patch(WIDGETS, "default", "w", merge, '{"spec":{"mode":"b"}}'))).message).toBe(
      'Widget.example.com "w" is invalid: spec.mode: Invalid value: "string": mode is immutable',
    );
    const ok = await e.patch(WIDGETS, "default", "w", merge, '{"spec":{"replicas":3}}');
    expect((ok.spec as { replicas: number }).replicas).toBe(3);
  });

  it("server-side apply, of an existing object and of a new one", async () => {
    const e = await setup();
    const apply = "application/apply-patch+yaml";
    const body = (name: string, replicas: number) =>
      JSON.stringify({
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name },
        spec: { replicas, mode: "a" },
      });
    const ctx: RequestContext = { fieldManager: "tester", force: true };
    expect((await failure(e.patch(WIDGETS, "default", "w", apply, body("w", 0), ctx))).message).toBe(FORBIDDEN);
    const created = await failure(e.patch(WIDGETS, "default", "n", apply, body("n", 0), ctx));
    expect(created.message).toBe('Widget.example.com "n" is invalid: spec.replicas: Forbidden: at least one replica');
    await expect(e.get(WIDGETS, "default", "n")).rejects.toThrow();
  });

  it("status writes run the rules on status (update and patch of /status), with messageExpression and fieldPath", async () => {
    const e = await setup();
    const current = await e.get(WIDGETS, "default", "w");
    const bad = await failure(
      e.update(WIDGETS, "default", "w", { ...current, status: { ready: 5 } }, { subresource: "status" }),
    );
    expect([bad.code, bad.message]).toEqual([
      422,
      'Widget.example.com "w" is invalid: status.ready: Invalid value: "object": ready 5 exceeds replicas',
    ]);
    const patched = await failure(
      e.patch(WIDGETS, "default", "w", "application/merge-patch+json", '{"status":{"ready":3}}', {
        subresource: "status",
      }),
    );
    expect(patched.message).toContain('status.ready: Invalid value: "object": ready 3 exceeds replicas');
    const ok = await e.patch(WIDGETS, "default", "w", "application/merge-patch+json", '{"status":{"ready":2}}', {
      subresource: "status",
    });
    expect(ok.status).toEqual({ ready: 2 });
  });
});

describe("TestRatchetingFunctionality (CRDValidationRatcheting through the engine)", () => {
  it("an object stored before a rule existed can be updated elsewhere; the failing rule is a Warning", async () => {
    const e = await setup();
    // The definition gains a rule the stored object breaks.
    const crd = await e.get(CRDS, "", WIDGETS);
    const stricter = definition([{ rule: "self.replicas % 2 == 1", message: "replicas must be odd" }]);
    await e.update(CRDS, "", WIDGETS, { ...stricter, metadata: crd.metadata });
    const ctx: RequestContext = { warnings: [] };
    const merge = "application/merge-patch+json";
    await e.patch(WIDGETS, "default", "w", merge, '{"metadata":{"labels":{"a":"b"}}}', ctx);
    expect(ctx.warnings).toEqual(['spec: Invalid value: "object": replicas must be odd']);
    // Changing the field the rule is on validates it again.
    const err = await failure(e.patch(WIDGETS, "default", "w", merge, '{"spec":{"replicas":4}}'));
    expect(err.message).toBe('Widget.example.com "w" is invalid: spec: Invalid value: "object": replicas must be odd');
    // A status write leaves spec as stored: its rule ratchets there too.
    const status: RequestContext = { warnings: [], subresource: "status" };
    await e.patch(WIDGETS, "default", "w", merge, '{"status":{"ready":1}}', status);
    expect(status.warnings).toEqual(['spec: Invalid value: "object": replicas must be odd']);
  });
});
