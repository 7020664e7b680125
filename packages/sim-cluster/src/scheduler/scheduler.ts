import { isConflict, isNotFound } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Node, type Pod, resources } from "@informer-ts/client";
import type { Clock, Rand, Ticker } from "@informer-ts/clock";
import type { EventRecorder } from "@informer-ts/controller";
import { type Logger, safeLog } from "@informer-ts/instrumentation";
import { keyOf, rfc3339, withCondition } from "../internal/pod-util.js";
import {
  filterNode,
  type HostPort,
  leastAllocatedScore,
  type NodeInfo,
  nodeInfoOf,
  numFeasibleNodesToFind,
  type PodRequests,
  podRequests,
} from "./fit.js";

/** Options of a {@link Scheduler}. */
export interface SchedulerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly rand: Rand;
  readonly logger: Logger;
  readonly pods: SharedIndexInformer<Pod>;
  readonly nodes: SharedIndexInformer<Node>;
  /** `default-scheduler`: pods whose `spec.schedulerName` is this (or unset) are scheduled. */
  readonly schedulerName?: string;
  /** `Scheduled`/`FailedScheduling` events (`source.component: default-scheduler`); none when absent. */
  readonly recorder?: EventRecorder;
  /** Backoff of a pod whose binding failed: initial and max ms (upstream 1 s and 10 s). */
  readonly backoffMs?: { readonly initial: number; readonly max: number };
}

/** What {@link Scheduler.stats} counts. */
export interface SchedulerStats {
  readonly scheduled: number;
  readonly unschedulable: number;
  readonly bindErrors: number;
  readonly queued: number;
}

interface Placed {
  readonly node: string;
  readonly req: PodRequests;
}

/**
 * The scheduler (kube-scheduler's `scheduleOne` loop, `pkg/scheduler/schedule_one.go`): pending pods of its
 * `schedulerName` are taken one at a time from an active queue in arrival order; each node is filtered with
 * {@link filterNode} starting where the last pod stopped, until {@link numFeasibleNodesToFind} feasible nodes are
 * found; the feasible nodes are scored with {@link leastAllocatedScore} and the best is chosen (ties drawn with the
 * seeded `Rand`, as `selectHost`); the pod is *assumed* on that node in the scheduler's cache at once (so the next pod
 * sees its requests) and bound asynchronously through `pods/binding`. A failed binding forgets the assumption and
 * retries the pod after a backoff; a pod no node fits gets `PodScheduled=False` (`Unschedulable`, with upstream's
 * `0/N nodes are available: …` message) and a `FailedScheduling` event, and waits in the unschedulable set until a
 * node changes or an assigned pod goes away.
 *
 * Differences from kube-scheduler: no priority queue, preemption, affinity/anti-affinity, topology spread or volume
 * plugins; scoring is `LeastAllocated` only; one profile.
 */
export class Scheduler {
  private readonly name: string;
  private readonly infos = new Map<string, NodeInfo>();
  private readonly nodeOrder: string[] = [];
  private readonly placed = new Map<string, Placed>();
  private readonly assumed = new Set<string>();
  private readonly active: string[] = [];
  private readonly queued = new Set<string>();
  private readonly unschedulable = new Set<string>();
  private readonly attempts = new Map<string, number>();
  private nextStart = 0;
  private wake: (() => void) | undefined;
  private scheduledCount = 0;
  private unschedulableCount = 0;
  private bindErrors = 0;

  constructor(private readonly o: SchedulerOptions) {
    this.name = o.schedulerName ?? "default-scheduler";
  }

  /** Counters of the run so far. */
  stats(): SchedulerStats {
    return {
      scheduled: this.scheduledCount,
      unschedulable: this.unschedulableCount,
      bindErrors: this.bindErrors,
      queued: this.active.length,
    };
  }

  private responsible(pod: Pod): boolean {
    const s = pod.spec?.schedulerName;
    return (
      (s === undefined || s === "" || s === this.name) &&
      (pod.spec?.nodeName ?? "") === "" &&
      pod.metadata?.deletionTimestamp == null &&
      pod.status?.phase !== "Succeeded" &&
      pod.status?.phase !== "Failed"
    );
  }

