import { isNotFound, type KubeObject, labelSelectorAsSelector } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type Job, type KubeClient, type Pod, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventHandler, type EventRecorder, type Request } from "@informer-ts/controller";
import { type Logger, type MetricsProvider, safeLog } from "@informer-ts/instrumentation";
import { controllerRefOf, newControllerRef, requestOf, resolveControllerRef } from "../internal/controller-ref.js";
import { type Condition, isPodReady, isPodTerminal, keyOf, rfc3339 } from "../internal/pod-util.js";
import { UIDTrackingControllerExpectations } from "../replicaset/controller-expectations.js";
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from "../replicaset/slow-start.js";
import { type BackoffRecord, type FinishedPod, nextBackoffRecord, remainingBackoffMs } from "./backoff-record.js";
import {
  addCompletionIndexEnvVariables,
  calculateSucceededIndexes,
  duplicatedIndexPodsForRemoval,
  firstPendingIndexes,
  getCompletionIndex,
  getIndexFailureCount,
  type Interval,
  intervalsHave,
  intervalsToString,
  intervalsTotal,
  intervalsUnion,
  isIndexedJob,
  JOB_COMPLETION_INDEX_ANNOTATION,
  JOB_INDEX_FAILURE_COUNT_ANNOTATION,
  JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION,
  parseIndexesFromString,
  podGenerateNameWithIndex,
  sortActivePods,
  sortedUnique,
  withOrderedIndexes,
} from "./indexed-job-utils.js";
import { matchPodFailurePolicy, type PodFailurePolicyRule } from "./pod-failure-policy.js";
import { isPodFailed, onlyReplaceFailedPods } from "./pod-replacement-policy.js";
import { matchSuccessPolicy, SUCCESS_POLICY_REASON, type SuccessPolicy } from "./success-policy.js";

/** `batch.kubernetes.io/job-tracking`: the finalizer that keeps a finished pod until the Job counted it. */
export const JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
/** `batch.JobControllerName`: the `spec.managedBy` value that leaves a Job to this controller. */
export const JOB_CONTROLLER_NAME = "kubernetes.io/job-controller";
/** The labels a Job's pods carry (`batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name` and the legacy pair). */
export const JOB_CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
/** `DefaultBackoffLimit` of a Job without `spec.backoffLimit`. */
export const DEFAULT_BACKOFF_LIMIT = 6;
/** `math.MaxInt32`: the default `backoffLimit` of a Job with `backoffLimitPerIndex`. */
const MAX_INT32 = 2_147_483_647;

/** What the Job controller reads of a Job's spec. */
interface JobSpec {
  parallelism?: number;
  completions?: number;
  backoffLimit?: number;
  completionMode?: "NonIndexed" | "Indexed";
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  activeDeadlineSeconds?: number;
  suspend?: boolean;
  selector?: unknown;
  podFailurePolicy?: { rules?: PodFailurePolicyRule[] };
  /** When a replacement pod is created: once the old one is `Failed`, or already while it is terminating. */
  podReplacementPolicy?: "Failed" | "TerminatingOrFailed";
  successPolicy?: SuccessPolicy;
  /** `spec.managedBy`: the controller that reconciles the Job (this one when absent or {@link JOB_CONTROLLER_NAME}). */
  managedBy?: string;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown };
}

/** `batch/v1` `JobStatus` as the controller writes it. */
export interface JobStatus {
  active?: number;
  ready?: number;
  /** Pods of the Job being deleted that have not finished (`JobPodReplacementPolicy`). */
  terminating?: number;
  succeeded?: number;
  failed?: number;
  startTime?: string;
  completionTime?: string;
  /** Indexed mode: the succeeded indexes as intervals (`"0-2,5"`). */
  completedIndexes?: string;
  /** Indexed mode with `backoffLimitPerIndex`: the failed indexes as intervals. */
  failedIndexes?: string;
  conditions?: Condition[];
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
}

/** Options of a {@link JobController}. */
export interface JobControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly jobs: SharedIndexInformer<Job>;
  readonly pods: SharedIndexInformer<Pod>;
  readonly recorder?: EventRecorder;
  readonly metrics?: MetricsProvider;
  /** `ConcurrentJobSyncs` (default 5). */
  readonly workers?: number;
  /** `DefaultJobPodFailureBackOff` in ms (default 10 s); tests may shorten it. */
  readonly podFailureBackoffMs?: number;
}

function specOf(job: Job): JobSpec {
  return (job.spec ?? {}) as JobSpec;
}

function statusOf(job: Job): JobStatus {
  return (job.status ?? {}) as JobStatus;
}

