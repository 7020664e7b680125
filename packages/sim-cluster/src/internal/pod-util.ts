import type { Pod } from "@informer-ts/client";

/** A condition of a pod or node as JSON. */
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
  lastProbeTime?: string | null;
}

/** `namespace/name` of an object (`controller.PodKey`, `cache.MetaNamespaceKeyFunc`). */
export function keyOf(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata?.namespace ?? "";
  return ns === "" ? (obj.metadata?.name ?? "") : `${ns}/${obj.metadata?.name ?? ""}`;
}

/** The condition of `type`, if any. */
export function conditionOf(obj: { status?: { conditions?: unknown } }, type: string): Condition | undefined {
  const list = obj.status?.conditions;
  if (!Array.isArray(list)) return undefined;
  return (list as Condition[]).find((c) => c?.type === type);
}

/** `podutil.IsPodReady`: the `Ready` condition is `True`. */
export function isPodReady(pod: Pod): boolean {
  return conditionOf(pod, "Ready")?.status === "True";
}

/** `controller.IsPodActive`: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed" && pod.metadata?.deletionTimestamp == null;
}

/** `podutil.IsPodAvailable`: ready for at least `minReadySeconds` at `nowMs` (ready at once when 0). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const t = conditionOf(pod, "Ready")?.lastTransitionTime;
  if (t === undefined) return false;
  return Date.parse(t) + minReadySeconds * 1000 < nowMs;
}

/** `podutil.IsPodTerminal`. */
export function isPodTerminal(pod: Pod): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

/**
 * Sets a condition in a new list (`podutil.UpdatePodCondition`): `lastTransitionTime` moves only when the status
 * changes. Returns the new list and whether anything changed.
 */
export function withCondition(
  list: readonly Condition[] | undefined,
  c: Condition,
  now: string,
): { conditions: Condition[]; changed: boolean } {
  const out = [...(list ?? [])];
  const i = out.findIndex((x) => x.type === c.type);
  if (i < 0) {
    out.push({ ...c, lastTransitionTime: c.lastTransitionTime ?? now });
    return { conditions: out, changed: true };
  }
  const old = out[i]!;
  const transition = old.status !== c.status ? now : (old.lastTransitionTime ?? now);
  const next = { ...old, ...c, lastTransitionTime: transition };
  const changed = old.status !== next.status || old.reason !== next.reason || old.message !== next.message;
  out[i] = next;
  return { conditions: out, changed };
}

/** RFC 3339 with seconds, as the API server writes timestamps (`metav1.Time`). */
export function rfc3339(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** RFC 3339 with microseconds (`metav1.MicroTime`: Lease renew times, events). */
export function microTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
}