  private enqueue(key: string): void {
    if (this.queued.has(key) || this.assumed.has(key)) return;
    this.unschedulable.delete(key);
    this.queued.add(key);
    this.active.push(key);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private moveAllToActive(): void {
    if (this.unschedulable.size === 0) return;
    const keys = [...this.unschedulable];
    this.unschedulable.clear();
    for (const k of keys) this.enqueue(k);
  }

  private account(key: string, node: string | undefined, req: PodRequests | undefined): void {
    const old = this.placed.get(key);
    if (old !== undefined) {
      const info = this.infos.get(old.node);
      if (info !== undefined) {
        info.requestedMilliCpu -= old.req.milliCpu;
        info.requestedMemory -= old.req.memory;
        info.pods--;
        info.usedPorts = withoutPorts(info.usedPorts, old.req.hostPorts);
      }
      this.placed.delete(key);
    }
    if (node === undefined || req === undefined) return;
    this.placed.set(key, { node, req });
    const info = this.infos.get(node);
    if (info !== undefined) {
      info.requestedMilliCpu += req.milliCpu;
      info.requestedMemory += req.memory;
      info.pods++;
      info.usedPorts.push(...req.hostPorts);
    }
  }

  private onPod(pod: Pod): void {
    const key = keyOf(pod);
    const node = pod.spec?.nodeName ?? "";
    if (node !== "") {
      this.assumed.delete(key);
      if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") {
        this.account(key, undefined, undefined);
        this.moveAllToActive();
      } else this.account(key, node, podRequests(pod));
      return;
    }
    if (this.responsible(pod) && !this.unschedulable.has(key)) this.enqueue(key);
  }

  private onPodDelete(pod: Pod): void {
    const key = keyOf(pod);
    const wasPlaced = this.placed.has(key);
    this.account(key, undefined, undefined);
    this.assumed.delete(key);
    this.unschedulable.delete(key);
    if (wasPlaced) this.moveAllToActive();
  }

  private onNode(node: Node): void {
    const name = node.metadata?.name ?? "";
    const old = this.infos.get(name);
    const info = nodeInfoOf(node);
    if (old !== undefined) {
      info.requestedMilliCpu = old.requestedMilliCpu;
      info.requestedMemory = old.requestedMemory;
      info.pods = old.pods;
      info.usedPorts = old.usedPorts;
    } else {
      this.nodeOrder.push(name);
      for (const [, p] of this.placed) {
        if (p.node !== name) continue;
        info.requestedMilliCpu += p.req.milliCpu;
        info.requestedMemory += p.req.memory;
        info.pods++;
        info.usedPorts.push(...p.req.hostPorts);
      }
    }
    this.infos.set(name, info);
    this.moveAllToActive();
  }

  private onNodeDelete(node: Node): void {
    const name = node.metadata?.name ?? "";
    this.infos.delete(name);
    const i = this.nodeOrder.indexOf(name);
    if (i >= 0) this.nodeOrder.splice(i, 1);
  }

  /** Schedules until `signal` aborts; binds still in flight then finish on their own. */
  async run(signal: AbortSignal): Promise<void> {
    const { pods, nodes, clock } = this.o;
    const podReg = pods.addEventHandler({
      onAdd: (p) => this.onPod(p),
      onUpdate: (_o, p) => this.onPod(p),
      onDelete: (p) => this.onPodDelete((p as { obj?: Pod }).obj ?? (p as Pod)),
    });
    const nodeReg = nodes.addEventHandler({
      onAdd: (n) => this.onNode(n),
      onUpdate: (_o, n) => this.onNode(n),
      onDelete: (n) => this.onNodeDelete((n as { obj?: Node }).obj ?? (n as Node)),
    });
    // flushUnschedulablePodsLeftover: pods left unschedulable are retried periodically.
    const flush: Ticker = clock.newTicker(60_000, () => this.moveAllToActive());
    const stop = () => {
      const w = this.wake;
      this.wake = undefined;
      w?.();
    };
    signal.addEventListener("abort", stop, { once: true });
    try {
      while (!signal.aborted) {
        const key = this.active.shift();
        if (key === undefined) {
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
          continue;
        }
        this.queued.delete(key);
        this.scheduleOne(key);
        // One pod per turn, as the scheduling cycle: let informer deliveries in between.
        await Promise.resolve();
      }
    } finally {
      signal.removeEventListener("abort", stop);
      flush.stop();
      await pods.removeEventHandler(podReg);
      await nodes.removeEventHandler(nodeReg);
    }
  }

