// The autoscaling/v1 ↔ autoscaling/v2 HorizontalPodAutoscaler conversion (pkg/apis/autoscaling/v1/conversion.go):
// the cases of upstream's conversion tests (pkg/apis/autoscaling/v1/conversion_test.go), the field mapping as tables,
// then a fast-check round trip v2 → v1 → v2 over the fields v1 can carry (itself or in its annotations).
import type { KubeObject } from "@informer-ts/apimachinery";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultHpaV1, defaultHpaV2 } from "./admission/defaults/autoscaling-defaults.js";
import {
  HPA_BEHAVIOR_ANNOTATION,
  HPA_CONDITIONS_ANNOTATION,
  HPA_CURRENT_METRICS_ANNOTATION,
  HPA_METRICS_ANNOTATION,
  hpaV1ToV2,
  hpaV2ToV1,
} from "./hpa-conversion.js";

const REF = { kind: "Deployment", name: "web", apiVersion: "apps/v1" };

function v2(spec: Record<string, unknown>, status?: Record<string, unknown>, annotations?: Record<string, string>) {
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "h", namespace: "ns", ...(annotations !== undefined && { annotations }) },
    spec: { scaleTargetRef: REF, minReplicas: 1, maxReplicas: 5, ...spec },
    ...(status !== undefined && { status }),
  } as KubeObject;
}

const cpu = (u: number) => ({
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: u } },
});

describe("TestHorizontalPodAutoscalerAnnotations (pkg/apis/autoscaling/v1/conversion_test.go)", () => {
  // Round-trip annotations already on the v2 object never survive v2 → v1 → v2, whatever their value.
  for (const [test, value] of [
    ["test empty value for Annotations", ""],
    ["test random value for Annotations", "abc"],
    ["test escape character for Annotations", "'\"\\"],
  ] as const) {
    it(test, () => {
      const anns = {
        [HPA_CONDITIONS_ANNOTATION]: value,
        [HPA_METRICS_ANNOTATION]: value,
        [HPA_BEHAVIOR_ANNOTATION]: value,
        [HPA_CURRENT_METRICS_ANNOTATION]: value,
      };
      const back = hpaV1ToV2(hpaV2ToV1(v2({ metrics: [cpu(70)] }, undefined, anns)));
      expect(back.metadata?.annotations).toBeUndefined();
      expect((back.spec as { metrics: unknown }).metrics).toEqual([cpu(70)]);
    });
  }
});

describe("Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler", () => {
  it("a CPU utilization target is targetCPUUtilizationPercentage, nothing in annotations", () => {
    const v1 = hpaV2ToV1(v2({ metrics: [cpu(60)] }));
    expect(v1).toEqual({
      kind: "HorizontalPodAutoscaler",
      apiVersion: "autoscaling/v1",
      metadata: { name: "h", namespace: "ns" },
      spec: { scaleTargetRef: REF, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 },
    });
  });

  it("other metrics go to the metrics annotation in v1's metric shapes; the CPU one stays a field", () => {
    const pods = {
      type: "Pods",
      pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } },
    };
    const ext = {
      type: "External",
      external: { metric: { name: "queue" }, target: { type: "Value", value: "3" } },
    };
    const v1 = hpaV2ToV1(v2({ metrics: [pods, cpu(50), ext] }));
    expect((v1.spec as Record<string, unknown>).targetCPUUtilizationPercentage).toBe(50);
    expect(JSON.parse(v1.metadata!.annotations![HPA_METRICS_ANNOTATION]!)).toEqual([
      { type: "Pods", pods: { metricName: "qps", targetAverageValue: "10" } },
      { type: "External", external: { metricName: "queue", targetValue: "3" } },
    ]);
  });

  it("status: the CPU current utilization is a field, every current metric and the conditions are annotations", () => {
    const status = {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 91 } } }],
      conditions: [{ type: "AbleToScale", status: "True", reason: "ReadyForNewScale" }],
    };
    const v1 = hpaV2ToV1(
      v2({ metrics: [cpu(80)], behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }, status),
    );
    expect(v1.status).toEqual({ currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 91 });
    const anns = v1.metadata!.annotations!;
    expect(JSON.parse(anns[HPA_CURRENT_METRICS_ANNOTATION]!)).toEqual([
      { type: "Resource", resource: { name: "cpu", currentAverageUtilization: 91 } },
    ]);
    expect(JSON.parse(anns[HPA_CONDITIONS_ANNOTATION]!)).toEqual(status.conditions);
    expect(JSON.parse(anns[HPA_BEHAVIOR_ANNOTATION]!)).toEqual({ scaleDown: { stabilizationWindowSeconds: 60 } });
    expect(anns[HPA_METRICS_ANNOTATION]).toBeUndefined();
  });

  it("user annotations are kept beside the round-trip ones", () => {
    const v1 = hpaV2ToV1(v2({ metrics: [cpu(80)], behavior: {} }, undefined, { team: "a" }));
    expect(Object.keys(v1.metadata!.annotations!)).toEqual(["team", HPA_BEHAVIOR_ANNOTATION]);
  });
});

