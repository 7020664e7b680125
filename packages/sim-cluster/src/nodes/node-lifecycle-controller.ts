import { isConflict, isNotFound } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Lease, type Node, type Pod, resources } from "@informer-ts/client";
import type { Clock, Ticker, Timer } from "@informer-ts/clock";
import { type Logger, safeLog } from "@informer-ts/instrumentation";
import { type Condition, conditionOf, keyOf, rfc3339, withCondition } from "../internal/pod-util.js";
import { type Taint, type Toleration, toleratesTaint } from "../scheduler/fit.js";

/** The taint of a node whose kubelet stopped reporting (`node.kubernetes.io/unreachable`). */
export const TAINT_UNREACHABLE = "node.kubernetes.io/unreachable";

/** Options of a {@link NodeLifecycleController}. */
export interface NodeLifecycleOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly nodes: SharedIndexInformer<Node>;
  readonly pods: SharedIndexInformer<Pod>;
  readonly leases: SharedIndexInformer<Lease>;
  /** `--node-monitor-period`, ms (default 5 000). */
  readonly monitorPeriodMs?: number;
  /** `--node-monitor-grace-period`, ms (default 50 000). */
  readonly gracePeriodMs?: number;
  /** Evict (delete) the pods of an unreachable node once their toleration runs out (default true). */
  readonly evictPods?: boolean;
  /**
   * `tolerationSeconds` of the `unreachable:NoExecute` toleration the DefaultTolerationSeconds admission plugin gives
   * every pod that has none (default 300).
   */
  readonly defaultTolerationSeconds?: number;
}

function unreachableTaints(now: string): Taint[] {
  return [
    { key: TAINT_UNREACHABLE, effect: "NoSchedule" },
    { key: TAINT_UNREACHABLE, effect: "NoExecute", timeAdded: now } as Taint,
  ];
}

/**
 * The node lifecycle controller (`pkg/controller/nodelifecycle`, with the taint-eviction controller's part): every
 * `monitorPeriodMs` it checks each node's heartbeat — the newer of its Lease's `renewTime` and its `Ready` condition's
 * `lastHeartbeatTime` — and when none came for `gracePeriodMs` it sets the node's conditions to `Unknown`
 * (`NodeStatusUnknown`, "Kubelet stopped posting node status."), taints it `node.kubernetes.io/unreachable` with
 * `NoSchedule` and `NoExecute`, and marks its pods not ready (`MarkPodsNotReady`); after each pod's toleration of the
 * `NoExecute` taint (its own `tolerationSeconds`, else `defaultTolerationSeconds`) the pod is deleted (evicted) and
 * its controller replaces it elsewhere. Once the kubelet reports `Ready=True` again the taints are removed and pending
 * evictions are cancelled.
 *
 * Differences from kube-controller-manager: no zone states or eviction rate limiting, no `not-ready` (Ready=False)
 * tainting, no `NodeLease`-less clusters' status-only mode beyond reading the condition heartbeat.
 */
export class NodeLifecycleController {
  private readonly evictions = new Map<string, Timer[]>();
  private ticker: Ticker | undefined;

  constructor(private readonly o: NodeLifecycleOptions) {}

  /** Monitors node health until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.ticker = this.o.clock.newTicker(this.o.monitorPeriodMs ?? 5000, () => {
      void this.monitor();
    });
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    this.ticker.stop();
    for (const timers of this.evictions.values()) for (const t of timers) t.stop();
    this.evictions.clear();
  }

  /** One `monitorNodeHealth` pass. */
  async monitor(): Promise<void> {
    const { clock } = this.o;
    const now = clock.now();
    const grace = this.o.gracePeriodMs ?? 50_000;
    await Promise.all(
      this.o.nodes
        .getIndexer()
        .list()
        .map(async (node) => {
          const name = node.metadata?.name ?? "";
          const ready = conditionOf(node, "Ready");
          const lease = this.o.leases.getIndexer().getByKey(`kube-node-lease/${name}`);
          const renew = Date.parse(lease?.spec?.renewTime ?? "") || 0;
          const beat = Date.parse(ready?.lastHeartbeatTime ?? "") || 0;
          const probe = Math.max(renew, beat, Date.parse(node.metadata?.creationTimestamp ?? "") || 0);
          const tainted = (node.spec?.taints ?? []).some((t) => t.key === TAINT_UNREACHABLE);
          try {
            if (now - probe > grace && ready?.status !== "Unknown") await this.markUnknown(node);
            else if (ready?.status === "True" && tainted) await this.markReachable(node);
          } catch (err) {
            if (!isConflict(err) && !isNotFound(err)) {
              safeLog(this.o.logger, "warn", "node health update failed", { node: name, err });
            }
          }
        }),
    );
  }

