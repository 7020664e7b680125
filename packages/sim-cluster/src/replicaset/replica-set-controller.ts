import { isNotFound, type KubeObject, labelSelectorAsSelector, selectorFromSet } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type KubeClient, type Pod, type ResourceDescriptor, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type EventRecorder, type Request } from "@informer-ts/controller";
import type { MetricsProvider } from "@informer-ts/instrumentation";
import { type Logger, safeLog } from "@informer-ts/instrumentation";
import { addControllerUIDIndexer, filterByOwner } from "../internal/controller-uid-index.js";
import { isPodActive, isPodAvailable, isPodReady, keyOf, rfc3339 } from "../internal/pod-util.js";
import { getPodsToDelete } from "./active-pods.js";
import { UIDTrackingControllerExpectations } from "./controller-expectations.js";
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from "./slow-start.js";

/** `BurstReplicas`: at most this many pods are created or deleted in one sync. */
export const BURST_REPLICAS = 500;

/** What the controller reads of a ReplicaSet or ReplicationController (both have this shape; the status as {@link ReplicaOwnerStatus}). */
export interface ReplicaOwner extends KubeObject {
  spec?: {
    replicas?: number;
    minReadySeconds?: number;
    selector?: unknown;
    template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown };
  };
  status?: ReplicaOwnerStatus;
}

/** `ReplicaSetStatus` (and `ReplicationControllerStatus`). */
export interface ReplicaOwnerStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
}

/** Which kind a {@link ReplicaSetController} manages: ReplicaSets (`apps/v1`) or ReplicationControllers (`v1`). */
export interface ReplicaKind {
  readonly resource: ResourceDescriptor<unknown>;
  /** `apiVersion` and `kind` of the owner references it writes. */
  readonly apiVersion: string;
  readonly kind: string;
  /** The controller name (metrics, events): `replicaset-controller` / `replication-controller`. */
  readonly controllerName: string;
  /** The selector of an owner: a `LabelSelector` for ReplicaSets, a label map for ReplicationControllers. */
  readonly selectorOf: (owner: ReplicaOwner) => { matches(labels: Record<string, string> | undefined): boolean };
}

/** ReplicaSets. */
export const REPLICA_SETS: ReplicaKind = {
  resource: resources.replicaSets,
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  controllerName: "replicaset-controller",
  selectorOf: (rs) => labelSelectorAsSelector(rs.spec?.selector as never),
};

/** ReplicationControllers: the same controller with a map selector (`pkg/controller/replication`). */
export const REPLICATION_CONTROLLERS: ReplicaKind = {
  resource: resources.replicationControllers,
  apiVersion: "v1",
  kind: "ReplicationController",
  controllerName: "replication-controller",
  selectorOf: (rc) => {
    const sel = (rc.spec?.selector ?? rc.spec?.template?.metadata?.labels) as Record<string, string> | undefined;
    return sel === undefined || Object.keys(sel).length === 0 ? { matches: () => false } : selectorFromSet(sel);
  },
};

/** Options of a {@link ReplicaSetController}. */
export interface ReplicaSetControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly owners: SharedIndexInformer<KubeObject>;
  readonly pods: SharedIndexInformer<Pod>;
  readonly kind?: ReplicaKind;
  readonly recorder?: EventRecorder;
  readonly metrics?: MetricsProvider;
  /** Workers (`ConcurrentRSSyncs`, default 5). */
  readonly workers?: number;
  readonly burstReplicas?: number;
}

function ownerRefOf(pod: KubeObject): { kind?: string; name?: string; uid?: string; apiVersion?: string } | undefined {
  return pod.metadata?.ownerReferences?.find((r) => r?.controller === true);
}

