// The ValidatingAdmissionPolicy plugin in the engine, on virtual time: validating/admission_test.go's dispatcher
// tests (re-done with real policies, bindings and params in the engine's storage instead of fake compilers), the
// validation actions, and the property that a denied write changes nothing.
import type { KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "../../request-context.js";
import { SimApiServer } from "../../sim-apiserver.js";
import { failure } from "../../status-failure.test-util.js";
import { expectDeniedWritesChangeNothing, sizedWrites } from "../plugin-engine.test-util.js";

const VAPS = "validatingadmissionpolicies.admissionregistration.k8s.io";
const BINDINGS = "validatingadmissionpolicybindings.admissionregistration.k8s.io";

function engine(): { e: SimApiServer; clock: FakeClock } {
  const clock = new FakeClock();
  const e = new SimApiServer({ clock, rand: seededRand(7), compactionIntervalMs: 0, progressNotifyIntervalMs: 0 });
  return { e, clock };
}

const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...(labels !== undefined && { labels }) },
  data,
});

/** A policy on ConfigMap creates and updates whose one validation is `expression`. */
function policy(name: string, spec: Record<string, unknown> = {}, expression = "object.data.size() <= 1"): KubeObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          { operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
        ],
      },
      validations: [{ expression, message: "too much data" }],
      ...spec,
    },
  };
}

/** A policy spec's `matchConstraints` on ConfigMaps for these operations. */
function onConfigMaps(operations: string[]): Record<string, unknown> {
  return {
    matchConstraints: {
      resourceRules: [{ operations, apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    },
  };
}

function binding(name: string, policyName: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName, validationActions: ["Deny"], ...spec },
  };
}

const DENIAL = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: too much data";

