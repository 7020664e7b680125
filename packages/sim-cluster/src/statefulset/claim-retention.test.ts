// Cases of pkg/controller/statefulset/stateful_set_utils_test.go: TestClaimOwnerUpToDateEdgeCases,
// TestUpdateClaimOwnerRefForSetAndPod (every variation of existing refs) and TestUpdateClaimControllerRef.
import type { PersistentVolumeClaim, Pod, StatefulSet } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { claimOwnerRefsForSetAndPod, isClaimOwnerUpToDate } from "./claim-retention.js";

type Policy = "Retain" | "Delete";
interface Ref {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

function setWith(name: string, uid: string, replicas: number, whenScaled: Policy, whenDeleted: Policy): StatefulSet {
  return {
    metadata: { name, uid },
    spec: { replicas, persistentVolumeClaimRetentionPolicy: { whenScaled, whenDeleted } },
  } as unknown as StatefulSet;
}
const podWith = (name: string, uid: string) => ({ metadata: { name, uid } }) as Pod;
const claimWith = (refs: Ref[]) =>
  ({ metadata: { name: "target-claim", ownerReferences: refs } }) as PersistentVolumeClaim;
const controllerRef = (o: { metadata?: { name?: string; uid?: string } }, apiVersion: string, kind: string): Ref => ({
  apiVersion,
  kind,
  name: o.metadata?.name ?? "",
  uid: o.metadata?.uid ?? "",
  controller: true,
});

describe("TestClaimOwnerUpToDateEdgeCases (stateful_set_utils_test.go)", () => {
  const podRef = (uid: string, controller?: boolean): Ref => ({
    name: "pod-1",
    apiVersion: "v1",
    kind: "Pod",
    uid,
    ...(controller !== undefined && { controller }),
  });
  const setRef = (uid: string, controller?: boolean, apiVersion = "apps/v1"): Ref => ({
    name: "stateful-set",
    apiVersion,
    kind: "StatefulSet",
    uid,
    ...(controller !== undefined && { controller }),
  });
  const cases: { name: string; refs: Ref[]; policy: [Policy, Policy]; shouldMatch: boolean }[] = [
    {
      name: "normal controller, pod",
      refs: [podRef("pod-123", true)],
      policy: ["Delete", "Delete"],
      shouldMatch: true,
    },
    {
      name: "non-controller causes policy mismatch, pod",
      refs: [podRef("pod-123")],
      policy: ["Delete", "Delete"],
      shouldMatch: false,
    },
    {
      name: "stale controller does not affect policy, pod",
      refs: [podRef("pod-stale", true)],
      policy: ["Delete", "Delete"],
      shouldMatch: true,
    },
    {
      name: "unexpected controller causes policy mismatch, pod",
      refs: [
        podRef("pod-123", true),
        { name: "Random", apiVersion: "v1", kind: "Pod", uid: "random", controller: true },
      ],
      policy: ["Delete", "Delete"],
      shouldMatch: false,
    },
    { name: "normal controller, set", refs: [setRef("ss-456", true)], policy: ["Retain", "Delete"], shouldMatch: true },
    {
      name: "non-controller causes policy mismatch, set",
      refs: [setRef("ss-456", undefined, "appsv1")],
      policy: ["Retain", "Delete"],
      shouldMatch: false,
    },
    {
      name: "stale controller ignored, set",
      refs: [setRef("set-stale", true)],
      policy: ["Retain", "Delete"],
      shouldMatch: true,
    },
    {
      name: "unexpected controller causes policy mismatch, set",
      refs: [
        setRef("ss-456", true),
        { name: "Random", apiVersion: "apps/v1", kind: "StatefulSet", uid: "random", controller: true },
      ],
      policy: ["Retain", "Delete"],
      shouldMatch: false,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const set = setWith("stateful-set", "ss-456", 1, tc.policy[0], tc.policy[1]);
      expect(isClaimOwnerUpToDate(claimWith(tc.refs), set, podWith("pod-1", "pod-123"))).toBe(tc.shouldMatch);
    });
  }
});

