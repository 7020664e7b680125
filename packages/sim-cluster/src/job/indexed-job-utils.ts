import type { Pod } from "@informer-ts/client";
import { activePodsLess } from "../replicaset/active-pods.js";

/**
 * The Indexed completion mode's helpers, a port of `pkg/controller/job/indexed_job_utils.go`: completion indexes as
 * ordered intervals (`status.completedIndexes`/`status.failedIndexes` strings such as `"0-3,5,7,8"`), the first
 * pending indexes, duplicate-index pods to remove, and the index a pod carries.
 */

/** `batch.kubernetes.io/job-completion-index`: the annotation (and, since PodIndexLabel, the label) of a pod's index. */
export const JOB_COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";
/** `batch.kubernetes.io/job-index-failure-count`: counted failures of the index before this pod (backoffLimitPerIndex). */
export const JOB_INDEX_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-failure-count";
/** `batch.kubernetes.io/job-index-ignored-failure-count`: failures of the index the pod failure policy ignored. */
export const JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-ignored-failure-count";
/** The environment variable every container of an Indexed Job's pod gets. */
export const COMPLETION_INDEX_ENV_NAME = "JOB_COMPLETION_INDEX";
/** `names.MaxGeneratedNameLength`: the longest `generateName` prefix the apiserver keeps. */
const MAX_GENERATED_NAME_LENGTH = 58;

/** A closed range of indexes. */
export interface Interval {
  readonly first: number;
  readonly last: number;
}

/** `isIndexedJob`. */
export function isIndexedJob(job: { spec?: unknown }): boolean {
  return (job.spec as { completionMode?: string } | undefined)?.completionMode === "Indexed";
}

/** `getCompletionIndex`: the pod's index annotation as a non-negative integer, else -1. */
export function getCompletionIndex(pod: { metadata?: { annotations?: Record<string, string> } }): number {
  const v = pod.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return -1;
  const i = Number.parseInt(v, 10);
  return i < 0 ? -1 : i;
}

/** `orderedIntervals.withOrderedIndexes`: the intervals with `newIndexes` merged in. */
export function withOrderedIndexes(oi: readonly Interval[], newIndexes: readonly number[]): Interval[] {
  return intervalsUnion(
    oi,
    newIndexes.map((ix) => ({ first: ix, last: ix })),
  );
}

/** The union of two interval lists, merged into ordered, non-adjacent intervals. */
export function intervalsUnion(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: { first: number; last: number }[] = [];
  for (const iv of [...a, ...b].sort((x, y) => x.first - y.first)) {
    const last = out[out.length - 1];
    if (last === undefined || iv.first > last.last + 1) out.push({ first: iv.first, last: iv.last });
    else if (last.last < iv.last) last.last = iv.last;
  }
  return out;
}

/** `orderedIntervals.total`: how many indexes the intervals hold. */
export function intervalsTotal(oi: readonly Interval[]): number {
  let n = 0;
  for (const iv of oi) n += iv.last - iv.first + 1;
  return n;
}

/** `orderedIntervals.String`: `"1,3-5,7,8"` (a pair of neighbours is written with a comma). */
export function intervalsToString(oi: readonly Interval[]): string {
  return oi
    .map((v) =>
      v.last === v.first ? `${v.first}` : v.last === v.first + 1 ? `${v.first},${v.last}` : `${v.first}-${v.last}`,
    )
    .join(",");
}

/** `orderedIntervals.has`: binary search for `ix`. */
export function intervalsHave(oi: readonly Interval[], ix: number): boolean {
  let lo = 0;
  let hi = oi.length;
  while (hi > lo) {
    const mid = lo + ((hi - lo) >> 1);
    if (oi[mid]!.last >= ix) hi = mid;
    else lo = mid + 1;
  }
  return hi < oi.length && oi[hi]!.first <= ix;
}

/**
 * `parseIndexesFromString`: the intervals of a `completedIndexes`/`failedIndexes` string, cut at `completions`. A
 * corrupted part (not a number) is skipped and reported through `onCorrupt`, as upstream logs and ignores it.
 */
export function parseIndexesFromString(
  text: string | undefined,
  completions: number,
  onCorrupt: (part: string) => void = () => {},
): Interval[] {
  if (text === undefined || text === "") return [];
  const out: { first: number; last: number }[] = [];
  const num = (s: string | undefined) => (s !== undefined && /^[+-]?\d+$/.test(s) ? Number.parseInt(s, 10) : NaN);
  for (const part of text.split(",")) {
    const limits = part.split("-");
    const first = num(limits[0]);
    if (Number.isNaN(first)) {
      onCorrupt(part);
      continue;
    }
    if (first >= completions) break;
    let last = first;
    if (limits.length > 1) {
      last = num(limits[1]);
      if (Number.isNaN(last)) {
        onCorrupt(part);
        continue;
      }
      if (last >= completions) last = completions - 1;
    }
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.last === first - 1) prev.last = last;
    else out.push({ first, last });
  }
  return out;
}

/** The indexes of `xs` once each, increasing. */
export function sortedUnique(xs: Iterable<number>): number[] {
  return [...new Set(xs)].sort((a, b) => a - b);
}

