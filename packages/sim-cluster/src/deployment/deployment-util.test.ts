import type { Deployment, ReplicaSet } from "@informer-ts/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deploymentComplete, deploymentProgressing, deploymentTimedOut } from "./conditions.js";
import { newRSNewReplicas, resolveFenceposts } from "./replica-sets.js";
import { computeHash, equalIgnoreHash, stable } from "./revisions.js";

// Ported from pkg/controller/deployment/util/deployment_util_test.go (tables), adapted to JSON objects.
function dep(
  replicas: number,
  strategy: "RollingUpdate" | "Recreate",
  maxSurge: number | string = 1,
  maxUnavailable: number | string = 0,
): Deployment {
  return {
    metadata: { name: "d", generation: 1 },
    spec: {
      replicas,
      selector: {},
      template: {},
      strategy:
        strategy === "Recreate"
          ? { type: "Recreate" }
          : { type: "RollingUpdate", rollingUpdate: { maxSurge, maxUnavailable } },
    },
  } as Deployment;
}
const rs = (replicas: number): ReplicaSet =>
  ({ metadata: { name: "rs" }, spec: { replicas, selector: {} } }) as ReplicaSet;

describe("TestNewRSNewReplicas", () => {
  const cases = [
    {
      name: "can not scale up - to newRSReplicas",
      strategy: "RollingUpdate" as const,
      depReplicas: 1,
      newRSReplicas: 5,
      maxSurge: 1,
      expected: 5,
    },
    {
      name: "scale up - to depReplicas",
      strategy: "RollingUpdate" as const,
      depReplicas: 6,
      newRSReplicas: 2,
      maxSurge: 10,
      expected: 6,
    },
    {
      name: "recreate - to depReplicas",
      strategy: "Recreate" as const,
      depReplicas: 3,
      newRSReplicas: 1,
      maxSurge: 1,
      expected: 3,
    },
  ];
  it.each(cases)("$name", ({ strategy, depReplicas, newRSReplicas, maxSurge, expected }) => {
    const newRS = rs(newRSReplicas);
    expect(newRSNewReplicas(dep(depReplicas, strategy, maxSurge), [newRS], newRS)).toBe(expected);
  });
});

describe("TestResolveFenceposts", () => {
  const cases = [
    { maxSurge: "0", maxUnavailable: "0", desired: 0, surge: 0, unavailable: 1 },
    { maxSurge: "39%", maxUnavailable: "39%", desired: 10, surge: 4, unavailable: 3 },
    { maxSurge: "25%", maxUnavailable: "25%", desired: 8, surge: 2, unavailable: 2 },
  ];
  it.each(cases)(
    "$maxSurge/$maxUnavailable of $desired",
    ({ maxSurge, maxUnavailable, desired, surge, unavailable }) => {
      expect(resolveFenceposts(dep(desired, "RollingUpdate", maxSurge, maxUnavailable))).toEqual({
        surge,
        unavailable,
      });
    },
  );
  it("rejects a value that is neither an int nor a percentage", () => {
    expect(() => resolveFenceposts(dep(1, "RollingUpdate", "oops", "0"))).toThrow('string is not a percentage: "oops"');
    expect(() => resolveFenceposts(dep(1, "RollingUpdate", "55%", "urg"))).toThrow('"urg"');
  });
});