describe("validating/admission_test.go", () => {
  it("TestBasicPolicyDefinitionFailure: a failed validation denies with the dispatcher's Status", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p"));
    await e.create(BINDINGS, "", binding("b", "p"));
    const s = await failure(e.create("configmaps", "default", configMap("big", { a: "1", b: "2" })));
    expect(s).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: `configmaps "big" is forbidden: ${DENIAL}`,
      details: { name: "big", group: "", kind: "configmaps", causes: [{ message: DENIAL }] },
    });
    // A write the policy accepts goes through.
    await e.create("configmaps", "default", configMap("small", { a: "1" }));
  });

  it("TestDefinitionDoesntMatch: a policy whose constraints do not match the request does nothing", async () => {
    const { e } = engine();
    const secretsOnly = policy("p", {
      matchConstraints: {
        resourceRules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }],
      },
    });
    await e.create(VAPS, "", secretsOnly);
    await e.create(BINDINGS, "", binding("b", "p"));
    await e.create("configmaps", "default", configMap("big", { a: "1", b: "2" }));
  });

  it("TestReconfigureBinding: a binding's matchResources is followed as it changes", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p"));
    const b = await e.create(
      BINDINGS,
      "",
      binding("b", "p", { matchResources: { namespaceSelector: { matchLabels: { x: "y" } } } }),
    );
    await e.create("configmaps", "default", configMap("one", { a: "1", b: "2" }));
    await e.update(BINDINGS, "", "b", { ...b, spec: { ...(b.spec as object), matchResources: {} } });
    expect((await failure(e.create("configmaps", "default", configMap("big", { a: "1", b: "2" })))).code).toBe(422);
  });

  it("TestRemoveDefinition and TestRemoveBinding: deleting either stops the enforcement", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p"));
    await e.create(BINDINGS, "", binding("b", "p"));
    expect((await failure(e.create("configmaps", "default", configMap("big", { a: "1", b: "2" })))).code).toBe(422);
    await e.delete(BINDINGS, "", "b");
    await e.create("configmaps", "default", configMap("big", { a: "1", b: "2" }));
    await e.create(BINDINGS, "", binding("b", "p"));
    expect((await failure(e.create("configmaps", "default", configMap("big2", { a: "1", b: "2" })))).code).toBe(422);
    await e.delete(VAPS, "", "p");
    await e.create("configmaps", "default", configMap("big2", { a: "1", b: "2" }));
  });

  it("TestInvalidParamSourceGVK: an unknown paramKind is a configuration error of the policy", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p", { paramKind: { apiVersion: "example.com/v1", kind: "BadParamKind" } }));
    await e.create(BINDINGS, "", binding("b", "p", { paramRef: { name: "x", parameterNotFoundAction: "Deny" } }));
    const s = await failure(e.create("configmaps", "default", configMap("c")));
    expect(s.message).toBe(
      "configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=BadParamKind'",
    );
  });

  it("TestInvalidParamSourceInstanceName: a missing param under Deny is a configuration error of the binding", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p", { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }));
    await e.create(BINDINGS, "", binding("b", "p", { paramRef: { name: "missing", parameterNotFoundAction: "Deny" } }));
    const s = await failure(e.create("configmaps", "default", configMap("c")));
    expect(s.message).toBe(
      "configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it("an invalid paramRef selector is a configuration error of the binding, not a crash", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p", { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }));
    const selector = { matchExpressions: [{ key: "a", operator: "Bogus" }] };
    await e.create(BINDINGS, "", binding("b", "p", { paramRef: { selector, parameterNotFoundAction: "Deny" } }));
    const s = await failure(e.create("configmaps", "default", configMap("c")));
    expect([s.code, s.message]).toEqual([
      422,
      "configmaps \"c\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: \"Bogus\" is not a valid label selector operator",
    ]);
  });

  it("TestEmptyParamSource: a missing param under Allow skips the binding", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p", { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }, "false"));
    await e.create(
      BINDINGS,
      "",
      binding("b", "p", { paramRef: { name: "missing", parameterNotFoundAction: "Allow" } }),
    );
    await e.create("configmaps", "default", configMap("c"));
  });

  it("TestNativeTypeParam and TestNamespaceParamRefName: a ConfigMap param by name, in the request's namespace", async () => {
    const { e } = engine();
    await e.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } });
    await e.create("configmaps", "team", configMap("limits", { max: "2" }));
    await e.create(
      VAPS,
      "",
      policy("p", { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }, "object.data.size() <= int(params.data.max)"),
    );
    await e.create(BINDINGS, "", binding("b", "p", { paramRef: { name: "limits", parameterNotFoundAction: "Deny" } }));
    await e.create("configmaps", "team", configMap("ok", { a: "1", b: "2" }));
    expect((await failure(e.create("configmaps", "team", configMap("big", { a: "1", b: "2", c: "3" })))).code).toBe(
      422,
    );
    // In `default` there is no `limits`: Deny.
    expect((await failure(e.create("configmaps", "default", configMap("c")))).message).toContain("no params found");
  });

  it("TestParamRef: a selector evaluates the policy once per selected param", async () => {
    const { e } = engine();
    await e.create("configmaps", "default", configMap("p1", { max: "3" }, { role: "limit" }));
    await e.create("configmaps", "default", configMap("p2", { max: "1" }, { role: "limit" }));
    await e.create(
      VAPS,
      "",
      policy(
        "p",
        {
          paramKind: { apiVersion: "v1", kind: "ConfigMap" },
          matchConditions: [{ name: "not-params", expression: "!has(object.metadata.labels)" }],
        },
        "object.data.size() <= int(params.data.max)",
      ),
    );
    await e.create(
      BINDINGS,
      "",
      binding("b", "p", {
        paramRef: { selector: { matchLabels: { role: "limit" } }, parameterNotFoundAction: "Deny" },
      }),
    );
    // Fits p1 (3) but not p2 (1): denied.
    expect((await failure(e.create("configmaps", "default", configMap("two", { a: "1", b: "2" })))).code).toBe(422);
    await e.create("configmaps", "default", configMap("one", { a: "1" }));
  });

  it("TestValidationFailurePolicyIgnore: an evaluation error is ignored under Ignore, denies under Fail", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p", { failurePolicy: "Ignore" }, "object.data.missing == '1'"));
    await e.create(BINDINGS, "", binding("b", "p"));
    await e.create("configmaps", "default", configMap("c", { a: "1" }));
    const p = await e.get(VAPS, "", "p");
    await e.update(VAPS, "", "p", { ...p, spec: { ...(p.spec as object), failurePolicy: "Fail" } });
    expect((await failure(e.create("configmaps", "default", configMap("d", { a: "1" })))).message).toBe(
      "configmaps \"d\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.data.missing == '1'' resulted in error: no such key: missing",
    );
  });

  it("TestWarnValidationAction: Warn admits with a warning", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p"));
    await e.create(BINDINGS, "", binding("b", "p", { validationActions: ["Warn"] }));
    const ctx: RequestContext = { warnings: [] };
    await e.create("configmaps", "default", configMap("big", { a: "1", b: "2" }), ctx);
    expect(ctx.warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': too much data",
    ]);
  });

  it("TestAuditValidationAction: Audit admits and records the validation_failure annotation", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p"));
    await e.create(BINDINGS, "", binding("b", "p", { validationActions: ["Audit"] }));
    await e.create("configmaps", "default", configMap("big", { a: "1", b: "2" }));
    expect(e.validatingAdmissionPolicies.audit.at(-1)).toEqual({
      resource: "configmaps",
      namespace: "default",
      name: "big",
      operation: "CREATE",
      annotations: {
        "validation.policy.admission.k8s.io/validation_failure":
          '[{"message":"too much data","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Audit"]}]',
      },
    });
  });

  it("TestAllValidationActions: Deny and Audit together; Warn with Audit", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p"));
    await e.create(BINDINGS, "", binding("b", "p", { validationActions: ["Deny", "Audit"] }));
    const ctx: RequestContext = { warnings: [] };
    expect((await failure(e.create("configmaps", "default", configMap("big", { a: "1", b: "2" }), ctx))).code).toBe(
      422,
    );
    expect(ctx.warnings).toEqual([]);
    expect(e.validatingAdmissionPolicies.audit).toHaveLength(1);
    await e.update(BINDINGS, "", "b", {
      ...(await e.get(BINDINGS, "", "b")),
      spec: { policyName: "p", validationActions: ["Warn", "Audit"] },
    });
    await e.create("configmaps", "default", configMap("big", { a: "1", b: "2" }), ctx);
    expect(ctx.warnings).toHaveLength(1);
    expect(e.validatingAdmissionPolicies.audit).toHaveLength(2);
  });

  it("TestAuditAnnotations: published as <policy>/<key>, values of several bindings joined", async () => {
    const { e } = engine();
    await e.create(
      VAPS,
      "",
      policy("p", { auditAnnotations: [{ key: "size", valueExpression: "string(object.data.size())" }] }, "true"),
    );
    await e.create(BINDINGS, "", binding("b", "p"));
    await e.create("configmaps", "default", configMap("c", { a: "1" }));
    expect(e.validatingAdmissionPolicies.audit.at(-1)?.annotations).toEqual({ "p/size": "1" });
  });

  it("a reason picks the code: Forbidden is a 403", async () => {
    const { e } = engine();
    const p = policy("p");
    (p.spec as { validations: unknown[] }).validations = [{ expression: "false", reason: "Forbidden" }];
    await e.create(VAPS, "", p);
    await e.create(BINDINGS, "", binding("b", "p"));
    const s = await failure(e.create("configmaps", "default", configMap("c")));
    expect([s.code, s.reason]).toEqual([403, "Forbidden"]);
    expect(s.message).toContain("denied request: failed expression: false");
  });

  it("DELETE is admitted too: oldObject is the stored object, object null", async () => {
    const { e } = engine();
    await e.create("configmaps", "default", configMap("keep", { protected: "yes" }));
    await e.create(VAPS, "", policy("p", onConfigMaps(["DELETE"]), "object == null && !has(oldObject.data.protected)"));
    await e.create(BINDINGS, "", binding("b", "p"));
    expect((await failure(e.delete("configmaps", "default", "keep"))).code).toBe(422);
    await e.create("configmaps", "default", configMap("free"));
    await e.delete("configmaps", "default", "free");
  });

  it("namespaceObject and request are bound", async () => {
    const { e } = engine();
    await e.create("namespaces", "", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "team", labels: { tier: "gold" } },
    });
    await e.create(
      VAPS,
      "",
      policy(
        "p",
        {},
        "namespaceObject.metadata.labels.tier == 'gold' && request.operation == 'CREATE' && request.kind.kind == 'ConfigMap'",
      ),
    );
    await e.create(BINDINGS, "", binding("b", "p"));
    await e.create("configmaps", "team", configMap("ok"));
    expect((await failure(e.create("configmaps", "default", configMap("c")))).code).toBe(422);
  });

  it("the admission configuration resources are exempt", async () => {
    const { e } = engine();
    const all = policy(
      "p",
      {
        matchConstraints: {
          resourceRules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }],
        },
      },
      "false",
    );
    await e.create(VAPS, "", all);
    await e.create(BINDINGS, "", binding("b", "p"));
    await e.create(VAPS, "", policy("q"));
    expect((await failure(e.create("configmaps", "default", configMap("c")))).code).toBe(422);
  });

  it("a dry run is denied alike", async () => {
    const { e } = engine();
    await e.create(VAPS, "", policy("p"));
    await e.create(BINDINGS, "", binding("b", "p"));
    expect(
      (await failure(e.create("configmaps", "default", configMap("big", { a: "1", b: "2" }), { dryRun: true }))).code,
    ).toBe(422);
  });
});

