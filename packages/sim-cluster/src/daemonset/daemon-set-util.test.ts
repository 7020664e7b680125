// Tables of pkg/controller/daemon/util/daemonset_util_test.go and the node-eligibility cases of
// pkg/controller/daemon/daemon_controller_test.go, then fast-check properties.
import type { DaemonSet, Node, Pod } from "@informer-ts/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeMatchesSelectorTerms, requiredNodeAffinityTerms } from "../internal/node-affinity.js";
import {
  addOrUpdateDaemonPodTolerations,
  DAEMON_SET_REVISION_LABEL,
  DAEMON_SET_TEMPLATE_GENERATION_LABEL,
  getTargetNodeName,
  isPodUpdated,
  newDaemonPod,
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
  surgeAndUnavailable,
} from "./daemon-set-util.js";

const simpleDaemonSetLabel = { name: "simple-daemon", type: "production" };
const simpleNodeLabel = { color: "blue", speed: "fast" };

function newDaemonSet(name: string, podSpec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace: "default", uid: `uid-${name}`, generation: 1 },
    spec: {
      selector: { matchLabels: simpleDaemonSetLabel },
      template: {
        metadata: { labels: simpleDaemonSetLabel },
        spec: { containers: [{ name: "foo", image: "foo/bar" }], ...podSpec },
      },
      ...extra,
    },
  } as unknown as DaemonSet;
}

function newNode(name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}): Node {
  return { apiVersion: "v1", kind: "Node", metadata: { name, labels }, spec } as Node;
}

const nameTerm = (node: string) => ({ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] });

describe("daemonset_util_test.go", () => {
  it("TestReplaceDaemonSetPodNodeNameNodeAffinity", () => {
    const cases: { name: string; affinity: unknown; want: unknown }[] = [
      {
        name: "nil affinity",
        affinity: undefined,
        want: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [nameTerm("host_1")] } },
        },
      },
      {
        name: "required terms of labels are replaced, preferred terms kept",
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }],
            },
          },
        },
        want: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [nameTerm("host_1")] },
          },
        },
      },
      {
        name: "an older node name term is replaced",
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [nameTerm("host_2"), nameTerm("host_3")],
            },
          },
        },
        want: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [nameTerm("host_1")] } },
        },
      },
      {
        name: "pod anti-affinity is kept",
        affinity: { podAntiAffinity: { x: 1 } },
        want: {
          podAntiAffinity: { x: 1 },
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [nameTerm("host_1")] } },
        },
      },
    ];
    for (const c of cases) {
      expect(replaceDaemonSetPodNodeNameNodeAffinity(c.affinity, "host_1"), c.name).toEqual(c.want);
    }
  });

  it("TestGetTargetNodeName", () => {
    const bound = { spec: { nodeName: "node-1" } } as Pod;
    const byAffinity = { spec: { affinity: replaceDaemonSetPodNodeNameNodeAffinity(undefined, "node-2") } } as Pod;
    const labelsOnly = {
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: "a", operator: "In", values: ["b"] }] }],
            },
          },
        },
      },
    } as unknown as Pod;
    expect(getTargetNodeName(bound)).toBe("node-1");
    expect(getTargetNodeName(byAffinity)).toBe("node-2");
    expect(getTargetNodeName(labelsOnly)).toBeUndefined();
    expect(getTargetNodeName({ spec: {} } as Pod)).toBeUndefined();
  });

  it("TestIsPodUpdated", () => {
    const pod = (labels: Record<string, string>) => ({ metadata: { labels } }) as Pod;
    const cases: { name: string; pod: Pod; hash: string; gen: number | undefined; want: boolean }[] = [
      {
        name: "templateGeneration and hash both match",
        pod: pod({ [DAEMON_SET_TEMPLATE_GENERATION_LABEL]: "1", [DAEMON_SET_REVISION_LABEL]: "h" }),
        hash: "h",
        gen: 1,
        want: true,
      },
      {
        name: "templateGeneration matches, hash does not",
        pod: pod({ [DAEMON_SET_TEMPLATE_GENERATION_LABEL]: "1", [DAEMON_SET_REVISION_LABEL]: "x" }),
        hash: "h",
        gen: 1,
        want: true,
      },
      {
        name: "hash matches, templateGeneration does not",
        pod: pod({ [DAEMON_SET_TEMPLATE_GENERATION_LABEL]: "2", [DAEMON_SET_REVISION_LABEL]: "h" }),
        hash: "h",
        gen: 1,
        want: true,
      },
      {
        name: "neither matches",
        pod: pod({ [DAEMON_SET_TEMPLATE_GENERATION_LABEL]: "2", [DAEMON_SET_REVISION_LABEL]: "x" }),
        hash: "h",
        gen: 1,
        want: false,
      },
      {
        name: "no templateGeneration, hash matches",
        pod: pod({ [DAEMON_SET_REVISION_LABEL]: "h" }),
        hash: "h",
        gen: undefined,
        want: true,
      },
      {
        name: "empty hash never matches",
        pod: pod({ [DAEMON_SET_REVISION_LABEL]: "" }),
        hash: "",
        gen: undefined,
        want: false,
      },
    ];
    for (const c of cases) expect(isPodUpdated(c.pod, c.hash, c.gen), c.name).toBe(c.want);
  });

  it("TestCreatePodTemplate: the hash and template generation labels", () => {
    const withGen = newDaemonPod(newDaemonSet("foo"), "n1", "abc", 1);
    expect(withGen.metadata?.labels).toEqual({
      ...simpleDaemonSetLabel,
      [DAEMON_SET_TEMPLATE_GENERATION_LABEL]: "1",
      [DAEMON_SET_REVISION_LABEL]: "abc",
    });
    const noGen = newDaemonPod(newDaemonSet("foo"), "n1", "abc");
    expect(noGen.metadata?.labels?.[DAEMON_SET_TEMPLATE_GENERATION_LABEL]).toBeUndefined();
    expect(noGen.metadata?.generateName).toBe("foo-");
    expect(noGen.spec?.nodeName).toBeUndefined();
    expect(getTargetNodeName(noGen)).toBe("n1");
    expect(noGen.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "DaemonSet", name: "foo", controller: true });
  });

  it("TestAddOrUpdateDaemonPodTolerations: the defaults, network-unavailable with hostNetwork, no duplicates", () => {
    const plain = addOrUpdateDaemonPodTolerations({});
    expect(plain.map((t) => `${t.key}:${t.effect}`)).toEqual([
      "node.kubernetes.io/not-ready:NoExecute",
      "node.kubernetes.io/unreachable:NoExecute",
      "node.kubernetes.io/disk-pressure:NoSchedule",
      "node.kubernetes.io/memory-pressure:NoSchedule",
      "node.kubernetes.io/pid-pressure:NoSchedule",
      "node.kubernetes.io/unschedulable:NoSchedule",
    ]);
    expect(addOrUpdateDaemonPodTolerations({ hostNetwork: true }).map((t) => t.key)).toContain(
      "node.kubernetes.io/network-unavailable",
    );
    const own = [
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 },
    ];
    const merged = addOrUpdateDaemonPodTolerations({ tolerations: own });
    expect(merged.filter((t) => t.key === "node.kubernetes.io/not-ready")).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
    ]);
  });
});

