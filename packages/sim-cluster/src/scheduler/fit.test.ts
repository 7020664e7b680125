import type { Node, Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { parseMilli } from "../internal/quantity.js";
import {
  filterNode,
  leastAllocatedScore,
  nodeInfoOf,
  numFeasibleNodesToFind,
  podRequests,
  toleratesTaint,
} from "./fit.js";

const node = (extra: Partial<Node["spec"]> = {}, labels: Record<string, string> = {}): Node =>
  ({
    metadata: { name: "n1", labels },
    spec: extra,
    status: { allocatable: { cpu: "2", memory: "4Gi", pods: "3" } },
  }) as Node;
const pod = (cpu: string, spec: Partial<Pod["spec"]> = {}): Pod =>
  ({
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", resources: { requests: { cpu } } }], ...spec },
  }) as Pod;

describe("quantities", () => {
  it("parses milli-values as Quantity.MilliValue", () => {
    expect(parseMilli("100m")).toBe(100);
    expect(parseMilli("2")).toBe(2000);
    expect(parseMilli("1.5")).toBe(1500);
    expect(parseMilli("1Ki")).toBe(1_024_000);
    expect(parseMilli("1e3")).toBe(1_000_000);
    expect(() => parseMilli("ten")).toThrow('quantity "ten" is not a Kubernetes quantity');
  });
});

describe("scheduler filters and scores", () => {
  it("sums container requests, max'ed with init containers", () => {
    const p = pod("500m", { initContainers: [{ name: "i", resources: { requests: { cpu: "1" } } }] as never });
    expect(podRequests(p).milliCpu).toBe(1000);
    expect(podRequests(pod("250m")).milliCpu).toBe(250);
  });

  it("TolerationToleratesTaint basics", () => {
    const taint = { key: "k", value: "v", effect: "NoSchedule" };
    expect(toleratesTaint({ key: "k", operator: "Equal", value: "v", effect: "NoSchedule" }, taint)).toBe(true);
    expect(toleratesTaint({ key: "k", operator: "Exists" }, taint)).toBe(true);
    expect(toleratesTaint({ operator: "Exists" }, taint)).toBe(true);
    expect(toleratesTaint({ key: "k", value: "w" }, taint)).toBe(false);
    expect(toleratesTaint({ key: "k", operator: "Exists", effect: "NoExecute" }, taint)).toBe(false);
  });

  it("filters by unschedulable, taints, nodeSelector and resources, with upstream's reasons", () => {
    const info = nodeInfoOf(node());
    const req = podRequests(pod("1"));
    expect(filterNode(pod("1"), info, req)).toBeUndefined();
    expect(filterNode(pod("1"), nodeInfoOf(node({ unschedulable: true })), req)).toBe("node(s) were unschedulable");
    expect(filterNode(pod("1"), nodeInfoOf(node({ taints: [{ key: "k", effect: "NoSchedule" }] })), req)).toBe(
      "node(s) had untolerated taint {k: }",
    );
    expect(
      filterNode(
        pod("1", { tolerations: [{ key: "k", operator: "Exists" }] }),
        nodeInfoOf(node({ taints: [{ key: "k", effect: "NoSchedule" }] })),
        req,
      ),
    ).toBeUndefined();
    expect(filterNode(pod("1", { nodeSelector: { disk: "ssd" } }), info, req)).toBe(
      "node(s) didn't match Pod's node affinity/selector",
    );
    expect(
      filterNode(pod("1", { nodeSelector: { disk: "ssd" } }), nodeInfoOf(node({}, { disk: "ssd" })), req),
    ).toBeUndefined();
    expect(filterNode(pod("3"), info, podRequests(pod("3")))).toBe("Insufficient cpu");
    info.pods = 3;
    expect(filterNode(pod("1"), info, req)).toBe("Too many pods");
  });

  it("LeastAllocated prefers the emptier node; feasible-node count follows percentageOfNodesToScore", () => {
    const empty = nodeInfoOf(node());
    const busy = nodeInfoOf(node());
    busy.requestedMilliCpu = 1500;
    const req = podRequests(pod("100m"));
    expect(leastAllocatedScore(empty, req)).toBeGreaterThan(leastAllocatedScore(busy, req));
    expect(numFeasibleNodesToFind(50)).toBe(50);
    expect(numFeasibleNodesToFind(1000)).toBe(420);
    expect(numFeasibleNodesToFind(5000)).toBe(500);
  });
});