describe("TestDeploymentComplete / TestDeploymentProgressing / TestDeploymentTimedOut", () => {
  const status = (replicas: number, updated: number, available: number, observedGeneration = 1) => ({
    replicas,
    updatedReplicas: updated,
    availableReplicas: available,
    observedGeneration,
  });
  it.each([
    { name: "not complete: min but not all pods become available", s: status(5, 5, 4), want: false },
    { name: "not complete: all pods are available but not updated", s: status(5, 4, 5), want: false },
    { name: "not complete: still running old pods", s: status(6, 5, 5), want: false },
    { name: "not complete: one replica deployment never comes up", s: status(1, 1, 0), want: false },
    { name: "not complete: the status is for an older generation", s: status(5, 5, 5, 0), want: false },
    { name: "complete", s: status(5, 5, 5), want: true },
  ])("DeploymentComplete: $name", ({ s, want }) => {
    expect(deploymentComplete(dep(5, "RollingUpdate"), s)).toBe(want);
  });

  it.each([
    { name: "progressing: updated pods", old: status(10, 2, 2), cur: status(10, 3, 2), want: true },
    { name: "not progressing", old: status(10, 2, 2), cur: status(10, 2, 2), want: false },
    { name: "progressing: old pods removed", old: status(10, 2, 2), cur: status(8, 2, 2), want: true },
    { name: "progressing: more available", old: status(10, 2, 2), cur: status(10, 2, 3), want: true },
  ])("DeploymentProgressing: $name", ({ old, cur, want }) => {
    const d = { ...dep(10, "RollingUpdate"), status: old } as Deployment;
    expect(deploymentProgressing(d, cur)).toBe(want);
  });

  it("DeploymentTimedOut: counts from the Progressing condition's lastUpdateTime", () => {
    const d = {
      ...dep(1, "RollingUpdate"),
      spec: { ...dep(1, "RollingUpdate").spec!, progressDeadlineSeconds: 10 },
    } as Deployment;
    const at = Date.UTC(2026, 0, 1);
    const s = {
      conditions: [
        {
          type: "Progressing",
          status: "True",
          reason: "ReplicaSetUpdated",
          lastUpdateTime: new Date(at).toISOString(),
        },
      ],
    };
    expect(deploymentTimedOut(d, s, at + 9_000)).toBe(false);
    expect(deploymentTimedOut(d, s, at + 11_000)).toBe(true);
    const done = { conditions: [{ ...s.conditions[0]!, reason: "NewReplicaSetAvailable" }] };
    expect(deploymentTimedOut(d, done, at + 60_000)).toBe(false);
  });
});

describe("EqualIgnoreHash and ComputeHash", () => {
  it("templates differing only in pod-template-hash are equal; equal templates hash equally", () => {
    const a = {
      metadata: { labels: { app: "web", "pod-template-hash": "abc" } },
      spec: { containers: [{ name: "c", image: "i" }] },
    };
    const b = { metadata: { labels: { app: "web" } }, spec: { containers: [{ image: "i", name: "c" }] } };
    expect(equalIgnoreHash(a, b)).toBe(true);
    expect(equalIgnoreHash(a, { ...b, spec: { containers: [{ name: "c", image: "j" }] } })).toBe(false);
    expect(computeHash(b, undefined)).toBe(computeHash(structuredClone(b), undefined));
    expect(computeHash(b, 1)).not.toBe(computeHash(b, 2));
    expect(computeHash(b, undefined)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  });
});

describe("EqualIgnoreHash without copies (property)", () => {
  // What EqualIgnoreHash was before it stopped cloning: a deep copy without the hash label, empty labels and metadata
  // dropped, compared as JSON with sorted keys. The clone-free comparison must agree with it on any template.
  const reference = (a: unknown, b: unknown) => {
    const strip = (t: unknown) => {
      const c = structuredClone((t ?? {}) as { metadata?: { labels?: Record<string, string> } });
      if (c.metadata?.labels !== undefined) {
        delete c.metadata.labels["pod-template-hash"];
        if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
      }
      if (c.metadata !== undefined && Object.keys(c.metadata).length === 0) delete c.metadata;
      return JSON.stringify(stable(c));
    };
    return strip(a) === strip(b);
  };
  const labels = fc.dictionary(fc.constantFrom("app", "tier", "pod-template-hash"), fc.constantFrom("a", "b"));
  const template = fc.record(
    {
      metadata: fc.record(
        { labels, annotations: fc.dictionary(fc.constantFrom("x", "y"), fc.constantFrom("1", "2")) },
        {
          requiredKeys: [],
        },
      ),
      spec: fc.record(
        {
          containers: fc.array(
            fc.record({ name: fc.constantFrom("c", "d"), image: fc.constantFrom("i", "j", undefined) }),
            { maxLength: 2 },
          ),
          nodeName: fc.constantFrom("n", undefined),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  );

  it("agrees with the copying comparison on random templates (and their key-reordered copies)", () => {
    fc.assert(
      fc.property(template, template, fc.boolean(), (a, b, reorder) => {
        const other = reorder ? (stable(a) as typeof a) : b;
        expect(equalIgnoreHash(a, other)).toBe(reference(a, other));
        expect(equalIgnoreHash(a, b)).toBe(reference(a, b));
      }),
      { numRuns: 500 },
    );
  });
});
