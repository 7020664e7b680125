import { isConflict, isNotFound, type KubeObject, labelSelectorAsSelector } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Pod, type PodDisruptionBudget, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventRecorder, type Request } from "@informer-ts/controller";
import type { Logger, MetricsProvider } from "@informer-ts/instrumentation";
import { scaledValue } from "../deployment/replica-sets.js";
import { controllerRefOf, requestOf, selfHandler } from "../internal/controller-ref.js";
import { isPodReady, rfc3339 } from "../internal/pod-util.js";

/** `DeletionTimeout`: a pod in `status.disruptedPods` not deleted within this long counts as healthy again. */
export const DISRUPTED_POD_DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** The condition the controller keeps on every PodDisruptionBudget (`policyv1.DisruptionAllowedCondition`). */
export const DISRUPTION_ALLOWED_CONDITION = "DisruptionAllowed";

/** A controller's scale as the disruption controller reads it: the owner kinds it can look up, by `kind`. */
export interface ScaleSource {
  /** The owner's kind (`ReplicaSet`, `ReplicationController`, `StatefulSet`, `Deployment`). */
  readonly kind: string;
  readonly informer: SharedIndexInformer<KubeObject>;
}

/** Options of a {@link DisruptionController}. */
export interface DisruptionControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  /** The logger of its controller (its `Starting Controller`, reconcile errors). Default the runtime logger. */
  readonly logger?: Logger;
  readonly budgets: SharedIndexInformer<PodDisruptionBudget>;
  readonly pods: SharedIndexInformer<Pod>;
  /** The controllers whose `spec.replicas` is a pod's expected scale (`finders`). */
  readonly scales: readonly ScaleSource[];
  readonly recorder?: EventRecorder;
  readonly metrics?: MetricsProvider;
}

/** What a sync computed for one budget (`getExpectedPodCount` and `countHealthyPods`). */
export interface BudgetCounts {
  readonly expectedPods: number;
  readonly desiredHealthy: number;
  readonly currentHealthy: number;
  /** `status.disruptedPods` kept: pods still there, not being deleted, their deadline not passed. */
  readonly disruptedPods: Record<string, string>;
  /** The earliest time a kept disrupted pod's deadline passes, when there is one (the controller syncs again then). */
  readonly recheckAtMs: number | undefined;
}

/** An owner of pods: its kind and UID, and its `spec.replicas`. */
interface Scalable extends KubeObject {
  spec?: { replicas?: number };
}

type IntOrString = number | string;

/**
 * The disruption controller (`pkg/controller/disruption/disruption.go`): keeps each PodDisruptionBudget's status —
 * `expectedPods`, `desiredHealthy`, `currentHealthy`, `disruptionsAllowed`, `disruptedPods`, `observedGeneration` and
 * the `DisruptionAllowed` condition (`SufficientPods` / `InsufficientPods`, `SyncFailed` when the expected scale cannot
 * be found, with no disruption allowed — `failSafe`).
 *
 * - `getExpectedPodCount`: an integer `minAvailable` wants that many healthy pods of the pods selected; a percentage
 *   `minAvailable` or any `maxUnavailable` is taken of the expected scale, the sum of `spec.replicas` of the selected
 *   pods' controllers (a ReplicaSet owned by a Deployment counts with the Deployment's replicas), each counted once.
 *   Pods without a controller are left out and reported with an `UnmanagedPods` warning (upstream's behaviour since
 *   1.27, not an error).
 * - `countHealthyPods`: ready pods, not being deleted, not in `disruptedPods` (unless their deletion deadline passed).
 * - `disruptionsAllowed = currentHealthy − desiredHealthy`, never below 0, and 0 with no expected pods.
 *
 * Differences from kube-controller-manager: a controller's scale is read only from the built-in kinds above (no
 * generic `/scale` lookup of custom resources; a pod owned by another kind makes the budget `SyncFailed`), and the
 * stale `DisruptionTarget` pod-condition cleanup is not done.
 */
export class DisruptionController {
  readonly controller: Controller;
  private readonly scales: ReadonlyMap<string, SharedIndexInformer<KubeObject>>;