describe("Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler", () => {
  const v1 = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
    apiVersion: "autoscaling/v1",
    kind: "HorizontalPodAutoscaler",
    metadata: { name: "h", ...(annotations !== undefined && { annotations }) },
    spec: { scaleTargetRef: REF, maxReplicas: 4, ...spec },
  });

  it("no target: the CPU utilization of 80% that autoscaling/v1 implies", () => {
    expect((hpaV1ToV2(v1({})).spec as Record<string, unknown>).metrics).toEqual([cpu(80)]);
  });

  it("targetCPUUtilizationPercentage is a Resource metric; annotated metrics come first, then the CPU one", () => {
    const others = JSON.stringify([
      { type: "Object", object: { target: REF, metricName: "hits", targetValue: "100" } },
      { type: "Resource", resource: { name: "memory", targetAverageValue: "1Gi" } },
    ]);
    const out = hpaV1ToV2(v1({ targetCPUUtilizationPercentage: 30 }, { [HPA_METRICS_ANNOTATION]: others, x: "y" }));
    expect((out.spec as Record<string, unknown>).metrics).toEqual([
      {
        type: "Object",
        object: { describedObject: REF, target: { type: "Value", value: "100" }, metric: { name: "hits" } },
      },
      { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "1Gi" } } },
      cpu(30),
    ]);
    expect(out.metadata?.annotations).toEqual({ x: "y" });
  });

  it("an annotation that is not JSON is dropped, not an error", () => {
    const out = hpaV1ToV2(v1({ targetCPUUtilizationPercentage: 30 }, { [HPA_BEHAVIOR_ANNOTATION]: "{" }));
    expect((out.spec as Record<string, unknown>).behavior).toBeUndefined();
    expect(out.metadata?.annotations).toBeUndefined();
  });
});

describe("TestSetDefaultHPA (pkg/apis/autoscaling/v1/defaults_test.go, v2/defaults_test.go)", () => {
  it("v1: minReplicas 1, a given minReplicas kept", () => {
    const a = { spec: { maxReplicas: 3 } } as KubeObject;
    defaultHpaV1(a);
    expect(a.spec).toEqual({ maxReplicas: 3, minReplicas: 1 });
    const b = { spec: { minReplicas: 3 } } as KubeObject;
    defaultHpaV1(b);
    expect((b.spec as Record<string, unknown>).minReplicas).toBe(3);
  });

  it("v2: minReplicas 1 and the CPU 80% metric; no behavior stays no behavior", () => {
    const a = { spec: { maxReplicas: 3 } } as KubeObject;
    defaultHpaV2(a);
    expect(a.spec).toEqual({ maxReplicas: 3, minReplicas: 1, metrics: [cpu(80)] });
  });

  it("TestGenerateScaleUpRules / TestGenerateScaleDownRules: unset fields of a given behavior take the defaults", () => {
    const a = {
      spec: { metrics: [cpu(50)], behavior: { scaleUp: { stabilizationWindowSeconds: 25 } } },
    } as unknown as KubeObject;
    defaultHpaV2(a);
    expect((a.spec as Record<string, unknown>).behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 25,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 300,
        selectPolicy: "Max",
        policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
      },
    });
  });
});

// ---- the round trip as a property --------------------------------------------------------------------------------

const quantity = fc.constantFrom("1", "250m", "10", "1Gi", "3");
const metricName = fc.constantFrom("qps", "hits", "queue-depth");
const selector = fc.option(fc.constant({ matchLabels: { app: "web" } }), { nil: undefined });
const clean = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
const metricId = fc.tuple(metricName, selector).map(([name, sel]) => clean({ name, selector: sel }));

