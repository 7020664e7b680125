import type { Node, Pod } from "@informer-ts/client";
import { describe, expect, it } from "vitest";
import { parseMilli } from "../internal/quantity.js";
import {
  filterNode,
  type HostPort,
  hostPortsConflict,
  leastAllocatedScore,
  nodeInfoOf,
  numFeasibleNodesToFind,
  podHostPorts,
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

/** `protocol/hostIP/port` shorthand of upstream's `newPod("m1", "UDP/127.0.0.1/8080")`. */
const ports = (...specs: string[]): HostPort[] =>
  specs.map((x) => {
    const [protocol, hostIP, port] = x.split("/");
    return { protocol: protocol!, hostIP: hostIP!, port: Number(port) };
  });

// pkg/scheduler/framework/plugins/nodeports/node_ports_test.go TestNodePorts: the ports already bound on the node,
// the ports the pod wants, and whether it fits.
describe("TestNodePorts", () => {
  const cases: { name: string; used: HostPort[]; want: HostPort[]; fits: boolean }[] = [
    { name: "nothing running", used: [], want: [], fits: true },
    { name: "other port", used: ports("UDP/127.0.0.1/9090"), want: ports("UDP/127.0.0.1/8080"), fits: true },
    { name: "same udp port", used: ports("UDP/127.0.0.1/8080"), want: ports("UDP/127.0.0.1/8080"), fits: false },
    { name: "same tcp port", used: ports("TCP/127.0.0.1/8080"), want: ports("TCP/127.0.0.1/8080"), fits: false },
    { name: "different host ip", used: ports("TCP/127.0.0.2/8080"), want: ports("TCP/127.0.0.1/8080"), fits: true },
    { name: "different protocol", used: ports("TCP/127.0.0.1/8080"), want: ports("UDP/127.0.0.1/8080"), fits: true },
    {
      name: "second udp port conflict",
      used: ports("UDP/127.0.0.1/8080"),
      want: ports("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
      fits: false,
    },
    {
      name: "first tcp port conflict",
      used: ports("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
      want: ports("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
      fits: false,
    },
    {
      name: "first tcp port conflict due to 0.0.0.0 hostIP",
      used: ports("TCP/127.0.0.1/8001"),
      want: ports("TCP/0.0.0.0/8001"),
      fits: false,
    },
    {
      name: "TCP hostPort conflict due to 0.0.0.0 hostIP",
      used: ports("TCP/0.0.0.0/8001"),
      want: ports("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
      fits: false,
    },
    {
      name: "second different protocol",
      used: ports("UDP/0.0.0.0/8001"),
      want: ports("TCP/0.0.0.0/8001"),
      fits: true,
    },
    {
      name: "UDP hostPort conflict due to 0.0.0.0 hostIP",
      used: ports("UDP/127.0.0.1/8001"),
      want: ports("UDP/0.0.0.0/8001", "TCP/0.0.0.0/8001"),
      fits: false,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      expect(hostPortsConflict(tc.used, tc.want)).toBe(!tc.fits);
    });
  }

  it("reads host ports from containers and init containers, defaulting protocol and host IP", () => {
    const p = pod("100m", {
      initContainers: [{ name: "i", ports: [{ containerPort: 53, hostPort: 53, protocol: "UDP" }] }],
      containers: [{ name: "c", ports: [{ containerPort: 80 }, { containerPort: 5555, hostPort: 5555 }] }],
    } as never);
    expect(podHostPorts(p)).toEqual(ports("UDP/0.0.0.0/53", "TCP/0.0.0.0/5555"));
    const info = nodeInfoOf(node());
    const req = podRequests(p);
    expect(filterNode(p, info, req)).toBeUndefined();
    info.usedPorts.push(...req.hostPorts);
    expect(filterNode(p, info, req)).toBe("node(s) didn't have free ports for the requested pod ports");
  });
});