/** `IsJobFinished`: a `Complete` or `Failed` condition is `True`. */
export function isJobFinished(job: { status?: unknown }): boolean {
  const conds = ((job.status as JobStatus | undefined)?.conditions ?? []) as Condition[];
  return conds.some((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");
}

/** When a finished pod finished: its last container's `finishedAt`, else `fallback`. */
function finishedAtOf(pod: Pod, fallback: number): number {
  let t = -Infinity;
  for (const cs of pod.status?.containerStatuses ?? []) {
    const f = (cs.state?.terminated as { finishedAt?: string } | undefined)?.finishedAt;
    if (f !== undefined) t = Math.max(t, Date.parse(String(f)));
  }
  return Number.isFinite(t) ? t : fallback;
}

/**
 * The Job controller (`pkg/controller/job/job_controller.go`): runs a Job's pods to `completions` successes,
 * `parallelism` at a time.
 *
 * - Pods are the Job's by controller reference; they are created from the template with the Job's labels
 *   (`batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name`, and `controller-uid`/`job-name`), a
 *   controller reference, and the `batch.kubernetes.io/job-tracking` finalizer, in slow-start batches under
 *   expectations (as the ReplicaSet controller does).
 * - A finished pod is counted once, as upstream's finalizer tracking does: its UID goes to
 *   `status.uncountedTerminatedPods`, its finalizer is removed, then it moves to `succeeded`/`failed`. A deleted pod
 *   that had not finished counts as failed.
 * - A failed pod is matched against `spec.podFailurePolicy` (`FailJob`, `Ignore`, `Count`; {@link matchPodFailurePolicy});
 *   counted failures beyond `backoffLimit` (default 6) fail the Job (`BackoffLimitExceeded`), so do as many container
 *   restarts under `restartPolicy: OnFailure` ({@link pastBackoffLimitOnFailure}), and running longer
 *   than `activeDeadlineSeconds` (`DeadlineExceeded`, re-checked on the Clock). Replacement pods wait out the pod
 *   failure backoff (10 s doubled per failure since the last success, at most 10 min; {@link remainingBackoffMs}).
 * - Finishing: `FailureTarget` (or `SuccessCriteriaMet`) first, active pods deleted, then `Failed` (or `Complete` with
 *   `completionTime`) once no pod of the Job is active — the v1.31+ order. `suspend` deletes the active pods and sets
 *   `Suspended`; resuming resets `startTime`.
 *
 * - `completionMode: Indexed` (`indexed_job_utils.go`, {@link isIndexedJob}): each pod gets a completion index
 *   (annotation and label `batch.kubernetes.io/job-completion-index`, `JOB_COMPLETION_INDEX` from that label in
 *   every container, hostname `<job>-<index>`, name `<job>-<index>-xxxxx`); succeeded indexes are kept as intervals
 *   in `status.completedIndexes` and the Job succeeds once every index below `completions` has. With
 *   `backoffLimitPerIndex` an index fails once its pods failed more often (counted in
 *   `batch.kubernetes.io/job-index-failure-count`) or a `FailIndex` rule matched; `status.failedIndexes` lists them,
 *   more than `maxFailedIndexes` fail the Job (`MaxFailedIndexesExceeded`), and once every index succeeded or failed
 *   with some failed it fails with `FailedIndexes`.
 *
 * - `successPolicy` (Indexed mode, `success_policy.go`, {@link matchSuccessPolicy}): once a rule's `succeededIndexes`
 *   (all, or `succeededCount` of them) or `succeededCount` indexes have succeeded, `SuccessCriteriaMet` (reason
 *   `SuccessPolicy`, `Matched rules at index N`) is set, the pods still running are deleted (and not counted as
 *   failed), and `Complete` follows with the same reason once none is left.
 *
 * - Pods are claimed by selector (`claimPods`): matching orphans adopted, controlled pods that no
 *   longer match released. A Job whose `spec.managedBy` names another controller is not reconciled at all.
 *
 * - `podReplacementPolicy` ({@link onlyReplaceFailedPods}): under `Failed` (the default with a `podFailurePolicy`) a
 *   pod being deleted is neither counted as failed ({@link isPodFailed}) nor replaced until it is `Failed`; it counts
 *   in `status.terminating` meanwhile. Under `TerminatingOrFailed` it counts as failed and is replaced at once.
 *
 * Differences from kube-controller-manager: a Job with `backoffLimitPerIndex` keeps terminating pods' indexes as
 * under `Failed` whatever its `podReplacementPolicy`; the Job's defaults
 * (`SetDefaults_Job`) are applied here rather than by the apiserver; no job metrics beyond the work queue's.
 */
export class JobController {
  readonly controller: Controller;
  /**
   * The orphan-pod queue (`orphanQueue`, `syncOrphanPod`): a pod that still holds the tracking finalizer while its
   * Job is gone (a background deletion) or finished has the finalizer removed, so that it can go.
   */
  readonly orphanPods: Controller;
  readonly expectations: UIDTrackingControllerExpectations;
  private readonly backoff = new Map<string, BackoffRecord>();
  /** Per Job key: the resourceVersion of the last status this controller wrote, until the informer delivered it. */
  private readonly written = new Map<string, string>();

  constructor(private readonly o: JobControllerOptions) {
    this.expectations = new UIDTrackingControllerExpectations(o.clock);
    const jobHandler: EventHandler<KubeObject> = {
      create: (obj) => [requestOf(obj)],
      update: (_old, cur) => {
        const key = keyOf(cur);
        if (delivered(this.written.get(key), cur.metadata?.resourceVersion)) this.written.delete(key);
        return [requestOf(cur)];
      },
      delete: (obj) => {
        this.expectations.deleteExpectations(keyOf(obj));
        this.backoff.delete(keyOf(obj));
        this.written.delete(keyOf(obj));
        return [requestOf(obj)];
      },
    };
    const podHandler: EventHandler<KubeObject> = {
      // addPod/updatePod: a pod's Job syncs; an orphan wakes the Jobs whose selector matches it (one may adopt it);
      // a pod whose controller changed wakes the old one too.
      create: (obj) => [...this.podEvent(obj as Pod, "create"), ...this.adoptersOf(obj as Pod)],
      update: (old, cur) => {
        const reqs = [...this.podEvent(cur as Pod, "update"), ...this.adoptersOf(cur as Pod)];
        if (controllerRefOf(old)?.uid !== controllerRefOf(cur)?.uid) {
          const was = this.jobOf(old as Pod);
          if (was !== undefined) reqs.push(requestOf(was));
        }
        return reqs;
      },
      delete: (obj) => this.podEvent(obj as Pod, "delete"),
    };
    this.controller = new Controller({
      logger: o.logger,
      name: "job-controller",
      reconciler: (req) => this.sync(req),
      watches: [
        {
          informer: o.jobs as unknown as SharedIndexInformer<KubeObject>,
          handler: jobHandler,
          keyFallback: true,
          name: "Job",
        },
        { informer: o.pods as unknown as SharedIndexInformer<KubeObject>, handler: podHandler, name: "pods" },
      ],
      maxConcurrentReconciles: o.workers ?? 5,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
    const orphanHandler: EventHandler<KubeObject> = {
      create: (obj) => this.orphanRequest(obj as Pod),
      update: (_old, cur) => this.orphanRequest(cur as Pod),
      delete: () => [],
    };
    // deleteJob: the deleted Job's pods still holding the tracking finalizer become orphans. A pod whose update
    // (say its deletionTimestamp, set by the garbage collector) arrived while the Job was still cached raised no
    // orphan request, and no later pod event may come to raise one.
    const deletedJobHandler: EventHandler<KubeObject> = {
      create: () => [],
      update: () => [],
      delete: (obj) => this.trackedPodsOf(obj as Job).map(requestOf),
    };
    this.orphanPods = new Controller({
      logger: o.logger,
      name: "job-orphan-pod-controller",
      reconciler: (req) => this.syncOrphanPod(req),
      watches: [
        { informer: o.pods as unknown as SharedIndexInformer<KubeObject>, handler: orphanHandler, name: "pods" },
        {
          informer: o.jobs as unknown as SharedIndexInformer<KubeObject>,
          handler: deletedJobHandler,
          name: "deleted Job",
        },
      ],
      maxConcurrentReconciles: 1,
      clock: o.clock,
      ...(o.metrics !== undefined && { metrics: o.metrics }),
      needLeaderElection: false,
    });
  }

  /** Runs the controller (and its orphan-pod queue) until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.controller.run(signal), this.orphanPods.run(signal)]);
  }

  /** `addPod`/`updatePod`: a pod with the tracking finalizer whose Job is not in the cache is an orphan. */
  private orphanRequest(pod: Pod): readonly Request[] {
    return hasTrackingFinalizer(pod) && this.jobOf(pod) === undefined ? [requestOf(pod)] : [];
  }

  /** The cached pods `job` controls that still hold the tracking finalizer. */
  private trackedPodsOf(job: Job): Pod[] {
    const uid = job.metadata?.uid;
    if (uid === undefined) return [];
    return (this.o.pods.getIndexer().byIndex("namespace", job.metadata?.namespace ?? "") as Pod[]).filter(
      (p) => controllerRefOf(p)?.uid === uid && hasTrackingFinalizer(p),
    );
  }

  /** `syncOrphanPod`: removes the finalizer of a pod still orphaned, or whose Job finished. */
  private async syncOrphanPod(req: Request): Promise<undefined> {
    const pod = this.o.pods.getIndexer().getByKey(`${req.namespace}/${req.name}`) as Pod | undefined;
    if (pod === undefined || !hasTrackingFinalizer(pod)) return undefined;
    const ref = controllerRefOf(pod);
    if (ref !== undefined) {
      // Controlled by something that is not a batch/v1 Job: not ours to release.
      if (ref.kind !== "Job" || ref.apiVersion !== "batch/v1") return undefined;
      const job = this.jobOf(pod);
      // Adopted again by a running Job: it will count the pod.
      if (job !== undefined && !isJobFinished(job)) return undefined;
    }
    await this.removeFinalizers([pod]);
    return undefined;
  }

  /** `getPodJobs` of an orphan: the Jobs of its namespace whose selector matches its labels (none for an owned pod). */
  private adoptersOf(pod: Pod): Request[] {
    if (controllerRefOf(pod) !== undefined || pod.metadata?.deletionTimestamp != null) return [];
    const labels = pod.metadata?.labels ?? {};
    return (this.o.jobs.getIndexer().byIndex("namespace", pod.metadata?.namespace ?? "") as Job[])
      .filter((j) => {
        const sel = specOf(j).selector;
        return sel != null && labelSelectorAsSelector(sel as never).matches(labels);
      })
      .map(requestOf);
  }

  /**
   * `getPodsForJob` with `PodControllerRefManager.ClaimPods` (`pkg/controller/controller_ref_manager.go`): the pods
   * this Job controls whose labels still match its selector, plus the namespace's matching orphans, adopted (a
   * controller reference and the tracking finalizer patched on, with the pod's UID as precondition) unless the Job
   * is being deleted; a controlled pod that no longer matches is released (its reference to the Job removed; the
   * orphan-pod queue then drops its finalizer).
   */
  private async claimPods(job: Job): Promise<Pod[]> {
    const uid = job.metadata?.uid;
    const sel = specOf(job).selector;
    const selector = sel == null ? undefined : labelSelectorAsSelector(sel as never);
    const matches = (p: Pod) =>
      selector !== undefined && !selector.empty() && selector.matches(p.metadata?.labels ?? {});
    const out: Pod[] = [];
    for (const p of this.o.pods.getIndexer().byIndex("namespace", job.metadata?.namespace ?? "") as Pod[]) {
      const ref = controllerRefOf(p);
      if (ref !== undefined) {
        if (ref.uid !== uid) continue;
        if (matches(p) || job.metadata?.deletionTimestamp != null) {
          out.push(p);
          continue;
        }
        const rest = (p.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
        await this.patchPod(p, {
          metadata: { ownerReferences: rest.length === 0 ? null : rest, uid: p.metadata?.uid },
        });
        continue;
      }
      if (!matches(p) || p.metadata?.deletionTimestamp != null || job.metadata?.deletionTimestamp != null) continue;
      const adopted = await this.patchPod(p, {
        metadata: {
          ownerReferences: [...(p.metadata?.ownerReferences ?? []), newControllerRef(job, "batch/v1", "Job")],
          finalizers: [...new Set([...(p.metadata?.finalizers ?? []), JOB_TRACKING_FINALIZER])],
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

  private jobOf(pod: Pod): Job | undefined {
    return resolveControllerRef<Job>(
      (k) => this.o.jobs.getIndexer().getByKey(k),
      "Job",
      pod.metadata?.namespace ?? "",
      controllerRefOf(pod),
    );
  }

  private podEvent(pod: Pod, kind: "create" | "update" | "delete"): readonly Request[] {
    const job = this.jobOf(pod);
    if (job === undefined) return [];
    const key = keyOf(job);
    if (kind === "create") this.expectations.creationObserved(key);
    if (kind === "delete" || (kind === "update" && pod.metadata?.deletionTimestamp != null))
      this.expectations.deletionObservedOf(key, keyOf(pod));
    return [requestOf(job)];
  }

  /** `syncJob`. */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const key = `${req.namespace}/${req.name}`;
    const cached = this.o.jobs.getIndexer().getByKey(key) as Job | undefined;
    if (cached === undefined) {
      this.expectations.deleteExpectations(key);
      this.backoff.delete(key);
      this.written.delete(key);
      return undefined;
    }
    // A status this controller wrote that the informer has not delivered yet: the cached Job is older than it, and
    // counting from it would count finished pods twice or not at all. The delivery enqueues the Job again.
    if (this.written.has(key)) {
      if (!delivered(this.written.get(key), cached.metadata?.resourceVersion)) return { requeueAfter: 1000 };
      this.written.delete(key);
    }
    let job = cached;
    const uid = job.metadata?.uid;
    // managedBy (`managedByExternalController`): a Job another controller reconciles is left alone.
    const managedBy = specOf(job).managedBy;
    if (managedBy !== undefined && managedBy !== JOB_CONTROLLER_NAME) return undefined;
    const now = this.o.clock.now();
    if (isJobFinished(job)) {
      const pods = (this.o.pods.getIndexer().byIndex("namespace", req.namespace) as Pod[]).filter(
        (p) => controllerRefOf(p)?.uid === uid,
      );
      // Counted long ago: any pod still holding the tracking finalizer lets go (upstream's orphan finalizer cleanup).
      await this.removeFinalizers(pods.filter(hasTrackingFinalizer));
      return undefined;
    }
    const pods = await this.claimPods(job);
    const spec = specOf(job);
    const status: JobStatus = structuredClone(statusOf(job));
    const uncounted = {
      succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])],
      failed: [...(status.uncountedTerminatedPods?.failed ?? [])],
    };
    // 1. Finished (or deleted-while-running) pods with the finalizer join uncountedTerminatedPods — or, in Indexed
    // mode, a succeeded pod's index joins completedIndexes (the index is enough not to count it twice), and with
    // backoffLimitPerIndex a failed pod past its index's limit (or matching a FailIndex rule) fails its index.
    const rules = spec.podFailurePolicy?.rules;
    const { completions, parallelism } = effectiveCounts(spec);
    const indexed = isIndexedJob(job);
    const perIndex = indexed && spec.backoffLimitPerIndex !== undefined;
    // Validation requires completions in Indexed mode.
    const indexCount = completions ?? 1;
    const corrupt = (field: string) => (part: string) =>
      safeLog(this.o.logger, "info", `corrupted ${field} interval, ignoring`, { key, interval: part });
    const succeededIndexes = indexed
      ? calculateSucceededIndexes(
          status.completedIndexes,
          indexCount,
          pods,
          (p) => !hasTrackingFinalizer(p),
          corrupt("completedIndexes"),
        ).result
      : [];
    let failedIndexes = perIndex
      ? parseIndexesFromString(status.failedIndexes, indexCount, corrupt("failedIndexes"))
      : [];
    const newFailedIndexes: number[] = [];
    let failJobMessage: string | undefined;
    const newlyFinished: Pod[] = [];
    const finished: FinishedPod[] = [];
    // Once the success criteria are met the pods still running are deleted: they are not failures.
    const successMet = (statusOf(job).conditions ?? []).some(
      (c) => c.type === "SuccessCriteriaMet" && c.status === "True",
    );
    const failureMet = (statusOf(job).conditions ?? []).some((c) => c.type === "FailureTarget" && c.status === "True");
    for (const p of pods) {
      if (!hasTrackingFinalizer(p)) continue;
      const puid = p.metadata?.uid ?? "";
      if (uncounted.succeeded.includes(puid) || uncounted.failed.includes(puid)) {
        newlyFinished.push(p);
        continue;
      }
      const phase = p.status?.phase;
      const ix = getCompletionIndex(p);
      const inRange = !indexed || (ix >= 0 && ix < indexCount);
      if (phase === "Succeeded") {
        if (!indexed) uncounted.succeeded.push(puid);
        finished.push({ succeeded: true, finishedAt: finishedAtOf(p, now) });
      } else if (phase !== "Failed" && p.metadata?.deletionTimestamp != null && successMet) {
        newlyFinished.push(p);
        continue;
      } else if (isPodFailed(p, spec, failureMet)) {
        const match = phase === "Failed" ? matchPodFailurePolicy(rules, p) : { countFailed: true };
        if (match.failJobMessage !== undefined && failJobMessage === undefined) failJobMessage = match.failJobMessage;
        const indexFailed =
          match.action === "FailIndex" ||
          (match.countFailed && getIndexFailureCount(p) >= (spec.backoffLimitPerIndex ?? MAX_INT32));
        if (perIndex && inRange && indexFailed) newFailedIndexes.push(ix);
        if (match.countFailed && inRange) {
          uncounted.failed.push(puid);
          finished.push({ succeeded: false, finishedAt: finishedAtOf(p, now) });
        } else {
          // Ignored failures are not counted: only the finalizer goes.
          newlyFinished.push(p);
          continue;
        }
      } else continue;
      newlyFinished.push(p);
    }
    if (indexed) {
      status.completedIndexes = intervalsToString(succeededIndexes);
      status.succeeded = intervalsTotal(succeededIndexes);
      if (perIndex) {
        failedIndexes = withOrderedIndexes(failedIndexes, sortedUnique(newFailedIndexes));
        status.failedIndexes = intervalsToString(failedIndexes);
      }
    }
    if (finished.length > 0) {
      this.backoff.set(key, nextBackoffRecord(this.backoff.get(key) ?? { failuresAfterLastSuccess: 0 }, finished));
    }
    const uncountedBefore =
      (status.uncountedTerminatedPods?.succeeded?.length ?? 0) + (status.uncountedTerminatedPods?.failed?.length ?? 0);
    if (newlyFinished.length > 0 || uncountedBefore > 0) {
      status.uncountedTerminatedPods = uncounted;
      job = (await this.writeStatus(job, status)) ?? job;
      // 2. The finalizers go; 3. the pods move from uncounted to the counters.
      await this.removeFinalizers(newlyFinished);
      status.succeeded = (status.succeeded ?? 0) + uncounted.succeeded.length;
      status.failed = (status.failed ?? 0) + uncounted.failed.length;
      status.uncountedTerminatedPods = {};
    }
    const active = pods.filter((p) => !isPodTerminal(p) && p.metadata?.deletionTimestamp == null);
    const terminating = pods.filter((p) => !isPodTerminal(p) && p.metadata?.deletionTimestamp != null);
    const succeeded = status.succeeded ?? 0;
    const failed = status.failed ?? 0;
    let requeueAfter: number | undefined;
    const nowText = rfc3339(now);
    const conditions = [...(status.conditions ?? [])];
    const setCond = (type: string, st: string, reason: string, message: string) => {
      const i = conditions.findIndex((c) => c.type === type);
      const prev = conditions[i];
      const c: Condition = {
        type,
        status: st,
        reason,
        message,
        lastProbeTime: nowText,
        lastTransitionTime: prev !== undefined && prev.status === st ? (prev.lastTransitionTime ?? nowText) : nowText,
      };
      if (i < 0) conditions.push(c);
      else if (prev?.status !== st || prev.reason !== reason) conditions[i] = c;
    };
    const condTrue = (type: string) => conditions.some((c) => c.type === type && c.status === "True");

    if (spec.suspend === true) {
      if (!condTrue("Suspended")) {
        setCond("Suspended", "True", "JobSuspended", "Job suspended");
        this.o.recorder?.event(job, "Normal", "Suspended", "Job suspended");
      }
      await this.deletePods(job, active);
      status.active = 0;
      status.ready = 0;
      delete status.startTime;
      status.conditions = conditions;
      await this.writeStatus(job, status);
      return undefined;
    }
    if (condTrue("Suspended")) {
      setCond("Suspended", "False", "JobResumed", "Job resumed");
      this.o.recorder?.event(job, "Normal", "Resumed", "Job resumed");
    }
    if (status.startTime === undefined) status.startTime = nowText;
    const startMs = Date.parse(status.startTime);
    const backoffLimit =
      spec.backoffLimit ?? (spec.backoffLimitPerIndex !== undefined ? MAX_INT32 : DEFAULT_BACKOFF_LIMIT);
    const failedIndexCount = intervalsTotal(failedIndexes);
    // The failure target: policy, failed indexes, backoff limit, deadline (upstream's order).
    if (!condTrue("FailureTarget") && !condTrue("SuccessCriteriaMet")) {
      let reason: string | undefined;
      let message = "";
      if (failJobMessage !== undefined) {
        reason = "PodFailurePolicy";
        message = failJobMessage;
      } else if (perIndex && spec.maxFailedIndexes !== undefined && failedIndexCount > spec.maxFailedIndexes) {
        reason = "MaxFailedIndexesExceeded";
        message = "Job has exceeded the specified maximal number of failed indexes";
      } else if (
        perIndex &&
        failedIndexCount > 0 &&
        failedIndexCount + intervalsTotal(succeededIndexes) >= indexCount
      ) {
        reason = "FailedIndexes";
        message = "Job has failed indexes";
      } else if (failed > backoffLimit || pastBackoffLimitOnFailure(job, pods, backoffLimit)) {
        reason = "BackoffLimitExceeded";
        message = "Job has reached the specified backoff limit";
      } else if (spec.activeDeadlineSeconds !== undefined) {
        const left = startMs + spec.activeDeadlineSeconds * 1000 - now;
        if (left <= 0) {
          reason = "DeadlineExceeded";
          message = "Job was active longer than specified deadline";
        } else requeueAfter = left;
      }
      if (reason !== undefined) {
        setCond("FailureTarget", "True", reason, message);
        this.o.recorder?.event(job, "Warning", reason, message);
      }
    }
    // `matchSuccessPolicy` (Indexed Jobs only): a rule met ends the Job early.
    if (indexed && !condTrue("FailureTarget") && !condTrue("SuccessCriteriaMet")) {
      const matched = matchSuccessPolicy(spec.successPolicy, indexCount, succeededIndexes, corrupt("successPolicy"));
      if (matched !== undefined) setCond("SuccessCriteriaMet", "True", SUCCESS_POLICY_REASON, matched);
    }
    if (!condTrue("FailureTarget") && !condTrue("SuccessCriteriaMet")) {
      const complete = indexed
        ? intervalsTotal(succeededIndexes) >= indexCount
        : completions === undefined
          ? succeeded > 0 && active.length === 0
          : succeeded >= completions;
      if (complete)
        setCond("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods");
    }
    if (condTrue("FailureTarget") || condTrue("SuccessCriteriaMet")) {
      await this.deletePods(job, active);
      if (active.length === 0 && terminating.length === 0) {
        if (condTrue("FailureTarget")) {
          const ft = conditions.find((c) => c.type === "FailureTarget")!;
          setCond("Failed", "True", ft.reason ?? "", ft.message ?? "");
        } else {
          // Complete carries the reason and message of SuccessCriteriaMet (CompletionsReached or SuccessPolicy).
          const met = conditions.find((c) => c.type === "SuccessCriteriaMet")!;
          setCond("Complete", "True", met.reason ?? "", met.message ?? "");
          status.completionTime = nowText;
          this.o.recorder?.event(job, "Normal", "Completed", "Job completed");
        }
      }
      status.active = 0;
      status.ready = 0;
      requeueAfter = undefined;
    } else if (indexed) {
      const managed = await this.manageIndexed(job, key, {
        pods,
        active,
        terminating,
        succeededIndexes,
        failedIndexes,
        parallelism,
        completions: indexCount,
        perIndex,
        holdTerminating: perIndex || onlyReplaceFailedPods(spec),
        now,
      });
      if (managed.requeueAfter !== undefined) requeueAfter = Math.min(requeueAfter ?? Infinity, managed.requeueAfter);
      status.active = active.length + managed.created;
      status.ready = active.filter(isPodReady).length;
    } else {
      // manageJob
      let wantActive: number;
      if (completions === undefined) wantActive = succeeded > 0 ? active.length : parallelism;
      else wantActive = Math.max(0, Math.min(parallelism, completions - succeeded));
      let created = 0;
      // Under the Failed policy a terminating pod still holds its place: its replacement waits until it failed.
      const holding = onlyReplaceFailedPods(spec) ? terminating.length : 0;
      if (this.expectations.satisfiedExpectations(key)) {
        if (active.length > wantActive) {
          const victims = sortActivePods(active, now).slice(0, active.length - wantActive);
          await this.deletePods(job, victims);
        } else if (active.length + holding < wantActive) {
          const wait = remainingBackoffMs(
            this.backoff.get(key) ?? { failuresAfterLastSuccess: 0 },
            now,
            this.o.podFailureBackoffMs,
          );
          if (wait > 0) requeueAfter = Math.min(requeueAfter ?? wait, wait);
          else created = await this.createPods(job, key, wantActive - active.length - holding);
        }
      }
      status.active = active.length + created;
      status.ready = active.filter(isPodReady).length;
    }
    status.conditions = conditions;
    // JobPodReplacementPolicy (beta, on): the pods being deleted that have not finished.
    status.terminating = terminating.length;
    if (status.uncountedTerminatedPods === undefined) status.uncountedTerminatedPods = {};
    await this.writeStatus(job, status);
    return requeueAfter === undefined ? undefined : { requeueAfter };
  }

  /**
   * `manageJob` in Indexed mode: the active pods of failed indexes go, then pods without a valid index, all but one
   * pod of a repeated index, and beyond that the lowest-ranked; else the first pending indexes get a pod each. With
   * `backoffLimitPerIndex` a terminating pod keeps its index (the `Failed` pod replacement policy that mode
   * defaults to), and an index waits out its own failure backoff (`getRemainingTimePerIndex`).
   */
  private async manageIndexed(
    job: Job,
    key: string,
    x: {
      pods: readonly Pod[];
      active: readonly Pod[];
      terminating: readonly Pod[];
      succeededIndexes: readonly Interval[];
      failedIndexes: readonly Interval[];
      parallelism: number;
      completions: number;
      perIndex: boolean;
      /** Terminating pods keep their index (the `Failed` pod replacement policy). */
      holdTerminating: boolean;
      now: number;
    },
  ): Promise<{ created: number; requeueAfter?: number }> {
    if (!this.expectations.satisfiedExpectations(key)) return { created: 0 };
    const done = intervalsUnion(x.succeededIndexes, x.failedIndexes);
    const wantActive = Math.max(0, Math.min(x.parallelism, x.completions - intervalsTotal(done)));
    const ofFailed = x.active.filter((p) => intervalsHave(x.failedIndexes, getCompletionIndex(p)));
    const rest = x.active.filter((p) => !ofFailed.includes(p));
    const { rm, left } = duplicatedIndexPodsForRemoval(rest, x.completions, x.now);
    const rmAtLeast = Math.max(0, x.active.length - wantActive);
    const victims = [...ofFailed, ...rm];
    if (victims.length < rmAtLeast) victims.push(...sortActivePods(left, x.now).slice(0, rmAtLeast - victims.length));
    if (victims.length > 0) {
      await this.deletePods(job, victims);
      return { created: 0 };
    }
    if (x.active.length >= wantActive) return { created: 0 };
    const holding = x.holdTerminating ? [...x.active, ...x.terminating] : x.active;
    const pending = firstPendingIndexes(holding, done, x.completions, x.completions);
    const failures = new Map<number, IndexFailures>();
    let requeueAfter: number | undefined;
    const ready: number[] = [];
    for (const ix of pending) {
      if (ready.length >= wantActive - x.active.length) break;
      if (x.perIndex) {
        const f = indexFailuresOf(x.pods, ix, specOf(job).podFailurePolicy?.rules, x.now);
        failures.set(ix, f);
        const wait =
          f.lastFailureTime === undefined
            ? 0
            : remainingBackoffMs(
                { failuresAfterLastSuccess: f.failed, lastFailureTime: f.lastFailureTime },
                x.now,
                this.o.podFailureBackoffMs,
              );
        if (wait > 0) {
          requeueAfter = Math.min(requeueAfter ?? wait, wait);
          continue;
        }
      }
      ready.push(ix);
    }
    const created = ready.length === 0 ? 0 : await this.createPods(job, key, ready.length, ready, failures);
    return { created, ...(requeueAfter !== undefined && { requeueAfter }) };
  }

  private async createPods(
    job: Job,
    key: string,
    n: number,
    indexes?: readonly number[],
    failures?: ReadonlyMap<number, IndexFailures>,
  ): Promise<number> {
    const ns = job.metadata?.namespace ?? "";
    const name = job.metadata?.name ?? "";
    const uid = job.metadata?.uid ?? "";
    const template = structuredClone(specOf(job).template ?? {}) as {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: { hostname?: string } & Parameters<typeof addCompletionIndexEnvVariables>[0];
    };
    if (indexes !== undefined) {
      template.spec ??= {};
      addCompletionIndexEnvVariables(template.spec);
    }
    const queue = [...(indexes ?? [])];
    this.expectations.expectCreations(key, n);
    const { successes, error } = await slowStartBatch(n, SLOW_START_INITIAL_BATCH_SIZE, async () => {
      const ix = queue.shift();
      const labels: Record<string, string> = { ...template.metadata?.labels };
      const annotations: Record<string, string> = { ...template.metadata?.annotations };
      const podSpec = structuredClone(template.spec ?? {});
      if (ix !== undefined) {
        annotations[JOB_COMPLETION_INDEX_ANNOTATION] = String(ix);
        labels[JOB_COMPLETION_INDEX_ANNOTATION] = String(ix);
        podSpec.hostname = `${name}-${ix}`;
        const f = failures?.get(ix);
        if (f !== undefined) {
          annotations[JOB_INDEX_FAILURE_COUNT_ANNOTATION] = String(f.failed);
          if (f.ignored > 0) annotations[JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = String(f.ignored);
        }
      }
      const pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          generateName: ix === undefined ? `${name}-` : podGenerateNameWithIndex(name, ix),
          namespace: ns,
          labels: {
            ...labels,
            [JOB_CONTROLLER_UID_LABEL]: uid,
            [JOB_NAME_LABEL]: name,
            "controller-uid": uid,
            "job-name": name,
          },
          ...(Object.keys(annotations).length > 0 && { annotations }),
          ownerReferences: [newControllerRef(job, "batch/v1", "Job")],
          finalizers: [JOB_TRACKING_FINALIZER],
        },
        spec: podSpec,
      } as unknown as Pod;
      try {
        const created = await this.o.client.create(resources.pods, pod, { namespace: ns });
        this.o.recorder?.event(job, "Normal", "SuccessfulCreate", `Created pod: ${created.metadata?.name ?? ""}`);
      } catch (err) {
        this.o.recorder?.event(
          job,
          "Warning",
          "FailedCreate",
          `Error creating: ${String((err as Error).message ?? err)}`,
        );
        throw err;
      }
    });
    for (let i = successes; i < n; i++) this.expectations.creationObserved(key);
    if (error !== undefined) throw error;
    return successes;
  }

  private async deletePods(job: Job, pods: readonly Pod[]): Promise<void> {
    if (pods.length === 0) return;
    const key = keyOf(job);
    this.expectations.expectDeletionsOf(key, pods.map(keyOf));
    const results = await Promise.allSettled(
      pods.map(async (p) => {
        try {
          await this.o.client.delete(resources.pods, p.metadata?.name ?? "", {
            namespace: p.metadata?.namespace ?? "",
          });
          this.o.recorder?.event(job, "Normal", "SuccessfulDelete", `Deleted pod: ${p.metadata?.name ?? ""}`);
        } catch (err) {
          this.expectations.deletionObservedOf(key, keyOf(p));
          if (!isNotFound(err)) throw err;
        }
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }

  private async removeFinalizers(pods: readonly Pod[]): Promise<void> {
    await Promise.all(
      pods.map(async (p) => {
        const rest = (p.metadata?.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
        try {
          await this.o.client.patch(
            resources.pods,
            p.metadata?.name ?? "",
            { metadata: { finalizers: rest.length === 0 ? null : rest, uid: p.metadata?.uid } },
            { namespace: p.metadata?.namespace ?? "" },
          );
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }),
    );
  }

  /** `updateJobStatus`: writes when the status changed; returns the written Job (undefined when it is gone). */
  private async writeStatus(job: Job, status: JobStatus): Promise<Job | undefined> {
    const clean = (s: JobStatus) => {
      const u = s.uncountedTerminatedPods;
      return JSON.stringify({
        ...s,
        uncountedTerminatedPods: {
          ...(u?.succeeded?.length && { succeeded: u.succeeded }),
          ...(u?.failed?.length && { failed: u.failed }),
        },
        conditions: (s.conditions ?? []).map((c) => ({ ...c, lastProbeTime: undefined })),
      });
    };
    if (clean(statusOf(job)) === clean(status)) return job;
    try {
      const out = (await this.o.client.updateStatus(resources.jobs, { ...job, status } as Job)) as Job;
      const rv = out.metadata?.resourceVersion;
      const cachedRV = (this.o.jobs.getIndexer().getByKey(keyOf(job)) as Job | undefined)?.metadata?.resourceVersion;
      if (rv !== undefined && rv !== cachedRV) this.written.set(keyOf(job), rv);
      return out;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      safeLog(this.o.logger, "debug", "job status update failed", { key: keyOf(job), err });
      throw err;
    }
  }
}

/**
 * Whether the informer's copy (`seen`) is at least the version this controller wrote (`written`). Resource versions
 * are opaque: compared as integers when both are (the simulator's and etcd's are), else any other version counts as
 * delivered, so that a relist that skipped the written version never leaves the Job waiting.
 */
function delivered(written: string | undefined, seen: string | undefined): boolean {
  if (written === undefined || seen === written) return true;
  if (seen === undefined) return false;
  if (/^\d+$/.test(written) && /^\d+$/.test(seen)) return BigInt(seen) >= BigInt(written);
  return true;
}

/** An index's failures so far, for its next pod's annotations and its backoff. */
interface IndexFailures {
  /** Counted failures (`job-index-failure-count` of the next pod). */
  readonly failed: number;
  /** Failures the pod failure policy ignored (`job-index-ignored-failure-count`). */
  readonly ignored: number;
  /** When the last failed pod of the index finished. */
  readonly lastFailureTime?: number;
}

/**
 * `getNewIndexFailureCounts`: from the index's last failed pod (highest failure count, then latest to finish), its
 * counts plus its own failure — counted, or ignored when a policy rule says `Ignore`.
 */
function indexFailuresOf(
  pods: readonly Pod[],
  ix: number,
  rules: readonly PodFailurePolicyRule[] | undefined,
  now: number,
): IndexFailures {
  let last: Pod | undefined;
  for (const p of pods) {
    if (getCompletionIndex(p) !== ix || p.status?.phase !== "Failed") continue;
    if (
      last === undefined ||
      getIndexFailureCount(p) > getIndexFailureCount(last) ||
      (getIndexFailureCount(p) === getIndexFailureCount(last) && finishedAtOf(p, now) > finishedAtOf(last, now))
    )
      last = p;
  }
  if (last === undefined) return { failed: 0, ignored: 0 };
  const counted = matchPodFailurePolicy(rules, last).countFailed;
  return {
    failed: getIndexFailureCount(last) + (counted ? 1 : 0),
    ignored: getIndexFailureCount(last, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION) + (counted ? 0 : 1),
    lastFailureTime: finishedAtOf(last, now),
  };
}

function hasTrackingFinalizer(p: Pod): boolean {
  return (p.metadata?.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/**
 * The API server's defaults of a Job's counts (`SetDefaults_Job`): neither set → one completion, parallelism 1;
 * parallelism defaults to 1 and is never above the remaining completions' worth.
 */
export function effectiveCounts(spec: { completions?: number; parallelism?: number }): {
  completions: number | undefined;
  parallelism: number;
} {
  if (spec.completions === undefined && spec.parallelism === undefined) return { completions: 1, parallelism: 1 };
  return { completions: spec.completions, parallelism: spec.parallelism ?? 1 };
}

/**
 * `pastBackoffLimitOnFailure`: under `restartPolicy: OnFailure` a failing container restarts in its pod instead of
 * failing it, so the restarts count as failures — the sum of `restartCount` of the containers and init containers of
 * the Job's running and pending pods; past the limit when it reaches `backoffLimit` (or is above 0 for a limit of 0).
 */
export function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[], backoffLimit: number): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== "OnFailure") return false;
  let restarts = 0;
  for (const p of pods) {
    const phase = p.status?.phase;
    if (phase !== "Running" && phase !== "Pending") continue;
    for (const c of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) {
      restarts += c.restartCount ?? 0;
    }
  }
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}