/**
 * The ReplicaSet controller (`pkg/controller/replicaset/replica_set.go`; with {@link REPLICATION_CONTROLLERS} the
 * ReplicationController manager, which upstream is the same code): keeps `spec.replicas` active pods for each owner.
 *
 * - Pod events resolve the pod's controller reference (by name and UID) and lower the owner's expectations: a created
 *   pod observes one creation, a deleted (or deleting) pod one deletion, each pod once (`UIDTrackingControllerExpectations`).
 *   An orphan enqueues every owner whose selector matches it, for adoption.
 * - A sync lists the namespace's active pods from the informer, claims them (`PodControllerRefManager`: adopts matching
 *   orphans by patching an owner reference, releases owned pods that no longer match), and — only when the
 *   expectations are satisfied and the owner is not being deleted — creates the missing pods in slow-start batches
 *   (`generateName: <owner>-`, the template's labels, annotations and spec, a controller reference) or deletes the
 *   surplus, ranked by `getPodsToDelete`, at most `burstReplicas` at a time, with `SuccessfulCreate`/`SuccessfulDelete`
 *   events.
 * - Then the status is computed (`replicas`, `fullyLabeledReplicas`, `readyReplicas`, `availableReplicas` with
 *   `minReadySeconds`, `observedGeneration`, the `ReplicaFailure` condition on a failed create or delete) and written
 *   through `/status` when it changed (one retry with a fresh read on failure); an owner with `minReadySeconds` whose
 *   pods are ready but not yet available is synced again after `minReadySeconds`.
 *
 * Built on this project's {@link Controller} (work queue with the default controller rate limiter, `workers`
 * concurrent syncs, never two of one key). Differences from kube-controller-manager: adoption checks the cached owner
 * (no quorum read); no `terminatingReplicas`; no `ReplicaSetReplicasSyncDuration` metrics.
 */
export class ReplicaSetController {
  readonly controller: Controller;
  readonly expectations: UIDTrackingControllerExpectations;
  private readonly kind: ReplicaKind;
  private readonly burst: number;