describe("property: a write denied by a policy changes nothing", () => {
  it("storage, resourceVersions and the event history stay as they were", async () => {
    await fc.assert(
      fc.asyncProperty(sizedWrites(8), async (writes) => {
        const { e } = engine();
        try {
          await expectDeniedWritesChangeNothing(
            e,
            writes,
            (err) => (err as { status?: { reason?: string } }).status?.reason === "Invalid",
            async () => {
              // Denies every write leaving more than two keys, and every delete.
              await e.create(
                VAPS,
                "",
                policy("p", onConfigMaps(["*"]), "request.operation != 'DELETE' && object.data.size() <= 2"),
              );
              await e.create(BINDINGS, "", binding("b", "p"));
            },
          );
        } finally {
          e.stop();
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("validatingadmissionpolicy-status controller", () => {
  it("writes observedGeneration and typeChecking once per generation", async () => {
    const { e, clock } = engine();
    // Accepted at create (`object` is dyn there), a type error against ConfigMap's schema (data: map of strings).
    const confused = policy("p", {}, "object.data.x > 1");
    await e.create(VAPS, "", confused);
    await clock.step(0);
    const checked = await e.get(VAPS, "", "p");
    expect(checked.status).toEqual({
      observedGeneration: 1,
      typeChecking: {
        expressionWarnings: [
          {
            fieldRef: "spec.validations[0].expression",
            warning:
              "/v1, Kind=ConfigMap: ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(string, int)'\n | object.data.x > 1\n | ..............^\n",
          },
        ],
      },
    });
    await e.update(VAPS, "", "p", {
      ...checked,
      spec: { ...(checked.spec as object), validations: [{ expression: "true" }] },
    });
    await clock.step(0);
    expect((await e.get(VAPS, "", "p")).status).toEqual({ observedGeneration: 2, typeChecking: {} });
  });
});