  /** One scheduling cycle (synchronous: filter, score, assume), then the binding cycle in the background. */
  private scheduleOne(key: string): void {
    const pod = this.o.pods.getIndexer().getByKey(key);
    if (pod === undefined || !this.responsible(pod) || this.assumed.has(key)) return;
    const req = podRequests(pod);
    const n = this.nodeOrder.length;
    const want = numFeasibleNodesToFind(n);
    const feasible: NodeInfo[] = [];
    const reasons = new Map<string, number>();
    let processed = 0;
    for (; processed < n && feasible.length < want; processed++) {
      const info = this.infos.get(this.nodeOrder[(this.nextStart + processed) % n]!)!;
      const why = filterNode(pod, info, req);
      if (why === undefined) feasible.push(info);
      else reasons.set(why, (reasons.get(why) ?? 0) + 1);
    }
    if (n > 0) this.nextStart = (this.nextStart + processed) % n;
    if (feasible.length === 0) {
      this.markUnschedulable(pod, key, n, reasons);
      return;
    }
    // selectHost: the highest score, ties broken by reservoir sampling.
    let best = feasible[0]!;
    let bestScore = leastAllocatedScore(best, req);
    let ties = 1;
    for (let i = 1; i < feasible.length; i++) {
      const s = leastAllocatedScore(feasible[i]!, req);
      if (s > bestScore) {
        best = feasible[i]!;
        bestScore = s;
        ties = 1;
      } else if (s === bestScore) {
        ties++;
        if (this.o.rand.float() * ties < 1) best = feasible[i]!;
      }
    }
    const node = best.node.metadata?.name ?? "";
    this.assumed.add(key);
    this.account(key, node, req);
    void this.bind(pod, key, node);
  }

  private async bind(pod: Pod, key: string, node: string): Promise<void> {
    const ns = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    try {
      await this.o.client.createSubresource(
        resources.pods,
        name,
        "binding",
        {
          apiVersion: "v1",
          kind: "Binding",
          metadata: { name, namespace: ns, uid: pod.metadata?.uid },
          target: { apiVersion: "v1", kind: "Node", name: node },
        },
        { namespace: ns },
      );
      this.scheduledCount++;
      this.attempts.delete(key);
      this.o.recorder?.event(pod, "Normal", "Scheduled", `Successfully assigned ${ns}/${name} to ${node}`);
    } catch (err) {
      this.assumed.delete(key);
      this.account(key, undefined, undefined);
      if (isNotFound(err)) return;
      this.bindErrors++;
      safeLog(this.o.logger, isConflict(err) ? "debug" : "warn", "binding failed", { pod: key, node, err });
      const tries = (this.attempts.get(key) ?? 0) + 1;
      this.attempts.set(key, tries);
      const b = this.o.backoffMs ?? { initial: 1000, max: 10_000 };
      this.o.clock.afterFunc(Math.min(b.initial * 2 ** (tries - 1), b.max), () => {
        const latest = this.o.pods.getIndexer().getByKey(key);
        if (latest !== undefined && this.responsible(latest)) this.enqueue(key);
      });
    }
  }

  private markUnschedulable(pod: Pod, key: string, n: number, reasons: Map<string, number>): void {
    this.unschedulableCount++;
    this.unschedulable.add(key);
    const parts = [...reasons].map(([why, count]) => `${count} ${why}`).sort();
    const message = `0/${n} nodes are available${parts.length > 0 ? `: ${parts.join(", ")}` : ""}.`;
    const now = rfc3339(this.o.clock.now());
    const { conditions, changed } = withCondition(
      pod.status?.conditions as never,
      { type: "PodScheduled", status: "False", reason: "Unschedulable", message, lastProbeTime: null },
      now,
    );
    this.o.recorder?.event(pod, "Warning", "FailedScheduling", message);
    if (!changed) return;
    // A patch without a resourceVersion, as upstream's `updatePod`: nobody else writes an unscheduled pod's conditions.
    void this.o.client
      .patchStatus(
        resources.pods,
        pod.metadata?.name ?? "",
        { status: { conditions } },
        { namespace: pod.metadata?.namespace ?? "" },
      )
      .catch((err: unknown) => {
        if (!isConflict(err) && !isNotFound(err)) {
          safeLog(this.o.logger, "warn", "recording unschedulable pod failed", { pod: key, err });
        }
      });
  }
}

/** `used` without one entry of each port in `gone` (a pod's ports leaving its node). */
function withoutPorts(used: readonly HostPort[], gone: readonly HostPort[]): HostPort[] {
  const out = [...used];
  for (const g of gone) {
    const i = out.findIndex((u) => u.protocol === g.protocol && u.hostIP === g.hostIP && u.port === g.port);
    if (i >= 0) out.splice(i, 1);
  }
  return out;
}