describe("daemon_controller_test.go: TestNodeShouldRunDaemonPod", () => {
  const noSchedule = [{ key: "dedicated", value: "user1", effect: "NoSchedule" }];
  const noExecute = [{ key: "dedicated", value: "user1", effect: "NoExecute" }];
  const tolerate = (effect: string) => ({ tolerations: [{ key: "dedicated", value: "user1", effect }] });
  const cases: { name: string; ds: DaemonSet; node: Node; shouldRun: boolean; shouldContinueRunning: boolean }[] = [
    { name: "a simple node", ds: newDaemonSet("ds"), node: newNode("n"), shouldRun: true, shouldContinueRunning: true },
    {
      name: "nodeSelector matches",
      ds: newDaemonSet("ds", { nodeSelector: simpleNodeLabel }),
      node: newNode("n", simpleNodeLabel),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "nodeSelector does not match",
      ds: newDaemonSet("ds", { nodeSelector: simpleNodeLabel }),
      node: newNode("n", { color: "red" }),
      shouldRun: false,
      shouldContinueRunning: false,
    },
    {
      name: "template nodeName is another node",
      ds: newDaemonSet("ds", { nodeName: "other" }),
      node: newNode("n"),
      shouldRun: false,
      shouldContinueRunning: false,
    },
    {
      name: "template nodeName is this node",
      ds: newDaemonSet("ds", { nodeName: "n" }),
      node: newNode("n"),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "required node affinity on labels does not match",
      ds: newDaemonSet("ds", {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: "color", operator: "In", values: ["red"] }] }],
            },
          },
        },
      }),
      node: newNode("n", simpleNodeLabel),
      shouldRun: false,
      shouldContinueRunning: false,
    },
    {
      name: "an untolerated NoSchedule taint: no new pod, the old one stays",
      ds: newDaemonSet("ds"),
      node: newNode("n", {}, { taints: noSchedule }),
      shouldRun: false,
      shouldContinueRunning: true,
    },
    {
      name: "an untolerated NoExecute taint: no pod at all",
      ds: newDaemonSet("ds"),
      node: newNode("n", {}, { taints: noExecute }),
      shouldRun: false,
      shouldContinueRunning: false,
    },
    {
      name: "a tolerated NoSchedule taint",
      ds: newDaemonSet("ds", tolerate("NoSchedule")),
      node: newNode("n", {}, { taints: noSchedule }),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "TestNotReadyNodeDaemonLaunchesPod: the not-ready taint is tolerated by default",
      ds: newDaemonSet("ds"),
      node: newNode("n", {}, { taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoExecute" }] }),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "TestUnschedulableNodeDaemonDoesLaunchPod: unschedulable nodes are tolerated by default",
      ds: newDaemonSet("ds"),
      node: newNode(
        "n",
        {},
        { unschedulable: true, taints: [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }] },
      ),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "network-unavailable is tolerated only with hostNetwork",
      ds: newDaemonSet("ds", { hostNetwork: true }),
      node: newNode("n", {}, { taints: [{ key: "node.kubernetes.io/network-unavailable", effect: "NoSchedule" }] }),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "network-unavailable without hostNetwork",
      ds: newDaemonSet("ds"),
      node: newNode("n", {}, { taints: [{ key: "node.kubernetes.io/network-unavailable", effect: "NoSchedule" }] }),
      shouldRun: false,
      shouldContinueRunning: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(nodeShouldRunDaemonPod(c.node, c.ds)).toEqual({
        shouldRun: c.shouldRun,
        shouldContinueRunning: c.shouldContinueRunning,
      });
    });
  }
});

