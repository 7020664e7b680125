import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  type KubeObject,
  labelSelectorAsSelector,
} from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type Deployment, type KubeClient, type Pod, type ReplicaSet, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import {
  Controller,
  type EventHandler,
  type EventRecorder,
  type ReconcileContext,
  type Request,
  type Result,
} from "@informer-ts/controller";
import { type Logger, type MetricsProvider, safeLog } from "@informer-ts/instrumentation";
import { addControllerUIDIndexer, filterByOwner } from "../internal/controller-uid-index.js";
import { keyOf, rfc3339 } from "../internal/pod-util.js";
import {
  type DeploymentCondition,
  type DeploymentStatus,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  getCondition,
  setCondition,
} from "./conditions.js";
import {
  actualReplicaCount,
  availableReplicaCount,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  readyReplicaCount,
  replicaCount,
  replicasOf,
  specOf,
} from "./replica-sets.js";
import {
  computeHash,
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  equalIgnoreHash,
  maxRevision,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  revisionOf,
} from "./revisions.js";
import { planRollback } from "./rollback.js";

/** Options of a {@link DeploymentController}. */
export interface DeploymentControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly deployments: SharedIndexInformer<Deployment>;
  readonly replicaSets: SharedIndexInformer<ReplicaSet>;
  readonly pods: SharedIndexInformer<Pod>;
  readonly recorder?: EventRecorder;
  readonly metrics?: MetricsProvider;
  /** `ConcurrentDeploymentSyncs` (default 5). */
  readonly workers?: number;
}

const byCreation = (a: ReplicaSet, b: ReplicaSet) => {
  const ta = a.metadata?.creationTimestamp ?? "";
  const tb = b.metadata?.creationTimestamp ?? "";
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1;
};

function controllerOf(obj: KubeObject) {
  return obj.metadata?.ownerReferences?.find((r) => r?.controller === true);
}

function requestOf(obj: KubeObject): Request {
  return { namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "" };
}

/**
 * The Deployment controller (`pkg/controller/deployment`: `deployment_controller.go`, `sync.go`, `rolling.go`,
 * `recreate.go`, `progress.go`, `util/deployment_util.go`): each Deployment owns ReplicaSets (claimed by selector
 * through owner references); the one whose template equals the Deployment's (ignoring `pod-template-hash`) is the
 * *new* ReplicaSet — created as `<name>-<hash>` with the hash in its selector and template labels and the next
 * revision when missing — and the others are *old*.
 *
 * - RollingUpdate: the new ReplicaSet grows while the total stays within `replicas + maxSurge`, old ones shrink while
 *   at least `replicas - maxUnavailable` pods stay available (unhealthy old replicas first).
 * - Recreate: old ReplicaSets go to 0, and once their pods are gone the new one scales up.
 * - A scaling event (the desired-replicas annotation differs) or a paused Deployment only scales, proportionally.
 * - Revisions: `deployment.kubernetes.io/revision` on the Deployment and its ReplicaSets, a reused template's earlier
 *   revisions in `revision-history`; `kubectl rollout undo` (which writes an old ReplicaSet's template back) makes
 *   that ReplicaSet new again with the next revision; beyond `revisionHistoryLimit` old empty ReplicaSets are deleted.
 * - Status: replicas, updated, ready, available, unavailable, observedGeneration, and the `Available` and
 *   `Progressing` conditions (`NewReplicaSetCreated`, `FoundNewReplicaSet`, `ReplicaSetUpdated`,
 *   `NewReplicaSetAvailable`, `ProgressDeadlineExceeded`, `DeploymentPaused`/`DeploymentResumed`); a rollout in
 *   progress is synced again when its `progressDeadlineSeconds` would run out.
 *
 * Differences from kube-controller-manager: the template hash differs from upstream's (FNV-1a of sorted JSON, not
 * spew); the rollback request is the `deprecated.deployment.rollback.to` annotation only ({@link planRollback}: the
 * ReplicaSet's annotations are not copied back to the Deployment); adoption checks the cached Deployment; proportional scaling rounds as
 * upstream but ignores `max-replicas` of ReplicaSets created by older controllers.
 */
export class DeploymentController {
  readonly controller: Controller;

