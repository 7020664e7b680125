import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  type KubeObject,
  labelSelectorAsSelector,
} from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import {
  customResource,
  type KubeClient,
  type PersistentVolumeClaim,
  type Pod,
  type ResourceDescriptor,
  resources,
  type StatefulSet,
} from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventRecorder, type Request } from "@informer-ts/controller";
import { type Logger, type MetricsProvider, safeLog } from "@informer-ts/instrumentation";
import {
  controllerRefOf,
  newControllerRef,
  ownedHandler,
  requestOf,
  resolveControllerRef,
  selfHandler,
} from "../internal/controller-ref.js";
import { isPodAvailable, keyOf } from "../internal/pod-util.js";
import { claimOwnerRefsForSetAndPod, isClaimOwnerUpToDate } from "./claim-retention.js";
import {
  applyRevision,
  type ControllerRevision,
  createsFromCurrent,
  equalRevision,
  getOrdinal,
  getPersistentVolumeClaimName,
  getPodRevision,
  getStartOrdinal,
  getStatefulSetMaxUnavailable,
  isFinished,
  isRunningAndReady,
  isTerminating,
  newRevision,
  newStatefulSetPod,
  nextRevision,
  setSpecOf,
} from "./stateful-set-utils.js";

/** `controllerrevisions.apps`, which the client's built-in table does not list. */
export const CONTROLLER_REVISIONS: ResourceDescriptor<ControllerRevision> = customResource<ControllerRevision>({
  group: "apps",
  version: "v1",
  resource: "controllerrevisions",
  kind: "ControllerRevision",
});

/** `apps/v1` `StatefulSetStatus` as the controller writes it. */
export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
}

/** Options of a {@link StatefulSetController}. */
export interface StatefulSetControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly sets: SharedIndexInformer<StatefulSet>;
  readonly pods: SharedIndexInformer<Pod>;
  readonly revisions: SharedIndexInformer<ControllerRevision>;
  /**
   * The PersistentVolumeClaims: with them the controller keeps each claim's owner references to the
   * `persistentVolumeClaimRetentionPolicy` and waits for a claim still being deleted before re-creating its pod.
   */
  readonly claims?: SharedIndexInformer<PersistentVolumeClaim>;
  readonly recorder?: EventRecorder;
  readonly metrics?: MetricsProvider;
  /** `ConcurrentStatefulSetSyncs` (default 5). */
  readonly workers?: number;
  /**
   * The `MaxUnavailableStatefulSet` feature gate: `rollingUpdate.maxUnavailable` is honoured. Default false, as in
   * Kubernetes 1.34 (alpha since 1.24, beta and on by default from 1.35).
   */
  readonly maxUnavailableStatefulSet?: boolean;
}

/**
 * The StatefulSet controller (`pkg/controller/statefulset/stateful_set.go` and `stateful_set_control.go`'s
 * `defaultStatefulSetControl`): each set keeps `replicas` pods with stable names `<set>-<ordinal>`.
 *
 * - Revisions: the set's template as a `ControllerRevision` (`<set>-<hash>`; an equal older revision is re-numbered
 *   instead of duplicated; a name taken by other data bumps `status.collisionCount`). `currentRevision` is the revision
 *   the pods came from, `updateRevision` the template's; the oldest revisions no pod uses are deleted beyond
 *   `revisionHistoryLimit` (default 10).
 * - `OrderedReady` (default): ordinals are created one at a time, each only once its predecessors are Running and
 *   Ready; the surplus is deleted from the highest ordinal down, one at a time, only while all others are healthy.
 *   `Parallel`: all missing pods are created and all condemned ones deleted at once. Failed or Succeeded pods are
 *   deleted and re-created with the same name.
 * - Pods get the identity labels, `hostname`/`subdomain`, and for each `volumeClaimTemplates` entry a claim
 *   `<template>-<set>-<ordinal>` created as an object (nothing binds it; the pod mounts it by name).
 * - `RollingUpdate` (default): from the highest ordinal down to `partition`, the first pod not of the update revision
 *   is deleted (re-created from it by the next sync), waiting for each to be healthy again; `OnDelete` only creates
 *   replaced pods from the update revision. Once every pod is updated and ready, `currentRevision` becomes the
 *   update revision.
 * - Status: `replicas`, `readyReplicas`, `availableReplicas` (with `minReadySeconds`), `currentReplicas`,
 *   `updatedReplicas`, both revisions, `collisionCount`, `observedGeneration`, written through `/status` on change.
 *
 * - `spec.ordinals.start`: ordinals run from `start` to `start + replicas − 1`; pods outside that range are condemned
 *   (from the highest ordinal down), and the partition counts from `start`.
 * - `rollingUpdate.maxUnavailable` behind the `MaxUnavailableStatefulSet` gate (off by default, as in 1.34): while
 *   fewer than that many pods of the range (a percentage rounded down, at least 1) are unavailable, the highest
 *   ordinals not of the update revision are deleted together, up to the difference.
 *
 * - `persistentVolumeClaimRetentionPolicy` (with the claims informer; {@link isClaimOwnerUpToDate}): each claim
 *   gets a controller reference to the set (`whenDeleted: Delete`) or, once its pod is out of range, to that pod
 *   (`whenScaled: Delete`), so that the garbage collector deletes it with its owner; a pod waits for a claim of its
 *   ordinal that is still being deleted.
 *
 * - Pods are claimed by selector and name (`claimPods`): matching orphans named `<set>-<ordinal>` are adopted,
 *   controlled pods that no longer match are released.
 *
 * Differences from kube-controller-manager: no claim adoption; claim owners are fixed for every pod on each sync rather than in the ordered walk.
 */
