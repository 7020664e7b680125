import { isAlreadyExists, isConflict, isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type DaemonSet, type KubeClient, type Node, type Pod, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type EventRecorder, type Request } from "@informer-ts/controller";
import { type Logger, type MetricsProvider, safeLog } from "@informer-ts/instrumentation";
import { controllerRefOf, requestOf, resolveControllerRef } from "../internal/controller-ref.js";
import { isPodAvailable, isPodReady, keyOf } from "../internal/pod-util.js";
import { ControllerExpectations } from "../replicaset/controller-expectations.js";
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from "../replicaset/slow-start.js";
import { CONTROLLER_REVISIONS } from "../statefulset/stateful-set-controller.js";
import {
  type ControllerRevision,
  equalRevision,
  nextRevision,
  revisionData,
} from "../statefulset/stateful-set-utils.js";
import {
  allowsSurge,
  DAEMON_SET_REVISION_LABEL,
  daemonSpecOf,
  daemonTemplateHash,
  getTargetNodeName,
  isPodUpdated,
  newDaemonPod,
  newDaemonRevision,
  nodeShouldRunDaemonPod,
  surgeAndUnavailable,
} from "./daemon-set-util.js";
import { byCreation, podsShouldBeOnNode } from "./pods-should-be-on-node.js";
import { type SurgePods, surgeRollingUpdatePlan } from "./surge.js";

/** The annotation the apiserver keeps the template generation in (`deprecated.daemonset.template.generation`). */
export const TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation";

/** `apps/v1` `DaemonSetStatus` as the controller writes it. */
export interface DaemonSetStatus {
  observedGeneration?: number;
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
  collisionCount?: number;
}

/** Options of a {@link DaemonSetController}. */
export interface DaemonSetControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly sets: SharedIndexInformer<DaemonSet>;
  readonly pods: SharedIndexInformer<Pod>;
  readonly nodes: SharedIndexInformer<Node>;
  readonly revisions: SharedIndexInformer<ControllerRevision>;
  readonly recorder?: EventRecorder;
  readonly metrics?: MetricsProvider;
  /** `ConcurrentDaemonSetSyncs` (default 2). */
  readonly workers?: number;
}

/**
 * The DaemonSet controller (`pkg/controller/daemon/daemon_controller.go`, `update.go`): one pod per eligible node.
 *
 * - Eligibility per node ({@link nodeShouldRunDaemonPod}): the template's `nodeName`, `nodeSelector` and required node
 *   affinity, and the node's `NoSchedule`/`NoExecute` taints against the template's tolerations plus the default
 *   daemon tolerations (not-ready, unreachable, the pressure taints, unschedulable; network-unavailable with
 *   `hostNetwork`). A node that should run a pod and has none gets one (created in slow-start batches); pods on a node
 *   that may not keep them (a node no longer selected, an untolerated `NoExecute` taint) are deleted; of several pods
 *   on one node the oldest stays; `Failed` and `Succeeded` pods are deleted and re-created
 *   ({@link podsShouldBeOnNode}).
 * - Pods are named `<set>-<random>` and bound to their node as upstream does: the required node affinity is replaced
 *   by one `matchFields` term on `metadata.name`, and the scheduler binds them.
 * - Revisions (`constructHistory`): the template as a `ControllerRevision` `<set>-<hash>`; an equal older one is
 *   re-numbered (a rollback); the oldest no pod uses are deleted beyond `revisionHistoryLimit` (default 10); a name taken
 *   by other data bumps `status.collisionCount`.
 * - `RollingUpdate` (default, `rollingUpdate` with `maxSurge` 0): old pods that are not available are deleted at once;
 *   old available pods only while fewer than `maxUnavailable` (default 1, percentages of the desired count rounding up)
 *   nodes lack an available pod; the next sync creates the new pods. `OnDelete` replaces only deleted pods.
 * - `rollingUpdate.maxSurge` > 0 ({@link surgeRollingUpdatePlan}): a node's new pod is created beside its old one
 *   (at once when the old one is not available, else for at most `maxSurge` nodes at a time, percentages rounding
 *   up), and the old pod is deleted once the new one is available.
 * - Status: `desiredNumberScheduled`, `currentNumberScheduled`, `numberMisscheduled`, `numberReady`,
 *   `updatedNumberScheduled`, `numberAvailable` (with `minReadySeconds`), `numberUnavailable`, `observedGeneration`,
 *   `collisionCount`, written through `/status` on change.
 *
 * Differences from kube-controller-manager: no failed-pod backoff, no adoption of
 * orphans by selector, and unbound pods for nodes that no longer exist are deleted by this controller only.
 */