/** A v2 metric that v1 carries in its annotation (every shape whose target type v1's conversion picks back). */
const otherMetric: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  // Not "cpu": upstream's spec conversion stops at the first CPU Resource metric, so an AverageValue CPU metric
  // before the Utilization one would hide that one from targetCPUUtilizationPercentage (as it does upstream).
  fc.tuple(fc.constantFrom("memory", "ephemeral-storage"), quantity).map(([name, q]) => ({
    type: "Resource",
    resource: { name, target: { type: "AverageValue", averageValue: q } },
  })),
  fc.tuple(fc.constantFrom("memory"), fc.integer({ min: 1, max: 100 })).map(([name, u]) => ({
    type: "Resource",
    resource: { name, target: { type: "Utilization", averageUtilization: u } },
  })),
  fc.tuple(fc.constantFrom("app", "sidecar"), fc.integer({ min: 1, max: 100 })).map(([container, u]) => ({
    type: "ContainerResource",
    containerResource: { name: "cpu", target: { type: "Utilization", averageUtilization: u }, container },
  })),
  fc.tuple(metricId, quantity).map(([metric, q]) => ({
    type: "Pods",
    pods: { metric, target: { type: "AverageValue", averageValue: q } },
  })),
  fc.tuple(metricId, quantity, fc.option(quantity, { nil: undefined })).map(([metric, value, avg]) => ({
    type: "Object",
    object: {
      describedObject: REF,
      target: clean({ type: avg === undefined ? "Value" : "AverageValue", value, averageValue: avg }),
      metric,
    },
  })),
  fc.tuple(metricId, fc.boolean(), quantity).map(([metric, byValue, q]) => ({
    type: "External",
    external: { metric, target: byValue ? { type: "Value", value: q } : { type: "AverageValue", averageValue: q } },
  })),
);

const currentMetric: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.integer({ min: 0, max: 200 }).map((u) => ({
    type: "Resource",
    resource: { name: "cpu", current: { averageValue: "100m", averageUtilization: u } },
  })),
  fc.tuple(metricId, quantity).map(([metric, q]) => ({ type: "Pods", pods: { metric, current: { averageValue: q } } })),
  fc.tuple(metricId, quantity).map(([metric, q]) => ({
    type: "External",
    external: { metric, current: { value: q, averageValue: q } },
  })),
);

const behavior = fc.option(
  fc.record(
    {
      scaleUp: fc.record({
        stabilizationWindowSeconds: fc.integer({ min: 0, max: 3600 }),
        selectPolicy: fc.constant("Max"),
      }),
      scaleDown: fc.record({
        policies: fc.constant([{ type: "Pods", value: 1, periodSeconds: 60 }]),
      }),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

const hpa: fc.Arbitrary<KubeObject> = fc
  .record({
    min: fc.integer({ min: 1, max: 5 }),
    max: fc.integer({ min: 5, max: 50 }),
    others: fc.array(otherMetric, { maxLength: 3 }),
    cpu: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    behavior,
    status: fc.option(
      fc.record({
        currentReplicas: fc.integer({ min: 0, max: 9 }),
        desiredReplicas: fc.integer({ min: 0, max: 9 }),
        currentMetrics: fc.array(currentMetric, { minLength: 1, maxLength: 3 }),
        conditions: fc.constant([{ type: "ScalingActive", status: "True", reason: "ValidMetricFound" }]),
      }),
      { nil: undefined },
    ),
    userAnnotations: fc.option(fc.dictionary(fc.constantFrom("a", "team.io/x"), fc.string()), { nil: undefined }),
  })
  .filter((g) => g.others.length > 0 || g.cpu !== undefined)
  .map((g) =>
    v2(
      clean({
        minReplicas: g.min,
        maxReplicas: g.max,
        // v1 brings the CPU metric back after the annotated ones.
        metrics: [...g.others, ...(g.cpu === undefined ? [] : [cpu(g.cpu)])],
        behavior: g.behavior,
      }),
      g.status,
      g.userAnnotations !== undefined && Object.keys(g.userAnnotations).length > 0 ? g.userAnnotations : undefined,
    ),
  );

describe("property: v2 → v1 → v2 is the identity on what v1 carries", () => {
  it("every field comes back (spec, metrics, behavior, status, conditions, user annotations)", () => {
    fc.assert(
      fc.property(hpa, (o) => {
        const back = hpaV1ToV2(hpaV2ToV1(o));
        expect(back).toEqual(o);
      }),
      { numRuns: 300 },
    );
  });
});
