import type { KubeObject } from "@informer-ts/apimachinery";
import { DEFAULT_CPU_UTILIZATION } from "../../hpa-conversion.js";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `SetDefaults_HorizontalPodAutoscaler` of autoscaling/v1 (pkg/apis/autoscaling/v1/defaults.go), in place:
 * `minReplicas: 1`. The implied CPU target of 80% is applied by the conversion to v2 (`hpa-conversion.ts`), as
 * upstream does, since only there are the other metrics (in the annotation) known.
 */
export function defaultHpaV1(hpa: KubeObject): void {
  const spec = hpa.spec;
  if (!isObj(spec)) return;
  spec.minReplicas ??= 1;
}

/** `HPAScalingRules` with the unset fields of `rules` taken from `defaults` (`copyHPAScalingRules`). */
function scalingRules(rules: unknown, defaults: Obj): Obj {
  if (!isObj(rules)) return defaults;
  return {
    ...rules,
    stabilizationWindowSeconds: rules.stabilizationWindowSeconds ?? defaults.stabilizationWindowSeconds,
    selectPolicy: rules.selectPolicy ?? defaults.selectPolicy,
    policies: rules.policies ?? defaults.policies,
  };
}

/** `GenerateHPAScaleUpRules`'s defaults: no stabilization, the larger of 4 pods or 100% per 15 s. */
function scaleUpDefaults(): Obj {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: "Max",
    policies: [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ],
  };
}

/** `GenerateHPAScaleDownRules`'s defaults: a 300 s stabilization window, 100% per 15 s. */
function scaleDownDefaults(): Obj {
  return {
    stabilizationWindowSeconds: 300,
    selectPolicy: "Max",
    policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
  };
}

/**
 * `SetDefaults_HorizontalPodAutoscaler` of autoscaling/v2 (pkg/apis/autoscaling/v2/defaults.go), in place:
 * `minReplicas: 1`; without metrics, a CPU `Utilization` target of 80%; a `behavior` that is given gets the
 * scale-up and scale-down rules' unset fields from `GenerateHPAScaleUpRules`/`GenerateHPAScaleDownRules` (an absent
 * `behavior` stays absent: the controller applies the same defaults).
 */
export function defaultHpaV2(hpa: KubeObject): void {
  const spec = hpa.spec;
  if (!isObj(spec)) return;
  spec.minReplicas ??= 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: DEFAULT_CPU_UTILIZATION } },
      },
    ];
  }
  if (isObj(spec.behavior)) {
    spec.behavior.scaleUp = scalingRules(spec.behavior.scaleUp, scaleUpDefaults());
    spec.behavior.scaleDown = scalingRules(spec.behavior.scaleDown, scaleDownDefaults());
  }
}