/**
 * `calculateSucceededIndexes`: the succeeded indexes of `status.completedIndexes` (`prev`) and those with the indexes
 * of succeeded, not yet counted pods (still holding `trackingFinalizer`) merged in (`result`).
 */
export function calculateSucceededIndexes(
  completedIndexes: string | undefined,
  completions: number,
  pods: readonly Pod[],
  counted: (pod: Pod) => boolean,
  onCorrupt?: (part: string) => void,
): { prev: Interval[]; result: Interval[] } {
  const prev = parseIndexesFromString(completedIndexes, completions, onCorrupt);
  const fresh: number[] = [];
  for (const p of pods) {
    const ix = getCompletionIndex(p);
    if (p.status?.phase === "Succeeded" && ix >= 0 && ix < completions && !counted(p)) fresh.push(ix);
  }
  return { prev, result: withOrderedIndexes(prev, sortedUnique(fresh)) };
}

/**
 * `firstPendingIndexes`: up to `count` indexes below `completions` that no active pod holds and `nonPending` (the
 * succeeded, and with backoffLimitPerIndex the failed, indexes) does not cover.
 */
export function firstPendingIndexes(
  activePods: readonly Pod[],
  nonPending: readonly Interval[],
  count: number,
  completions: number,
): number[] {
  if (count === 0) return [];
  const active = sortedUnique(activePods.map(getCompletionIndex).filter((ix) => ix >= 0));
  const taken = withOrderedIndexes(nonPending, active);
  const out: number[] = [];
  let candidate = 0;
  for (const iv of taken) {
    for (; candidate < completions && out.length < count && candidate < iv.first; candidate++) out.push(candidate);
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && out.length < count; candidate++) out.push(candidate);
  return out;
}

/**
 * `appendDuplicatedIndexPodsForRemoval`: of active `pods`, those to remove — without an index, with an index at or
 * above `completions`, and all but the best-ranked pod (the last in `controller.ActivePods` order) of a repeated
 * index — and those left.
 */
export function duplicatedIndexPodsForRemoval(
  pods: readonly Pod[],
  completions: number,
  now: number,
): { rm: Pod[]; left: Pod[] } {
  const rm: Pod[] = [];
  const left: Pod[] = [];
  const byIndex = new Map<number, Pod[]>();
  for (const p of pods) {
    const ix = getCompletionIndex(p);
    if (ix < 0) rm.push(p);
    else if (ix >= completions) continue;
    else byIndex.set(ix, [...(byIndex.get(ix) ?? []), p]);
  }
  for (const ix of sortedUnique(byIndex.keys())) {
    const same = sortActivePods(byIndex.get(ix)!, now);
    rm.push(...same.slice(0, -1));
    left.push(same[same.length - 1]!);
  }
  rm.push(...pods.filter((p) => getCompletionIndex(p) >= completions).sort(byCompletionIndex));
  return { rm, left };
}

/** `controller.ActivePods` order: the pods to delete first come first (a stable sort). */
export function sortActivePods(pods: readonly Pod[], now: number): Pod[] {
  return [...pods].sort((a, b) => (activePodsLess(a, 0, b, 0, now) ? -1 : activePodsLess(b, 0, a, 0, now) ? 1 : 0));
}

function byCompletionIndex(a: Pod, b: Pod): number {
  return getCompletionIndex(a) - getCompletionIndex(b);
}

/** `podGenerateNameWithIndex`: `<job>-<index>-`, the job name cut so that the prefix fits the generated-name limit. */
export function podGenerateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = jobName + suffix;
  return prefix.length > MAX_GENERATED_NAME_LENGTH
    ? prefix.slice(0, MAX_GENERATED_NAME_LENGTH - suffix.length) + suffix
    : prefix;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}
interface Container {
  env?: EnvVar[];
}

/**
 * `addCompletionIndexEnvVariables`: every init and regular container gets `JOB_COMPLETION_INDEX` from the pod's
 * index label (the PodIndexLabel field path, GA since 1.32), unless it sets the variable itself.
 */
export function addCompletionIndexEnvVariables(podSpec: {
  initContainers?: Container[];
  containers?: Container[];
}): void {
  for (const c of [...(podSpec.initContainers ?? []), ...(podSpec.containers ?? [])]) {
    if ((c.env ?? []).some((v) => v.name === COMPLETION_INDEX_ENV_NAME)) continue;
    c.env = [
      ...(c.env ?? []),
      {
        name: COMPLETION_INDEX_ENV_NAME,
        valueFrom: { fieldRef: { fieldPath: `metadata.labels['${JOB_COMPLETION_INDEX_ANNOTATION}']` } },
      },
    ];
  }
}

/** The counted failures of a pod's index before it (`getIndexFailureCount`; 0 when absent or corrupted). */
export function getIndexFailureCount(pod: Pod, annotation = JOB_INDEX_FAILURE_COUNT_ANNOTATION): number {
  const v = pod.metadata?.annotations?.[annotation];
  if (v === undefined || !/^\d+$/.test(v)) return 0;
  return Number.parseInt(v, 10);
}