export class StatefulSetController {
  readonly controller: Controller;

  constructor(private readonly o: StatefulSetControllerOptions) {
    const owned = ownedHandler((obj) => this.ownerOf(obj));
    // addPod/updatePod: an orphan also wakes the sets that may adopt it (`getPodStatefulSets`).
    const podHandler = {
      create: (obj: KubeObject) => [...owned.create(obj), ...this.adoptersOf(obj as Pod)],
      update: (old: KubeObject, cur: KubeObject) => [...owned.update(old, cur), ...this.adoptersOf(cur as Pod)],
      delete: (obj: KubeObject) => owned.delete(obj),
    };
    this.controller = new Controller({
      logger: o.logger,
      name: "statefulset-controller",
      reconciler: (req) => this.sync(req),
      watches: [
        {
          informer: o.sets as unknown as SharedIndexInformer<KubeObject>,
          handler: selfHandler,
          keyFallback: true,
          name: "StatefulSet",
        },
        { informer: o.pods as unknown as SharedIndexInformer<KubeObject>, handler: podHandler as never, name: "pods" },
        {
          informer: o.revisions as unknown as SharedIndexInformer<KubeObject>,
          handler: owned,
          name: "revisions",
        },
      ],
      maxConcurrentReconciles: o.workers ?? 5,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** Runs the controller until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private ownerOf(obj: KubeObject): Request[] {
    const set = resolveControllerRef<StatefulSet>(
      (k) => this.o.sets.getIndexer().getByKey(k),
      "StatefulSet",
      obj.metadata?.namespace ?? "",
      controllerRefOf(obj),
    );
    return set === undefined ? [] : [requestOf(set)];
  }

  /** The sets of an orphan's namespace whose selector matches it and whose name is its parent's (`isMemberOf`). */
  private adoptersOf(pod: Pod): Request[] {
    if (controllerRefOf(pod) !== undefined || pod.metadata?.deletionTimestamp != null) return [];
    return (this.o.sets.getIndexer().byIndex("namespace", pod.metadata?.namespace ?? "") as StatefulSet[])
      .filter((set) => this.claimable(set, pod))
      .map(requestOf);
  }

  /** `isMemberOf` and the set's selector: the pod is named `<set>-<ordinal>` and has the selected labels. */
  private claimable(set: StatefulSet, pod: Pod): boolean {
    const sel = set.spec?.selector;
    if (sel == null) return false;
    const selector = labelSelectorAsSelector(sel as never);
    if (selector.empty() || !selector.matches(pod.metadata?.labels ?? {})) return false;
    const m = /^(.*)-(\d+)$/.exec(pod.metadata?.name ?? "");
    return m !== null && m[1] === set.metadata?.name;
  }

  /**
   * `getPodsForStatefulSet` with `ClaimPods` (`pkg/controller/controller_ref_manager.go`): the set's pods that still
   * match it, plus the matching orphans named after it, adopted (a controller reference patched on, the pod's UID as
   * precondition); a controlled pod that no longer matches is released.
   */
  private async claimPods(set: StatefulSet): Promise<Pod[]> {
    const uid = set.metadata?.uid;
    const out: Pod[] = [];
    for (const p of this.o.pods.getIndexer().byIndex("namespace", set.metadata?.namespace ?? "") as Pod[]) {
      const ref = controllerRefOf(p);
      if (ref !== undefined) {
        if (ref.uid !== uid) continue;
        if (this.claimable(set, p)) {
          out.push(p);
          continue;
        }
        const rest = (p.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
        await this.patchPod(p, {
          metadata: { ownerReferences: rest.length === 0 ? null : rest, uid: p.metadata?.uid },
        });
        continue;
      }
      if (p.metadata?.deletionTimestamp != null || !this.claimable(set, p)) continue;
      const adopted = await this.patchPod(p, {
        metadata: {
          ownerReferences: [...(p.metadata?.ownerReferences ?? []), newControllerRef(set, "apps/v1", "StatefulSet")],
          uid: p.metadata?.uid,
        },
      });
      if (adopted !== undefined) out.push(adopted);
    }
    return out;
  }

  private async patchPod(p: Pod, body: unknown): Promise<Pod | undefined> {
    try {
      return await this.o.client.patch(resources.pods, p.metadata?.name ?? "", body, {
        namespace: p.metadata?.namespace ?? "",
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private owned<T extends KubeObject>(informer: SharedIndexInformer<T>, set: StatefulSet): T[] {
    const uid = set.metadata?.uid;
    return (informer.getIndexer().byIndex("namespace", set.metadata?.namespace ?? "") as T[]).filter(
      (o) => controllerRefOf(o)?.uid === uid,
    );
  }

  /** `sync` → `UpdateStatefulSet` → `performUpdate`. */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const set = this.o.sets.getIndexer().getByKey(`${req.namespace}/${req.name}`) as StatefulSet | undefined;
    if (set === undefined || set.metadata?.deletionTimestamp != null) return undefined;
    const revisions = this.owned(this.o.revisions, set).sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
    const { current, update, collisionCount } = await this.getRevisions(set, revisions);
    const pods = await this.claimPods(set);
    const status = await this.updateStatefulSet(set, current, update, collisionCount, pods);
    await this.writeStatus(set, status);
    await this.truncateHistory(set, pods, revisions, current, update);
    const minReady = setSpecOf(set).minReadySeconds ?? 0;
    if (minReady > 0 && status.readyReplicas !== status.availableReplicas) return { requeueAfter: minReady * 1000 };
    return undefined;
  }

  /** `getStatefulSetRevisions`. */
  private async getRevisions(
    set: StatefulSet,
    revisions: ControllerRevision[],
  ): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    const ns = set.metadata?.namespace ?? "";
    let collisionCount = (set.status as StatefulSetStatus | undefined)?.collisionCount ?? 0;
    const candidate = newRevision(set, nextRevision(revisions), collisionCount);
    const equal = revisions.filter((r) => equalRevision(r, candidate));
    let update: ControllerRevision;
    const last = equal[equal.length - 1];
    if (last !== undefined && last === revisions[revisions.length - 1]) {
      update = last;
    } else if (last !== undefined) {
      // An equal older revision (a rollback): it becomes the newest.
      update = (await this.o.client.patch(
        CONTROLLER_REVISIONS,
        last.metadata?.name ?? "",
        { revision: candidate.revision },
        { namespace: ns },
      )) as ControllerRevision;
    } else {
      for (;;) {
        const attempt = newRevision(set, candidate.revision ?? 1, collisionCount);
        try {
          update = (await this.o.client.create(CONTROLLER_REVISIONS, attempt, { namespace: ns })) as ControllerRevision;
          break;
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          const existing = (await this.o.client.get(CONTROLLER_REVISIONS, attempt.metadata?.name ?? "", {
            namespace: ns,
          })) as ControllerRevision;
          if (equalRevision(existing, attempt) && controllerRefOf(existing)?.uid === set.metadata?.uid) {
            update = existing;
            break;
          }
          collisionCount++;
        }
      }
    }
    const currentName = (set.status as StatefulSetStatus | undefined)?.currentRevision;
    const current = revisions.find((r) => r.metadata?.name === currentName) ?? update;
    return { current, update, collisionCount };
  }

  /** `updateStatefulSet`: one pass of creations, deletions and the rolling update; returns the new status. */
  private async updateStatefulSet(
    set: StatefulSet,
    currentRevision: ControllerRevision,
    updateRevision: ControllerRevision,
    collisionCount: number,
    pods: Pod[],
  ): Promise<StatefulSetStatus> {
    const spec = setSpecOf(set);
    const currentSet = applyRevision(set, currentRevision);
    const updateSet = applyRevision(set, updateRevision);
    const currentName = currentRevision.metadata?.name ?? "";
    const updateName = updateRevision.metadata?.name ?? "";
    const replicaCount = spec.replicas ?? 1;
    const minReady = spec.minReadySeconds ?? 0;
    const now = this.o.clock.now();
    const status: StatefulSetStatus = {
      observedGeneration: set.metadata?.generation ?? 0,
      replicas: 0,
      readyReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      availableReplicas: 0,
      currentRevision: currentName,
      updateRevision: updateName,
      collisionCount,
    };
    const start = getStartOrdinal(set);
    const replicas: (Pod | undefined)[] = new Array(replicaCount).fill(undefined);
    const condemned: Pod[] = [];
    for (const pod of pods) {
      status.replicas++;
      if (isRunningAndReady(pod)) {
        status.readyReplicas++;
        if (isPodAvailable(pod, minReady, now)) status.availableReplicas++;
      }
      if (!isTerminating(pod)) {
        if (getPodRevision(pod) === currentName) status.currentReplicas++;
        if (getPodRevision(pod) === updateName) status.updatedReplicas++;
      }
      // Ordinals run from spec.ordinals.start; a pod outside [start, start + replicas) is condemned.
      const ord = getOrdinal(pod);
      if (ord >= start && ord < start + replicaCount) replicas[ord - start] = pod;
      else if (ord >= 0) condemned.push(pod);
    }
    condemned.sort((a, b) => getOrdinal(b) - getOrdinal(a));
    await this.fixClaimOwners(updateSet, pods);
    const monotonic = spec.podManagementPolicy !== "Parallel";
    const healthy = (p: Pod) => isRunningAndReady(p) && !isTerminating(p) && isPodAvailable(p, minReady, now);
    const done = () => completeRollingUpdate(set, status);

    for (let i = 0; i < replicaCount; i++) {
      const pod = replicas[i];
      if (pod !== undefined && isFinished(pod) && !isTerminating(pod)) {
        await this.deletePod(set, pod);
        if (monotonic) return done();
        continue;
      }
      if (pod === undefined) {
        // `PodClaimIsStale`: a claim of this ordinal still being deleted (a scale-down's) must go first.
        if (this.claimIsStale(set, i + start)) return done();
        const fromCurrent = createsFromCurrent(currentSet, i + start);
        const fresh = newStatefulSetPod(
          fromCurrent ? currentSet : updateSet,
          i + start,
          fromCurrent ? currentName : updateName,
        );
        await this.createPod(set, fresh);
        status.replicas++;
        if (fromCurrent) status.currentReplicas++;
        else status.updatedReplicas++;
        if (monotonic) return done();
        continue;
      }
      if (isTerminating(pod)) {
        if (monotonic) return done();
        continue;
      }
      if (!healthy(pod) && monotonic) return done();
    }
    for (const target of condemned) {
      if (isTerminating(target)) {
        if (monotonic) return done();
        continue;
      }
      if (monotonic) {
        const unhealthy = [...replicas, ...condemned].find((p) => p !== undefined && p !== target && !healthy(p));
        if (unhealthy !== undefined) return done();
      }
      await this.deletePod(set, target);
      if (monotonic) return done();
    }
    if ((spec.updateStrategy?.type ?? "RollingUpdate") !== "RollingUpdate") return done();
    const updateMin = spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    if (this.o.maxUnavailableStatefulSet === true) {
      // `updateStatefulSetAfterInvariantEstablished`: with pods of the range unavailable, only the rest of
      // maxUnavailable may go — the highest ordinals not yet of the update revision first.
      const maxUnavailable = getStatefulSetMaxUnavailable(
        spec.updateStrategy?.rollingUpdate?.maxUnavailable,
        replicaCount,
      );
      const unavailable = replicas.filter((p) => p === undefined || !healthy(p)).length;
      let budget = maxUnavailable - unavailable;
      for (let target = replicaCount - 1; target >= updateMin && budget > 0; target--) {
        const pod = replicas[target];
        if (pod === undefined || getPodRevision(pod) === updateName || isTerminating(pod)) continue;
        await this.deletePod(set, pod);
        status.currentReplicas--;
        budget--;
      }
      return done();
    }
    for (let target = replicaCount - 1; target >= updateMin; target--) {
      const pod = replicas[target];
      if (pod === undefined) continue;
      if (getPodRevision(pod) !== updateName && !isTerminating(pod)) {
        await this.deletePod(set, pod);
        status.currentReplicas--;
        return done();
      }
      if (!healthy(pod)) return done();
    }
    return done();
  }

  /** The claims of `ordinal` in the claim cache (those not there are left out). */
  private cachedClaims(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
    const indexer = this.o.claims?.getIndexer();
    if (indexer === undefined) return [];
    const ns = set.metadata?.namespace ?? "";
    return (setSpecOf(set).volumeClaimTemplates ?? [])
      .map((t) => indexer.getByKey(`${ns}/${getPersistentVolumeClaimName(set, t.metadata?.name ?? "", ordinal)}`))
      .filter((c): c is PersistentVolumeClaim => c !== undefined);
  }

  private claimIsStale(set: StatefulSet, ordinal: number): boolean {
    return this.cachedClaims(set, ordinal).some((c) => c.metadata?.deletionTimestamp != null);
  }

  /**
   * `ClaimsMatchRetentionPolicy` + `UpdatePodClaimForRetentionPolicy` for every pod of the set not being deleted, in
   * range (`processReplica`) or condemned (`fixPodClaim`): claims whose owner references do not match the policy are
   * patched ({@link claimOwnerRefsForSetAndPod}).
   */
  private async fixClaimOwners(set: StatefulSet, pods: readonly Pod[]): Promise<void> {
    if (this.o.claims === undefined || (setSpecOf(set).volumeClaimTemplates ?? []).length === 0) return;
    for (const pod of pods) {
      if (isTerminating(pod)) continue;
      for (const claim of this.cachedClaims(set, getOrdinal(pod))) {
        if (claim.metadata?.deletionTimestamp != null || isClaimOwnerUpToDate(claim, set, pod)) continue;
        try {
          await this.o.client.patch(
            resources.persistentVolumeClaims,
            claim.metadata?.name ?? "",
            {
              metadata: { uid: claim.metadata?.uid, ownerReferences: claimOwnerRefsForSetAndPod(claim, set, pod) },
            },
            { namespace: claim.metadata?.namespace ?? "" },
          );
        } catch (err) {
          if (isNotFound(err)) continue;
          this.failed(set, "update", `Claim ${claim.metadata?.name ?? ""} for Pod ${pod.metadata?.name ?? ""}`, err);
          throw err;
        }
      }
    }
  }

  private async createPod(set: StatefulSet, pod: Pod): Promise<void> {
    const ns = set.metadata?.namespace ?? "";
    const ordinal = getOrdinal(pod);
    for (const t of setSpecOf(set).volumeClaimTemplates ?? []) {
      const claim = getPersistentVolumeClaimName(set, t.metadata?.name ?? "", ordinal);
      const fresh = {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: {
          name: claim,
          namespace: ns,
          labels: {
            ...(setSpecOf(set).selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels,
            ...t.metadata?.labels,
          },
        },
        spec: structuredClone(t.spec ?? {}),
      } as unknown as PersistentVolumeClaim;
      // A new claim of an in-range pod: the set's reference when `whenDeleted` is Delete.
      const owners = claimOwnerRefsForSetAndPod(fresh, set, pod);
      if (owners.length > 0) (fresh.metadata as { ownerReferences?: unknown }).ownerReferences = owners;
      try {
        await this.o.client.create(resources.persistentVolumeClaims, fresh, { namespace: ns });
        this.o.recorder?.event(
          set,
          "Normal",
          "SuccessfulCreate",
          `create Claim ${claim} Pod ${pod.metadata?.name ?? ""} in StatefulSet ${set.metadata?.name ?? ""} success`,
        );
      } catch (err) {
        if (!isAlreadyExists(err)) {
          this.failed(set, "create", `Claim ${claim} for Pod ${pod.metadata?.name ?? ""}`, err);
          throw err;
        }
      }
    }
    try {
      await this.o.client.create(resources.pods, pod, { namespace: ns });
    } catch (err) {
      if (isAlreadyExists(err)) return;
      this.failed(set, "create", `Pod ${pod.metadata?.name ?? ""}`, err);
      throw err;
    }
    this.o.recorder?.event(
      set,
      "Normal",
      "SuccessfulCreate",
      `create Pod ${pod.metadata?.name ?? ""} in StatefulSet ${set.metadata?.name ?? ""} successful`,
    );
  }

  private async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.o.client.delete(resources.pods, pod.metadata?.name ?? "", {
        namespace: pod.metadata?.namespace ?? "",
      });
    } catch (err) {
      if (isNotFound(err)) return;
      this.failed(set, "delete", `Pod ${pod.metadata?.name ?? ""}`, err);
      throw err;
    }
    this.o.recorder?.event(
      set,
      "Normal",
      "SuccessfulDelete",
      `delete Pod ${pod.metadata?.name ?? ""} in StatefulSet ${set.metadata?.name ?? ""} successful`,
    );
  }

  private failed(set: StatefulSet, verb: "create" | "delete" | "update", what: string, err: unknown): void {
    const reason = verb === "create" ? "FailedCreate" : verb === "delete" ? "FailedDelete" : "FailedUpdate";
    const message = `${verb} ${what} in StatefulSet ${set.metadata?.name ?? ""} failed error: ${String((err as Error).message ?? err)}`;
    this.o.recorder?.event(set, "Warning", reason, message);
    safeLog(this.o.logger, "warn", message, { controller: "statefulset-controller", key: keyOf(set) });
  }

  /**
   * `updateStatefulSetStatus`: on change only, retried on a conflict (`RetryOnConflict`) against the set as the
   * server has it now — a status write racing a spec update otherwise fails the sync and waits out a requeue.
   */
  private async writeStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    const cur = (set.status ?? {}) as Partial<StatefulSetStatus>;
    const same = (Object.keys(status) as (keyof StatefulSetStatus)[]).every((k) => (cur[k] ?? 0) === (status[k] ?? 0));
    if (same) return;
    let base = set;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.o.client.updateStatus(resources.statefulSets, {
          ...base,
          status: { ...base.status, ...status },
        } as StatefulSet);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= 4) throw err;
      }
      try {
        base = await this.o.client.get(resources.statefulSets, set.metadata?.name ?? "", {
          namespace: set.metadata?.namespace ?? "",
        });
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      // A newer generation is synced again by its own event: this status is for the older one.
      if ((base.metadata?.generation ?? 0) !== (set.metadata?.generation ?? 0)) return;
    }
  }

  /** `truncateHistory`: deletes the oldest revisions no pod uses, beyond `revisionHistoryLimit`. */
  private async truncateHistory(
    set: StatefulSet,
    pods: readonly Pod[],
    revisions: readonly ControllerRevision[],
    current: ControllerRevision,
    update: ControllerRevision,
  ): Promise<void> {
    const live = new Set([current.metadata?.name, update.metadata?.name, ...pods.map(getPodRevision)]);
    const history = revisions.filter((r) => !live.has(r.metadata?.name));
    const limit = setSpecOf(set).revisionHistoryLimit ?? 10;
    for (const r of history.slice(0, Math.max(0, history.length - limit))) {
      try {
        await this.o.client.delete(CONTROLLER_REVISIONS, r.metadata?.name ?? "", {
          namespace: r.metadata?.namespace ?? "",
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}

/**
 * `completeRollingUpdate`: under `RollingUpdate`, once every pod is of the update revision and ready, the update
 * revision becomes the current one.
 */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): StatefulSetStatus {
  const rolling = (setSpecOf(set).updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate";
  if (rolling && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    return { ...status, currentReplicas: status.updatedReplicas, currentRevision: status.updateRevision };
  }
  return status;
}
