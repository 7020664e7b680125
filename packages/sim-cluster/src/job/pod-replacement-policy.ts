import type { Pod } from "@informer-ts/client";

/**
 * `onlyReplaceFailedPods`: whether a replacement waits for the old pod to be `Failed` — `podReplacementPolicy: Failed`,
 * which is also the default (and the only valid value) of a Job with a `podFailurePolicy`.
 */
export function onlyReplaceFailedPods(spec: {
  readonly podReplacementPolicy?: string;
  readonly podFailurePolicy?: unknown;
}): boolean {
  return spec.podReplacementPolicy === "Failed" || spec.podFailurePolicy != null;
}

/**
 * `isPodFailed`: a pod counts as failed when it is `Failed`, or — unless only failed pods are replaced
 * ({@link onlyReplaceFailedPods}) — when it is being deleted without having succeeded (an orphan that may never reach a
 * phase). `finishing`: the Job met its failure or success criteria, so every pod still running counts.
 */
export function isPodFailed(
  pod: Pod,
  spec: { readonly podReplacementPolicy?: string; readonly podFailurePolicy?: unknown },
  finishing = false,
): boolean {
  const phase = pod.status?.phase;
  if (phase === "Failed") return true;
  if (phase === "Succeeded" || pod.metadata?.deletionTimestamp == null) return false;
  return finishing || !onlyReplaceFailedPods(spec);
}
