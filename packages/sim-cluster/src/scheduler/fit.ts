import type { Node, Pod } from "@informer-ts/client";
import { podMatchesNodeSelectorAndAffinity } from "../internal/node-affinity.js";
import { parseMilli } from "../internal/quantity.js";

/** A taint as JSON (`v1.Taint`). */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/** A toleration as JSON (`v1.Toleration`). */
export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
  readonly tolerationSeconds?: number;
}

/** A host port a container binds (`containerPort.hostPort` with its protocol and host IP, `0.0.0.0` when unset). */
export interface HostPort {
  readonly protocol: string;
  readonly hostIP: string;
  readonly port: number;
}

/** What a pod asks of a node (milli-cpu, bytes · 1000, one pod slot, its containers' host ports). */
export interface PodRequests {
  readonly milliCpu: number;
  readonly memory: number;
  readonly hostPorts: readonly HostPort[];
}

/**
 * The pod's requests (`resourcehelper.PodRequests` without overhead): the sum over containers of `requests` (or
 * `limits` when a container sets only limits, as defaulting copies them), max'ed with each init container's.
 * Quantities are milli-units (`memory` too, so `128Mi` is 134 217 728 000).
 */
export function podRequests(pod: Pod): PodRequests {
  let milliCpu = 0;
  let memory = 0;
  const of = (c: { resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }) => {
    const r = c.resources?.requests ?? {};
    const l = c.resources?.limits ?? {};
    const cpu = r.cpu ?? l.cpu;
    const mem = r.memory ?? l.memory;
    return { cpu: cpu === undefined ? 0 : parseMilli(cpu), mem: mem === undefined ? 0 : parseMilli(mem) };
  };
  for (const c of pod.spec?.containers ?? []) {
    const q = of(c as never);
    milliCpu += q.cpu;
    memory += q.mem;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const q = of(c as never);
    milliCpu = Math.max(milliCpu, q.cpu);
    memory = Math.max(memory, q.mem);
  }
  return { milliCpu, memory, hostPorts: podHostPorts(pod) };
}

/**
 * The host ports of the pod's containers and init containers (`nodeports.getContainerPorts`): every container port
 * with a non-zero `hostPort`; protocol `TCP` and host IP `0.0.0.0` when unset.
 */
export function podHostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  type Port = { hostPort?: number; protocol?: string; hostIP?: string };
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])] as { ports?: Port[] }[];
  for (const c of containers) {
    for (const p of c.ports ?? []) {
      if ((p.hostPort ?? 0) <= 0) continue;
      out.push({ protocol: p.protocol ?? "TCP", hostIP: p.hostIP ?? "0.0.0.0", port: p.hostPort ?? 0 });
    }
  }
  return out;
}

/**
 * `HostPortInfo.CheckConflict`: a wanted host port conflicts with one in use on the node when protocol and port are
 * the same and either host IP is the wildcard `0.0.0.0` or both are equal.
 */
export function hostPortsConflict(used: readonly HostPort[], want: readonly HostPort[]): boolean {
  const wild = "0.0.0.0";
  return want.some((w) =>
    used.some(
      (u) =>
        u.protocol === w.protocol &&
        u.port === w.port &&
        (u.hostIP === wild || w.hostIP === wild || u.hostIP === w.hostIP),
    ),
  );
}

/**
 * `Toleration.ToleratesTaint`: the effects match (an empty toleration effect matches any), and the keys match (an
 * empty key with `Exists` matches every key); `Exists` ignores the value, `Equal` (the default) compares it.
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== "" && t.effect !== taint.effect) return false;
  if ((t.key ?? "") !== "" && t.key !== taint.key) return false;
  const op = t.operator ?? "Equal";
  if (op === "Exists") return true;
  if (op === "Equal") return (t.key ?? "") !== "" && (t.value ?? "") === (taint.value ?? "");
  return false;
}

/** The scheduler's view of one node: the node and what its pods (bound or assumed) request. */
export interface NodeInfo {
  node: Node;
  requestedMilliCpu: number;
  requestedMemory: number;
  pods: number;
  /** The host ports the node's pods bind, one entry per pod and port (`NodeInfo.UsedPorts`). */
  usedPorts: HostPort[];
  allocatableMilliCpu: number;
  allocatableMemory: number;
  allocatablePods: number;
}

