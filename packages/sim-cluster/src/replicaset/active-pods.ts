import type { Pod } from "@informer-ts/client";
import { conditionOf, isPodActive, isPodReady } from "../internal/pod-util.js";

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/** `controller.kubernetes.io/pod-deletion-cost`: pods with a lower cost are deleted first. */
export const POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

function deletionCost(pod: Pod): number {
  const v = pod.metadata?.annotations?.[POD_DELETION_COST];
  if (v === undefined) return 0;
  const n = Number(v);
  return Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 ? n : 0;
}

function timeOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : 0;
}

function readyTime(pod: Pod): number {
  if (!isPodReady(pod)) return 0;
  return timeOf(conditionOf(pod, "Ready")?.lastTransitionTime);
}

function maxRestarts(pod: Pod): number {
  let n = 0;
  for (const c of pod.status?.containerStatuses ?? []) n = Math.max(n, c.restartCount ?? 0);
  return n;
}

/** `afterOrZero`: a zero time sorts first, then the later time. */
function afterOrZero(t1: number, t2: number): boolean {
  if (t1 === 0 || t2 === 0) return t1 === 0;
  return t1 > t2;
}

/** `logarithmicRankDiff`: the difference of ⌊log2(now − t)⌋ (in nanoseconds, as Go's durations). */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const d1 = (now - t1) * 1e6;
  const d2 = (now - t2) * 1e6;
  const r1 = d1 > 0 ? Math.floor(Math.log2(d1)) : -1;
  const r2 = d2 > 0 ? Math.floor(Math.log2(d2)) : -1;
  return r1 - r2;
}

/**
 * `ActivePodsWithRanks.Less` (`pkg/controller/controller_utils.go`, with the `PodDeletionCost` and
 * `LogarithmicScaleDown` gates on, as by default): whether pod `a` (rank `ra`) should be deleted before pod `b`:
 * 1. unassigned before assigned; 2. Pending before Unknown before Running; 3. not ready before ready; 4. lower
 * `pod-deletion-cost` first; 5. higher rank (more related pods on its node) first; 6. both ready: ready for less time
 * first, on a logarithmic scale of the time since `now` (ties by UID); 7. more container restarts first; 8. newer
 * first, on the same logarithmic scale (ties by UID). `now` 0 compares times without the scale.
 */
export function activePodsLess(a: Pod, ra: number, b: Pod, rb: number, now: number): boolean {
  const na = a.spec?.nodeName ?? "";
  const nb = b.spec?.nodeName ?? "";
  if (na !== nb && (na === "" || nb === "")) return na === "";
  const pa = PHASE_ORDINAL[a.status?.phase ?? ""] ?? 0;
  const pb = PHASE_ORDINAL[b.status?.phase ?? ""] ?? 0;
  if (pa !== pb) return pa < pb;
  const ready = isPodReady(a);
  if (ready !== isPodReady(b)) return !ready;
  const ca = deletionCost(a);
  const cb = deletionCost(b);
  if (ca !== cb) return ca < cb;
  if (ra !== rb) return ra > rb;
  const uidLess = () => (a.metadata?.uid ?? "") < (b.metadata?.uid ?? "");
  if (ready && isPodReady(b)) {
    const t1 = readyTime(a);
    const t2 = readyTime(b);
    if (t1 !== t2) {
      if (now === 0 || t1 === 0 || t2 === 0) return afterOrZero(t1, t2);
      const d = logarithmicRankDiff(t1, t2, now);
      return d === 0 ? uidLess() : d < 0;
    }
  }
  const ra2 = maxRestarts(a);
  const rb2 = maxRestarts(b);
  if (ra2 !== rb2) return ra2 > rb2;
  const c1 = timeOf(a.metadata?.creationTimestamp);
  const c2 = timeOf(b.metadata?.creationTimestamp);
  if (c1 !== c2) {
    if (now === 0 || c1 === 0 || c2 === 0) return afterOrZero(c1, c2);
    const d = logarithmicRankDiff(c1, c2, now);
    return d === 0 ? uidLess() : d < 0;
  }
  return false;
}

/**
 * `getPodsRankedByRelatedPodsOnSameNode`: each pod of `podsToRank` ranked by how many active pods of `relatedPods`
 * share its node.
 */
export function rankByRelatedPodsOnSameNode(podsToRank: readonly Pod[], relatedPods: readonly Pod[]): number[] {
  const onNode = new Map<string, number>();
  for (const p of relatedPods) {
    if (!isPodActive(p)) continue;
    const n = p.spec?.nodeName ?? "";
    onNode.set(n, (onNode.get(n) ?? 0) + 1);
  }
  return podsToRank.map((p) => onNode.get(p.spec?.nodeName ?? "") ?? 0);
}

/**
 * `getPodsToDelete` of the ReplicaSet controller: the `diff` pods of `filteredPods` to delete first, by
 * {@link activePodsLess} with ranks from {@link rankByRelatedPodsOnSameNode} — all of them when `diff` covers the
 * list (no sorting, as upstream). A stable sort, as Go's `sort.Sort` is not, but the order is total except for exact
 * ties.
 */
export function getPodsToDelete(
  filteredPods: readonly Pod[],
  relatedPods: readonly Pod[],
  diff: number,
  now: number,
): Pod[] {
  if (diff >= filteredPods.length) return [...filteredPods];
  const ranks = rankByRelatedPodsOnSameNode(filteredPods, relatedPods);
  const idx = filteredPods.map((_, i) => i);
  idx.sort((i, j) => {
    if (activePodsLess(filteredPods[i]!, ranks[i]!, filteredPods[j]!, ranks[j]!, now)) return -1;
    if (activePodsLess(filteredPods[j]!, ranks[j]!, filteredPods[i]!, ranks[i]!, now)) return 1;
    return 0;
  });
  return idx.slice(0, diff).map((i) => filteredPods[i]!);
}