describe("TestUpdateClaimOwnerRefForSetAndPod (stateful_set_utils_test.go)", () => {
  const cases: {
    name: string;
    scaleDown: Policy;
    setDelete: Policy;
    condemned: boolean;
    needsPodRef: boolean;
    needsSetRef: boolean;
    unexpectedController?: boolean;
  }[] = [
    {
      name: "retain",
      scaleDown: "Retain",
      setDelete: "Retain",
      condemned: false,
      needsPodRef: false,
      needsSetRef: false,
    },
    {
      name: "delete with set",
      scaleDown: "Retain",
      setDelete: "Delete",
      condemned: false,
      needsPodRef: false,
      needsSetRef: true,
    },
    {
      name: "delete with scaledown, not condemned",
      scaleDown: "Delete",
      setDelete: "Retain",
      condemned: false,
      needsPodRef: false,
      needsSetRef: false,
    },
    {
      name: "delete on scaledown, condemned",
      scaleDown: "Delete",
      setDelete: "Retain",
      condemned: true,
      needsPodRef: true,
      needsSetRef: false,
    },
    {
      name: "delete on both, not condemned",
      scaleDown: "Delete",
      setDelete: "Delete",
      condemned: false,
      needsPodRef: false,
      needsSetRef: true,
    },
    {
      name: "delete on both, condemned",
      scaleDown: "Delete",
      setDelete: "Delete",
      condemned: true,
      needsPodRef: true,
      needsSetRef: false,
    },
    {
      name: "unexpected controller",
      scaleDown: "Delete",
      setDelete: "Delete",
      condemned: true,
      needsPodRef: false,
      needsSetRef: false,
      unexpectedController: true,
    },
  ];
  for (const tc of cases) {
    for (let variations = 0; variations < 8; variations++) {
      const hasPodRef = (variations & 1) !== 0;
      const hasSetRef = (variations & 2) !== 0;
      // Upstream's own expression (`& 3`): an extra owner whenever there is a pod or set ref.
      const extraOwner = (variations & 3) !== 0;
      it(`${tc.name} (pod ref ${hasPodRef}, set ref ${hasSetRef}, extra owner ${extraOwner})`, () => {
        const set = setWith("ss", "ss-123", 5, tc.scaleDown, tc.setDelete);
        const pod = podWith(tc.condemned ? "pod-8" : "pod-1", "pod-456");
        const refs: Ref[] = [];
        if (hasPodRef) refs.push(controllerRef(pod, "v1", "Pod"));
        if (hasSetRef) refs.push(controllerRef(set, "apps/v1", "StatefulSet"));
        if (extraOwner) refs.push({ apiVersion: "custom/v1", kind: "random", name: "random", uid: "abc" });
        if (tc.unexpectedController === true)
          refs.push({ apiVersion: "custom/v1", kind: "Unknown", name: "unknown", uid: "xyz", controller: true });
        const out = claimOwnerRefsForSetAndPod(claimWith(refs), set, pod);
        const controls = (uid: string) => out.find((r) => r.uid === uid)?.controller === true;
        expect(controls("pod-456")).toBe(tc.needsPodRef);
        expect(controls("ss-123")).toBe(tc.needsSetRef);
        if (extraOwner)
          expect(out).toContainEqual({ apiVersion: "custom/v1", kind: "random", name: "random", uid: "abc" });
        // Once updated, the claim is up to date.
        if (tc.unexpectedController !== true) expect(isClaimOwnerUpToDate(claimWith(out), set, pod)).toBe(true);
      });
    }
  }
});

describe("TestUpdateClaimControllerRef (stateful_set_utils_test.go)", () => {
  const stsRef: Ref = { apiVersion: "apps/v1", kind: "StatefulSet", name: "sts", uid: "123", controller: true };
  const cases: { name: string; original: Ref[]; expected: Ref[] }[] = [
    {
      name: "set correctly",
      original: [stsRef, { apiVersion: "someone", kind: "Else", name: "foo" }],
      expected: [{ apiVersion: "someone", kind: "Else", name: "foo" }, stsRef],
    },
    { name: "missing controller", original: [{ ...stsRef, controller: undefined }], expected: [stsRef] },
    {
      name: "matching name but missing",
      original: [{ apiVersion: "someone", kind: "else", name: "sts", uid: "456" }],
      expected: [{ apiVersion: "someone", kind: "else", name: "sts", uid: "456" }, stsRef],
    },
    { name: "not present", original: [], expected: [stsRef] },
    {
      name: "controller, but no UID",
      original: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "sts", controller: true }],
      expected: [],
    },
    {
      name: "neither controller nor UID",
      original: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "sts" }],
      expected: [],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const set = setWith("sts", "123", 1, "Delete", "Delete");
      const out = claimOwnerRefsForSetAndPod(claimWith(tc.original), set, podWith("pod-0", "456"));
      // Order aside, as upstream's ownerRefsChanged compares sets of references.
      const key = (r: Ref) => `${r.apiVersion}/${r.kind}/${r.name}/${r.uid}/${r.controller === true}`;
      expect(out.map(key).sort()).toEqual(tc.expected.map(key).sort());
    });
  }
});
