import type { FieldError, KubeObject } from "@informer-ts/apimachinery";
import { nonNegative, objectAt } from "./common.js";

/**
 * `ValidateLeaseSpec`: `leaseDurationSeconds` > 0 (`spec.leaseDurationSeconds: Invalid value: 0: must be greater
 * than 0`), `leaseTransitions` ≥ 0.
 */
export function validateLease(lease: KubeObject): FieldError[] {
  const spec = objectAt(lease.spec) ?? {};
  const errs: FieldError[] = [];
  const d = spec.leaseDurationSeconds;
  if (typeof d === "number" && d <= 0) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.leaseDurationSeconds",
      badValue: d,
      detail: "must be greater than 0",
    });
  }
  errs.push(...nonNegative(spec.leaseTransitions, "spec.leaseTransitions"));
  return errs;
}
