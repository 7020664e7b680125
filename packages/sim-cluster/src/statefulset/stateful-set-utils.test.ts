// Basics of pkg/controller/statefulset/stateful_set_utils_test.go and stateful_set_control_test.go, as tables.
import type { Pod, StatefulSet } from "@informer-ts/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { completeRollingUpdate } from "./stateful-set-controller.js";
import {
  applyRevision,
  createsFromCurrent,
  equalRevision,
  getEndOrdinal,
  getOrdinal,
  getParentNameAndOrdinal,
  getPodRevision,
  getStartOrdinal,
  getStatefulSetMaxUnavailable,
  identityMatches,
  isMemberOf,
  newRevision,
  newStatefulSetPod,
  nextRevision,
  podInOrdinalRange,
  storageMatches,
} from "./stateful-set-utils.js";

function newSet(replicas: number, extra: Record<string, unknown> = {}): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "foo", namespace: "default", uid: "test" },
    spec: {
      replicas,
      serviceName: "governingsvc",
      selector: { matchLabels: { foo: "bar" } },
      template: { metadata: { labels: { foo: "bar" } }, spec: { containers: [{ name: "nginx", image: "nginx" }] } },
      volumeClaimTemplates: [{ metadata: { name: "datadir" }, spec: {} }],
      ...extra,
    },
  } as StatefulSet;
}

describe("stateful_set_utils_test.go", () => {
  it("TestGetParentNameAndOrdinal", () => {
    const set = newSet(3);
    const pod = newStatefulSetPod(set, 1, "r");
    expect(getParentNameAndOrdinal(pod)).toEqual({ parent: "foo", ordinal: 1 });
    expect(getOrdinal({ metadata: { name: "1-bar" } } as Pod)).toBe(-1);
    expect(getParentNameAndOrdinal({ metadata: { name: "foo-bar" } } as Pod)).toEqual({ parent: "", ordinal: -1 });
    expect(isMemberOf(set, pod)).toBe(true);
    expect(isMemberOf({ ...set, metadata: { ...set.metadata, name: "foo2" } } as StatefulSet, pod)).toBe(false);
  });

  it("TestIdentityMatches", () => {
    const set = newSet(3);
    const pod = newStatefulSetPod(set, 1, "r");
    expect(identityMatches(set, pod)).toBe(true);
    const renamed = structuredClone(pod);
    renamed.metadata!.name = "foo-2";
    expect(identityMatches(set, renamed)).toBe(false);
    const otherNs = structuredClone(pod);
    otherNs.metadata!.namespace = "other";
    expect(identityMatches(set, otherNs)).toBe(false);
    const noLabel = structuredClone(pod);
    delete noLabel.metadata!.labels!["statefulset.kubernetes.io/pod-name"];
    expect(identityMatches(set, noLabel)).toBe(false);
  });

  it("TestStorageMatches", () => {
    const set = newSet(3);
    const pod = newStatefulSetPod(set, 1, "r");
    expect(storageMatches(set, pod)).toBe(true);
    const wrong = structuredClone(pod);
    (wrong.spec!.volumes![0] as { persistentVolumeClaim: { claimName: string } }).persistentVolumeClaim.claimName = "x";
    expect(storageMatches(set, wrong)).toBe(false);
    const none = structuredClone(pod);
    none.spec!.volumes = [];
    expect(storageMatches(set, none)).toBe(false);
  });

  it("TestNewStatefulSetPod: name, hostname, subdomain, identity labels, revision label, owner", () => {
    const pod = newStatefulSetPod(newSet(3), 2, "foo-abc");
    expect(pod.metadata?.name).toBe("foo-2");
    expect(pod.spec?.hostname).toBe("foo-2");
    expect(pod.spec?.subdomain).toBe("governingsvc");
    expect(getPodRevision(pod)).toBe("foo-abc");
    expect(pod.metadata?.labels?.["apps.kubernetes.io/pod-index"]).toBe("2");
    expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "StatefulSet",
      name: "foo",
      uid: "test",
      controller: true,
    });
  });

  it("TestCreateApplyRevision: a revision applied gives back its template; equal templates make equal revisions", () => {
    const set = newSet(1);
    const r1 = newRevision(set, 1, undefined);
    const changed = structuredClone(set);
    (changed.spec!.template.spec!.containers[0] as { image: string }).image = "foo";
    const r2 = newRevision(changed, 2, undefined);
    expect(r1.metadata?.name).not.toBe(r2.metadata?.name);
    expect(equalRevision(r1, newRevision(set, 5, undefined))).toBe(true);
    expect(equalRevision(r1, r2)).toBe(false);
    // Key order does not matter (a template read back and written again may come in another order).
    const shuffled = {
      ...r1,
      data: {
        spec: { template: { spec: set.spec?.template.spec, metadata: set.spec?.template.metadata, $patch: "replace" } },
      },
    };
    expect(equalRevision(r1, shuffled)).toBe(true);
    expect(applyRevision(changed, r1).spec?.template).toEqual(set.spec?.template);
    expect(nextRevision([r1, r2])).toBe(3);
    expect(nextRevision([])).toBe(1);
    // A collision count gives another name for the same data.
    expect(newRevision(set, 1, 1).metadata?.name).not.toBe(r1.metadata?.name);
  });

  it("property: applyRevision(newRevision(set)) keeps the set's template for any image and labels", () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string({ minLength: 1 }), fc.string()), (img, labels) => {
        const set = newSet(1);
        set.spec!.template = { metadata: { labels }, spec: { containers: [{ name: "c", image: img }] } };
        const other = newSet(1);
        expect(applyRevision(other, newRevision(set, 1, undefined)).spec?.template).toEqual(set.spec!.template);
      }),
    );
  });
});