/** A fresh {@link NodeInfo} for `node` with nothing requested. */
export function nodeInfoOf(node: Node): NodeInfo {
  const a = (node.status?.allocatable ?? {}) as Record<string, string>;
  return {
    node,
    requestedMilliCpu: 0,
    requestedMemory: 0,
    pods: 0,
    usedPorts: [],
    allocatableMilliCpu: a.cpu === undefined ? 0 : parseMilli(a.cpu),
    allocatableMemory: a.memory === undefined ? 0 : parseMilli(a.memory),
    allocatablePods: a.pods === undefined ? 110 : Number(a.pods),
  };
}

/**
 * The default filter plugins in upstream order — `NodeUnschedulable`, `NodeName`, `TaintToleration` (NoSchedule and
 * NoExecute taints), `NodeAffinity` (`nodeSelector` and required node affinity), `NodePorts` (host ports free), `NodeResourcesFit` (cpu, memory, pods) — answering the
 * first failure's reason as kube-scheduler words it, or undefined when the pod fits.
 */
export function filterNode(pod: Pod, info: NodeInfo, req: PodRequests): string | undefined {
  const node = info.node;
  const tolerations = (pod.spec?.tolerations ?? []) as Toleration[];
  if (node.spec?.unschedulable === true) {
    const taint = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return "node(s) were unschedulable";
  }
  const want = pod.spec?.nodeName;
  if (want !== undefined && want !== "" && want !== node.metadata?.name)
    return "node(s) didn't match the requested node name";
  for (const taint of (node.spec?.taints ?? []) as Taint[]) {
    if (taint.effect !== "NoSchedule" && taint.effect !== "NoExecute") continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) {
      return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`;
    }
  }
  if (!podMatchesNodeSelectorAndAffinity(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
  if (hostPortsConflict(info.usedPorts, req.hostPorts))
    return "node(s) didn't have free ports for the requested pod ports";
  if (info.pods + 1 > info.allocatablePods) return "Too many pods";
  if (req.milliCpu > 0 && info.requestedMilliCpu + req.milliCpu > info.allocatableMilliCpu) return "Insufficient cpu";
  if (req.memory > 0 && info.requestedMemory + req.memory > info.allocatableMemory) return "Insufficient memory";
  return undefined;
}

/**
 * `NodeResourcesFit` with the `LeastAllocated` strategy (cpu and memory, weight 1 each): the mean over both of the
 * free share after placing the pod, 0–100. A pod with no requests counts upstream's non-zero defaults (100m, 200Mi).
 */
export function leastAllocatedScore(info: NodeInfo, req: PodRequests): number {
  const cpu = req.milliCpu > 0 ? req.milliCpu : 100;
  const mem = req.memory > 0 ? req.memory : 200 * 2 ** 20 * 1000;
  const share = (requested: number, allocatable: number) =>
    allocatable <= 0 || requested > allocatable ? 0 : ((allocatable - requested) * 100) / allocatable;
  return Math.floor(
    (share(info.requestedMilliCpu + cpu, info.allocatableMilliCpu) +
      share(info.requestedMemory + mem, info.allocatableMemory)) /
      2,
  );
}

/**
 * How many feasible nodes the scheduler looks for before it stops filtering (`numFeasibleNodesToFind` with the
 * adaptive `percentageOfNodesToScore`): every node up to 100; else `50 - n/125` percent (at least 5 %), at least 100.
 */
export function numFeasibleNodesToFind(n: number): number {
  if (n < 100) return n;
  let pct = Math.floor(50 - n / 125);
  if (pct < 5) pct = 5;
  const k = Math.floor((n * pct) / 100);
  return Math.max(k, 100);
}
