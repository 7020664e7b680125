// Ports of pkg/apis/core/validation/validation_test.go TestValidatePodUpdate cases (the spec part): what a pod update
// may change — images, activeDeadlineSeconds (set or lowered), added tolerations, a negative grace period set to 1 —
// and the Forbidden answer to anything else.
import { fieldErrorString } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { validatePodUpdate } from "./pod-update.js";

const spec = (extra: Record<string, unknown> = {}, image = "foo:V1") => ({
  containers: [{ name: "container", image }],
  ...extra,
});

interface Case {
  readonly name: string;
  readonly next: Record<string, unknown>;
  readonly old: Record<string, unknown>;
  /** Expected error strings (prefix match per error); empty: valid. */
  readonly err: readonly string[];
}

const FORBIDDEN = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`";

const CASES: readonly Case[] = [
  { name: "nothing", next: spec(), old: spec(), err: [] },
  { name: "image change", next: spec({}, "foo:V2"), old: spec(), err: [] },
  {
    name: "init container image change",
    next: spec({ initContainers: [{ name: "i", image: "b" }] }),
    old: spec({ initContainers: [{ name: "i", image: "a" }] }),
    err: [],
  },
  { name: "image change to empty", next: spec({}, ""), old: spec(), err: ["spec.containers[0].image: Required value"] },
  {
    name: "more containers",
    next: {
      containers: [
        { name: "container", image: "foo:V1" },
        { name: "c2", image: "x" },
      ],
    },
    old: spec(),
    err: ["spec.containers: Forbidden: pod updates may not add or remove containers"],
  },
  { name: "activeDeadlineSeconds no change, nil", next: spec(), old: spec(), err: [] },
  { name: "activeDeadlineSeconds lower bound", next: spec({ activeDeadlineSeconds: 0 }), old: spec(), err: [] },
  {
    name: "activeDeadlineSeconds valid, nil->positive",
    next: spec({ activeDeadlineSeconds: 30 }),
    old: spec(),
    err: [],
  },
  {
    name: "activeDeadlineSeconds valid, positive->lower",
    next: spec({ activeDeadlineSeconds: 10 }),
    old: spec({ activeDeadlineSeconds: 30 }),
    err: [],
  },
  {
    name: "activeDeadlineSeconds invalid, positive->larger positive",
    next: spec({ activeDeadlineSeconds: 31 }),
    old: spec({ activeDeadlineSeconds: 30 }),
    err: ["spec.activeDeadlineSeconds: Invalid value: 31: must be less than or equal to previous value"],
  },
  {
    name: "activeDeadlineSeconds invalid, positive->nil",
    next: spec(),
    old: spec({ activeDeadlineSeconds: 30 }),
    err: ["spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"],
  },
  {
    name: "activeDeadlineSeconds invalid, negative",
    next: spec({ activeDeadlineSeconds: -1 }),
    old: spec(),
    err: ["spec.activeDeadlineSeconds: Invalid value: -1: must be between 0 and 2147483647, inclusive"],
  },
  {
    name: "bad label change / nodeName change",
    next: spec({ nodeName: "node2" }),
    old: spec({ nodeName: "node1" }),
    err: [FORBIDDEN],
  },
  {
    name: "port change",
    next: { containers: [{ name: "container", image: "foo:V1", ports: [{ containerPort: 8080 }] }] },
    old: { containers: [{ name: "container", image: "foo:V1", ports: [{ containerPort: 80 }] }] },
    err: [FORBIDDEN],
  },
  {
    name: "added valid new toleration",
    next: spec({
      tolerations: [
        { key: "k", operator: "Exists" },
        { key: "k2", operator: "Exists" },
      ],
    }),
    old: spec({ tolerations: [{ key: "k", operator: "Exists" }] }),
    err: [],
  },
  {
    name: "update tolerationSeconds of an existing toleration",
    next: spec({ tolerations: [{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 20 }] }),
    old: spec({ tolerations: [{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }] }),
    err: [],
  },
  {
    name: "removed toleration",
    next: spec(),
    old: spec({ tolerations: [{ key: "k", operator: "Exists" }] }),
    err: ["spec.tolerations[0]: Forbidden: existing toleration can not be modified except its tolerationSeconds"],
  },
  {
    name: "negative terminationGracePeriodSeconds set to 1",
    next: spec({ terminationGracePeriodSeconds: 1 }),
    old: spec({ terminationGracePeriodSeconds: -1 }),
    err: [],
  },
  {
    name: "terminationGracePeriodSeconds changed otherwise",
    next: spec({ terminationGracePeriodSeconds: 10 }),
    old: spec({ terminationGracePeriodSeconds: 30 }),
    err: [FORBIDDEN],
  },
];

describe("TestValidatePodUpdate (pkg/apis/core/validation/validation_test.go)", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const got = validatePodUpdate(c.next, c.old).map(fieldErrorString);
      expect(got).toHaveLength(c.err.length);
      c.err.forEach((e, i) => {
        expect(got[i]!.startsWith(e), `${got[i]} should start with ${e}`).toBe(true);
      });
    });
  }

  it("the Forbidden message lists upstream's updatable fields and names what changed", () => {
    const [err] = validatePodUpdate(spec({ nodeName: "b", hostNetwork: true }), spec({ nodeName: "a" }));
    expect(err?.detail).toContain(
      "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds`",
    );
    expect(err?.detail).toContain("changed: hostNetwork, nodeName");
  });
});
