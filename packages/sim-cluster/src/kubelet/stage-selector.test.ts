import { describe, expect, it } from "vitest";
import { DEFAULT_POD_STAGES, InvalidStageError, validateStages } from "./stage.js";
import { matchesStageSelector, valueAt } from "./stage-selector.js";

const pod = {
  metadata: { name: "p", labels: { app: "web" }, annotations: { a: "1" } },
  spec: { nodeName: "node-0", restartPolicy: "Always" },
  status: {
    phase: "Pending",
    conditions: [{ type: "Ready", status: "False" }],
    containerStatuses: [{ name: "c", state: { waiting: { reason: "ContainerCreating" } } }],
  },
};

describe("stage selectors", () => {
  it("reads paths, condition statuses and the first container's state", () => {
    expect(valueAt(pod, ".status.phase")).toBe("Pending");
    expect(valueAt(pod, ".metadata.labels.app")).toBe("web");
    expect(valueAt(pod, ".metadata.deletionTimestamp")).toBeUndefined();
    expect(valueAt(pod, ".status.conditions.Ready")).toBe("False");
    expect(valueAt(pod, ".status.conditions.PodScheduled")).toBeUndefined();
    expect(valueAt(pod, ".status.containerStatuses.state")).toBe("waiting");
    expect(valueAt(pod, ".status.containerStatuses.reason")).toBe("ContainerCreating");
    expect(valueAt(pod, ".status.containerStatuses.restartCount")).toBe(0);
    const restarted = { status: { containerStatuses: [{ restartCount: 2, state: { running: {} } }] } };
    expect(valueAt(restarted, ".status.containerStatuses.restartCount")).toBe(2);
    expect(valueAt({ status: {} }, ".status.containerStatuses.restartCount")).toBeUndefined();
  });

  it("matches labels, annotations and every operator", () => {
    expect(matchesStageSelector(pod, undefined)).toBe(true);
    expect(matchesStageSelector(pod, { matchLabels: { app: "web" }, matchAnnotations: { a: "1" } })).toBe(true);
    expect(matchesStageSelector(pod, { matchLabels: { app: "db" } })).toBe(false);
    const m = (operator: "In" | "NotIn" | "Exists" | "DoesNotExist", key: string, values?: string[]) =>
      matchesStageSelector(pod, { matchExpressions: [{ key, operator, ...(values && { values }) }] });
    expect(m("In", ".status.phase", ["Pending", "Running"])).toBe(true);
    expect(m("NotIn", ".status.phase", ["Pending"])).toBe(false);
    expect(m("NotIn", ".status.conditions.Initialized", ["True"])).toBe(true); // absent is not in any list
    expect(m("In", ".status.conditions.Initialized", ["True"])).toBe(false);
    expect(m("Exists", ".spec.nodeName")).toBe(true);
    expect(m("DoesNotExist", ".metadata.deletionTimestamp")).toBe(true);
  });

  it("the default stages walk a bound pod from creating to running to ready, one stage at a time", () => {
    const fresh = { ...pod, status: { phase: "Pending" } };
    const matching = (p: unknown) =>
      DEFAULT_POD_STAGES.filter((s) => matchesStageSelector(p, s.selector)).map((s) => s.name);
    expect(matching(fresh)).toEqual(["pod-container-creating"]);
    expect(matching(pod)).toEqual(["pod-running"]);
    const running = {
      ...pod,
      status: { phase: "Running", conditions: [], containerStatuses: [{ state: { running: {} } }] },
    };
    expect(matching(running)).toEqual(["pod-ready"]);
    const deleting = { ...running, metadata: { ...pod.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
    expect(matching(deleting)).toEqual(["pod-delete"]);
    // A container that traps SIGTERM: its own stage (which outweighs pod-delete) while it runs, pod-delete once failed.
    const trapping = {
      ...deleting,
      metadata: { ...deleting.metadata, annotations: { "sim-cluster/termination-exit-code": "143" } },
    };
    expect(matching(trapping)).toEqual(["pod-terminate-on-signal", "pod-delete"]);
    expect(DEFAULT_POD_STAGES.find((s) => s.name === "pod-terminate-on-signal")?.weight).toBeGreaterThan(1e6);
    expect(matching({ ...trapping, status: { ...trapping.status, phase: "Failed" } })).toEqual(["pod-delete"]);
  });

  it("hostFile tests a file of the pod's node, its path's $(VAR) references expanded from the container's env", () => {
    const withEnv = {
      ...pod,
      spec: { ...(pod as { spec?: object }).spec, containers: [{ name: "c", env: [{ name: "DIR", value: "/d" }] }] },
    };
    const absent = { hostFile: { path: "$(DIR)/foo", exists: false } };
    const present = { hostFile: { path: "$(DIR)/foo", exists: true } };
    expect(matchesStageSelector(withEnv, absent)).toBe(true);
    expect(matchesStageSelector(withEnv, present)).toBe(false);
    expect(matchesStageSelector(withEnv, absent, new Set(["/d/foo"]))).toBe(false);
    expect(matchesStageSelector(withEnv, present, new Set(["/d/foo"]))).toBe(true);
    expect(matchesStageSelector(withEnv, present, new Set(["$(DIR)/foo"]))).toBe(false);
  });

  it("validateStages names the stage and field of the first problem", () => {
    expect(validateStages(DEFAULT_POD_STAGES)).toBe(DEFAULT_POD_STAGES);
    expect(() => validateStages({})).toThrow(InvalidStageError);
    expect(() => validateStages([{ name: "a", next: {}, delay: { jitterMs: -1 } }])).toThrow(
      'stages[0] "a": delay.jitterMs must be a finite number ≥ 0, got -1',
    );
    expect(() =>
      validateStages([
        { name: "a", next: {} },
        { name: "a", next: {} },
      ]),
    ).toThrow('stages[1] "a": name must be unique');
    expect(() => validateStages([{ name: "a", next: {}, failureProbability: 0.5 }])).toThrow(
      "failure must be given when failureProbability > 0",
    );
    expect(() =>
      validateStages([{ name: "a", next: {}, selector: { matchExpressions: [{ key: ".x", operator: "Is" }] } }]),
    ).toThrow("selector.matchExpressions[0].operator must be In, NotIn, Exists or DoesNotExist");
    expect(() => validateStages([{ name: "a", next: {}, selector: { hostFile: { path: "" } } }])).toThrow(
      'stages[0] "a": selector.hostFile must have a non-empty path and a boolean exists, got {"path":""}',
    );
    expect(() => validateStages([{ name: "a", next: {}, delay: { durationMsFrom: "x" } }])).toThrow(
      "delay.durationMsFrom must be a path starting with '.'",
    );
  });
});
