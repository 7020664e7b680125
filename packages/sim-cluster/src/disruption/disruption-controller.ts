import { type KubeObject, labelSelectorAsSelector } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Pod, type PodDisruptionBudget, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type Request } from "@informer-ts/controller";
import type { MetricsProvider } from "@informer-ts/instrumentation";
import { scaledValue } from "../deployment/replica-sets.js";
import { controllerRefOf, requestOf } from "../internal/controller-ref.js";
import { isPodReady, rfc3339 } from "../internal/pod-util.js";

/** `DeletionTimeout`: an eviction not followed by the pod's deletion within this is forgotten. */
export const DISRUPTION_DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** Options of a {@link DisruptionController}. */
export interface DisruptionControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly budgets: SharedIndexInformer<PodDisruptionBudget>;
  readonly pods: SharedIndexInformer<Pod>;
  /** The workload objects whose replicas a percentage or `maxUnavailable` budget scales by. */
  readonly owners: {
    readonly replicaSets: SharedIndexInformer<KubeObject>;
    readonly deployments: SharedIndexInformer<KubeObject>;
    readonly statefulSets: SharedIndexInformer<KubeObject>;
    readonly replicationControllers: SharedIndexInformer<KubeObject>;
  };
  readonly metrics?: MetricsProvider;
}

interface BudgetSpec {
  selector?: Parameters<typeof labelSelectorAsSelector>[0];
  minAvailable?: number | string;
  maxUnavailable?: number | string;
}

interface BudgetCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

interface BudgetStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions?: BudgetCondition[];
}

/** The pods of the budget's namespace its selector matches (an empty or invalid selector matches none). */
function podsOf(pdb: KubeObject, pods: readonly Pod[]): Pod[] {
  const ns = pdb.metadata?.namespace ?? "";
  let sel: ReturnType<typeof labelSelectorAsSelector>;
  try {
    sel = labelSelectorAsSelector(((pdb.spec ?? {}) as BudgetSpec).selector);
  } catch {
    return [];
  }
  if (sel.empty() || sel.matchesNothing()) return [];
  return pods.filter((p) => (p.metadata?.namespace ?? "") === ns && sel.matches(p.metadata?.labels));
}

