import type { KubeObject } from "@informer-ts/apimachinery";

/**
 * The conversion between `autoscaling/v1` and `autoscaling/v2` HorizontalPodAutoscalers, which kube-apiserver keeps in
 * one etcd prefix (`/registry/horizontalpodautoscalers`, storage version `autoscaling/v2`) and serves at both
 * versions. Follows `pkg/apis/autoscaling/v1/conversion.go` (`Convert_autoscaling_HorizontalPodAutoscaler_To_v1_…`
 * and back, with the internal type being v2's shape):
 *
 * - v2 → v1: the first CPU `Resource` metric with an `averageUtilization` target is `targetCPUUtilizationPercentage`;
 *   every other metric (in v1's older metric shapes) goes to the `autoscaling.alpha.kubernetes.io/metrics`
 *   annotation, all current metrics to `…/current-metrics`, `spec.behavior` to `…/behavior`, `status.conditions` to
 *   `…/conditions` (each only when present); a CPU current utilization is `currentCPUUtilizationPercentage`.
 * - v1 → v2: the reverse, the annotations removed; without any metric, the CPU target of 80% autoscaling/v1 always
 *   implied (upstream applies this default in conversion, where the annotations are at hand).
 *
 * Differences: v1's non-pointer quantities (`targetAverageValue` of a Pods metric, `targetValue` of an Object metric,
 * the current values of statuses) stay absent when the v2 object has none, where Go writes `"0"`.
 */

type Obj = Record<string, unknown>;

/** `autoscaling.MetricSpecsAnnotation` and its siblings (pkg/apis/autoscaling/annotations.go). */
export const HPA_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics";
export const HPA_CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics";
export const HPA_BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior";
export const HPA_CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions";
const ROUND_TRIP = [
  HPA_METRICS_ANNOTATION,
  HPA_BEHAVIOR_ANNOTATION,
  HPA_CURRENT_METRICS_ANNOTATION,
  HPA_CONDITIONS_ANNOTATION,
];