  constructor(private readonly o: ReplicaSetControllerOptions) {
    this.kind = o.kind ?? REPLICA_SETS;
    this.burst = o.burstReplicas ?? BURST_REPLICAS;
    this.expectations = new UIDTrackingControllerExpectations(o.clock);
    addControllerUIDIndexer(o.pods);
    const ownerHandler: EventHandler<KubeObject> = {
      create: (obj) => [requestOf(obj)],
      update: (_old, cur) => [requestOf(cur)],
      delete: (obj) => {
        this.expectations.deleteExpectations(keyOf(obj));
        return [requestOf(obj)];
      },
    };
    const podHandler: EventHandler<KubeObject> = {
      create: (obj) => this.addPod(obj as Pod),
      update: (old, cur) => this.updatePod(old as Pod, cur as Pod),
      delete: (obj) => this.deletePod(obj as Pod),
    };
    this.controller = new Controller({
      logger: o.logger,
      name: this.kind.controllerName,
      reconciler: (req) => this.sync(req),
      watches: [
        { informer: o.owners, handler: ownerHandler, keyFallback: true, name: this.kind.kind },
        { informer: o.pods as unknown as SharedIndexInformer<KubeObject>, handler: podHandler, name: "pods" },
      ],
      maxConcurrentReconciles: o.workers ?? 5,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** Runs the controller until `signal` aborts (see `Controller.run`). */
  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private resolveControllerRef(ns: string, ref: { kind?: string; name?: string; uid?: string } | undefined) {
    if (ref === undefined || ref.kind !== this.kind.kind) return undefined;
    const owner = this.o.owners.getIndexer().getByKey(`${ns}/${ref.name ?? ""}`) as ReplicaOwner | undefined;
    if (owner === undefined || owner.metadata?.uid !== ref.uid) return undefined;
    return owner;
  }

  /** `getPodReplicaSets`: the owners whose selector matches an orphan pod. */
  private ownersMatching(pod: Pod): ReplicaOwner[] {
    const ns = pod.metadata?.namespace ?? "";
    const out: ReplicaOwner[] = [];
    for (const owner of this.o.owners.getIndexer().byIndex("namespace", ns) as ReplicaOwner[]) {
      if (this.kind.selectorOf(owner).matches(pod.metadata?.labels)) out.push(owner);
    }
    return out;
  }

  private addPod(pod: Pod): readonly Request[] {
    if (pod.metadata?.deletionTimestamp != null) return this.deletePod(pod);
    const ns = pod.metadata?.namespace ?? "";
    const ref = ownerRefOf(pod);
    if (ref !== undefined) {
      const owner = this.resolveControllerRef(ns, ref);
      if (owner === undefined) return [];
      this.expectations.creationObserved(keyOf(owner));
      return [requestOf(owner)];
    }
    return this.ownersMatching(pod).map(requestOf);
  }

  private updatePod(old: Pod, cur: Pod): readonly Request[] {
    if (cur.metadata?.resourceVersion === old.metadata?.resourceVersion) return [];
    const labelChanged = JSON.stringify(cur.metadata?.labels ?? {}) !== JSON.stringify(old.metadata?.labels ?? {});
    if (cur.metadata?.deletionTimestamp != null) {
      const out = [...this.deletePod(cur)];
      if (labelChanged) out.push(...this.deletePod(old));
      return out;
    }
    const ns = cur.metadata?.namespace ?? "";
    const curRef = ownerRefOf(cur);
    const oldRef = ownerRefOf(old);
    const out: Request[] = [];
    const refChanged = curRef?.uid !== oldRef?.uid;
    if (refChanged && oldRef !== undefined) {
      const owner = this.resolveControllerRef(ns, oldRef);
      if (owner !== undefined) out.push(requestOf(owner));
    }
    if (curRef !== undefined) {
      const owner = this.resolveControllerRef(ns, curRef);
      if (owner === undefined) return out;
      out.push(requestOf(owner));
      const minReady = owner.spec?.minReadySeconds ?? 0;
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) {
        // enqueueAfter(minReadySeconds + 1s): the pod becomes available then.
        this.o.clock.afterFunc(minReady * 1000 + 1000, () => this.controller.enqueue(requestOf(owner)));
      }
      return out;
    }
    if (labelChanged || refChanged) out.push(...this.ownersMatching(cur).map(requestOf));
    return out;
  }

  private deletePod(pod: Pod): readonly Request[] {
    const ns = pod.metadata?.namespace ?? "";
    const owner = this.resolveControllerRef(ns, ownerRefOf(pod));
    if (owner === undefined) return [];
    const key = keyOf(owner);
    this.expectations.deletionObservedOf(key, keyOf(pod));
    return [requestOf(owner)];
  }

  /** `syncReplicaSet`. */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const key = `${req.namespace}/${req.name}`;
    const owner = this.o.owners.getIndexer().getByKey(key) as ReplicaOwner | undefined;
    if (owner === undefined) {
      this.expectations.deleteExpectations(key);
      return undefined;
    }
    const needsSync = this.expectations.satisfiedExpectations(key);
    const selector = this.kind.selectorOf(owner);
    // syncReplicaSet reads the owner's pods and the namespace's orphans through the controller-uid index.
    const active = filterByOwner(this.o.pods, owner, true).filter(isPodActive);
    const filtered = await this.claimPods(owner, selector, active);
    let manageErr: unknown;
    if (needsSync && owner.metadata?.deletionTimestamp == null) {
      try {
        await this.manageReplicas(filtered, owner, key);
      } catch (err) {
        manageErr = err;
      }
    }
    const updated = await this.updateStatus(owner, this.calculateStatus(owner, filtered, manageErr));
    const minReady = owner.spec?.minReadySeconds ?? 0;
    const replicas = owner.spec?.replicas ?? 1;
    if (manageErr !== undefined) throw manageErr;
    if (
      updated !== undefined &&
      minReady > 0 &&
      updated.readyReplicas === replicas &&
      updated.availableReplicas !== replicas
    ) {
      return { requeueAfter: minReady * 1000 };
    }
    return undefined;
  }

  /** `ClaimPods` of `PodControllerRefManager`: adopt matching orphans, release owned pods that stopped matching. */
  private async claimPods(
    owner: ReplicaOwner,
    selector: { matches(labels: Record<string, string> | undefined): boolean },
    pods: Pod[],
  ): Promise<Pod[]> {
    const uid = owner.metadata?.uid;
    const claimed: Pod[] = [];
    const ns = owner.metadata?.namespace ?? "";
    for (const pod of pods) {
      const ref = ownerRefOf(pod);
      const matches = selector.matches(pod.metadata?.labels);
      if (ref !== undefined) {
        if (ref.uid !== uid) continue;
        if (matches) {
          claimed.push(pod);
          continue;
        }
        if (owner.metadata?.deletionTimestamp != null) continue;
        const rest = (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
        await this.patchOwners(ns, pod, rest.length === 0 ? null : rest);
        continue;
      }
      if (!matches || owner.metadata?.deletionTimestamp != null || pod.metadata?.deletionTimestamp != null) continue;
      const refs = [...(pod.metadata?.ownerReferences ?? []), this.controllerRef(owner)];
      if (await this.patchOwners(ns, pod, refs)) claimed.push(pod);
    }
    return claimed;
  }

  private async patchOwners(ns: string, pod: Pod, refs: unknown[] | null): Promise<boolean> {
    try {
      await this.o.client.patch(
        resources.pods,
        pod.metadata?.name ?? "",
        { metadata: { ownerReferences: refs, uid: pod.metadata?.uid } },
        { namespace: ns },
      );
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private controllerRef(owner: ReplicaOwner) {
    return {
      apiVersion: this.kind.apiVersion,
      kind: this.kind.kind,
      name: owner.metadata?.name ?? "",
      uid: owner.metadata?.uid ?? "",
      controller: true,
      blockOwnerDeletion: true,
    };
  }

  /** `manageReplicas`: create or delete pods to reach `spec.replicas`. */
  private async manageReplicas(filtered: Pod[], owner: ReplicaOwner, key: string): Promise<void> {
    const want = owner.spec?.replicas ?? 1;
    let diff = filtered.length - want;
    const ns = owner.metadata?.namespace ?? "";
    const name = owner.metadata?.name ?? "";
    if (diff < 0) {
      diff = Math.min(-diff, this.burst);
      this.expectations.expectCreations(key, diff);
      const template = owner.spec?.template ?? {};
      const { successes, error } = await slowStartBatch(diff, SLOW_START_INITIAL_BATCH_SIZE, async () => {
        const pod = {
          apiVersion: "v1",
          kind: "Pod",
          metadata: {
            generateName: `${name}-`,
            namespace: ns,
            labels: { ...template.metadata?.labels },
            ...(template.metadata?.annotations !== undefined && { annotations: { ...template.metadata.annotations } }),
            ownerReferences: [this.controllerRef(owner)],
          },
          spec: structuredClone(template.spec ?? {}),
        } as Pod;
        try {
          const created = await this.o.client.create(resources.pods, pod, { namespace: ns });
          this.o.recorder?.event(owner, "Normal", "SuccessfulCreate", `Created pod: ${created.metadata?.name ?? ""}`);
        } catch (err) {
          this.o.recorder?.event(
            owner,
            "Warning",
            "FailedCreate",
            `Error creating: ${String((err as Error).message ?? err)}`,
          );
          throw err;
        }
      });
      // Pods never created are never observed: lower the expectations by what was skipped.
      const skipped = diff - successes;
      for (let i = 0; i < skipped; i++) this.expectations.creationObserved(key);
      if (error !== undefined) throw error;
      return;
    }
    if (diff > 0) {
      diff = Math.min(diff, this.burst);
      const victims = getPodsToDelete(filtered, filtered, diff, this.o.clock.now());
      this.expectations.expectDeletionsOf(key, victims.map(keyOf));
      const results = await Promise.allSettled(
        victims.map(async (pod) => {
          try {
            await this.o.client.delete(resources.pods, pod.metadata?.name ?? "", { namespace: ns });
            this.o.recorder?.event(owner, "Normal", "SuccessfulDelete", `Deleted pod: ${pod.metadata?.name ?? ""}`);
          } catch (err) {
            // The informer will not observe this deletion.
            this.expectations.deletionObservedOf(key, keyOf(pod));
            if (!isNotFound(err)) {
              this.o.recorder?.event(
                owner,
                "Warning",
                "FailedDelete",
                `Error deleting: ${String((err as Error).message)}`,
              );
              throw err;
            }
          }
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed !== undefined) throw failed.reason;
    }
  }

  /** `calculateStatus`. */
  calculateStatus(owner: ReplicaOwner, filtered: readonly Pod[], manageErr: unknown): ReplicaOwnerStatus {
    const status: ReplicaOwnerStatus = { ...owner.status };
    const templateLabels = selectorFromSet(owner.spec?.template?.metadata?.labels ?? {});
    const minReady = owner.spec?.minReadySeconds ?? 0;
    const now = this.o.clock.now();
    let fully = 0;
    let ready = 0;
    let available = 0;
    for (const pod of filtered) {
      if (templateLabels.matches(pod.metadata?.labels)) fully++;
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, minReady, now)) available++;
      }
    }
    const conditions = [...(status.conditions ?? [])];
    const i = conditions.findIndex((c) => c.type === "ReplicaFailure");
    if (manageErr !== undefined && i < 0) {
      const reason = filtered.length - (owner.spec?.replicas ?? 1) < 0 ? "FailedCreate" : "FailedDelete";
      conditions.push({
        type: "ReplicaFailure",
        status: "True",
        reason,
        message: String((manageErr as Error).message ?? manageErr),
        lastTransitionTime: rfc3339(now),
      });
    } else if (manageErr === undefined && i >= 0) conditions.splice(i, 1);
    const out: ReplicaOwnerStatus = {
      ...status,
      replicas: filtered.length,
      fullyLabeledReplicas: fully,
      readyReplicas: ready,
      availableReplicas: available,
    };
    if (conditions.length > 0) out.conditions = conditions;
    else delete out.conditions;
    return out;
  }

  /** `updateReplicaSetStatus`: writes when anything (or the observed generation) changed; one retry. */
  private async updateStatus(owner: ReplicaOwner, status: ReplicaOwnerStatus): Promise<ReplicaOwnerStatus | undefined> {
    const gen = owner.metadata?.generation;
    const cur = owner.status ?? {};
    const same =
      (cur.replicas ?? 0) === (status.replicas ?? 0) &&
      (cur.fullyLabeledReplicas ?? 0) === (status.fullyLabeledReplicas ?? 0) &&
      (cur.readyReplicas ?? 0) === (status.readyReplicas ?? 0) &&
      (cur.availableReplicas ?? 0) === (status.availableReplicas ?? 0) &&
      cur.observedGeneration === gen &&
      JSON.stringify(cur.conditions ?? []) === JSON.stringify(status.conditions ?? []);
    if (same) return status;
    let target: ReplicaOwner = owner;
    for (let attempt = 0; ; attempt++) {
      try {
        const next = { ...target, status: { ...status, observedGeneration: target.metadata?.generation } };
        const written = (await this.o.client.updateStatus(this.kind.resource as never, next)) as ReplicaOwner;
        return written.status;
      } catch (err) {
        if (attempt >= 1 || isNotFound(err)) {
          safeLog(this.o.logger, "debug", "status update failed", {
            controller: this.kind.controllerName,
            key: keyOf(owner),
            err,
          });
          if (isNotFound(err)) return undefined;
          throw err;
        }
        target = (await this.o.client.get(this.kind.resource as never, owner.metadata?.name ?? "", {
          namespace: owner.metadata?.namespace ?? "",
        })) as ReplicaOwner;
      }
    }
  }
}

function requestOf(obj: KubeObject): Request {
  return { namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "" };
}
