import type { FieldError } from "@informer-ts/apimachinery";
import { jsonEqual } from "../../object-util.js";
import { listAt, objectAt, stringAt } from "./common.js";

/** The fields `ValidatePodUpdate` lets an update change, as its Forbidden message lists them. */
const UPDATABLE =
  "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` " +
  "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was " +
  "previously negative)";

const MAX_INT32 = 2147483647;

function same(a: unknown, b: unknown): boolean {
  return jsonEqual(a ?? null, b ?? null);
}

/**
 * `ValidateContainerUpdates`: the same number of containers (`spec.containers: Forbidden: pod updates may not add or
 * remove containers`, which ends the validation) and an image on each.
 */
function validateContainerUpdates(
  next: unknown[],
  old: unknown[],
  path: string,
): { errs: FieldError[]; stop: boolean } {
  if (next.length !== old.length)
    return {
      errs: [{ type: "FieldValueForbidden", field: path, detail: "pod updates may not add or remove containers" }],
      stop: true,
    };
  const errs: FieldError[] = [];
  next.forEach((c, i) => {
    if (stringAt(objectAt(c)?.image) === "") errs.push({ type: "FieldValueRequired", field: `${path}[${i}].image` });
  });
  return { errs, stop: false };
}

/**
 * `validateOnlyAddedTolerations`: each existing toleration is still there, unchanged but for `tolerationSeconds`
 * (`spec.tolerations[0]: Forbidden: existing toleration can not be modified except its tolerationSeconds`).
 */
function validateOnlyAddedTolerations(next: unknown[], old: unknown[], path: string): FieldError[] {
  const withoutSeconds = (t: unknown) => {
    const { tolerationSeconds: _s, ...rest } = objectAt(t) ?? {};
    return rest;
  };
  const errs: FieldError[] = [];
  // The same list (an update shares what it did not change with the stored object): nothing was modified.
  if (next === old) return errs;
  old.forEach((o, i) => {
    if (!next.some((n) => n === o || same(withoutSeconds(n), withoutSeconds(o))))
      errs.push({
        type: "FieldValueForbidden",
        field: `${path}[${i}]`,
        detail: "existing toleration can not be modified except its tolerationSeconds",
      });
  });
  return errs;
}

/**
 * `ValidatePodUpdate` (`pkg/apis/core/validation/validation.go`), the spec part (metadata is the registry's): a
 * pod's spec is immutable but for its containers' and init containers' images, `activeDeadlineSeconds` (set from
 * none to a positive value, or lowered: `must be less than or equal to previous value`, `must not update from a
 * positive integer to nil value`), tolerations added (`validateOnlyAddedTolerations`) and a negative
 * `terminationGracePeriodSeconds` set to 1; any other change is `spec: Forbidden: pod updates may not change fields
 * other than …` with upstream's list. Differences: upstream appends a Go `cmp.Diff` of the specs; the simulator
 * names the changed spec fields instead (`changed: nodeName, volumes`). Scheduling gates and in-place resizes
 * (1.33+ `resize` subresource) are not modelled.
 */
export function validatePodUpdate(nextSpec: unknown, oldSpec: unknown): FieldError[] {
  const next = objectAt(nextSpec) ?? {};
  const old = objectAt(oldSpec) ?? {};
  const errs: FieldError[] = [];
  for (const f of ["containers", "initContainers"] as const) {
    const r = validateContainerUpdates(listAt(next[f]), listAt(old[f]), `spec.${f}`);
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const ads = next.activeDeadlineSeconds;
  const oldAds = old.activeDeadlineSeconds;
  if (typeof ads === "number") {
    if (ads < 0 || ads > MAX_INT32) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.activeDeadlineSeconds",
        badValue: ads,
        detail: `must be between 0 and ${MAX_INT32}, inclusive`,
      });
      return errs;
    }
    if (typeof oldAds === "number" && oldAds < ads) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.activeDeadlineSeconds",
        badValue: ads,
        detail: "must be less than or equal to previous value",
      });
      return errs;
    }
  } else if (typeof oldAds === "number") {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.activeDeadlineSeconds",
      printedValue: "null",
      detail: "must not update from a positive integer to nil value",
    });
  }
  errs.push(...validateOnlyAddedTolerations(listAt(next.tolerations), listAt(old.tolerations), "spec.tolerations"));
  if (same(next, old)) return errs;
  // Munge what may change to the old values, then the rest must be equal.
  const munged: Record<string, unknown> = { ...next };
  for (const f of ["containers", "initContainers"] as const) {
    if (next[f] === undefined) continue;
    const oldList = listAt(old[f]);
    munged[f] = listAt(next[f]).map((c, i) => ({ ...(objectAt(c) ?? {}), image: objectAt(oldList[i])?.image }));
  }
  munged.activeDeadlineSeconds = old.activeDeadlineSeconds;
  munged.tolerations = old.tolerations;
  const oldGrace = old.terminationGracePeriodSeconds;
  if (typeof oldGrace === "number" && oldGrace < 0 && next.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = oldGrace;
  const changed = [...new Set([...Object.keys(munged), ...Object.keys(old)])]
    .filter((k) => !same(munged[k], old[k]))
    .sort();
  if (changed.length > 0)
    errs.push({
      type: "FieldValueForbidden",
      field: "spec",
      detail: `pod updates may not change fields other than ${UPDATABLE}\nchanged: ${changed.join(", ")}`,
    });
  return errs;
}