  private async markUnknown(node: Node): Promise<void> {
    const { client, clock } = this.o;
    const name = node.metadata?.name ?? "";
    const now = rfc3339(clock.now());
    let conditions = (node.status?.conditions ?? []) as Condition[];
    for (const c of conditions) {
      conditions = withCondition(
        conditions,
        {
          type: c.type,
          status: "Unknown",
          reason: "NodeStatusUnknown",
          message: "Kubelet stopped posting node status.",
        },
        now,
      ).conditions;
    }
    const updated = await client.updateStatus(resources.nodes, {
      ...node,
      status: { ...node.status, conditions },
    } as Node);
    const taints = [
      ...(updated.spec?.taints ?? []).filter((t) => t.key !== TAINT_UNREACHABLE),
      ...unreachableTaints(now),
    ];
    await client.update(resources.nodes, { ...updated, spec: { ...updated.spec, taints } } as Node);
    safeLog(this.o.logger, "info", "node is unreachable", { node: name });
    const pods = this.o.pods
      .getIndexer()
      .list()
      .filter((p) => p.spec?.nodeName === name);
    await Promise.all(pods.map((p) => this.markPodNotReady(p)));
    if (this.o.evictPods !== false) this.scheduleEvictions(name, pods);
  }

  private async markReachable(node: Node): Promise<void> {
    const name = node.metadata?.name ?? "";
    for (const t of this.evictions.get(name) ?? []) t.stop();
    this.evictions.delete(name);
    const taints = (node.spec?.taints ?? []).filter((t) => t.key !== TAINT_UNREACHABLE);
    await this.o.client.update(resources.nodes, {
      ...node,
      spec: { ...node.spec, ...(taints.length > 0 ? { taints } : { taints: undefined }) },
    } as Node);
  }

  /** `MarkPodsNotReady`: the pod's `Ready` condition becomes `False`. */
  private async markPodNotReady(pod: Pod): Promise<void> {
    const now = rfc3339(this.o.clock.now());
    const { conditions, changed } = withCondition(
      pod.status?.conditions as Condition[] | undefined,
      { type: "Ready", status: "False" },
      now,
    );
    if (!changed) return;
    try {
      await this.o.client.updateStatus(resources.pods, { ...pod, status: { ...pod.status, conditions } } as Pod);
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err))
        safeLog(this.o.logger, "warn", "marking pod not ready failed", { pod: keyOf(pod), err });
    }
  }

  private scheduleEvictions(node: string, pods: readonly Pod[]): void {
    const taint: Taint = { key: TAINT_UNREACHABLE, effect: "NoExecute" };
    const timers: Timer[] = [];
    for (const pod of pods) {
      const tolerations = (pod.spec?.tolerations ?? []) as Toleration[];
      const matching = tolerations.filter((t) => toleratesTaint(t, taint));
      let seconds = this.o.defaultTolerationSeconds ?? 300;
      if (matching.length > 0) {
        const limited = matching.filter((t) => typeof t.tolerationSeconds === "number");
        if (limited.length < matching.length) continue; // tolerated forever
        seconds = Math.min(...limited.map((t) => Math.max(0, t.tolerationSeconds!)));
      }
      const key = keyOf(pod);
      timers.push(
        this.o.clock.afterFunc(seconds * 1000, () => {
          const cur = this.o.pods.getIndexer().getByKey(key);
          if (cur === undefined || cur.spec?.nodeName !== node) return;
          void this.o.client
            .delete(resources.pods, cur.metadata?.name ?? "", { namespace: cur.metadata?.namespace ?? "" })
            .catch((err: unknown) => {
              if (!isNotFound(err)) safeLog(this.o.logger, "warn", "evicting pod failed", { pod: key, err });
            });
        }),
      );
    }
    this.evictions.set(node, [...(this.evictions.get(node) ?? []), ...timers]);
  }
}
