import type { CronJob, Job } from "@informer-ts/client";
import { newControllerRef } from "../internal/controller-ref.js";
import { rfc3339 } from "../internal/pod-util.js";
import type { Schedule } from "./schedule.js";

/** `nextScheduleDelta`: a sync is requeued this long after the next activation, so that it is surely past. */
export const NEXT_SCHEDULE_DELTA_MS = 100;
/** `batch.kubernetes.io/cronjob-scheduled-timestamp`: when the Job was scheduled to start. */
export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/** How many activations were missed (`missedSchedulesType`): none, a few, or more than 100 (a warning upstream). */
export type MissedSchedules = "none" | "few" | "many";

/** What {@link mostRecentScheduleTime} found. */
export interface MostRecentSchedule {
  /** Epoch ms from which activations are counted (creation, last schedule, or the starting deadline). */
  readonly earliest: number;
  /** The latest activation not after `now`, if any. */
  readonly mostRecent?: number;
  readonly missed: MissedSchedules;
}

/** What the utilities read of a CronJob. */
interface CronJobView {
  metadata?: { creationTimestamp?: string; name?: string; namespace?: string; uid?: string };
  spec?: { startingDeadlineSeconds?: number };
  status?: { lastScheduleTime?: string };
}

/**
 * `mostRecentScheduleTime` of `pkg/controller/cronjob/utils.go`: counting from the last schedule time (else the
 * creation time, moved up to `now − startingDeadlineSeconds` when `withDeadline`), the latest activation at or before
 * `now` and how many were missed. Throws when two activations are less than a second apart.
 */
export function mostRecentScheduleTime(
  cj: CronJobView,
  now: number,
  schedule: Schedule,
  withDeadline: boolean,
): MostRecentSchedule {
  let earliest = Date.parse(cj.status?.lastScheduleTime ?? cj.metadata?.creationTimestamp ?? "");
  if (!Number.isFinite(earliest)) earliest = now;
  const sds = cj.spec?.startingDeadlineSeconds;
  if (withDeadline && sds !== undefined) earliest = Math.max(earliest, now - sds * 1000);
  const t1 = schedule.next(earliest);
  if (t1 === undefined || now < t1) return { earliest, missed: "none" };
  const t2 = schedule.next(t1);
  if (t2 === undefined || now < t2) return { earliest, mostRecent: t1, missed: "few" };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) throw new Error("time difference between two schedules is less than 1 second");
  const elapsed = Math.floor((now - t1) / 1000);
  const missedCount = Math.floor(elapsed / between) + 1;
  let mostRecent = t1 + (missedCount - 1) * between * 1000;
  // Irregular schedules (`0 3 * * 1,3`, `@monthly`): the estimate may fall between activations; walk to the last one.
  if (mostRecent > now) mostRecent = t1;
  for (let t = schedule.next(mostRecent); t !== undefined && t <= now; t = schedule.next(t)) mostRecent = t;
  return { earliest, mostRecent, missed: missedCount > 100 ? "many" : "few" };
}

/**
 * `nextScheduleTime`: the activation to run now (the most recent one, within the starting deadline), or undefined.
 * `onTooMany` is told when more than 100 were missed (upstream's `TooManyMissedTimes` warning).
 */
export function nextScheduleTime(
  cj: CronJobView,
  now: number,
  schedule: Schedule,
  onTooMany?: () => void,
): number | undefined {
  const r = mostRecentScheduleTime(cj, now, schedule, true);
  if (r.mostRecent === undefined || r.mostRecent > now) return undefined;
  if (r.missed === "many") onTooMany?.();
  return r.mostRecent;
}

/** `nextScheduleTimeDuration`: how long until the activation after the most recent one (plus {@link NEXT_SCHEDULE_DELTA_MS}). */
export function nextScheduleTimeDuration(cj: CronJobView, now: number, schedule: Schedule): number {
  let r: MostRecentSchedule;
  try {
    r = mostRecentScheduleTime(cj, now, schedule, false);
  } catch {
    return NEXT_SCHEDULE_DELTA_MS;
  }
  const from = r.mostRecent ?? r.earliest;
  const next = schedule.next(from);
  if (next === undefined) return NEXT_SCHEDULE_DELTA_MS;
  return Math.max(0, next + NEXT_SCHEDULE_DELTA_MS - now);
}

/** `getTimeHashInMinutes`: the scheduled time in minutes since the epoch (the suffix of the Job's name). */
export function getTimeHashInMinutes(scheduledMs: number): number {
  return Math.floor(scheduledMs / 60_000);
}

/** `getJobName`. */
export function getJobName(cj: CronJobView, scheduledMs: number): string {
  return `${cj.metadata?.name ?? ""}-${getTimeHashInMinutes(scheduledMs)}`;
}

/**
 * `getJobFromTemplate2`: the Job of one activation — the template's labels, annotations and spec, the scheduled
 * timestamp annotation, `<cronjob>-<minutes>` as name, and a controller reference.
 */
export function getJobFromTemplate(cj: CronJob, scheduledMs: number): Job {
  const tmpl = (cj.spec?.jobTemplate ?? {}) as {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec?: unknown;
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: getJobName(cj, scheduledMs),
      namespace: cj.metadata?.namespace ?? "",
      labels: { ...tmpl.metadata?.labels },
      annotations: { ...tmpl.metadata?.annotations, [CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]: rfc3339(scheduledMs) },
      ownerReferences: [newControllerRef(cj, "batch/v1", "CronJob")],
    },
    spec: structuredClone(tmpl.spec ?? {}),
  } as unknown as Job;
}
