// Ports of pkg/apis/apps/validation's selector and replica cases (validation_test.go: TestValidateDeployment,
// TestValidateReplicaSet, TestValidateStatefulSet, TestValidateDaemonSet and their *Update tables) for the rules the
// simulator enforces.
import { fieldErrorString, type KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import {
  selectorMatches,
  validateDaemonSet,
  validateDeployment,
  validateReplicaSet,
  validateStatefulSet,
  validateWorkloadUpdate,
} from "./apps.js";

const template = (labels: Record<string, string>, restartPolicy = "Always") => ({
  metadata: { labels },
  spec: { restartPolicy, containers: [{ name: "c", image: "nginx" }] },
});
const workload = (spec: Record<string, unknown>): KubeObject => ({
  metadata: { name: "w", namespace: "default" },
  spec,
});
const valid = () =>
  workload({ replicas: 1, selector: { matchLabels: { a: "b" } }, template: template({ a: "b", c: "d" }) });
const strings = (errs: ReturnType<typeof validateDeployment>) => errs.map(fieldErrorString);

describe("TestValidateDeployment", () => {
  it("valid: a selector matching a superset of template labels", () => {
    expect(validateDeployment(valid())).toEqual([]);
  });

  it("missing selector and template: Required values", () => {
    expect(strings(validateDeployment(workload({ replicas: -4 })))).toEqual([
      "spec.replicas: Invalid value: -4: must be greater than or equal to 0",
      "spec.selector: Required value",
      "spec.template.spec.containers: Required value",
    ]);
  });

  it("selector does not match the template's labels", () => {
    const d = workload({ selector: { matchLabels: { a: "b" } }, template: template({ a: "x" }) });
    expect(strings(validateDeployment(d))).toEqual([
      'spec.template.metadata.labels: Invalid value: map[string]string{"a":"x"}: `selector` does not match template `labels`',
    ]);
  });

  it("empty selector is invalid", () => {
    const d = workload({ selector: {}, template: template({ a: "b" }) });
    expect(validateDeployment(d).map((e) => e.detail)).toEqual(["empty selector is invalid for deployment"]);
  });

  it("the template's restartPolicy must be Always", () => {
    const d = workload({ selector: { matchLabels: { a: "b" } }, template: template({ a: "b" }, "OnFailure") });
    expect(strings(validateDeployment(d))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
    ]);
  });

  it("strategy type, revisionHistoryLimit, progressDeadlineSeconds > minReadySeconds", () => {
    const d = valid();
    Object.assign(d.spec as object, {
      strategy: { type: "Canary" },
      revisionHistoryLimit: -1,
      minReadySeconds: 10,
      progressDeadlineSeconds: 5,
    });
    expect(strings(validateDeployment(d))).toEqual([
      'spec.strategy.type: Unsupported value: "Canary": supported values: "Recreate", "RollingUpdate"',
      "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
      "spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds",
    ]);
  });

  it("matchExpressions: operators and values", () => {
    const d = workload({
      selector: {
        matchExpressions: [
          { key: "a", operator: "In", values: ["b"] },
          { key: "z", operator: "Near" },
        ],
      },
      template: template({ a: "b" }),
    });
    expect(validateDeployment(d).map((e) => e.field)).toEqual([
      "spec.selector.matchExpressions[1].operator",
      "spec.template.metadata.labels",
    ]);
  });
});

describe("TestValidateDeploymentUpdate / TestValidateReplicaSetUpdate", () => {
  it("the selector is immutable in apps/v1", () => {
    const next = valid();
    (next.spec as Record<string, unknown>).selector = { matchLabels: { a: "b", c: "d" } };
    expect(strings(validateWorkloadUpdate(next, valid(), false))).toEqual([
      "spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{a: b,c: d,},MatchExpressions:[]LabelSelectorRequirement{},}: field is immutable",
    ]);
    const scaled = valid();
    (scaled.spec as Record<string, unknown>).replicas = 5;
    expect(validateWorkloadUpdate(scaled, valid(), false)).toEqual([]);
  });
});

describe("TestValidateStatefulSet / TestValidateStatefulSetUpdate", () => {
  it("selector rules and policies", () => {
    expect(validateStatefulSet(valid())).toEqual([]);
    const bad = valid();
    Object.assign(bad.spec as object, { podManagementPolicy: "Eager", updateStrategy: { type: "Blue" } });
    expect(validateStatefulSet(bad).map((e) => e.field)).toEqual([
      "spec.podManagementPolicy",
      "spec.updateStrategy.type",
    ]);
  });
  it("a StatefulSet template may mount its volumeClaimTemplates, and nothing else it does not declare", () => {
    const mounting = (claims: string[]) => {
      const w = valid();
      const spec = w.spec as { template: { spec: { containers: { volumeMounts?: unknown }[] } } } & Record<
        string,
        unknown
      >;
      spec.template.spec.containers[0]!.volumeMounts = [{ name: "datadir", mountPath: "/data" }];
      spec.volumeClaimTemplates = claims.map((name) => ({ metadata: { name }, spec: {} }));
      return w;
    };
    expect(validateStatefulSet(mounting(["datadir"]))).toEqual([]);
    expect(validateStatefulSet(mounting(["other"])).map((e) => `${e.field}: ${e.type}`)).toEqual([
      "spec.template.spec.containers[0].volumeMounts[0].name: FieldValueNotFound",
    ]);
  });
  it("updates may change only replicas, ordinals, template, updateStrategy, PVC retention and minReadySeconds", () => {
    const next = valid();
    (next.spec as Record<string, unknown>).serviceName = "other";
    expect(strings(validateWorkloadUpdate(next, valid(), true))).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    const scaled = valid();
    (scaled.spec as Record<string, unknown>).replicas = 3;
    expect(validateWorkloadUpdate(scaled, valid(), true)).toEqual([]);
  });
});

describe("TestValidateReplicaSet / TestValidateDaemonSet", () => {
  it("a ReplicaSet needs replicas ≥ 0 and a matching selector; a DaemonSet has no replicas", () => {
    const rs = valid();
    (rs.spec as Record<string, unknown>).replicas = -1;
    expect(validateReplicaSet(rs).map((e) => e.field)).toEqual(["spec.replicas"]);
    const ds = valid();
    (ds.spec as Record<string, unknown>).updateStrategy = { type: "Sometimes" };
    expect(validateDaemonSet(ds).map((e) => e.field)).toEqual(["spec.updateStrategy.type"]);
  });
});

describe("selectorMatches (LabelSelectorAsSelector(...).Matches)", () => {
  it.each([
    [{ matchLabels: { a: "b" } }, { a: "b", c: "d" }, true],
    [{ matchLabels: { a: "b" } }, { a: "c" }, false],
    [{ matchExpressions: [{ key: "a", operator: "NotIn", values: ["x"] }] }, { a: "b" }, true],
    [{ matchExpressions: [{ key: "a", operator: "Exists" }] }, {}, false],
    [{ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, {}, true],
  ])("%j matches %j: %s", (sel, labels, want) => {
    expect(selectorMatches(sel, labels)).toBe(want);
  });
});