  constructor(private readonly o: DisruptionControllerOptions) {
    this.scales = new Map(o.scales.map((s) => [s.kind, s.informer]));
    const podHandler = {
      create: (p: KubeObject) => this.budgetsFor(p as Pod),
      update: (old: KubeObject, cur: KubeObject) => [...this.budgetsFor(cur as Pod), ...this.budgetsFor(old as Pod)],
      delete: (p: KubeObject) => this.budgetsFor(p as Pod),
    };
    // A change of a controller's replicas changes the expected scale of every budget in its namespace.
    const scaleHandler = {
      create: (x: KubeObject) => this.budgetsIn(x.metadata?.namespace ?? ""),
      update: (old: KubeObject, cur: KubeObject) =>
        (old as Scalable).spec?.replicas === (cur as Scalable).spec?.replicas
          ? []
          : this.budgetsIn(cur.metadata?.namespace ?? ""),
      delete: (x: KubeObject) => this.budgetsIn(x.metadata?.namespace ?? ""),
    };
    this.controller = new Controller({
      ...(o.logger !== undefined && { logger: o.logger }),
      name: "disruption",
      reconciler: (req) => this.sync(req),
      watches: [
        { informer: o.budgets as never, handler: selfHandler, name: "poddisruptionbudgets" },
        { informer: o.pods as never, handler: podHandler, name: "pods" },
        ...o.scales.map((s) => ({ informer: s.informer as never, handler: scaleHandler, name: s.kind })),
      ],
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** `getPdbForPod`: the budgets of the pod's namespace whose selector matches its labels. */
  private budgetsFor(pod: Pod): Request[] {
    const ns = pod.metadata?.namespace ?? "";
    const labels = pod.metadata?.labels ?? {};
    return (this.o.budgets.getIndexer().byIndex("namespace", ns) as PodDisruptionBudget[])
      .filter((b) => b.spec?.selector != null && labelSelectorAsSelector(b.spec.selector as never).matches(labels))
      .map(requestOf);
  }

  private budgetsIn(ns: string): Request[] {
    return (this.o.budgets.getIndexer().byIndex("namespace", ns) as PodDisruptionBudget[]).map(requestOf);
  }

  /**
   * `getPodsForPdb`: the pods of the budget's namespace its selector matches — none for an absent selector, all for
   * an empty one (policy/v1).
   */
  private podsFor(pdb: PodDisruptionBudget): Pod[] {
    const sel = pdb.spec?.selector;
    if (sel == null) return [];
    const selector = labelSelectorAsSelector(sel as never);
    return (this.o.pods.getIndexer().byIndex("namespace", pdb.metadata?.namespace ?? "") as Pod[]).filter((p) =>
      selector.matches(p.metadata?.labels ?? {}),
    );
  }

  /**
   * `getExpectedScale`: the sum of the selected pods' controllers' `spec.replicas`, each controller once, and the
   * pods without a controller. Throws naming the pod whose controller is not found.
   */
  expectedScale(pdb: PodDisruptionBudget, pods: readonly Pod[]): { scale: number; unmanaged: string[] } {
    const seen = new Map<string, number>();
    const unmanaged: string[] = [];
    for (const pod of pods) {
      const ref = controllerRefOf(pod);
      if (ref === undefined) {
        unmanaged.push(pod.metadata?.name ?? "");
        continue;
      }
      if (seen.has(ref.uid ?? "")) continue;
      const found = this.scaleOf(pod.metadata?.namespace ?? "", ref.kind ?? "", ref.name ?? "", ref.uid ?? "");
      if (found === undefined) {
        throw new Error(
          `found no controllers for pod ${JSON.stringify(pod.metadata?.name)} of PodDisruptionBudget ${JSON.stringify(
            pdb.metadata?.name,
          )} (controller ${ref.kind}/${ref.name})`,
        );
      }
      seen.set(found.uid, found.replicas);
    }
    let scale = 0;
    for (const n of seen.values()) scale += n;
    return { scale, unmanaged };
  }

  /** The `finders`: a controller of `kind` by name and UID, and its replicas (a Deployment's, for its ReplicaSet). */
  private scaleOf(ns: string, kind: string, name: string, uid: string): { uid: string; replicas: number } | undefined {
    const owner = this.scales.get(kind)?.getIndexer().getByKey(`${ns}/${name}`) as Scalable | undefined;
    if (owner === undefined || owner.metadata?.uid !== uid) return undefined;
    if (kind === "ReplicaSet") {
      const d = controllerRefOf(owner);
      if (d?.kind === "Deployment") {
        const dep = this.scaleOf(ns, "Deployment", d.name ?? "", d.uid ?? "");
        if (dep !== undefined) return dep;
      }
    }
    return { uid, replicas: owner.spec?.replicas ?? 1 };
  }

  /** `getExpectedPodCount`, `buildDisruptedPodMap` and `countHealthyPods` of one budget at `nowMs`. */
  counts(pdb: PodDisruptionBudget, pods: readonly Pod[], nowMs: number): BudgetCounts & { unmanaged: string[] } {
    const spec = pdb.spec ?? {};
    let expectedPods: number;
    let desiredHealthy: number;
    let unmanaged: string[] = [];
    const maxUnavailable = spec.maxUnavailable as IntOrString | undefined;
    const minAvailable = spec.minAvailable as IntOrString | undefined;
    if (maxUnavailable !== undefined) {
      ({ scale: expectedPods, unmanaged } = this.expectedScale(pdb, pods));
      desiredHealthy = Math.max(0, expectedPods - scaledValue(maxUnavailable, expectedPods, true));
    } else if (minAvailable !== undefined && typeof minAvailable === "number") {
      expectedPods = pods.length;
      desiredHealthy = minAvailable;
    } else if (minAvailable !== undefined) {
      ({ scale: expectedPods, unmanaged } = this.expectedScale(pdb, pods));
      desiredHealthy = scaledValue(minAvailable, expectedPods, true);
    } else {
      expectedPods = pods.length;
      desiredHealthy = 0;
    }
    const byName = new Map(pods.map((p) => [p.metadata?.name ?? "", p]));
    const disruptedPods: Record<string, string> = {};
    let recheckAtMs: number | undefined;
    const disrupted = (pdb.status?.disruptedPods ?? {}) as Record<string, string>;
    for (const [name, at] of Object.entries(disrupted)) {
      const pod = byName.get(name);
      if (pod === undefined || pod.metadata?.deletionTimestamp != null) continue;
      const deadline = Date.parse(at) + DISRUPTED_POD_DELETION_TIMEOUT_MS;
      if (deadline < nowMs) {
        this.o.recorder?.event(pod, "Warning", "NotDeleted", "Pod was expected by PDB to be deleted but it wasn't");
        continue;
      }
      disruptedPods[name] = at;
      recheckAtMs = recheckAtMs === undefined ? deadline : Math.min(recheckAtMs, deadline);
    }
    let currentHealthy = 0;
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp != null) continue;
      if (disruptedPods[pod.metadata?.name ?? ""] !== undefined) continue;
      if (isPodReady(pod)) currentHealthy++;
    }
    return { expectedPods, desiredHealthy, currentHealthy, disruptedPods, recheckAtMs, unmanaged };
  }

  /** `sync` / `trySync` (with `failSafe` when the expected scale cannot be found). */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const pdb = this.o.budgets.getIndexer().getByKey(`${req.namespace}/${req.name}`) as PodDisruptionBudget | undefined;
    if (pdb === undefined || pdb.metadata?.deletionTimestamp != null) return undefined;
    const nowMs = this.o.clock.now();
    const pods = this.podsFor(pdb);
    if (pods.length === 0) this.o.recorder?.event(pdb, "Normal", "NoPods", "No matching pods found");
    let status: Record<string, unknown>;
    let requeueAfter: number | undefined;
    try {
      const n = this.counts(pdb, pods, nowMs);
      if (n.unmanaged.length > 0) {
        this.o.recorder?.event(
          pdb,
          "Warning",
          "UnmanagedPods",
          `Pods selected by this PodDisruptionBudget (selector: ${JSON.stringify(pdb.spec?.selector)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
        );
      }
      let allowed = n.currentHealthy - n.desiredHealthy;
      if (n.expectedPods <= 0 || allowed <= 0) allowed = 0;
      status = {
        ...(Object.keys(n.disruptedPods).length > 0 && { disruptedPods: n.disruptedPods }),
        disruptionsAllowed: allowed,
        currentHealthy: n.currentHealthy,
        desiredHealthy: n.desiredHealthy,
        expectedPods: n.expectedPods,
        conditions: this.condition(
          pdb,
          allowed > 0 ? "True" : "False",
          allowed > 0 ? "SufficientPods" : "InsufficientPods",
          "",
          nowMs,
        ),
      };
      if (n.recheckAtMs !== undefined) requeueAfter = Math.max(0, n.recheckAtMs - nowMs) + 1;
    } catch (err) {
      const message = (err as Error).message;
      this.o.recorder?.event(
        pdb,
        "Warning",
        "CalculateExpectedPodCountFailed",
        `Failed to calculate the number of expected pods: ${message}`,
      );
      status = {
        ...pdb.status,
        disruptionsAllowed: 0,
        conditions: this.condition(pdb, "False", "SyncFailed", message, nowMs),
      };
    }
    status.observedGeneration = pdb.metadata?.generation ?? 0;
    const { observedGeneration: _o, ...was } = (pdb.status ?? {}) as Record<string, unknown>;
    if (was.disruptedPods !== undefined && Object.keys(was.disruptedPods as object).length === 0)
      delete was.disruptedPods;
    const { observedGeneration: _n, ...now } = status;
    if ((pdb.status?.observedGeneration ?? 0) === status.observedGeneration && same(was, now)) {
      return requeueAfter === undefined ? undefined : { requeueAfter };
    }
    try {
      await this.o.client.updateStatus(resources.podDisruptionBudgets, { ...pdb, status } as PodDisruptionBudget);
    } catch (err) {
      // A stale copy or a deleted budget: the informer's event syncs again.
      if (isConflict(err) || isNotFound(err)) return undefined;
      throw err;
    }
    return requeueAfter === undefined ? undefined : { requeueAfter };
  }

  /** `apimeta.SetStatusCondition` of `DisruptionAllowed`: the transition time kept while the status does not change. */
  private condition(pdb: PodDisruptionBudget, status: string, reason: string, message: string, nowMs: number) {
    const others = (pdb.status?.conditions ?? []).filter((c) => c.type !== DISRUPTION_ALLOWED_CONDITION);
    const prev = (pdb.status?.conditions ?? []).find((c) => c.type === DISRUPTION_ALLOWED_CONDITION);
    const lastTransitionTime = prev !== undefined && prev.status === status ? prev.lastTransitionTime : rfc3339(nowMs);
    return [
      ...others,
      {
        type: DISRUPTION_ALLOWED_CONDITION,
        status,
        reason,
        message,
        observedGeneration: pdb.metadata?.generation ?? 0,
        lastTransitionTime,
      },
    ];
  }
}

/** Structural equality of two JSON values (key order ignored). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