  constructor(private readonly o: DeploymentControllerOptions) {
    addControllerUIDIndexer(o.replicaSets);
    const dHandler: EventHandler<KubeObject> = {
      create: (d) => [requestOf(d)],
      update: (_o, d) => [requestOf(d)],
      delete: (d) => [requestOf(d)],
    };
    const rsHandler: EventHandler<KubeObject> = {
      create: (rs) => this.ownersOf(rs as ReplicaSet),
      update: (old, cur) => [...this.ownersOf(old as ReplicaSet), ...this.ownersOf(cur as ReplicaSet)],
      delete: (rs) => this.ownersOf(rs as ReplicaSet),
    };
    // deletePod: a Recreate rollout waits for the old pods to be gone.
    const podHandler: EventHandler<KubeObject> = {
      create: () => [],
      update: () => [],
      delete: (p) => {
        const ref = controllerOf(p);
        if (ref?.kind !== "ReplicaSet") return [];
        const rs = this.o.replicaSets.getIndexer().getByKey(`${p.metadata?.namespace}/${ref.name}`);
        if (rs === undefined) return [];
        return this.ownersOf(rs).filter((r) => {
          const d = this.o.deployments.getIndexer().getByKey(`${r.namespace}/${r.name}`);
          return d !== undefined && specOf(d).strategy === "Recreate";
        });
      },
    };
    this.controller = new Controller({
      logger: o.logger,
      name: "deployment",
      reconciler: (req, ctx) => this.reconcile(req, ctx),
      watches: [
        { informer: o.deployments as never, handler: dHandler, keyFallback: true, name: "deployments" },
        { informer: o.replicaSets as never, handler: rsHandler, name: "replicasets" },
        { informer: o.pods as never, handler: podHandler, name: "pods" },
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

  /** The Deployment controlling a ReplicaSet, or — for an orphan — those whose selector matches it. */
  private ownersOf(rs: ReplicaSet): Request[] {
    const ns = rs.metadata?.namespace ?? "";
    const ref = controllerOf(rs);
    if (ref !== undefined) {
      if (ref.kind !== "Deployment") return [];
      const d = this.o.deployments.getIndexer().getByKey(`${ns}/${ref.name}`);
      return d !== undefined && d.metadata?.uid === ref.uid ? [requestOf(d)] : [];
    }
    return (this.o.deployments.getIndexer().byIndex("namespace", ns) as Deployment[])
      .filter((d) => labelSelectorAsSelector(d.spec?.selector as never).matches(rs.metadata?.labels))
      .map(requestOf);
  }

  private now(): string {
    return rfc3339(this.o.clock.now());
  }

  /**
   * `handleErr` for write conflicts: a 409 (a status or ReplicaSet write raced the informer's copy) is the normal
   * case of a busy Deployment, not a failure — upstream logs every sync error at `V(2)` and requeues the key
   * rate-limited while it has been retried fewer than `maxRetries` (15) times. So here: a conflict is logged at
   * `debug` and requeued through the rate limiter without counting as a reconcile error; past 15 retries it is thrown
   * and reported as any other error (`Reconciler error`). Other errors are thrown at once, as before.
   */
  private async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | undefined> {
    try {
      return await this.syncDeployment(req);
    } catch (err) {
      if (!isConflict(err) || ctx.retries >= DEPLOYMENT_MAX_RETRIES) throw err;
      safeLog(this.o.logger, "debug", "Error syncing deployment", {
        deployment: `${req.namespace}/${req.name}`,
        err,
        retries: ctx.retries,
      });
      return { requeue: true };
    }
  }

  /** `syncDeployment`. */
  private async syncDeployment(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const d = this.o.deployments.getIndexer().getByKey(`${req.namespace}/${req.name}`);
    if (d === undefined) return undefined;
    const selector = d.spec?.selector;
    if (
      selector === undefined ||
      (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
    ) {
      this.o.recorder?.event(
        d,
        "Warning",
        "SelectingAll",
        "This deployment is selecting all pods. A non-empty selector is required.",
      );
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        await this.writeStatus(d, {
          ...(d.status as DeploymentStatus),
          observedGeneration: d.metadata?.generation ?? 0,
        });
      }
      return undefined;
    }
    const rsList = await this.claimReplicaSets(d);
    if (d.metadata?.deletionTimestamp != null) {
      await this.syncStatusOnly(d, rsList);
      return undefined;
    }
    const spec = specOf(d);
    if (await this.checkPausedConditions(d)) return undefined;
    if (spec.paused) {
      await this.sync(d, rsList);
      return undefined;
    }
    // A rollback request: the Deployment gets the old template (and loses the request); its update syncs again.
    const rollback = planRollback(d, rsList);
    if (rollback !== undefined) {
      await this.o.client.update(resources.deployments, rollback.deployment);
      this.o.recorder?.event(d, rollback.event.type, rollback.event.reason, rollback.event.message);
      return undefined;
    }
    if (this.isScalingEvent(d, rsList)) {
      await this.sync(d, rsList);
      return undefined;
    }
    return spec.strategy === "Recreate" ? this.rolloutRecreate(d, rsList) : this.rolloutRolling(d, rsList);
  }

  /** `getReplicaSetsForDeployment` with `ReplicaSetControllerRefManager.ClaimReplicaSets`. */
  private async claimReplicaSets(d: Deployment): Promise<ReplicaSet[]> {
    const sel = labelSelectorAsSelector(d.spec?.selector as never);
    const out: ReplicaSet[] = [];
    // Only ours and the namespace's orphans can be claimed (upstream lists the whole namespace and skips the rest).
    for (const rs of filterByOwner(this.o.replicaSets, d, true)) {
      const ref = controllerOf(rs);
      const matches = sel.matches(rs.metadata?.labels);
      if (ref !== undefined) {
        if (ref.uid !== d.metadata?.uid) continue;
        if (matches || d.metadata?.deletionTimestamp != null) {
          out.push(rs);
          continue;
        }
        const rest = (rs.metadata?.ownerReferences ?? []).filter((r) => r.uid !== d.metadata?.uid);
        await this.patchOwners(rs, rest.length === 0 ? null : rest);
        continue;
      }
      if (!matches || d.metadata?.deletionTimestamp != null || rs.metadata?.deletionTimestamp != null) continue;
      const refs = [...(rs.metadata?.ownerReferences ?? []), this.controllerRef(d)];
      const adopted = await this.patchOwners(rs, refs);
      if (adopted !== undefined) out.push(adopted);
    }
    return out;
  }

  private async patchOwners(rs: ReplicaSet, refs: unknown[] | null): Promise<ReplicaSet | undefined> {
    try {
      return await this.o.client.patch(
        resources.replicaSets,
        rs.metadata?.name ?? "",
        { metadata: { ownerReferences: refs, uid: rs.metadata?.uid } },
        { namespace: rs.metadata?.namespace ?? "" },
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private controllerRef(d: Deployment) {
    return {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: d.metadata?.name ?? "",
      uid: d.metadata?.uid ?? "",
      controller: true,
      blockOwnerDeletion: true,
    };
  }

  /** `FindNewReplicaSet` / `FindOldReplicaSets`. */
  private split(d: Deployment, rsList: readonly ReplicaSet[]): { newRS: ReplicaSet | undefined; old: ReplicaSet[] } {
    const sorted = [...rsList].sort(byCreation);
    const newRS = sorted.find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
    return { newRS, old: sorted.filter((rs) => rs !== newRS) };
  }

  /** `isScalingEvent`: an active ReplicaSet's desired-replicas annotation differs from `spec.replicas`. */
  private isScalingEvent(d: Deployment, rsList: readonly ReplicaSet[]): boolean {
    const { newRS, old } = this.split(d, rsList);
    const want = specOf(d).replicas;
    for (const rs of [...(newRS === undefined ? [] : [newRS]), ...old]) {
      if (replicasOf(rs) <= 0) continue;
      const desired = rs.metadata?.annotations?.[DESIRED_REPLICAS_ANNOTATION];
      if (desired !== undefined && Number(desired) !== want) return true;
    }
    return false;
  }

  /** `checkPausedConditions`: a pause or resume is recorded in `Progressing` (status written: true). */
  private async checkPausedConditions(d: Deployment): Promise<boolean> {
    const spec = specOf(d);
    if (spec.progressDeadlineSeconds === undefined) return false;
    const cond = getCondition(d.status, "Progressing");
    if (cond?.reason === "ProgressDeadlineExceeded") return false;
    const pausedCondExists = cond?.reason === "DeploymentPaused";
    let next: DeploymentCondition | undefined;
    if (spec.paused && !pausedCondExists) {
      next = { type: "Progressing", status: "Unknown", reason: "DeploymentPaused", message: "Deployment is paused" };
    } else if (!spec.paused && pausedCondExists) {
      next = { type: "Progressing", status: "Unknown", reason: "DeploymentResumed", message: "Deployment is resumed" };
    }
    if (next === undefined) return false;
    const now = this.now();
    const conditions = setCondition([...((d.status?.conditions ?? []) as DeploymentCondition[])], {
      ...next,
      lastUpdateTime: now,
      lastTransitionTime: now,
    });
    await this.writeStatus(d, { ...(d.status as DeploymentStatus), conditions });
    return true;
  }

  /**
   * `getNewReplicaSet`: the new ReplicaSet with its annotations brought up to date (revision, desired and max
   * replicas), created when missing and `create` is set; the Deployment's revision annotation follows it.
   */
  private async getNewReplicaSet(
    d: Deployment,
    rsList: readonly ReplicaSet[],
    old: readonly ReplicaSet[],
    create: boolean,
  ): Promise<{ newRS: ReplicaSet | undefined; d: Deployment }> {
    const { newRS: existing } = this.split(d, rsList);
    const newRevision = String(maxRevision(old) + 1n);
    const ns = d.metadata?.namespace ?? "";
    if (existing !== undefined) {
      const annotations = this.newRSAnnotations(d, existing, newRevision, true);
      const minReady = specOf(d).minReadySeconds;
      let rs = existing;
      if (annotations !== undefined || (existing.spec?.minReadySeconds ?? 0) !== minReady) {
        rs = await this.o.client.update(resources.replicaSets, {
          ...existing,
          metadata: { ...existing.metadata, annotations: annotations ?? existing.metadata?.annotations },
          spec: { ...existing.spec!, minReadySeconds: minReady },
        } as ReplicaSet);
      }
      let dd = d;
      const rev = rs.metadata?.annotations?.[REVISION_ANNOTATION];
      let conditions = (d.status?.conditions ?? []) as DeploymentCondition[];
      const needsRevision = rev !== undefined && d.metadata?.annotations?.[REVISION_ANNOTATION] !== rev;
      let needsCond = false;
      if (specOf(d).progressDeadlineSeconds !== undefined && getCondition(d.status, "Progressing") === undefined) {
        const now = this.now();
        conditions = setCondition([...conditions], {
          type: "Progressing",
          status: "True",
          reason: "FoundNewReplicaSet",
          message: `Found new replica set "${rs.metadata?.name}"`,
          lastUpdateTime: now,
          lastTransitionTime: now,
        });
        needsCond = true;
      }
      if (needsRevision || needsCond) {
        dd = await this.writeStatus(
          {
            ...d,
            metadata: {
              ...d.metadata,
              annotations: { ...d.metadata?.annotations, ...(rev !== undefined && { [REVISION_ANNOTATION]: rev }) },
            },
          } as Deployment,
          { ...(d.status as DeploymentStatus), conditions },
        );
      }
      return { newRS: rs, d: dd };
    }
    if (!create) return { newRS: undefined, d };
    const collisionCount = (d.status as DeploymentStatus | undefined)?.collisionCount;
    const hash = computeHash(d.spec?.template, collisionCount);
    const template = structuredClone(d.spec!.template);
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash },
    };
    const selector = structuredClone(d.spec!.selector);
    selector.matchLabels = { ...selector.matchLabels, [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash };
    const draft = {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: {
        name: `${d.metadata?.name}-${hash}`,
        namespace: ns,
        labels: { ...template.metadata.labels },
        ownerReferences: [this.controllerRef(d)],
      },
      spec: { replicas: 0, minReadySeconds: specOf(d).minReadySeconds, selector, template },
    } as ReplicaSet;
    const all = [...old, draft];
    const replicas = newRSNewReplicas(d, all, draft);
    draft.spec!.replicas = replicas;
    draft.metadata!.annotations = this.newRSAnnotations(d, draft, newRevision, false) ?? {};
    let created: ReplicaSet;
    try {
      created = await this.o.client.create(resources.replicaSets, draft);
    } catch (err) {
      if (!isAlreadyExists(err)) {
        const now = this.now();
        const conditions = setCondition([...((d.status?.conditions ?? []) as DeploymentCondition[])], {
          type: "ReplicaFailure",
          status: "True",
          reason: "FailedCreate",
          message: String((err as Error).message),
          lastUpdateTime: now,
          lastTransitionTime: now,
        });
        this.o.recorder?.event(
          d,
          "Warning",
          "FailedCreate",
          `Failed to create new replica set "${draft.metadata?.name}": ${String((err as Error).message)}`,
        );
        await this.writeStatus(d, { ...(d.status as DeploymentStatus), conditions });
        throw err;
      }
      // A hash collision (the name exists with another template): count it and retry with a new hash.
      const other = this.o.replicaSets.getIndexer().getByKey(`${ns}/${draft.metadata?.name}`);
      if (other !== undefined && equalIgnoreHash(other.spec?.template, d.spec?.template)) {
        return { newRS: other, d };
      }
      await this.writeStatus(d, { ...(d.status as DeploymentStatus), collisionCount: (collisionCount ?? 0) + 1 });
      throw err;
    }
    if (replicas > 0) {
      this.o.recorder?.event(
        d,
        "Normal",
        "ScalingReplicaSet",
        `Scaled up replica set ${created.metadata?.name} from 0 to ${replicas}`,
      );
    }
    const now = this.now();
    const conditions = setCondition([...((d.status?.conditions ?? []) as DeploymentCondition[])], {
      type: "Progressing",
      status: "True",
      reason: "NewReplicaSetCreated",
      message: `Created new replica set "${created.metadata?.name}"`,
      lastUpdateTime: now,
      lastTransitionTime: now,
    });
    const dd = await this.writeStatus(
      {
        ...d,
        metadata: { ...d.metadata, annotations: { ...d.metadata?.annotations, [REVISION_ANNOTATION]: newRevision } },
      } as Deployment,
      { ...(d.status as DeploymentStatus), conditions },
    );
    return { newRS: created, d: dd };
  }

  /**
   * `SetNewReplicaSetAnnotations` + `SetReplicasAnnotations`: the Deployment's annotations (kubectl's
   * `last-applied-configuration` and the revision ones excepted), the new revision (the old one moves into
   * `revision-history`), and desired and max replicas for a ReplicaSet not yet created (`exists` false). Undefined
   * when nothing changes.
   */
  private newRSAnnotations(
    d: Deployment,
    rs: ReplicaSet,
    newRevision: string,
    exists: boolean,
  ): Record<string, string> | undefined {
    const cur = { ...rs.metadata?.annotations };
    const next = { ...cur };
    for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
      if (
        k === "kubectl.kubernetes.io/last-applied-configuration" ||
        k === REVISION_ANNOTATION ||
        k === REVISION_HISTORY_ANNOTATION
      )
        continue;
      if (k === DESIRED_REPLICAS_ANNOTATION || k === MAX_REPLICAS_ANNOTATION) continue;
      next[k] = v;
    }
    const oldRevision = next[REVISION_ANNOTATION];
    if (oldRevision === undefined || Number(oldRevision) < Number(newRevision)) {
      next[REVISION_ANNOTATION] = newRevision;
      if (oldRevision !== undefined && exists) {
        const history = next[REVISION_HISTORY_ANNOTATION];
        next[REVISION_HISTORY_ANNOTATION] =
          history === undefined || history === "" ? oldRevision : `${history},${oldRevision}`;
      }
    }
    // Only a ReplicaSet about to be created gets the replica annotations here: an existing one keeps those of its last
    // scaling, which the proportional scale reads as the Deployment's size before this change.
    if (!exists) {
      const replicas = specOf(d).replicas;
      next[DESIRED_REPLICAS_ANNOTATION] = String(replicas);
      next[MAX_REPLICAS_ANNOTATION] = String(replicas + maxSurge(d));
    }
    const changed =
      Object.keys(next).length !== Object.keys(cur).length || Object.entries(next).some(([k, v]) => cur[k] !== v);
    return changed ? next : undefined;
  }

  /** `scaleReplicaSet`: writes replicas and the replica annotations; a `ScalingReplicaSet` event. */
  private async scaleReplicaSet(rs: ReplicaSet, size: number, d: Deployment): Promise<ReplicaSet> {
    const cur = replicasOf(rs);
    const annotations = {
      ...rs.metadata?.annotations,
      [DESIRED_REPLICAS_ANNOTATION]: String(specOf(d).replicas),
      [MAX_REPLICAS_ANNOTATION]: String(specOf(d).replicas + maxSurge(d)),
    };
    const same =
      cur === size &&
      rs.metadata?.annotations?.[DESIRED_REPLICAS_ANNOTATION] === annotations[DESIRED_REPLICAS_ANNOTATION] &&
      rs.metadata?.annotations?.[MAX_REPLICAS_ANNOTATION] === annotations[MAX_REPLICAS_ANNOTATION];
    if (same) return rs;
    const updated = await this.o.client.update(resources.replicaSets, {
      ...rs,
      metadata: { ...rs.metadata, annotations },
      spec: { ...rs.spec!, replicas: size },
    } as ReplicaSet);
    if (cur !== size) {
      const verb = size > cur ? "up" : "down";
      this.o.recorder?.event(
        d,
        "Normal",
        "ScalingReplicaSet",
        `Scaled ${verb} replica set ${rs.metadata?.name} from ${cur} to ${size}`,
      );
    }
    return updated;
  }

  /** `rolloutRolling` (rolling.go). */
  private async rolloutRolling(d0: Deployment, rsList: ReplicaSet[]): Promise<{ requeueAfter: number } | undefined> {
    const { old } = this.split(d0, rsList);
    const { newRS, d } = await this.getNewReplicaSet(d0, rsList, old, true);
    const all = [...old, ...(newRS === undefined ? [] : [newRS])];
    // reconcileNewReplicaSet
    if (newRS !== undefined) {
      const want = specOf(d).replicas;
      const cur = replicasOf(newRS);
      if (cur !== want) {
        const size = cur > want ? want : newRSNewReplicas(d, all, newRS);
        if (size !== cur) {
          const scaled = await this.scaleReplicaSet(newRS, size, d);
          return this.syncRolloutStatus(d, [...old, scaled], scaled);
        }
      }
    }
    // reconcileOldReplicaSets
    if (await this.reconcileOldReplicaSets(d, all, old, newRS)) {
      return this.syncRolloutStatus(d, this.latest(all), newRS);
    }
    if (deploymentComplete(d, this.calculateStatus(d, all, newRS))) await this.cleanupDeployment(d, old);
    return this.syncRolloutStatus(d, all, newRS);
  }

  private latest(list: readonly ReplicaSet[]): ReplicaSet[] {
    return list.map((rs) => this.o.replicaSets.getIndexer().getByKey(keyOf(rs)) ?? rs);
  }

  /** `reconcileOldReplicaSets`: scales old ReplicaSets down within maxUnavailable; true when any was scaled. */
  private async reconcileOldReplicaSets(
    d: Deployment,
    all: readonly ReplicaSet[],
    old: ReplicaSet[],
    newRS: ReplicaSet | undefined,
  ): Promise<boolean> {
    const oldPods = replicaCount(old);
    if (oldPods === 0) return false;
    const allPods = replicaCount(all);
    const minAvailable = specOf(d).replicas - maxUnavailable(d);
    const newUnavailable = replicasOf(newRS) - (newRS?.status?.availableReplicas ?? 0);
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    // cleanupUnhealthyReplicas: old replicas that are not available go first.
    let cleaned = 0;
    const sorted = [...old].sort(byCreation);
    for (let i = 0; i < sorted.length; i++) {
      const rs = sorted[i]!;
      if (cleaned >= maxScaledDown) break;
      const replicas = replicasOf(rs);
      if (replicas === 0) continue;
      const avail = rs.status?.availableReplicas ?? 0;
      if (replicas === avail) continue;
      const scaleDown = Math.min(maxScaledDown - cleaned, replicas - avail);
      sorted[i] = await this.scaleReplicaSet(rs, replicas - scaleDown, d);
      cleaned += scaleDown;
    }
    // scaleDownOldReplicaSetsForRollingUpdate
    const allNow = [...sorted, ...(newRS === undefined ? [] : [newRS])];
    const available = availableReplicaCount(allNow);
    let scaledDown = 0;
    if (available > minAvailable) {
      const total = available - minAvailable;
      for (let i = 0; i < sorted.length && scaledDown < total; i++) {
        const rs = sorted[i]!;
        const replicas = replicasOf(rs);
        if (replicas === 0) continue;
        const down = Math.min(replicas, total - scaledDown);
        await this.scaleReplicaSet(rs, replicas - down, d);
        scaledDown += down;
      }
    }
    return cleaned + scaledDown > 0;
  }

  /** `rolloutRecreate` (recreate.go). */
  private async rolloutRecreate(d0: Deployment, rsList: ReplicaSet[]): Promise<{ requeueAfter: number } | undefined> {
    const { old } = this.split(d0, rsList);
    const { newRS: existing, d } = await this.getNewReplicaSet(d0, rsList, old, false);
    const all = [...old, ...(existing === undefined ? [] : [existing])];
    let scaled = false;
    for (const rs of old) {
      if (replicasOf(rs) === 0) continue;
      await this.scaleReplicaSet(rs, 0, d);
      scaled = true;
    }
    if (scaled) return this.syncRolloutStatus(d, this.latest(all), existing);
    // oldPodsRunning: any pod of an old ReplicaSet that is not terminal.
    const oldUids = new Set(old.map((rs) => rs.metadata?.uid));
    const running = this.o.pods
      .getIndexer()
      .byIndex("namespace", d.metadata?.namespace ?? "")
      .some((p) => {
        const ref = controllerOf(p);
        return (
          ref !== undefined && oldUids.has(ref.uid) && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed"
        );
      });
    if (running || actualReplicaCount(old) > 0) return this.syncRolloutStatus(d, all, existing);
    const { newRS, d: d2 } =
      existing === undefined ? await this.getNewReplicaSet(d, rsList, old, true) : { newRS: existing, d };
    if (newRS !== undefined && replicasOf(newRS) !== specOf(d2).replicas) {
      const up = await this.scaleReplicaSet(newRS, specOf(d2).replicas, d2);
      return this.syncRolloutStatus(d2, [...old, up], up);
    }
    const all2 = [...old, ...(newRS === undefined ? [] : [newRS])];
    if (deploymentComplete(d2, this.calculateStatus(d2, all2, newRS))) await this.cleanupDeployment(d2, old);
    return this.syncRolloutStatus(d2, all2, newRS);
  }

  /** `sync`: a scaling event or a paused Deployment — scale, clean up when paused, write the status. */
  private async sync(d0: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { old } = this.split(d0, rsList);
    const { newRS, d } = await this.getNewReplicaSet(d0, rsList, old, false);
    await this.scale(d, newRS, old);
    const all = this.latest([...old, ...(newRS === undefined ? [] : [newRS])]);
    if (specOf(d).paused) await this.cleanupDeployment(d, old);
    const status = this.calculateStatus(d, all, newRS);
    await this.writeStatusIfChanged(d, status);
  }

  /** `scale`: one active ReplicaSet takes `replicas`; a saturated new one zeroes the old; else proportional. */
  private async scale(d: Deployment, newRS: ReplicaSet | undefined, old: readonly ReplicaSet[]): Promise<void> {
    const want = specOf(d).replicas;
    const all = [...(newRS === undefined ? [] : [newRS]), ...old];
    const active = all.filter((rs) => replicasOf(rs) > 0);
    if (active.length <= 1) {
      const target = active[0] ?? newRS ?? [...old].sort(byCreation).at(-1);
      if (target !== undefined && replicasOf(target) !== want) await this.scaleReplicaSet(target, want, d);
      return;
    }
    if (newRS !== undefined && replicasOf(newRS) === want && (newRS.status?.availableReplicas ?? 0) === want) {
      for (const rs of old) if (replicasOf(rs) > 0) await this.scaleReplicaSet(rs, 0, d);
      return;
    }
    if (specOf(d).strategy !== "RollingUpdate") return;
    const allowed = want + maxSurge(d);
    const toAdd = allowed - replicaCount(active);
    // With nothing to add every ReplicaSet keeps its size, but each is still written through scaleReplicaSet, as
    // upstream does: that brings its desired/max-replicas annotations to the Deployment's — an earlier pass that
    // failed half-way (a conflict) leaves stale ones, and isScalingEvent would then ask for a scale forever.
    // Proportionally by each ReplicaSet's share of the Deployment's previous size (largest first on scale-up).
    const sorted = [...active].sort(
      (a, b) => (toAdd > 0 ? replicasOf(b) - replicasOf(a) : replicasOf(a) - replicasOf(b)) || byCreation(a, b),
    );
    let added = 0;
    const sizes = new Map<ReplicaSet, number>();
    for (const rs of sorted) {
      if (toAdd === 0) {
        sizes.set(rs, replicasOf(rs));
        continue;
      }
      const prev = Number(rs.metadata?.annotations?.[MAX_REPLICAS_ANNOTATION] ?? "0") || replicaCount(active);
      const share = Math.round((replicasOf(rs) * toAdd) / prev);
      const portion = toAdd > 0 ? Math.min(share, toAdd - added) : Math.max(share, toAdd - added);
      sizes.set(rs, replicasOf(rs) + portion);
      added += portion;
    }
    const first = sorted[0]!;
    sizes.set(first, Math.max(0, sizes.get(first)! + toAdd - added));
    for (const rs of sorted) await this.scaleReplicaSet(rs, Math.max(0, sizes.get(rs)!), d);
  }

  /** `cleanupDeployment`: deletes old, empty ReplicaSets beyond `revisionHistoryLimit`, oldest first. */
  private async cleanupDeployment(d: Deployment, old: readonly ReplicaSet[]): Promise<void> {
    const limit = specOf(d).revisionHistoryLimit;
    const live = old.filter((rs) => rs.metadata?.deletionTimestamp == null);
    const diff = live.length - limit;
    if (diff <= 0) return;
    const candidates = [...live].sort((a, b) => compareRevisions(revisionOf(a), revisionOf(b)) || byCreation(a, b));
    let deleted = 0;
    for (const rs of candidates) {
      if (deleted >= diff) break;
      if (
        (rs.status?.replicas ?? 0) !== 0 ||
        replicasOf(rs) !== 0 ||
        (rs.status?.observedGeneration ?? 0) < (rs.metadata?.generation ?? 0)
      )
        continue;
      try {
        await this.o.client.delete(resources.replicaSets, rs.metadata?.name ?? "", {
          namespace: rs.metadata?.namespace ?? "",
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      deleted++;
    }
  }

  /** `calculateStatus` of sync.go. */
  private calculateStatus(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentStatus {
    const want = specOf(d).replicas;
    const available = availableReplicaCount(all);
    const total = actualReplicaCount(all);
    const prev = (d.status ?? {}) as DeploymentStatus;
    let conditions = [...(prev.conditions ?? [])];
    const now = this.now();
    const minAvailable = want - maxUnavailable(d);
    conditions =
      available >= minAvailable
        ? setCondition(conditions, {
            type: "Available",
            status: "True",
            reason: "MinimumReplicasAvailable",
            message: "Deployment has minimum availability.",
            lastUpdateTime: now,
            lastTransitionTime: now,
          })
        : setCondition(conditions, {
            type: "Available",
            status: "False",
            reason: "MinimumReplicasUnavailable",
            message: "Deployment does not have minimum availability.",
            lastUpdateTime: now,
            lastTransitionTime: now,
          });
    return {
      ...(prev.collisionCount !== undefined && { collisionCount: prev.collisionCount }),
      observedGeneration: d.metadata?.generation ?? 0,
      replicas: total,
      updatedReplicas: newRS?.status?.replicas ?? 0,
      readyReplicas: readyReplicaCount(all),
      availableReplicas: available,
      unavailableReplicas: Math.max(want - available, 0),
      conditions,
    };
  }

  /** `syncRolloutStatus` (progress.go): status with `Progressing`; requeues at the progress deadline. */
  private async syncRolloutStatus(
    d: Deployment,
    all: readonly ReplicaSet[],
    newRS: ReplicaSet | undefined,
  ): Promise<{ requeueAfter: number } | undefined> {
    const status = this.calculateStatus(d, all, newRS);
    const spec = specOf(d);
    const now = this.now();
    const cur = getCondition(d.status, "Progressing");
    if (spec.progressDeadlineSeconds !== undefined && !spec.paused) {
      const rsName = newRS?.metadata?.name ?? "";
      let conditions = status.conditions ?? [];
      if (deploymentComplete(d, status)) {
        conditions = setCondition(conditions, {
          type: "Progressing",
          status: "True",
          reason: "NewReplicaSetAvailable",
          message: `ReplicaSet "${rsName}" has successfully progressed.`,
          lastUpdateTime: now,
          lastTransitionTime: cur?.status === "True" ? (cur.lastTransitionTime ?? now) : now,
        });
      } else if (deploymentProgressing(d, status)) {
        const c: DeploymentCondition = {
          type: "Progressing",
          status: "True",
          reason: "ReplicaSetUpdated",
          message: `ReplicaSet "${rsName}" is progressing.`,
          lastUpdateTime: now,
          lastTransitionTime: cur?.status === "True" ? (cur.lastTransitionTime ?? now) : now,
        };
        // Progress refreshes lastUpdateTime even when the reason stays (the deadline counts from the last progress).
        conditions = [...conditions.filter((x) => x.type !== "Progressing"), c];
      } else if (deploymentTimedOut(d, { ...status, conditions }, this.o.clock.now())) {
        conditions = setCondition(conditions, {
          type: "Progressing",
          status: "False",
          reason: "ProgressDeadlineExceeded",
          message: `ReplicaSet "${rsName}" has timed out progressing.`,
          lastUpdateTime: now,
          lastTransitionTime: now,
        });
        this.o.recorder?.event(
          d,
          "Warning",
          "ProgressDeadlineExceeded",
          `Deployment "${d.metadata?.name}" has timed out progressing.`,
        );
      }
      // ReplicaFailure mirrors the new ReplicaSet's.
      const failure = getCondition(newRS?.status, "ReplicaFailure");
      if (failure !== undefined) conditions = setCondition(conditions, { ...failure });
      else conditions = conditions.filter((c) => c.type !== "ReplicaFailure");
      status.conditions = conditions;
    }
    await this.writeStatusIfChanged(d, status);
    // requeueStuckDeployment: look again when the deadline would pass.
    const p = getCondition(status, "Progressing");
    if (spec.progressDeadlineSeconds === undefined || p === undefined || deploymentComplete(d, status))
      return undefined;
    if (p.reason === "ProgressDeadlineExceeded" || p.status !== "True") return undefined;
    const due = Date.parse(p.lastUpdateTime ?? "") + spec.progressDeadlineSeconds * 1000 - this.o.clock.now();
    return { requeueAfter: Math.max(1000, due + 1000) };
  }

  private async syncStatusOnly(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, old } = this.split(d, rsList);
    await this.writeStatusIfChanged(
      d,
      this.calculateStatus(d, [...old, ...(newRS === undefined ? [] : [newRS])], newRS),
    );
  }

  private async writeStatusIfChanged(d: Deployment, status: DeploymentStatus): Promise<void> {
    const strip = (s: DeploymentStatus | undefined) =>
      JSON.stringify({ ...s, conditions: (s?.conditions ?? []).map((c) => ({ ...c, lastUpdateTime: undefined })) });
    if (strip(d.status as DeploymentStatus) === strip(status)) return;
    await this.writeStatus(d, status);
  }

  private async writeStatus(d: Deployment, status: DeploymentStatus): Promise<Deployment> {
    try {
      return await this.o.client.updateStatus(resources.deployments, { ...d, status } as Deployment);
    } catch (err) {
      safeLog(this.o.logger, "debug", "deployment status update failed", { deployment: keyOf(d), err });
      throw err;
    }
  }
}

/** `maxRetries` of `deployment_controller.go`: rate-limited retries of a key before its error is reported. */
const DEPLOYMENT_MAX_RETRIES = 15;

function compareRevisions(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
