import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import { listAt, objectAt, stringAt } from "./common.js";

/**
 * The basics of `ValidateHorizontalPodAutoscaler` (pkg/apis/autoscaling/validation/validation.go), on the v2 shape
 * (upstream validates the internal type, which is v2's; a v1 object is validated after its conversion, and its
 * fields sit at the same paths): `scaleTargetRef` names a kind and a name (`ValidateCrossVersionObjectReference`),
 * `minReplicas` ≥ 1, `maxReplicas` > 0 and ≥ `minReplicas`, a `Utilization` target's `averageUtilization` > 0.
 */
export function validateHorizontalPodAutoscaler(hpa: KubeObject): FieldError[] {
  const spec = objectAt(hpa.spec) ?? {};
  const errs: FieldError[] = [];
  const ref = objectAt(spec.scaleTargetRef) ?? {};
  for (const field of ["kind", "name"] as const) {
    const v = stringAt(ref[field]);
    if (v === "") errs.push({ type: "FieldValueRequired", field: `spec.scaleTargetRef.${field}`, detail: "" });
    else if (v === "." || v === ".." || v.includes("/") || v.includes("%")) {
      errs.push({
        type: "FieldValueInvalid",
        field: `spec.scaleTargetRef.${field}`,
        badValue: v,
        detail: `may not be '.', '..', or contain '/' or '%'`,
      });
    }
  }
  const min = spec.minReplicas;
  if (typeof min === "number" && min < 1) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.minReplicas",
      badValue: min,
      detail: "must be greater than or equal to 1",
    });
  }
  const max = typeof spec.maxReplicas === "number" ? spec.maxReplicas : 0;
  if (max < 1) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.maxReplicas",
      badValue: max,
      detail: "must be greater than 0",
    });
  }
  if (typeof min === "number" && min > max) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.maxReplicas",
      badValue: max,
      detail: "must be greater than or equal to `minReplicas`",
    });
  }
  listAt(spec.metrics).forEach((m, i) => {
    const target = objectAt(objectAt(objectAt(m)?.resource)?.target);
    const u = target?.averageUtilization;
    if (target?.type === "Utilization" && typeof u === "number" && u <= 0) {
      errs.push({
        type: "FieldValueInvalid",
        field: `spec.metrics[${i}].resource.target.averageUtilization`,
        badValue: u,
        detail: "must be greater than 0",
      });
    }
  });
  return errs;
}