/** `setCondition` of `meta.SetStatusCondition`: the transition time moves only when the status changes. */
function withCondition(
  prev: readonly BudgetCondition[] | undefined,
  c: Omit<BudgetCondition, "lastTransitionTime">,
  now: string,
) {
  const list = [...(prev ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  const old = i < 0 ? undefined : list[i]!;
  const next = {
    ...c,
    lastTransitionTime: old !== undefined && old.status === c.status ? old.lastTransitionTime : now,
  };
  if (i < 0) list.push(next);
  else list[i] = next;
  return list;
}

/**
 * The disruption controller (`pkg/controller/disruption/disruption.go`): for each PodDisruptionBudget it counts the
 * pods its selector matches and writes `status` — `expectedPods` and `desiredHealthy` (an integer `minAvailable`: the
 * pods found and that number; a percentage `minAvailable` or any `maxUnavailable`: scaled from the replicas of the pods'
 * controllers, a ReplicaSet counted through its Deployment), `currentHealthy` (Ready pods not deleting and not in
 * `disruptedPods`), `disruptionsAllowed` (`currentHealthy - desiredHealthy`, at least 0, 0 without expected pods),
 * `disruptedPods` (evictions the apiserver recorded, kept until the pod is deleting or
 * {@link DISRUPTION_DELETION_TIMEOUT_MS} passed), `observedGeneration` and the `DisruptionAllowed` condition. A pod
 * without a known controller where one is needed is upstream's fail-safe: no disruption allowed, `SyncFailed`.
 *
 * Differences from kube-controller-manager: controllers are found through the four built-in workload kinds only (no
 * generic `/scale` lookup of custom resources); no `NoPods`/`CalculateExpectedPodCountFailed` events.
 */
export class DisruptionController {
  readonly controller: Controller;

  constructor(private readonly o: DisruptionControllerOptions) {
    const budgets = o.budgets as unknown as SharedIndexInformer<KubeObject>;
    const forPod = (pod: KubeObject): Request[] =>
      podsBudgets(budgets.getIndexer().list() as KubeObject[], pod).map((b) => requestOf(b));
    const podHandler: EventHandler<KubeObject> = {
      create: (p) => forPod(p),
      update: (old, cur) => [...forPod(old), ...forPod(cur)],
      delete: (p) => forPod(p),
    };
    const budgetHandler: EventHandler<KubeObject> = {
      create: (b) => [requestOf(b)],
      update: (_old, cur) => [requestOf(cur)],
      delete: () => [],
    };
    this.controller = new Controller({
      name: "disruption-controller",
      reconciler: (req) => this.sync(req),
      watches: [
        { informer: budgets, handler: budgetHandler, name: "PodDisruptionBudget" },
        { informer: o.pods as unknown as SharedIndexInformer<KubeObject>, handler: podHandler, name: "Pod" },
      ],
      maxConcurrentReconciles: 1,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** `trySync`: the budget's new status, written when it changed; requeued when a disrupted pod's entry expires. */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const pdb = this.o.budgets.getIndexer().getByKey(`${req.namespace}/${req.name}`) as KubeObject | undefined;
    if (pdb === undefined || pdb.metadata?.deletionTimestamp != null) return undefined;
    const nowMs = this.o.clock.now();
    const now = rfc3339(nowMs);
    const old = (pdb.status ?? {}) as Partial<BudgetStatus>;
    const pods = podsOf(pdb, this.o.pods.getIndexer().list() as Pod[]);
    let status: BudgetStatus;
    let recheckMs: number | undefined;
    try {
      const { expected, desired } = this.expectedAndDesired(pdb, pods);
      const disrupted: Record<string, string> = {};
      for (const p of pods) {
        const name = p.metadata?.name ?? "";
        const at = old.disruptedPods?.[name];
        if (at === undefined || p.metadata?.deletionTimestamp != null) continue;
        const expires = Date.parse(at) + DISRUPTION_DELETION_TIMEOUT_MS;
        if (expires < nowMs) continue;
        disrupted[name] = at;
        recheckMs = recheckMs === undefined ? expires - nowMs : Math.min(recheckMs, expires - nowMs);
      }
      const healthy = pods.filter(
        (p) =>
          p.metadata?.deletionTimestamp == null && disrupted[p.metadata?.name ?? ""] === undefined && isPodReady(p),
      ).length;
      const allowed = expected > 0 && healthy - desired > 0 ? healthy - desired : 0;
      const generation = pdb.metadata?.generation ?? 0;
      status = {
        ...(Object.keys(disrupted).length > 0 && { disruptedPods: disrupted }),
        disruptionsAllowed: allowed,
        currentHealthy: healthy,
        desiredHealthy: desired,
        expectedPods: expected,
        observedGeneration: generation,
        conditions: withCondition(
          old.conditions,
          {
            type: "DisruptionAllowed",
            status: allowed > 0 ? "True" : "False",
            reason: allowed > 0 ? "SufficientPods" : "InsufficientPods",
            message: "",
            observedGeneration: generation,
          },
          now,
        ),
      };
    } catch (err) {
      // `failSafe`: no disruption until the budget can be computed again.
      status = {
        ...(old as BudgetStatus),
        disruptionsAllowed: 0,
        currentHealthy: old.currentHealthy ?? 0,
        desiredHealthy: old.desiredHealthy ?? 0,
        expectedPods: old.expectedPods ?? 0,
        conditions: withCondition(
          old.conditions,
          {
            type: "DisruptionAllowed",
            status: "False",
            reason: "SyncFailed",
            message: err instanceof Error ? err.message : String(err),
            observedGeneration: old.observedGeneration ?? 0,
          },
          now,
        ),
      };
    }
    if (JSON.stringify(status) !== JSON.stringify(pdb.status ?? {})) {
      await this.o.client.updateStatus(resources.podDisruptionBudgets, { ...pdb, status } as PodDisruptionBudget);
    }
    return recheckMs === undefined ? undefined : { requeueAfter: recheckMs };
  }

  /** `getExpectedPodCount`: the expected pods and how many of them must stay healthy. */
  private expectedAndDesired(pdb: KubeObject, pods: readonly Pod[]): { expected: number; desired: number } {
    const spec = (pdb.spec ?? {}) as BudgetSpec;
    if (spec.maxUnavailable !== undefined) {
      const expected = this.expectedScale(pods);
      const maxUnavailable = scaledValue(spec.maxUnavailable, expected, true);
      return { expected, desired: Math.max(0, expected - maxUnavailable) };
    }
    if (spec.minAvailable !== undefined) {
      if (typeof spec.minAvailable === "number" || /^\d+$/.test(spec.minAvailable)) {
        return { expected: pods.length, desired: Number(spec.minAvailable) };
      }
      const expected = this.expectedScale(pods);
      return { expected, desired: scaledValue(spec.minAvailable, expected, true) };
    }
    return { expected: 0, desired: 0 };
  }

  /** `getExpectedScale`: the summed replicas of the pods' distinct controllers (a ReplicaSet's through its Deployment). */
  private expectedScale(pods: readonly Pod[]): number {
    const seen = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerRefOf(pod as KubeObject);
      const podName = pod.metadata?.name ?? "";
      if (ref === undefined) throw new Error(`found no controller ref for pod "${podName}"`);
      const owner = this.scaleOwner(pod.metadata?.namespace ?? "", ref);
      if (owner === undefined) throw new Error(`found no controllers for pod "${podName}"`);
      seen.set(owner.uid, owner.replicas);
    }
    let total = 0;
    for (const n of seen.values()) total += n;
    return total;
  }

  private scaleOwner(ns: string, ref: { kind?: string; name?: string; uid?: string }) {
    const get = (inf: SharedIndexInformer<KubeObject>, name: string) =>
      inf.getIndexer().getByKey(`${ns}/${name}`) as KubeObject | undefined;
    const replicas = (o: KubeObject) => ((o.spec as { replicas?: number } | undefined)?.replicas ?? 1) as number;
    const matching = (o: KubeObject | undefined, uid: string | undefined) =>
      o !== undefined && (uid === undefined || o.metadata?.uid === uid) ? o : undefined;
    const { owners } = this.o;
    switch (ref.kind) {
      case "ReplicaSet": {
        const rs = matching(get(owners.replicaSets, ref.name ?? ""), ref.uid);
        if (rs === undefined) return undefined;
        const up = controllerRefOf(rs);
        if (up?.kind === "Deployment") {
          const d = matching(get(owners.deployments, up.name ?? ""), up.uid);
          if (d !== undefined) return { uid: d.metadata?.uid ?? "", replicas: replicas(d) };
        }
        return { uid: rs.metadata?.uid ?? "", replicas: replicas(rs) };
      }
      case "StatefulSet":
      case "ReplicationController": {
        const inf = ref.kind === "StatefulSet" ? owners.statefulSets : owners.replicationControllers;
        const o = matching(get(inf, ref.name ?? ""), ref.uid);
        return o === undefined ? undefined : { uid: o.metadata?.uid ?? "", replicas: replicas(o) };
      }
      default:
        return undefined;
    }
  }
}

/** The budgets that select `pod` (its namespace, a non-empty selector matching its labels). */
function podsBudgets(budgets: readonly KubeObject[], pod: KubeObject): KubeObject[] {
  return budgets.filter((b) => podsOf(b, [pod as Pod]).length > 0);
}
