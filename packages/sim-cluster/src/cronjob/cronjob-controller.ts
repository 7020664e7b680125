import { isAlreadyExists, isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { SharedIndexInformer } from "@informer-ts/cache";
import { type CronJob, type Job, type KubeClient, resources } from "@informer-ts/client";
import type { Clock } from "@informer-ts/clock";
import { Controller, type EventRecorder, type Request } from "@informer-ts/controller";
import { type Logger, type MetricsProvider, safeLog } from "@informer-ts/instrumentation";
import {
  controllerRefOf,
  ownedHandler,
  requestOf,
  resolveControllerRef,
  selfHandler,
} from "../internal/controller-ref.js";
import { type Condition, keyOf, rfc3339 } from "../internal/pod-util.js";
import {
  CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION,
  getJobFromTemplate,
  nextScheduleTime,
  nextScheduleTimeDuration,
} from "./cronjob-utils.js";
import { parseSchedule, type Schedule, UnparseableScheduleError } from "./schedule.js";

/** Options of a {@link CronJobController}. */
export interface CronJobControllerOptions {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly cronJobs: SharedIndexInformer<CronJob>;
  readonly jobs: SharedIndexInformer<Job>;
  readonly recorder?: EventRecorder;
  readonly metrics?: MetricsProvider;
  /** `ConcurrentCronJobSyncs` (default 5). */
  readonly workers?: number;
}

interface CronJobSpecView {
  schedule?: string;
  timeZone?: string;
  suspend?: boolean;
  concurrencyPolicy?: "Allow" | "Forbid" | "Replace";
  startingDeadlineSeconds?: number;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

interface ObjectRef {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

interface CronJobStatusView {
  active?: ObjectRef[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

const specOf = (cj: CronJob) => (cj.spec ?? {}) as CronJobSpecView;
const finishedCondition = (j: Job) =>
  ((j.status?.conditions ?? []) as Condition[]).find(
    (c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
  );

/**
 * The CronJob controller (`pkg/controller/cronjob/cronjob_controllerv2.go`, with `utils.go`): creates a Job for each
 * activation of `spec.schedule` on the injected Clock.
 *
 * - A sync reconciles `status.active` with the CronJob's Jobs (a finished Job leaves it: `SawCompletedJob`,
 *   `lastSuccessfulTime`; a vanished one: `MissingJob`), deletes finished Jobs beyond `successfulJobsHistoryLimit`
 *   (3) and `failedJobsHistoryLimit` (1), oldest first, then — unless being deleted or `suspend`ed — finds the most
 *   recent activation ({@link nextScheduleTime}, within `startingDeadlineSeconds`; more than 100 missed warns
 *   `TooManyMissedTimes`; one past its deadline is `MissSchedule`d).
 * - `concurrencyPolicy`: `Allow` runs Jobs side by side, `Forbid` skips an activation while one is active
 *   (`JobAlreadyActive`), `Replace` deletes the active Jobs (background propagation) first.
 * - The Job is `<cronjob>-<minutes since the epoch>` ({@link getJobFromTemplate}); an existing one of that name is the
 *   same activation. `status.active` and `lastScheduleTime` are written through `/status`; the CronJob is synced
 *   again just after its next activation ({@link nextScheduleTimeDuration}).
 * - An unparseable schedule or time zone is an `UnparseableSchedule` warning event, and the CronJob waits for a change.
 *
 * Schedules evaluate in `spec.timeZone`, else UTC (kube-controller-manager uses its host's zone). Differences: Jobs
 * are not adopted by selector; no cronjob metrics.
 */
export class CronJobController {
  readonly controller: Controller;

  constructor(private readonly o: CronJobControllerOptions) {
    this.controller = new Controller({
      logger: o.logger,
      name: "cronjob-controller",
      reconciler: (req) => this.sync(req),
      watches: [
        {
          informer: o.cronJobs as unknown as SharedIndexInformer<KubeObject>,
          handler: selfHandler,
          keyFallback: true,
          name: "CronJob",
        },
        {
          informer: o.jobs as unknown as SharedIndexInformer<KubeObject>,
          handler: ownedHandler((obj) => this.ownerOf(obj)),
          name: "jobs",
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
    const cj = resolveControllerRef<CronJob>(
      (k) => this.o.cronJobs.getIndexer().getByKey(k),
      "CronJob",
      obj.metadata?.namespace ?? "",
      controllerRefOf(obj),
    );
    return cj === undefined ? [] : [requestOf(cj)];
  }

  /** `sync` → `syncCronJob`. */
  private async sync(req: Request): Promise<{ requeueAfter: number } | undefined> {
    const cached = this.o.cronJobs.getIndexer().getByKey(`${req.namespace}/${req.name}`) as CronJob | undefined;
    if (cached === undefined) return undefined;
    const cj = structuredClone(cached);
    const uid = cj.metadata?.uid;
    const jobs = (this.o.jobs.getIndexer().byIndex("namespace", req.namespace) as Job[]).filter(
      (j) => controllerRefOf(j)?.uid === uid,
    );
    const status = (cj.status ?? {}) as CronJobStatusView;
    const before = JSON.stringify(cj.status ?? {});
    let active = [...(status.active ?? [])];
    const now = this.o.clock.now();
    const rec = this.o.recorder;
    for (const j of jobs) {
      const inActive = active.some((a) => a.uid === j.metadata?.uid);
      const done = finishedCondition(j);
      if (inActive && done !== undefined) {
        active = active.filter((a) => a.uid !== j.metadata?.uid);
        rec?.event(
          cj,
          "Normal",
          "SawCompletedJob",
          `Saw completed job: ${j.metadata?.name ?? ""}, condition: ${done.type}`,
        );
        if (done.type === "Complete") {
          const t = j.status?.completionTime ?? rfc3339(now);
          if (status.lastSuccessfulTime === undefined || Date.parse(String(t)) > Date.parse(status.lastSuccessfulTime))
            status.lastSuccessfulTime = String(t);
        }
      } else if (!inActive && done === undefined) {
        // Ours and running but not listed (a status write lost): list it again.
        active.push(refOf(j));
      }
    }
    active = active.filter((a) => {
      if (jobs.some((j) => j.metadata?.uid === a.uid)) return true;
      rec?.event(cj, "Normal", "MissingJob", `Active job went missing: ${a.name ?? ""}`);
      return false;
    });
    status.active = active;
    await this.cleanupFinishedJobs(cj, jobs);
    const finish = async (requeueAfter?: number) => {
      cj.status = { ...status, ...(active.length === 0 && { active: undefined }) } as CronJob["status"];
      if (JSON.stringify(cj.status ?? {}) !== before) await this.writeStatus(cj);
      return requeueAfter === undefined ? undefined : { requeueAfter };
    };
    if (cj.metadata?.deletionTimestamp != null) return finish();
    const spec = specOf(cj);
    let schedule: Schedule;
    try {
      schedule = parseSchedule(spec.schedule ?? "", spec.timeZone);
    } catch (err) {
      const message = err instanceof UnparseableScheduleError ? err.message : String(err);
      rec?.event(cj, "Warning", "UnparseableSchedule", message);
      safeLog(this.o.logger, "warn", message, { controller: "cronjob-controller", key: keyOf(cj) });
      return finish();
    }
    if (spec.suspend === true) return finish();
    const scheduled = nextScheduleTime(cj, now, schedule, () =>
      rec?.event(
        cj,
        "Warning",
        "TooManyMissedTimes",
        "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
      ),
    );
    const requeue = () => nextScheduleTimeDuration(cj, now, schedule);
    if (scheduled === undefined) return finish(requeue());
    if (spec.startingDeadlineSeconds !== undefined && scheduled + spec.startingDeadlineSeconds * 1000 < now) {
      rec?.event(cj, "Warning", "MissSchedule", `Missed scheduled time to start a job: ${rfc3339(scheduled)}`);
      return finish(requeue());
    }
    const job = getJobFromTemplate(cj, scheduled);
    if (
      active.some((a) => a.name === job.metadata?.name) ||
      jobs.some((j) => j.metadata?.name === job.metadata?.name)
    ) {
      // This activation already ran.
      return finish(requeue());
    }
    const policy = spec.concurrencyPolicy ?? "Allow";
    if (policy === "Forbid" && active.length > 0) {
      rec?.event(
        cj,
        "Normal",
        "JobAlreadyActive",
        "Not starting job because prior execution is running and concurrency policy is Forbid",
      );
      return finish(requeue());
    }
    if (policy === "Replace") {
      for (const a of [...active]) {
        await this.deleteJob(cj, a.name ?? "");
        active = active.filter((x) => x.uid !== a.uid);
      }
      status.active = active;
    }
    let created: Job;
    try {
      created = await this.o.client.create(resources.jobs, job, { namespace: cj.metadata?.namespace ?? "" });
    } catch (err) {
      if (isAlreadyExists(err)) return finish(requeue());
      rec?.event(cj, "Warning", "FailedCreate", `Error creating job: ${String((err as Error).message ?? err)}`);
      await finish();
      throw err;
    }
    rec?.event(cj, "Normal", "SuccessfulCreate", `Created job ${created.metadata?.name ?? ""}`);
    active.push(refOf(created));
    status.active = active;
    status.lastScheduleTime = rfc3339(scheduled);
    return finish(nextScheduleTimeDuration({ ...cj, status: { ...status } } as CronJob, now, schedule));
  }

  /** `cleanupFinishedJobs` / `removeOldestJobs`. */
  private async cleanupFinishedJobs(cj: CronJob, jobs: readonly Job[]): Promise<void> {
    const spec = specOf(cj);
    const byStart = (a: Job, b: Job) => startOf(a) - startOf(b);
    const succeeded = jobs.filter((j) => finishedCondition(j)?.type === "Complete").sort(byStart);
    const failed = jobs.filter((j) => finishedCondition(j)?.type === "Failed").sort(byStart);
    const remove = [
      ...succeeded.slice(0, Math.max(0, succeeded.length - (spec.successfulJobsHistoryLimit ?? 3))),
      ...failed.slice(0, Math.max(0, failed.length - (spec.failedJobsHistoryLimit ?? 1))),
    ];
    for (const j of remove) await this.deleteJob(cj, j.metadata?.name ?? "");
  }

  private async deleteJob(cj: CronJob, name: string): Promise<void> {
    try {
      await this.o.client.delete(resources.jobs, name, {
        namespace: cj.metadata?.namespace ?? "",
        propagationPolicy: "Background",
      });
      this.o.recorder?.event(cj, "Normal", "SuccessfulDelete", `Deleted job ${name}`);
    } catch (err) {
      if (isNotFound(err)) return;
      this.o.recorder?.event(cj, "Warning", "FailedDelete", `Deleted job: ${String((err as Error).message ?? err)}`);
      throw err;
    }
  }

  private async writeStatus(cj: CronJob): Promise<void> {
    try {
      await this.o.client.updateStatus(resources.cronJobs, cj);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

function refOf(j: Job): ObjectRef {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    name: j.metadata?.name ?? "",
    namespace: j.metadata?.namespace ?? "",
    uid: j.metadata?.uid ?? "",
    ...(j.metadata?.resourceVersion !== undefined && { resourceVersion: j.metadata.resourceVersion }),
  };
}

function startOf(j: Job): number {
  const t = j.status?.startTime ?? j.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION] ?? "";
  const ms = Date.parse(String(t));
  return Number.isFinite(ms) ? ms : 0;
}
