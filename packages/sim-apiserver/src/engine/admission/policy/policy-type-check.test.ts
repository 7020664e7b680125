// validating/typechecking_test.go's TestTypeCheck, on the simulator's schemas: the kinds a policy names, the
// variables' types, params of the paramKind's schema, and what is not checked (wildcards, unknown kinds).
import type { KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES } from "../../resources.js";
import { typeCheckPolicy } from "./policy-type-check.js";

const deployments = (
  validations: unknown[],
  extra: Record<string, unknown> = {},
  resources = ["deployments"],
): KubeObject => ({
  metadata: { name: "p" },
  spec: {
    matchConstraints: {
      resourceRules: [{ operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources }],
    },
    validations,
    ...extra,
  },
});

const check = (p: KubeObject) =>
  typeCheckPolicy(p, BUILTIN_RESOURCES).map((w) => [w.fieldRef, w.warning.split("\n")[0]]);

describe("TestTypeCheck", () => {
  it("deployment: correct expressions have no warnings", () => {
    expect(
      check(
        deployments([
          { expression: "object.spec.replicas > 1", messageExpression: "'got ' + string(object.spec.replicas)" },
        ]),
      ),
    ).toEqual([]);
  });

  it("deployment: type confusion in the expression and the messageExpression", () => {
    expect(
      check(
        deployments([{ expression: "object.spec.replicas > '1'", messageExpression: "'got ' + object.spec.replicas" }]),
      ),
    ).toEqual([
      [
        "spec.validations[0].expression",
        "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'",
      ],
      [
        "spec.validations[0].messageExpression",
        "apps/v1, Kind=Deployment: ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(string, int)'",
      ],
    ]);
  });

  it("deployment: an undefined field", () => {
    expect(check(deployments([{ expression: "object.spec.replica > 1" }]))).toEqual([
      ["spec.validations[0].expression", "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'"],
    ]);
  });

  it("variables are typed from their expressions, in order", () => {
    const p = deployments([{ expression: "variables.replicas > '1'" }, { expression: "variables.odd == 1" }], {
      variables: [
        { name: "replicas", expression: "object.spec.replicas" },
        { name: "odd", expression: "variables.replicas % 2 == 1" },
      ],
    });
    expect(check(p)).toEqual([
      [
        "spec.validations[0].expression",
        "apps/v1, Kind=Deployment: ERROR: <input>:1:20: found no matching overload for '_>_' applied to '(int, string)'",
      ],
      [
        "spec.validations[1].expression",
        "apps/v1, Kind=Deployment: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(bool, int)'",
      ],
    ]);
  });

  it("params of the paramKind's schema", () => {
    const p = deployments([{ expression: "object.spec.replicas <= params.data.max" }], {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    });
    expect(check(p)).toEqual([
      [
        "spec.validations[0].expression",
        "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_<=_' applied to '(int, string)'",
      ],
    ]);
  });

  it("wildcards and unknown kinds are not checked", () => {
    expect(check(deployments([{ expression: "object.spec.replicas > '1'" }], {}, ["*"]))).toEqual([]);
    expect(check(deployments([{ expression: "object.spec.replicas > '1'" }], {}, ["nonexistents"]))).toEqual([]);
  });
});