export class DaemonSetController {
  readonly controller: Controller;
  readonly expectations: ControllerExpectations;

  constructor(private readonly o: DaemonSetControllerOptions) {
    this.expectations = new ControllerExpectations(o.clock);
    const setHandler: EventHandler<KubeObject> = {
      create: (obj) => [requestOf(obj)],
      update: (_old, cur) => [requestOf(cur)],
      delete: (obj) => {
        this.expectations.deleteExpectations(keyOf(obj));
        return [requestOf(obj)];
      },
    };
    const podHandler: EventHandler<KubeObject> = {
      create: (obj) => this.observed(obj, "create"),
      update: (old, cur) => [...this.ownerOf(cur), ...this.ownerOf(old)],
      delete: (obj) => this.observed(obj, "delete"),
    };
    const revisionHandler: EventHandler<KubeObject> = {
      create: (obj) => this.ownerOf(obj),
      update: (_old, cur) => this.ownerOf(cur),
      delete: (obj) => this.ownerOf(obj),
    };
    // A node's change may change which sets should run on it: every set is looked at again (`addNode`/`updateNode`).
    const nodeHandler: EventHandler<KubeObject> = {
      create: () => this.allSets(),
      update: (old, cur) => (nodeChanged(old as Node, cur as Node) ? this.allSets() : []),
      delete: () => this.allSets(),
    };
    this.controller = new Controller({
      logger: o.logger,
      name: "daemonset-controller",
      reconciler: (req) => this.sync(req),
      watches: [
        {
          informer: o.sets as unknown as SharedIndexInformer<KubeObject>,
          handler: setHandler,
          keyFallback: true,
          name: "DaemonSet",
        },
        { informer: o.pods as unknown as SharedIndexInformer<KubeObject>, handler: podHandler, name: "pods" },
        { informer: o.nodes as unknown as SharedIndexInformer<KubeObject>, handler: nodeHandler, name: "nodes" },
        {
          informer: o.revisions as unknown as SharedIndexInformer<KubeObject>,
          handler: revisionHandler,
          name: "revisions",
        },
      ],
      maxConcurrentReconciles: o.workers ?? 2,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** Runs the controller until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private allSets(): Request[] {
    return (this.o.sets.getIndexer().list() as DaemonSet[]).map(requestOf);
  }

  private ownerSet(obj: KubeObject): DaemonSet | undefined {
    return resolveControllerRef<DaemonSet>(
      (k) => this.o.sets.getIndexer().getByKey(k),
      "DaemonSet",
      obj.metadata?.namespace ?? "",
      controllerRefOf(obj),
    );
  }

  private ownerOf(obj: KubeObject): Request[] {
    const ds = this.ownerSet(obj);
    return ds === undefined ? [] : [requestOf(ds)];
  }

  private observed(obj: KubeObject, what: "create" | "delete"): Request[] {
    const ds = this.ownerSet(obj);
    if (ds === undefined) return [];
    if (what === "create") this.expectations.creationObserved(keyOf(ds));
    else this.expectations.deletionObserved(keyOf(ds));
    return [requestOf(ds)];
  }

  private owned<T extends KubeObject>(informer: SharedIndexInformer<T>, ds: DaemonSet): T[] {
    const uid = ds.metadata?.uid;
    return (informer.getIndexer().byIndex("namespace", ds.metadata?.namespace ?? "") as T[]).filter(
      (x) => controllerRefOf(x)?.uid === uid,
    );
  }

  /** `syncDaemonSet`. */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const key = `${req.namespace}/${req.name}`;
    const ds = this.o.sets.getIndexer().getByKey(key) as DaemonSet | undefined;
    if (ds === undefined) {
      this.expectations.deleteExpectations(key);
      return undefined;
    }
    if (ds.metadata?.deletionTimestamp != null) return undefined;
    const nodes = this.o.nodes.getIndexer().list() as Node[];
    const revisions = this.owned(this.o.revisions, ds).sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
    const { hash, collisionCount } = await this.constructHistory(ds, revisions);
    const current = { ...ds, status: { ...ds.status, collisionCount } } as DaemonSet;
    if (this.expectations.satisfiedExpectations(key)) {
      await this.manage(current, nodes, hash);
      if ((daemonSpecOf(ds).updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate") {
        await this.rollingUpdate(current, nodes, hash);
      }
      await this.cleanupHistory(ds, revisions, hash);
    }
    const status = this.status(current, nodes, hash);
    await this.writeStatus(ds, status);
    const minReady = daemonSpecOf(ds).minReadySeconds ?? 0;
    if (minReady > 0 && status.numberReady !== status.numberAvailable) return { requeueAfter: minReady * 1000 };
    // Upstream's `updatePod` re-queues the set minReadySeconds (+1 s) after a pod turned ready; here the sync looks
    // again once the first ready pod that is not yet available becomes so (a surging new pod among them).
    const wait = minReady > 0 ? this.untilNextAvailable(ds, minReady) : undefined;
    return wait === undefined ? undefined : { requeueAfter: wait };
  }

  /** Milliseconds until the soonest ready, not yet available pod of the set is available, if there is one. */
  private untilNextAvailable(ds: DaemonSet, minReady: number): number | undefined {
    const now = this.o.clock.now();
    let soonest: number | undefined;
    for (const pod of this.owned(this.o.pods, ds)) {
      if (!isPodReady(pod) || isPodAvailable(pod, minReady, now) || pod.metadata?.deletionTimestamp != null) continue;
      const since = pod.status?.conditions?.find((x) => x.type === "Ready")?.lastTransitionTime;
      if (since === undefined) continue;
      // isPodAvailable wants strictly more than minReadySeconds: one millisecond past it.
      const left = Math.max(1, Date.parse(since) + minReady * 1000 + 1 - now);
      soonest = Math.min(soonest ?? left, left);
    }
    return soonest;
  }

  private templateGeneration(ds: DaemonSet): number | undefined {
    const v = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
    return v === undefined ? undefined : Number(v);
  }

  /** `getNodesToDaemonPods`: the set's pods by the node they are for (bound, or named by their node affinity). */
  private podsByNode(ds: DaemonSet): Map<string, Pod[]> {
    const out = new Map<string, Pod[]>();
    for (const pod of this.owned(this.o.pods, ds)) {
      const node = getTargetNodeName(pod);
      if (node === undefined) continue;
      const list = out.get(node);
      if (list === undefined) out.set(node, [pod]);
      else list.push(pod);
    }
    return out;
  }

  /** `manage` with `podsShouldBeOnNode`: which nodes need a pod, which pods must go. */
  private async manage(ds: DaemonSet, nodes: readonly Node[], hash: string): Promise<void> {
    const byNode = this.podsByNode(ds);
    // `util.AllowsSurge`; upstream's manage loop tells new pods by the revision hash alone.
    const surge = allowsSurge(ds)
      ? this.surgePods(ds, (p) => p.metadata?.labels?.[DAEMON_SET_REVISION_LABEL] === hash)
      : undefined;
    const needing: string[] = [];
    const toDelete: Pod[] = [];
    const known = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata?.name ?? "";
      known.add(name);
      const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
      const d = podsShouldBeOnNode({
        node: name,
        pods: byNode.get(name) ?? [],
        shouldRun,
        shouldContinueRunning,
        ...(surge !== undefined && { surge }),
      });
      if (d.needsPod) needing.push(name);
      toDelete.push(...d.toDelete);
      for (const e of d.events) this.o.recorder?.event(ds, e.type, e.reason, e.message);
    }
    // `getUnscheduledPodsWithoutNode`: pods for nodes that no longer exist, not yet bound.
    for (const [node, pods] of byNode) {
      if (known.has(node)) continue;
      toDelete.push(...pods.filter((p) => (p.spec?.nodeName ?? "") === "" && p.metadata?.deletionTimestamp == null));
    }
    await this.syncNodes(ds, toDelete, needing, hash);
  }

  /** `syncNodes`: creations in slow-start batches, deletions at once, each expected before it is made. */
  private async syncNodes(ds: DaemonSet, toDelete: readonly Pod[], nodes: readonly string[], hash: string) {
    const key = keyOf(ds);
    if (toDelete.length === 0 && nodes.length === 0) return;
    this.expectations.setExpectations(key, nodes.length, toDelete.length);
    const ns = ds.metadata?.namespace ?? "";
    const generation = this.templateGeneration(ds);
    let next = 0;
    const { successes, error } = await slowStartBatch(nodes.length, SLOW_START_INITIAL_BATCH_SIZE, async () => {
      const nodeName = nodes[next++]!;
      const pod = newDaemonPod(ds, nodeName, hash, generation);
      try {
        await this.o.client.create(resources.pods, pod, { namespace: ns });
      } catch (err) {
        this.expectations.creationObserved(key);
        this.failed(ds, "create", `pod for node ${nodeName}`, err);
        throw err;
      }
      this.o.recorder?.event(ds, "Normal", "SuccessfulCreate", `Created pod for node ${nodeName}`);
    });
    // The creations never tried are not expected any more.
    for (let i = successes + (error === undefined ? 0 : 1); i < nodes.length; i++) {
      this.expectations.creationObserved(key);
    }
    const deletions = await Promise.allSettled(toDelete.map((pod) => this.deletePod(ds, pod)));
    const rejected = deletions.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (error !== undefined) throw error;
    if (rejected !== undefined) throw rejected.reason;
  }

  private async deletePod(ds: DaemonSet, pod: Pod): Promise<void> {
    const key = keyOf(ds);
    try {
      await this.o.client.delete(resources.pods, pod.metadata?.name ?? "", {
        namespace: pod.metadata?.namespace ?? "",
      });
    } catch (err) {
      this.expectations.deletionObserved(key);
      if (isNotFound(err)) return;
      this.failed(ds, "delete", `pod ${keyOf(pod)}`, err);
      throw err;
    }
    this.o.recorder?.event(ds, "Normal", "SuccessfulDelete", `Deleted pod: ${pod.metadata?.name ?? ""}`);
  }

  /**
   * `rollingUpdate` with `maxSurge` 0 (`update.go`): per node wanting a pod, its old pod is replaced — at once when it
   * is not available, else only while fewer than `maxUnavailable` nodes are without an available pod.
   */
  private async rollingUpdate(ds: DaemonSet, nodes: readonly Node[], hash: string): Promise<void> {
    const byNode = this.podsByNode(ds);
    const wanted = nodes.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun);
    const { unavailable: maxUnavailable, surge: maxSurge } = surgeAndUnavailable(ds, wanted.length);
    const minReady = daemonSpecOf(ds).minReadySeconds ?? 0;
    const now = this.o.clock.now();
    const generation = this.templateGeneration(ds);
    if (maxSurge > 0) {
      const nodeToPods = new Map<string, readonly Pod[]>(byNode);
      for (const n of wanted) if (!nodeToPods.has(n.metadata?.name ?? "")) nodeToPods.set(n.metadata?.name ?? "", []);
      const byName = new Map(nodes.map((n) => [n.metadata?.name ?? "", n]));
      const plan = surgeRollingUpdatePlan({
        nodeToPods,
        shouldRun: (name) => {
          const node = byName.get(name);
          return node !== undefined && nodeShouldRunDaemonPod(node, ds).shouldRun;
        },
        pods: this.surgePods(ds, (p) => isPodUpdated(p, hash, generation)),
        maxSurge,
        desired: wanted.length,
      });
      await this.syncNodes(ds, plan.oldPodsToDelete, plan.newNodesToCreate, hash);
      return;
    }
    let numUnavailable = 0;
    const candidates: Pod[] = [];
    const toDelete: Pod[] = [];
    for (const node of wanted) {
      const pods = (byNode.get(node.metadata?.name ?? "") ?? []).filter((p) => p.metadata?.deletionTimestamp == null);
      const newPod = pods.find((p) => isPodUpdated(p, hash, generation));
      const oldPod = pods.find((p) => !isPodUpdated(p, hash, generation));
      if (newPod !== undefined) {
        if (!isPodAvailable(newPod, minReady, now)) numUnavailable++;
        continue;
      }
      if (oldPod === undefined) {
        numUnavailable++;
        continue;
      }
      if (!isPodAvailable(oldPod, minReady, now)) {
        numUnavailable++;
        toDelete.push(oldPod);
      } else candidates.push(oldPod);
    }
    for (const pod of candidates) {
      if (numUnavailable >= maxUnavailable) break;
      numUnavailable++;
      toDelete.push(pod);
    }
    await this.syncNodes(ds, toDelete, [], hash);
  }

  /** The pod predicates of the surge decisions, at this instant. */
  private surgePods(ds: DaemonSet, isUpdated: (pod: Pod) => boolean): SurgePods {
    const minReady = daemonSpecOf(ds).minReadySeconds ?? 0;
    const now = this.o.clock.now();
    return { isUpdated, isAvailable: (p) => isPodAvailable(p, minReady, now), isReady: isPodReady };
  }

  /** `constructHistory`: the revision of the template (created, or an equal one re-numbered) and its hash. */
  private async constructHistory(
    ds: DaemonSet,
    revisions: readonly ControllerRevision[],
  ): Promise<{ hash: string; collisionCount: number }> {
    const ns = ds.metadata?.namespace ?? "";
    let collisionCount = (ds.status as DaemonSetStatus | undefined)?.collisionCount ?? 0;
    const data = { data: revisionData(ds) } as ControllerRevision;
    const max = nextRevision(revisions) - 1;
    const equal = revisions.filter((r) => equalRevision(r, data));
    const cur = equal[equal.length - 1];
    if (cur !== undefined) {
      const hash = cur.metadata?.labels?.[DAEMON_SET_REVISION_LABEL] ?? "";
      if ((cur.revision ?? 0) < max) {
        await this.o.client.patch(
          CONTROLLER_REVISIONS,
          cur.metadata?.name ?? "",
          { revision: max + 1 },
          { namespace: ns },
        );
      }
      return { hash, collisionCount };
    }
    for (;;) {
      const hash = daemonTemplateHash({ ...ds, status: { ...ds.status, collisionCount } } as DaemonSet);
      const attempt = newDaemonRevision(ds, hash, max + 1);
      try {
        await this.o.client.create(CONTROLLER_REVISIONS, attempt, { namespace: ns });
        return { hash, collisionCount };
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        const existing = (await this.o.client.get(CONTROLLER_REVISIONS, attempt.metadata?.name ?? "", {
          namespace: ns,
        })) as ControllerRevision;
        if (equalRevision(existing, attempt) && controllerRefOf(existing)?.uid === ds.metadata?.uid) {
          return { hash, collisionCount };
        }
        collisionCount++;
      }
    }
  }

  /** `cleanupHistory`: the oldest revisions no live pod uses, beyond `revisionHistoryLimit`, are deleted. */
  private async cleanupHistory(ds: DaemonSet, revisions: readonly ControllerRevision[], hash: string): Promise<void> {
    const live = new Set([
      hash,
      ...this.owned(this.o.pods, ds).map((p) => p.metadata?.labels?.[DAEMON_SET_REVISION_LABEL]),
    ]);
    const history = revisions.filter((r) => !live.has(r.metadata?.labels?.[DAEMON_SET_REVISION_LABEL]));
    const limit = daemonSpecOf(ds).revisionHistoryLimit ?? 10;
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

  /** `updateDaemonSetStatus`'s counts, from the cache after this sync's writes were observed or not. */
  private status(ds: DaemonSet, nodes: readonly Node[], hash: string): DaemonSetStatus {
    const byNode = this.podsByNode(ds);
    const minReady = daemonSpecOf(ds).minReadySeconds ?? 0;
    const now = this.o.clock.now();
    const generation = this.templateGeneration(ds);
    const s: DaemonSetStatus = {
      observedGeneration: ds.metadata?.generation ?? 0,
      desiredNumberScheduled: 0,
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
      updatedNumberScheduled: 0,
      numberAvailable: 0,
      numberUnavailable: 0,
      collisionCount: (ds.status as DaemonSetStatus | undefined)?.collisionCount ?? 0,
    };
    for (const node of nodes) {
      const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
      const pods = (byNode.get(node.metadata?.name ?? "") ?? []).filter((p) => p.metadata?.deletionTimestamp == null);
      const scheduled = pods.length > 0;
      if (!shouldRun) {
        if (scheduled) s.numberMisscheduled++;
        continue;
      }
      s.desiredNumberScheduled++;
      if (!scheduled) continue;
      s.currentNumberScheduled++;
      const pod = [...pods].sort(byCreation)[0]!;
      if (isPodReady(pod)) {
        s.numberReady++;
        if (isPodAvailable(pod, minReady, now)) s.numberAvailable++;
      }
      if (isPodUpdated(pod, hash, generation)) s.updatedNumberScheduled++;
    }
    s.numberUnavailable = Math.max(0, s.desiredNumberScheduled - s.numberAvailable);
    return s;
  }

  /**
   * `storeDaemonSetStatus`: on change only; a conflict is retried (`StatusUpdateRetries`) on the set as the server has
   * it now, unless that is a newer generation (its own sync writes its status).
   */
  private async writeStatus(ds: DaemonSet, status: DaemonSetStatus): Promise<void> {
    const cur = (ds.status ?? {}) as Partial<DaemonSetStatus>;
    const same = (Object.keys(status) as (keyof DaemonSetStatus)[]).every((k) => (cur[k] ?? 0) === (status[k] ?? 0));
    if (same) return;
    let base = ds;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.o.client.updateStatus(resources.daemonSets, {
          ...base,
          status: { ...base.status, ...status },
        } as DaemonSet);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= 1) throw err;
      }
      try {
        base = await this.o.client.get(resources.daemonSets, ds.metadata?.name ?? "", {
          namespace: ds.metadata?.namespace ?? "",
        });
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if ((base.metadata?.generation ?? 0) !== (ds.metadata?.generation ?? 0)) return;
    }
  }

  private failed(ds: DaemonSet, verb: "create" | "delete", what: string, err: unknown): void {
    const reason = verb === "create" ? "FailedCreate" : "FailedDelete";
    const message = `Error ${verb === "create" ? "creating" : "deleting"} ${what}: ${String((err as Error).message ?? err)}`;
    this.o.recorder?.event(ds, "Warning", reason, message);
    safeLog(this.o.logger, "warn", message, { controller: "daemonset-controller", key: keyOf(ds) });
  }
}

/** `shouldIgnoreNodeUpdate` negated: labels, taints or `unschedulable` changed. */
function nodeChanged(old: Node, cur: Node): boolean {
  return (
    JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(cur.metadata?.labels ?? {}) ||
    JSON.stringify(old.spec?.taints ?? []) !== JSON.stringify(cur.spec?.taints ?? []) ||
    (old.spec?.unschedulable ?? false) !== (cur.spec?.unschedulable ?? false)
  );
}
