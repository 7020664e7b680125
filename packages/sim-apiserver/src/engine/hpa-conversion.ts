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

/** The metric sources a `MetricSpec`/`MetricStatus` has, one of them set (as `type` says), in their field order. */
const SOURCES = ["object", "pods", "resource", "containerResource", "external"] as const;
type Source = (typeof SOURCES)[number];

/**
 * One field of a converted metric source: where it goes (a dotted path in the output, parents created in the order
 * first named) and where it comes from — a dotted path in the input, or a function of the input (v2 target types).
 */
type Field = readonly [to: string, from: string | ((src: Obj) => unknown)];
type Table = Readonly<Record<Source, readonly Field[]>>;

/**
 * v2 → v1, for a spec's and a status's metrics alike, in v1's field order: `~` stands for the section's word
 * (`target` in a spec, `current` in a status), in v1's field names (`~Value` → `targetValue`) and as v2's value
 * object (`~.value` → `target.value`).
 */
const TO_V1: Table = {
  object: [
    ["target", "describedObject"],
    ["metricName", "metric.name"],
    ["~Value", "~.value"],
    ["selector", "metric.selector"],
    ["averageValue", "~.averageValue"],
  ],
  pods: [
    ["metricName", "metric.name"],
    ["~AverageValue", "~.averageValue"],
    ["selector", "metric.selector"],
  ],
  resource: [
    ["name", "name"],
    ["~AverageUtilization", "~.averageUtilization"],
    ["~AverageValue", "~.averageValue"],
  ],
  containerResource: [
    ["name", "name"],
    ["~AverageUtilization", "~.averageUtilization"],
    ["~AverageValue", "~.averageValue"],
    ["container", "container"],
  ],
  external: [
    ["metricName", "metric.name"],
    ["metricSelector", "metric.selector"],
    ["~Value", "~.value"],
    ["~AverageValue", "~.averageValue"],
  ],
};

/** {@link TO_V1} with `~` replaced by the section's word. */
function section(table: Table, word: "target" | "current"): Table {
  const out = {} as Record<Source, readonly Field[]>;
  for (const s of SOURCES)
    out[s] = table[s].map(([to, from]) => [
      to.replace("~", word),
      typeof from === "string" ? from.replace("~", word) : from,
    ]);
  return out;
}

const SPEC_TO_V1 = section(TO_V1, "target");
const STATUS_TO_V1 = section(TO_V1, "current");

/** The v2 target type upstream's v1 conversion picks: `set` when the v1 field `field` is set, else `unset`. */
const typeBy =
  (field: string, set: string, unset: string) =>
  (src: Obj): string =>
    src[field] == null ? unset : set;

/** v1 `MetricSpec` (from the annotation) → v2 `MetricSpec`, in v2's field order. */
const SPEC_TO_V2: Table = {
  object: [
    ["describedObject", "target"],
    ["target.type", typeBy("averageValue", "AverageValue", "Value")],
    ["target.value", "targetValue"],
    ["target.averageValue", "averageValue"],
    ["metric.name", "metricName"],
    ["metric.selector", "selector"],
  ],
  pods: [
    ["metric.name", "metricName"],
    ["metric.selector", "selector"],
    ["target.type", () => "AverageValue"],
    ["target.averageValue", "targetAverageValue"],
  ],
  resource: [
    ["name", "name"],
    ["target.type", typeBy("targetAverageUtilization", "Utilization", "AverageValue")],
    ["target.averageUtilization", "targetAverageUtilization"],
    ["target.averageValue", "targetAverageValue"],
  ],
  containerResource: [
    ["name", "name"],
    ["target.type", typeBy("targetAverageUtilization", "Utilization", "AverageValue")],
    ["target.averageUtilization", "targetAverageUtilization"],
    ["target.averageValue", "targetAverageValue"],
    ["container", "container"],
  ],
  external: [
    ["metric.name", "metricName"],
    ["metric.selector", "metricSelector"],
    ["target.type", typeBy("targetValue", "Value", "AverageValue")],
    ["target.value", "targetValue"],
    ["target.averageValue", "targetAverageValue"],
  ],
};

/** v1 `MetricStatus` → v2 `MetricStatus`, in v2's field order. */
const STATUS_TO_V2: Table = {
  object: [
    ["metric.name", "metricName"],
    ["metric.selector", "selector"],
    ["current.value", "currentValue"],
    ["current.averageValue", "averageValue"],
    ["describedObject", "target"],
  ],
  pods: [
    ["metric.name", "metricName"],
    ["metric.selector", "selector"],
    ["current.averageValue", "currentAverageValue"],
  ],
  resource: [
    ["name", "name"],
    ["current.averageValue", "currentAverageValue"],
    ["current.averageUtilization", "currentAverageUtilization"],
  ],
  containerResource: [
    ["name", "name"],
    ["current.averageValue", "currentAverageValue"],
    ["current.averageUtilization", "currentAverageUtilization"],
    ["container", "container"],
  ],
  external: [
    ["metric.name", "metricName"],
    ["metric.selector", "metricSelector"],
    ["current.value", "currentValue"],
    ["current.averageValue", "currentAverageValue"],
  ],
};

/** The value at a dotted path; absent where a step is no object. */
function at(o: Obj, path: string): unknown {
  let cur: unknown = o;
  for (const step of path.split(".")) {
    if (!isObj(cur)) return undefined;
    cur = cur[step];
  }
  return cur;
}

/** One metric source converted by its fields: absent values left out, nested objects made even when empty. */
function convertSource(src: Obj, fields: readonly Field[]): Obj {
  const out: Obj = {};
  for (const [to, from] of fields) {
    const v = typeof from === "string" ? at(src, from) : from(src);
    const steps = to.split(".");
    let dst = out;
    for (let i = 0; i < steps.length - 1; i++) {
      const step = steps[i] as string;
      if (!isObj(dst[step])) dst[step] = {};
      dst = dst[step] as Obj;
    }
    if (v !== undefined) dst[steps[steps.length - 1] as string] = v;
  }
  return out;
}

/** A metric (spec or status, either direction): its `type`, and its source converted by `table`. */
function convertMetric(m: Obj, table: Table): Obj {
  return ordered([
    ["type", m.type],
    ...SOURCES.map((s) => {
      const src = m[s];
      return [s, isObj(src) ? convertSource(src, table[s]) : undefined] as const;
    }),
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
  const others = metrics.filter((m) => !isCpuUtilizationTarget(m)).map((m) => convertMetric(m, SPEC_TO_V1));
  const current = objs(status.currentMetrics);
  const { meta, annotations: kept } = dropRoundTrip(v2.metadata);
  const extra: Record<string, string> = {};
  if (others.length > 0) extra[HPA_METRICS_ANNOTATION] = JSON.stringify(others);
  if (current.length > 0)
    extra[HPA_CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map((m) => convertMetric(m, STATUS_TO_V1)));
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
  if (Array.isArray(others)) metrics.push(...others.filter(isObj).map((m) => convertMetric(m, SPEC_TO_V2)));
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
  if (Array.isArray(current)) currentMetrics = current.filter(isObj).map((m) => convertMetric(m, STATUS_TO_V2));
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