describe("update.go: maxSurgeAndUnavailable", () => {
  it("defaults to 1 unavailable, scales percentages rounding up, never 0 and 0", () => {
    expect(surgeAndUnavailable(newDaemonSet("ds"), 10)).toEqual({ surge: 0, unavailable: 1 });
    const pct = newDaemonSet(
      "ds",
      {},
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%" } } },
    );
    expect(surgeAndUnavailable(pct, 10)).toEqual({ surge: 0, unavailable: 3 });
    const zero = newDaemonSet(
      "ds",
      {},
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0 } } },
    );
    expect(surgeAndUnavailable(zero, 10)).toEqual({ surge: 0, unavailable: 1 });
  });
});

describe("properties", () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
  it("a daemon pod's affinity selects exactly its own node", () => {
    fc.assert(
      fc.property(name, name, (target, other) => {
        const pod = newDaemonPod(newDaemonSet("ds"), target, "h");
        const terms = requiredNodeAffinityTerms(pod) ?? [];
        expect(terms).toHaveLength(1);
        expect(nodeMatchesSelectorTerms(newNode(target), terms)).toBe(true);
        expect(nodeMatchesSelectorTerms(newNode(other), terms)).toBe(other === target);
        expect(getTargetNodeName(pod)).toBe(target);
      }),
    );
  });

  it("shouldRun implies shouldContinueRunning, and a NoExecute taint the pod does not tolerate forbids both", () => {
    const effect = fc.constantFrom("NoSchedule", "NoExecute", "PreferNoSchedule");
    const taint = fc.record({ key: fc.constantFrom("a", "b", "node.kubernetes.io/not-ready"), effect });
    fc.assert(
      fc.property(
        fc.array(taint, { maxLength: 3 }),
        fc.array(fc.record({ key: fc.constantFrom("a", "b"), operator: fc.constant("Exists"), effect }), {
          maxLength: 2,
        }),
        (taints, tolerations) => {
          const r = nodeShouldRunDaemonPod(newNode("n", {}, { taints }), newDaemonSet("ds", { tolerations }));
          if (r.shouldRun) expect(r.shouldContinueRunning).toBe(true);
          const untoleratedNoExecute = taints.some(
            (t) =>
              t.effect === "NoExecute" &&
              t.key !== "node.kubernetes.io/not-ready" &&
              !tolerations.some((x) => x.key === t.key && x.effect === t.effect),
          );
          if (untoleratedNoExecute) expect(r).toEqual({ shouldRun: false, shouldContinueRunning: false });
        },
      ),
    );
  });
});