describe("stateful_set_control_test.go basics", () => {
  const cases = [
    {
      name: "RollingUpdate without partition: below currentReplicas keeps the current revision",
      extra: {},
      current: 2,
      ordinal: 1,
      want: true,
    },
    {
      name: "RollingUpdate without partition: at currentReplicas gets the update revision",
      extra: {},
      current: 2,
      ordinal: 2,
      want: false,
    },
    {
      name: "partition 2: ordinal 1 keeps the current revision",
      extra: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } },
      current: 0,
      ordinal: 1,
      want: true,
    },
    {
      name: "partition 2: ordinal 2 gets the update revision",
      extra: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } },
      current: 3,
      ordinal: 2,
      want: false,
    },
    {
      name: "OnDelete: always the update revision",
      extra: { updateStrategy: { type: "OnDelete" } },
      current: 3,
      ordinal: 0,
      want: false,
    },
  ];
  it.each(cases)(
    "TestStatefulSetControlRollingUpdateWithPartition / newVersionedStatefulSetPod: $name",
    ({ extra, current, ordinal, want }) => {
      const set = newSet(3, extra);
      set.status = { replicas: 3, currentReplicas: current } as StatefulSet["status"];
      expect(createsFromCurrent(set, ordinal)).toBe(want);
    },
  );

  it("completeRollingUpdate: the update revision becomes current once every pod is updated and ready", () => {
    const base = {
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 1,
      updatedReplicas: 3,
      availableReplicas: 3,
      currentRevision: "a",
      updateRevision: "b",
    };
    expect(completeRollingUpdate(newSet(3), base)).toMatchObject({ currentRevision: "b", currentReplicas: 3 });
    expect(completeRollingUpdate(newSet(3), { ...base, readyReplicas: 2 })).toMatchObject({ currentRevision: "a" });
    expect(completeRollingUpdate(newSet(3), { ...base, updatedReplicas: 2 })).toMatchObject({ currentRevision: "a" });
    expect(completeRollingUpdate(newSet(3, { updateStrategy: { type: "OnDelete" } }), base)).toMatchObject({
      currentRevision: "a",
    });
  });
});

describe("TestGetStatefulSetMaxUnavailable (stateful_set_utils_test.go)", () => {
  // Upstream's own comment: 0 and 0% are forbidden by validation but tested anyway.
  const cases: { maxUnavailable: number | string | undefined; replicaCount: number; want: number }[] = [
    { maxUnavailable: undefined, replicaCount: 10, want: 1 },
    { maxUnavailable: 3, replicaCount: 10, want: 3 },
    { maxUnavailable: 3, replicaCount: 0, want: 3 },
    { maxUnavailable: 0, replicaCount: 0, want: 1 },
    { maxUnavailable: "10%", replicaCount: 25, want: 2 },
    { maxUnavailable: "100%", replicaCount: 5, want: 5 },
    { maxUnavailable: "50%", replicaCount: 5, want: 2 },
    { maxUnavailable: "10%", replicaCount: 5, want: 1 },
    { maxUnavailable: "1%", replicaCount: 0, want: 1 },
    { maxUnavailable: "0%", replicaCount: 0, want: 1 },
  ];
  it.each(cases.map((c, i) => ({ ...c, i })))("case $i", ({ maxUnavailable, replicaCount, want }) => {
    expect(getStatefulSetMaxUnavailable(maxUnavailable, replicaCount)).toBe(want);
  });

  it("names a value that is neither an integer nor a percentage", () => {
    expect(() => getStatefulSetMaxUnavailable("lots", 3)).toThrow(/"lots"/);
  });
});

describe("start ordinal (stateful_set_utils.go getStartOrdinal/getEndOrdinal/podInOrdinalRange)", () => {
  const pod = (name: string) => ({ metadata: { name } }) as Pod;

  it("without spec.ordinals the range is [0, replicas)", () => {
    const set = newSet(3);
    expect([getStartOrdinal(set), getEndOrdinal(set)]).toEqual([0, 2]);
    expect(["foo-0", "foo-2", "foo-3"].map((n) => podInOrdinalRange(pod(n), set))).toEqual([true, true, false]);
  });

  it("with ordinals.start 4 and 4 replicas the range is [4, 7]; the partition counts from the start", () => {
    const set = newSet(4, {
      ordinals: { start: 4 },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } },
    });
    expect([getStartOrdinal(set), getEndOrdinal(set)]).toEqual([4, 7]);
    expect(["foo-3", "foo-4", "foo-7", "foo-8"].map((n) => podInOrdinalRange(pod(n), set))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect([4, 5, 6, 7].map((o) => createsFromCurrent(set, o))).toEqual([true, true, false, false]);
  });

  it("property: exactly `replicas` ordinals are in range, from the start", () => {
    fc.assert(
      fc.property(fc.nat({ max: 50 }), fc.nat({ max: 20 }), (start, replicas) => {
        const set = newSet(replicas, { ordinals: { start } });
        const inRange = Array.from({ length: 100 }, (_, o) => o).filter((o) => podInOrdinalRange(pod(`foo-${o}`), set));
        expect(inRange).toEqual(Array.from({ length: replicas }, (_, i) => start + i));
      }),
    );
  });
});
