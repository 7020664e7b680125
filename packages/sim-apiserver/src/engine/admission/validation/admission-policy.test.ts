// pkg/apis/admissionregistration/validation/validation_test.go's TestValidateValidatingAdmissionPolicy and
// TestValidateValidatingAdmissionPolicyBinding (the rules the simulator enforces), on the defaulted objects, and the
// defaults (pkg/apis/admissionregistration/v1/defaults.go) a create stores.
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../../sim-apiserver.js";
import { failure } from "../../status-failure.test-util.js";

const VAPS = "validatingadmissionpolicies.admissionregistration.k8s.io";
const BINDINGS = "validatingadmissionpolicybindings.admissionregistration.k8s.io";
const engine = () => new SimApiServer({ clock: new FakeClock(), rand: seededRand(3), progressNotifyIntervalMs: 0 });

const RULES = {
  resourceRules: [{ operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"] }],
};
const policy = (spec: Record<string, unknown>) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "p" },
  spec: { matchConstraints: RULES, validations: [{ expression: "true" }], ...spec },
});
const binding = (spec: Record<string, unknown>) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name: "b" },
  spec: { policyName: "p", validationActions: ["Deny"], ...spec },
});

const invalid = (kind: string, details: string) =>
  `${kind}.admissionregistration.k8s.io "${kind === "ValidatingAdmissionPolicy" ? "p" : "b"}" is invalid: ${details}`;

describe("TestValidateValidatingAdmissionPolicy", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "Validations is required",
      { validations: [] },
      "[spec.validations: Required value: validations or auditAnnotations must contain at least one item, spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item]",
    ],
    [
      "expression is required",
      { validations: [{ expression: "" }] },
      "spec.validations[0].expression: Required value: expression is not specified",
    ],
    [
      "invalid expression",
      { validations: [{ expression: "1 + " }] },
      'spec.validations[0].expression: Invalid value: "1 + ": compilation failed: ERROR: <input>:1:',
    ],
    [
      "undeclared reference",
      { validations: [{ expression: "self.x == 1" }] },
      "spec.validations[0].expression: Invalid value: \"self.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')",
    ],
    [
      "invalid failurePolicy",
      { failurePolicy: "Other" },
      'spec.failurePolicy: Unsupported value: "Other": supported values: "Fail", "Ignore"',
    ],
    ["matchConstraints is required", { matchConstraints: undefined }, "spec.matchConstraints: Required value"],
    ["resourceRules is required", { matchConstraints: {} }, "spec.matchConstraints.resourceRules: Required value"],
    [
      "unsupported reason",
      { validations: [{ expression: "true", reason: "Teapot" }] },
      'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"',
    ],
    [
      "params used without paramKind",
      { validations: [{ expression: "params.x == 1" }] },
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')",
    ],
  ];
  for (const [name, spec, want] of cases) {
    it(name, async () => {
      const e = engine();
      const s = await failure(e.create(VAPS, "", policy(spec)));
      expect(s.code).toBe(422);
      expect(s.message).toContain(
        want.startsWith("spec.") || want.startsWith("[") ? invalid("ValidatingAdmissionPolicy", want) : want,
      );
      await expect(e.get(VAPS, "", "p")).rejects.toThrow(/not found/);
    });
  }

  it("a valid policy gets the API's defaults", async () => {
    const e = engine();
    const stored = await e.create(
      VAPS,
      "",
      policy({ paramKind: { apiVersion: "v1", kind: "ConfigMap" }, validations: [{ expression: "params != null" }] }),
    );
    expect(stored.spec).toMatchObject({
      failurePolicy: "Fail",
      matchConstraints: {
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ scope: "*" }],
      },
    });
    expect(stored.metadata?.generation).toBe(1);
  });
});

describe("TestValidateValidatingAdmissionPolicyBinding", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["policyName is required", { policyName: "" }, "spec.policyName: Required value"],
    [
      "validationActions is required",
      { validationActions: [] },
      "spec.validationActions: Required value: at least one validation action is required",
    ],
    [
      "unsupported validationAction",
      { validationActions: ["Deny", "Explode"] },
      'spec.validationActions[1]: Unsupported value: "Explode": supported values: "Audit", "Deny", "Warn"',
    ],
    [
      "duplicate validationAction",
      { validationActions: ["Deny", "Deny"] },
      'spec.validationActions[1]: Duplicate value: "Deny"',
    ],
    [
      "Deny and Warn",
      { validationActions: ["Deny", "Warn"] },
      'spec.validationActions: Invalid value: []v1.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn',
    ],
    [
      "paramRef needs name or selector and parameterNotFoundAction",
      { paramRef: {} },
      "[spec.paramRef: Required value: one of name or selector must be specified, spec.paramRef.parameterNotFoundAction: Required value]",
    ],
    [
      "paramRef name and selector are exclusive",
      { paramRef: { name: "a", selector: {}, parameterNotFoundAction: "Deny" } },
      "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
    ],
  ];
  for (const [name, spec, want] of cases) {
    it(name, async () => {
      const s = await failure(engine().create(BINDINGS, "", binding(spec)));
      expect(s.code).toBe(422);
      expect(s.message).toContain(invalid("ValidatingAdmissionPolicyBinding", want));
    });
  }
});
