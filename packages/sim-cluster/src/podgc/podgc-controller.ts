import { isNotFound } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Node, type Pod, resources } from "@informer-ts/client";
import type { Clock, Ticker } from "@informer-ts/clock";
import { type Logger, safeLog } from "@informer-ts/instrumentation";
import { keyOf, rfc3339 } from "../internal/pod-util.js";

/** Options of a {@link PodGCController}. */
export interface PodGCOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly pods: SharedIndexInformer<Pod>;
  readonly nodes: SharedIndexInformer<Node>;
  /**
   * `--terminated-pod-gc-threshold`: terminated (Succeeded/Failed) pods kept before the oldest are deleted; ≤ 0
   * disables that part (default 12 500).
   */
  readonly terminatedPodThreshold?: number;
  /** `gcCheckPeriod`, ms (default 20 000). */
  readonly checkPeriodMs?: number;
  /** `quarantineTime`: how long a node must be missing before its pods are orphans, ms (default 40 000). */
  readonly quarantineMs?: number;
}

/** What a {@link PodGCController} deleted so far, by reason. */
export interface PodGCStats {
  terminated: number;
  orphaned: number;
  unscheduledTerminating: number;
}

/**
 * The pod garbage collector (`pkg/controller/podgc/gc_controller.go`), every `gcCheckPeriod` on the injected clock:
 * - `gcTerminated`: beyond `terminatedPodThreshold` terminated pods, the oldest (by creation time) are deleted;
 * - `gcOrphaned`: pods bound to a node that does not exist — missing from the informer for `quarantineTime` and then
 *   answering 404 to a GET — are first marked `Failed` with the `DisruptionTarget` condition (reason
 *   `DeletionByPodGC`) when not terminal yet, then deleted;
 * - `gcUnscheduledTerminating`: terminating pods that were never scheduled are deleted.
 * Every deletion is forceful (grace period 0), as upstream's. Failures are logged and retried on the next pass.
 *
 * Differences from kube-controller-manager: no `gcTerminating` (the out-of-service taint), no deletion rate metrics.
 */
export class PodGCController {
  private ticker: Ticker | undefined;
  /** Node names missing from the informer → when first seen missing (the quarantine). */
  private readonly missingSince = new Map<string, number>();
  private running: Promise<void> | undefined;
  readonly stats: PodGCStats = { terminated: 0, orphaned: 0, unscheduledTerminating: 0 };

  constructor(private readonly o: PodGCOptions) {}

  /** Collects every `checkPeriodMs` until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.ticker = this.o.clock.newTicker(this.o.checkPeriodMs ?? 20_000, () => {
      // One pass at a time: a slow pass skips ticks, as wait.Until's sliding period does.
      if (this.running === undefined) this.running = this.gc().finally(() => (this.running = undefined));
    });
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    this.ticker.stop();
    await this.running;
  }

  /** One pass (`gc`): terminated, orphaned, then unscheduled terminating pods. */
  async gc(): Promise<void> {
    const pods = this.o.pods.getIndexer().list();
    await this.gcTerminated(pods);
    await this.gcOrphaned(pods);
    await this.gcUnscheduledTerminating(pods);
  }

  private async gcTerminated(pods: readonly Pod[]): Promise<void> {
    const threshold = this.o.terminatedPodThreshold ?? 12_500;
    if (threshold <= 0) return;
    const terminated = pods.filter((p) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed");
    const excess = terminated.length - threshold;
    if (excess <= 0) return;
    terminated.sort(byCreation);
    for (const pod of terminated.slice(0, excess)) {
      if (await this.forceDelete(pod, "terminated")) this.stats.terminated++;
    }
  }

  private async gcOrphaned(pods: readonly Pod[]): Promise<void> {
    const now = this.o.clock.now();
    const quarantine = this.o.quarantineMs ?? 40_000;
    const nodes = this.o.nodes.getIndexer();
    const bound = new Set(pods.map((p) => p.spec?.nodeName ?? "").filter((n) => n !== ""));
    for (const name of [...this.missingSince.keys()]) if (!bound.has(name)) this.missingSince.delete(name);
    const gone = new Set<string>();
    for (const name of bound) {
      if (nodes.getByKey(name) !== undefined) {
        this.missingSince.delete(name);
        continue;
      }
      const since = this.missingSince.get(name);
      if (since === undefined) {
        this.missingSince.set(name, now);
        continue;
      }
      if (now - since < quarantine) continue;
      // discoverDeletedNodes: the informer may lag; the apiserver has the last word.
      try {
        await this.o.client.get(resources.nodes, name);
        this.missingSince.delete(name);
      } catch (err) {
        if (isNotFound(err)) gone.add(name);
        else safeLog(this.o.logger, "warn", "podgc: cannot check a missing node", { node: name, error: String(err) });
      }
    }
    for (const pod of pods) {
      if (!gone.has(pod.spec?.nodeName ?? "")) continue;
      if (!(await this.markFailed(pod))) continue;
      if (await this.forceDelete(pod, "orphaned")) this.stats.orphaned++;
    }
  }

  private async gcUnscheduledTerminating(pods: readonly Pod[]): Promise<void> {
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp == null || (pod.spec?.nodeName ?? "") !== "") continue;
      if (await this.forceDelete(pod, "unscheduled-terminating")) this.stats.unscheduledTerminating++;
    }
  }

  /** `addConditionAndDeletePod`'s status write: Failed with `DisruptionTarget` (`DeletionByPodGC`), if not terminal. */
  private async markFailed(pod: Pod): Promise<boolean> {
    const phase = pod.status?.phase;
    if (phase === "Succeeded" || phase === "Failed") return true;
    const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== "DisruptionTarget");
    try {
      await this.o.client.updateStatus(resources.pods, {
        ...pod,
        status: {
          ...pod.status,
          phase: "Failed",
          conditions: [
            ...conditions,
            {
              type: "DisruptionTarget",
              status: "True",
              reason: "DeletionByPodGC",
              message: "PodGC: node no longer exists",
              lastTransitionTime: rfc3339(this.o.clock.now()),
            },
          ],
        },
      } as Pod);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      safeLog(this.o.logger, "warn", "podgc: cannot mark an orphaned pod failed", {
        pod: keyOf(pod),
        error: String(err),
      });
      return false;
    }
  }

  private async forceDelete(pod: Pod, reason: keyof typeof REASONS): Promise<boolean> {
    try {
      await this.o.client.delete(resources.pods, pod.metadata?.name ?? "", {
        namespace: pod.metadata?.namespace ?? "",
        gracePeriodSeconds: 0,
        preconditions: { uid: pod.metadata?.uid ?? "" },
      });
      safeLog(this.o.logger, "info", `podgc: deleted ${REASONS[reason]} pod`, { pod: keyOf(pod) });
      return true;
    } catch (err) {
      if (!isNotFound(err)) {
        safeLog(this.o.logger, "warn", "podgc: cannot delete a pod", { pod: keyOf(pod), error: String(err) });
      }
      return false;
    }
  }
}

const REASONS = {
  terminated: "a terminated",
  orphaned: "an orphaned",
  "unscheduled-terminating": "an unscheduled terminating",
} as const;

function byCreation(a: Pod, b: Pod): number {
  const ta = a.metadata?.creationTimestamp ?? "";
  const tb = b.metadata?.creationTimestamp ?? "";
  return ta < tb ? -1 : ta > tb ? 1 : (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
}