/** `autoscaling.DefaultCPUUtilization`. */
export const DEFAULT_CPU_UTILIZATION = 80;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function objs(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** An object of the given keys in the given order, absent (undefined) values left out. */
function ordered(entries: ReadonlyArray<readonly [string, unknown]>): Obj {
  const out: Obj = {};
  for (const [k, v] of entries) if (v !== undefined) out[k] = v;
  return out;
}

function isCpuUtilizationTarget(m: Obj): boolean {
  const res = isObj(m.resource) ? m.resource : undefined;
  return m.type === "Resource" && res?.name === "cpu" && isObj(res.target) && res.target.averageUtilization != null;
}

/** `MetricIdentifier` from v1's separate name and selector fields. */
function metricId(name: unknown, selector: unknown): Obj {
  return ordered([
    ["name", name],
    ["selector", selector],
  ]);
}

/** v2 `MetricSpec` → v1 `MetricSpec` (the annotation's shape). */
function metricSpecToV1(m: Obj): Obj {
  const target = (src: Obj): Obj => (isObj(src.target) ? src.target : {});
  const metric = (src: Obj): Obj => (isObj(src.metric) ? src.metric : {});
  const resource = (src: Obj, container: boolean): Obj =>
    ordered([
      ["name", src.name],
      ["targetAverageUtilization", target(src).averageUtilization],
      ["targetAverageValue", target(src).averageValue],
      ...(container ? ([["container", src.container]] as const) : []),
    ]);
  const o = isObj(m.object) ? m.object : undefined;
  const p = isObj(m.pods) ? m.pods : undefined;
  const r = isObj(m.resource) ? m.resource : undefined;
  const c = isObj(m.containerResource) ? m.containerResource : undefined;
  const e = isObj(m.external) ? m.external : undefined;
  return ordered([
    ["type", m.type],
    [
      "object",
      o &&
        ordered([
          ["target", o.describedObject],
          ["metricName", metric(o).name],
          ["targetValue", target(o).value],
          ["selector", metric(o).selector],
          ["averageValue", target(o).averageValue],
        ]),
    ],
    [
      "pods",
      p &&
        ordered([
          ["metricName", metric(p).name],
          ["targetAverageValue", target(p).averageValue],
          ["selector", metric(p).selector],
        ]),
    ],
    ["resource", r && resource(r, false)],
    ["containerResource", c && resource(c, true)],
    [
      "external",
      e &&
        ordered([
          ["metricName", metric(e).name],
          ["metricSelector", metric(e).selector],
          ["targetValue", target(e).value],
          ["targetAverageValue", target(e).averageValue],
        ]),
    ],
  ]);
}

/** v1 `MetricSpec` (from the annotation) → v2 `MetricSpec`, the target types as upstream's v1 conversion picks them. */
function metricSpecFromV1(m: Obj): Obj {
  const resource = (src: Obj, container: boolean): Obj =>
    ordered([
      ["name", src.name],
      [
        "target",
        ordered([
          ["type", src.targetAverageUtilization == null ? "AverageValue" : "Utilization"],
          ["averageUtilization", src.targetAverageUtilization],
          ["averageValue", src.targetAverageValue],
        ]),
      ],
      ...(container ? ([["container", src.container]] as const) : []),
    ]);
  const o = isObj(m.object) ? m.object : undefined;
  const p = isObj(m.pods) ? m.pods : undefined;
  const r = isObj(m.resource) ? m.resource : undefined;
  const c = isObj(m.containerResource) ? m.containerResource : undefined;
  const e = isObj(m.external) ? m.external : undefined;
  return ordered([
    ["type", m.type],
    [
      "object",
      o &&
        ordered([
          ["describedObject", o.target],
          [
            "target",
            ordered([
              ["type", o.averageValue == null ? "Value" : "AverageValue"],
              ["value", o.targetValue],
              ["averageValue", o.averageValue],
            ]),
          ],
          ["metric", metricId(o.metricName, o.selector)],
        ]),
    ],
    [
      "pods",
      p &&
        ordered([
          ["metric", metricId(p.metricName, p.selector)],
          [
            "target",
            ordered([
              ["type", "AverageValue"],
              ["averageValue", p.targetAverageValue],
            ]),
          ],
        ]),
    ],
    ["resource", r && resource(r, false)],
    ["containerResource", c && resource(c, true)],
    [
      "external",
      e &&
        ordered([
          ["metric", metricId(e.metricName, e.metricSelector)],
          [
            "target",
            ordered([
              ["type", e.targetValue == null ? "AverageValue" : "Value"],
              ["value", e.targetValue],
              ["averageValue", e.targetAverageValue],
            ]),
          ],
        ]),
    ],
  ]);
}

/** v2 `MetricStatus` → v1 `MetricStatus`. */
function metricStatusToV1(m: Obj): Obj {
  const current = (src: Obj): Obj => (isObj(src.current) ? src.current : {});
  const metric = (src: Obj): Obj => (isObj(src.metric) ? src.metric : {});
  const resource = (src: Obj, container: boolean): Obj =>
    ordered([
      ["name", src.name],
      ["currentAverageUtilization", current(src).averageUtilization],
      ["currentAverageValue", current(src).averageValue],
      ...(container ? ([["container", src.container]] as const) : []),
    ]);
  const o = isObj(m.object) ? m.object : undefined;
  const p = isObj(m.pods) ? m.pods : undefined;
  const r = isObj(m.resource) ? m.resource : undefined;
  const c = isObj(m.containerResource) ? m.containerResource : undefined;
  const e = isObj(m.external) ? m.external : undefined;
  return ordered([
    ["type", m.type],
    [
      "object",
      o &&
        ordered([
          ["target", o.describedObject],
          ["metricName", metric(o).name],
          ["currentValue", current(o).value],
          ["selector", metric(o).selector],
          ["averageValue", current(o).averageValue],
        ]),
    ],
    [
      "pods",
      p &&
        ordered([
          ["metricName", metric(p).name],
          ["currentAverageValue", current(p).averageValue],
          ["selector", metric(p).selector],
        ]),
    ],
    ["resource", r && resource(r, false)],
    ["containerResource", c && resource(c, true)],
    [
      "external",
      e &&
        ordered([
          ["metricName", metric(e).name],
          ["metricSelector", metric(e).selector],
          ["currentValue", current(e).value],
          ["currentAverageValue", current(e).averageValue],
        ]),
    ],
  ]);
}

/** v1 `MetricStatus` → v2 `MetricStatus`. */
function metricStatusFromV1(m: Obj): Obj {
  const resource = (src: Obj, container: boolean): Obj =>
    ordered([
      ["name", src.name],
      [
        "current",
        ordered([
          ["averageValue", src.currentAverageValue],
          ["averageUtilization", src.currentAverageUtilization],
        ]),
      ],
      ...(container ? ([["container", src.container]] as const) : []),
    ]);
  const o = isObj(m.object) ? m.object : undefined;
  const p = isObj(m.pods) ? m.pods : undefined;
  const r = isObj(m.resource) ? m.resource : undefined;
  const c = isObj(m.containerResource) ? m.containerResource : undefined;
  const e = isObj(m.external) ? m.external : undefined;
  return ordered([
    ["type", m.type],
    [
      "object",
      o &&
        ordered([
          ["metric", metricId(o.metricName, o.selector)],
          [
            "current",
            ordered([
              ["value", o.currentValue],
              ["averageValue", o.averageValue],
            ]),
          ],
          ["describedObject", o.target],
        ]),
    ],
    [
      "pods",
      p &&
        ordered([
          ["metric", metricId(p.metricName, p.selector)],
          ["current", ordered([["averageValue", p.currentAverageValue]])],
        ]),
    ],
    ["resource", r && resource(r, false)],
    ["containerResource", c && resource(c, true)],
    [
      "external",
      e &&
        ordered([
          ["metric", metricId(e.metricName, e.metricSelector)],
          [
            "current",
            ordered([
              ["value", e.currentValue],
              ["averageValue", e.currentAverageValue],
            ]),
          ],
        ]),
    ],
  ]);
}

/** `metadata` with the round-trip annotations removed (`DropRoundTripHorizontalPodAutoscalerAnnotations`). */
function dropRoundTrip(meta: unknown): { meta: Obj; annotations: Record<string, string> | undefined } {
  const m: Obj = isObj(meta) ? { ...meta } : {};
  const before = isObj(m.annotations) ? (m.annotations as Record<string, string>) : undefined;
  if (before === undefined || !ROUND_TRIP.some((k) => k in before)) return { meta: m, annotations: before };
  const annotations = { ...before };
  for (const k of ROUND_TRIP) delete annotations[k];
  return { meta: m, annotations };
}

function withAnnotations(meta: Obj, annotations: Record<string, string> | undefined): Obj {
  if (annotations === undefined || Object.keys(annotations).length === 0) {
    const { annotations: _a, ...rest } = meta;
    return rest;
  }
  return { ...meta, annotations };
}

/** Parses a round-trip annotation's JSON; a value that is not JSON of the expected shape is ignored (as absent). */
function parsed(annotations: Record<string, string> | undefined, key: string): unknown {
  const text = annotations?.[key];
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`: a stored v2 HPA as v1 serves it. */
export function hpaV2ToV1(v2: KubeObject): KubeObject {
  const spec: Obj = isObj(v2.spec) ? v2.spec : {};
  const status: Obj = isObj(v2.status) ? v2.status : {};
  const metrics = objs(spec.metrics);
  const cpu = metrics.find((m) => m.type === "Resource" && isObj(m.resource) && m.resource.name === "cpu");
  const cpuTarget = isObj(cpu?.resource) && isObj(cpu.resource.target) ? cpu.resource.target : undefined;
  const others = metrics.filter((m) => !isCpuUtilizationTarget(m)).map(metricSpecToV1);
  const current = objs(status.currentMetrics);
  const { meta, annotations: kept } = dropRoundTrip(v2.metadata);
  const extra: Record<string, string> = {};
  if (others.length > 0) extra[HPA_METRICS_ANNOTATION] = JSON.stringify(others);
  if (current.length > 0) extra[HPA_CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map(metricStatusToV1));
  if (spec.behavior != null) extra[HPA_BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);
  if (objs(status.conditions).length > 0) extra[HPA_CONDITIONS_ANNOTATION] = JSON.stringify(status.conditions);
  const annotations = Object.keys(extra).length > 0 ? { ...kept, ...extra } : kept;
  const cpuCurrent = current.find(
    (m) => m.type === "Resource" && isObj(m.resource) && m.resource.name === "cpu" && isObj(m.resource.current),
  );
  const cpuStatus = isObj(cpuCurrent?.resource) ? (cpuCurrent.resource.current as Obj) : undefined;
  const out = ordered([
    ["kind", "HorizontalPodAutoscaler"],
    ["apiVersion", "autoscaling/v1"],
    ["metadata", withAnnotations(meta, annotations)],
    [
      "spec",
      ordered([
        ["scaleTargetRef", spec.scaleTargetRef],
        ["minReplicas", spec.minReplicas],
        ["maxReplicas", spec.maxReplicas],
        ["targetCPUUtilizationPercentage", cpuTarget?.averageUtilization ?? undefined],
      ]),
    ],
    [
      "status",
      v2.status === undefined
        ? undefined
        : ordered([
            ["observedGeneration", status.observedGeneration],
            ["lastScaleTime", status.lastScaleTime],
            ["currentReplicas", status.currentReplicas],
            ["desiredReplicas", status.desiredReplicas],
            ["currentCPUUtilizationPercentage", cpuStatus?.averageUtilization ?? undefined],
          ]),
    ],
  ]);
  return out as KubeObject;
}

/** `Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`: a v1 HPA as v2 storage keeps it. */
export function hpaV1ToV2(v1: KubeObject): KubeObject {
  const spec: Obj = isObj(v1.spec) ? v1.spec : {};
  const status: Obj = isObj(v1.status) ? v1.status : {};
  const annotations = isObj(v1.metadata?.annotations) ? (v1.metadata.annotations as Record<string, string>) : undefined;
  const metrics: Obj[] = [];
  const others = parsed(annotations, HPA_METRICS_ANNOTATION);
  if (Array.isArray(others)) metrics.push(...others.filter(isObj).map(metricSpecFromV1));
  const cpu = typeof spec.targetCPUUtilizationPercentage === "number" ? spec.targetCPUUtilizationPercentage : undefined;
  const cpuMetric = (utilization: number): Obj => ({
    type: "Resource",
    resource: { name: "cpu", target: { type: "Utilization", averageUtilization: utilization } },
  });
  if (cpu !== undefined) metrics.push(cpuMetric(cpu));
  if (metrics.length === 0) metrics.push(cpuMetric(DEFAULT_CPU_UTILIZATION));
  let currentMetrics: Obj[] | undefined;
  if (typeof status.currentCPUUtilizationPercentage === "number") {
    currentMetrics = [
      {
        type: "Resource",
        resource: { name: "cpu", current: { averageUtilization: status.currentCPUUtilizationPercentage } },
      },
    ];
  }
  const current = parsed(annotations, HPA_CURRENT_METRICS_ANNOTATION);
  if (Array.isArray(current)) currentMetrics = current.filter(isObj).map(metricStatusFromV1);
  const behavior = parsed(annotations, HPA_BEHAVIOR_ANNOTATION);
  const conditions = parsed(annotations, HPA_CONDITIONS_ANNOTATION);
  const { meta, annotations: kept } = dropRoundTrip(v1.metadata);
  const out = ordered([
    ["kind", "HorizontalPodAutoscaler"],
    ["apiVersion", "autoscaling/v2"],
    ["metadata", withAnnotations(meta, kept)],
    [
      "spec",
      ordered([
        ["scaleTargetRef", spec.scaleTargetRef],
        ["minReplicas", spec.minReplicas],
        ["maxReplicas", spec.maxReplicas],
        ["metrics", metrics],
        ["behavior", isObj(behavior) ? behavior : undefined],
      ]),
    ],
    [
      "status",
      v1.status === undefined && !Array.isArray(conditions)
        ? undefined
        : ordered([
            ["observedGeneration", status.observedGeneration],
            ["lastScaleTime", status.lastScaleTime],
            ["currentReplicas", status.currentReplicas],
            ["desiredReplicas", status.desiredReplicas],
            ["currentMetrics", currentMetrics],
            ["conditions", Array.isArray(conditions) ? conditions : undefined],
          ]),
    ],
  ]);
  return out as KubeObject;
}
