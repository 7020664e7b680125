import type { FieldError, KubeObject } from "@informer-ts/apimachinery";

/**
 * Where a kind keeps what its `/scale` subresource shows (a CRD version's `subresources.scale`): JSON paths of the
 * desired and observed replica counts and, optionally, of the label selector. The apps workloads use `.spec.replicas`,
 * `.status.replicas` and their `.spec.selector` (a LabelSelector, shown serialized).
 */
export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
  /** The selector at {@link labelSelectorPath} is a plain label map (a ReplicationController's `spec.selector`). */
  readonly labelSelectorIsMap?: boolean;
}

/**
 * The `/scale` of ReplicationControllers (`pkg/registry/core/replicationcontroller/storage`'s `scaleFromRC`): the
 * selector is a label map, shown as `labels.SelectorFromSet(...).String()`.
 */
export const CORE_SCALE: ScaleSubresource = Object.freeze({
  specReplicasPath: ".spec.replicas",
  statusReplicasPath: ".status.replicas",
  labelSelectorPath: ".spec.selector",
  labelSelectorIsMap: true,
});

/** The `/scale` of Deployments, ReplicaSets and StatefulSets. */
export const APPS_SCALE: ScaleSubresource = Object.freeze({
  specReplicasPath: ".spec.replicas",
  statusReplicasPath: ".status.replicas",
  labelSelectorPath: ".spec.selector",
});

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function segments(path: string): string[] {
  return path
    .replace(/^\./, "")
    .split(".")
    .filter((s) => s !== "");
}

function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const s of segments(path)) {
    if (!isObject(cur)) return undefined;
    cur = cur[s];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const segs = segments(path);
  let cur = obj;
  for (const s of segs.slice(0, -1)) {
    if (!isObject(cur[s])) cur[s] = {};
    cur = cur[s] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]!] = value;
}

/** `metav1.FormatLabelSelector` of a LabelSelector object (requirements sorted by key), or the string as it is. */
export function formatLabelSelector(sel: unknown): string | undefined {
  if (typeof sel === "string") return sel;
  if (!isObject(sel)) return undefined;
  const reqs: Array<[string, string]> = [];
  if (isObject(sel.matchLabels)) {
    for (const [k, v] of Object.entries(sel.matchLabels)) reqs.push([k, `${k}=${String(v)}`]);
  }
  if (Array.isArray(sel.matchExpressions)) {
    for (const e of sel.matchExpressions) {
      if (!isObject(e) || typeof e.key !== "string") continue;
      const values = Array.isArray(e.values) ? [...(e.values as string[])].sort().join(",") : "";
      const text =
        e.operator === "In"
          ? `${e.key} in (${values})`
          : e.operator === "NotIn"
            ? `${e.key} notin (${values})`
            : e.operator === "DoesNotExist"
              ? `!${e.key}`
              : e.key;
      reqs.push([e.key, text]);
    }
  }
  if (reqs.length === 0) return undefined;
  return reqs
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, t]) => t)
    .join(",");
}

/**
 * The `autoscaling/v1` Scale of an object (`scaleFromDeployment`, `scaleFromCustomResource`): metadata name,
 * namespace, uid, resourceVersion and creationTimestamp; `spec.replicas` (omitted when 0), `status.replicas` (0 when
 * unset) and `status.selector` (serialized) read from the paths.
 */
export function scaleOf(obj: KubeObject, paths: ScaleSubresource): KubeObject {
  const m = obj.metadata ?? {};
  const meta: Record<string, unknown> = { name: m.name };
  if (m.namespace !== undefined) meta.namespace = m.namespace;
  meta.uid = m.uid;
  meta.resourceVersion = m.resourceVersion;
  meta.creationTimestamp = m.creationTimestamp;
  const replicas = getPath(obj, paths.specReplicasPath);
  const observed = getPath(obj, paths.statusReplicasPath);
  const rawSelector = paths.labelSelectorPath === undefined ? undefined : getPath(obj, paths.labelSelectorPath);
  const selector = formatLabelSelector(
    paths.labelSelectorIsMap === true && isObject(rawSelector) ? { matchLabels: rawSelector } : rawSelector,
  );
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: meta,
    spec: typeof replicas === "number" && replicas !== 0 ? { replicas } : {},
    status: {
      replicas: typeof observed === "number" ? observed : 0,
      ...(selector !== undefined && { selector }),
    },
  };
}

/** `ValidateScale`: `spec.replicas` ≥ 0 (422 field errors, upstream's wording). */
export function validateScale(scale: KubeObject): FieldError[] {
  const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas ?? 0;
  if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
    return [
      { type: "FieldValueInvalid", field: "spec.replicas", badValue: String(replicas), detail: "must be an integer" },
    ];
  }
  if (replicas < 0) {
    return [
      {
        type: "FieldValueInvalid",
        field: "spec.replicas",
        badValue: replicas,
        detail: "must be greater than or equal to 0",
      },
    ];
  }
  return [];
}

/** A copy of `obj` whose desired replica count is the Scale's `spec.replicas` (0 when absent). */
export function withScaledReplicas(obj: KubeObject, scale: KubeObject, paths: ScaleSubresource): KubeObject {
  const out = structuredClone(obj) as Record<string, unknown>;
  const replicas = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  setPath(out, paths.specReplicasPath, replicas);
  return out as KubeObject;
}
