import type { Pod } from "@informer-ts/client";
import { containerEnv, expandEnv } from "./container-env.js";
import type { StageRequirement, StageSelector } from "./stage.js";

/**
 * The value a {@link StageRequirement} key names in `obj` (see its contract for the derived keys), or undefined when
 * absent. A path segment indexes objects only; `null` counts as absent.
 */
export function valueAt(obj: unknown, key: string): unknown {
  const parts = key.split(".").slice(1);
  if (parts[0] === "status" && parts[1] === "conditions" && parts.length === 3) {
    const list = (obj as { status?: { conditions?: { type?: string; status?: string }[] } }).status?.conditions;
    return Array.isArray(list) ? list.find((c) => c?.type === parts[2])?.status : undefined;
  }
  if (parts[0] === "status" && parts[1] === "containerStatuses" && parts.length === 3) {
    const first = (
      obj as {
        status?: { containerStatuses?: { state?: Record<string, { reason?: string }>; restartCount?: number }[] };
      }
    ).status?.containerStatuses?.[0];
    if (parts[2] === "restartCount") return first === undefined ? undefined : (first.restartCount ?? 0);
    const state = first?.state;
    if (state === undefined) return undefined;
    const name = Object.keys(state).find((k) => state[k] != null);
    if (parts[2] === "state") return name;
    if (parts[2] === "reason") return name === undefined ? undefined : state[name]?.reason;
    return undefined;
  }
  let cur: unknown = obj;
  for (const p of parts) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur ?? undefined;
}

function matchesRequirement(obj: unknown, r: StageRequirement): boolean {
  const v = valueAt(obj, r.key);
  switch (r.operator) {
    case "Exists":
      return v !== undefined;
    case "DoesNotExist":
      return v === undefined;
    case "In":
      return v !== undefined && (r.values ?? []).includes(String(v));
    case "NotIn":
      return v === undefined || !(r.values ?? []).includes(String(v));
  }
}

/**
 * Whether `obj` satisfies every label, annotation and expression of `selector` (an absent selector matches all), and
 * its `hostFile` test against `hostFiles`, the files of the pod's node (none when absent).
 */
export function matchesStageSelector(
  obj: unknown,
  selector: StageSelector | undefined,
  hostFiles?: ReadonlySet<string>,
): boolean {
  if (selector === undefined) return true;
  const hf = selector.hostFile;
  if (hf !== undefined && (hostFiles?.has(hostFilePath(obj, hf.path)) ?? false) !== hf.exists) return false;
  const meta = (obj as { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } })
    .metadata;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (meta?.labels?.[k] !== v) return false;
  for (const [k, v] of Object.entries(selector.matchAnnotations ?? {})) if (meta?.annotations?.[k] !== v) return false;
  for (const r of selector.matchExpressions ?? []) if (!matchesRequirement(obj, r)) return false;
  return true;
}

/** A host file path of a stage for `pod`: its `$(VAR)` references expanded from the first container's environment. */
export function hostFilePath(pod: unknown, path: string): string {
  return expandEnv(path, containerEnv(pod as Pod));
}
