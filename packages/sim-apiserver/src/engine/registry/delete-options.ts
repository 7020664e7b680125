import { type FieldError, type KubeObject, newInvalid } from "@informer-ts/apimachinery";
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from "./object-meta-validation.js";

/** `metav1.DeletionPropagation`. */
export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

/** `metav1.DeleteOptions` as the registry reads them (the request body of a DELETE, or in-process). */
export interface DeleteOptions {
  /** Must match the stored object's uid / resourceVersion, else 409 Conflict. */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /** What happens to dependents: `Background` (default of every served kind), `Foreground`, `Orphan`. */
  readonly propagationPolicy?: PropagationPolicy | string;
  /** Deprecated form of `propagationPolicy: Orphan`; both together are 422. */
  readonly orphanDependents?: boolean;
  /** Validated (≥ 0 when given); graceful deletion is not simulated (no kubelet), every deletion is immediate. */
  readonly gracePeriodSeconds?: number;
  /** Validate and answer as if deleted; nothing is stored. */
  readonly dryRun?: boolean;
}

const POLICIES: readonly string[] = ["Foreground", "Background", "Orphan"];

/**
 * `ValidateDeleteOptions`: an unknown `propagationPolicy` is 422 `Unsupported value`, `orphanDependents` together
 * with `propagationPolicy` is 422, a negative `gracePeriodSeconds` is 422.
 */
export function validateDeleteOptions(opts: DeleteOptions): void {
  const errs: FieldError[] = [];
  if (opts.orphanDependents !== undefined && opts.propagationPolicy !== undefined) {
    errs.push({
      type: "FieldValueInvalid",
      field: "propagationPolicy",
      badValue: String(opts.propagationPolicy),
      detail: "orphanDependents and deletionPropagation cannot be both set",
    });
  }
  if (opts.propagationPolicy !== undefined && !POLICIES.includes(opts.propagationPolicy)) {
    errs.push({
      type: "FieldValueNotSupported",
      field: "propagationPolicy",
      badValue: String(opts.propagationPolicy),
      detail: `supported values: ${POLICIES.map((p) => JSON.stringify(p)).join(", ")}`,
    });
  }
  if (opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds < 0) {
    errs.push({
      type: "FieldValueInvalid",
      field: "gracePeriodSeconds",
      badValue: opts.gracePeriodSeconds,
      detail: "must be greater than or equal to 0",
    });
  }
  if (errs.length > 0) throw newInvalid({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", errs);
}

/**
 * `deletionFinalizersForGarbageCollection` of the generic store: the finalizers a delete leaves on the object.
 * `Orphan` (or `orphanDependents: true`) adds `orphan` and drops `foregroundDeletion`; `Foreground` adds
 * `foregroundDeletion` and drops `orphan`; an explicit `Background` drops both; no policy keeps what the object has
 * (the default policy of every served kind is Background). Returns the new list and whether it changed.
 */
export function finalizersForDeletion(
  obj: KubeObject,
  opts: DeleteOptions,
): { finalizers: string[]; changed: boolean } {
  const current = Array.isArray(obj.metadata?.finalizers) ? [...obj.metadata.finalizers] : [];
  const policy: string | undefined =
    opts.propagationPolicy ??
    (opts.orphanDependents === true ? "Orphan" : opts.orphanDependents === false ? "Background" : undefined);
  let out = current;
  const without = (name: string) => out.filter((f) => f !== name);
  if (policy === "Orphan") {
    out = without(FINALIZER_FOREGROUND);
    if (!out.includes(FINALIZER_ORPHAN)) out.push(FINALIZER_ORPHAN);
  } else if (policy === "Foreground") {
    out = without(FINALIZER_ORPHAN);
    if (!out.includes(FINALIZER_FOREGROUND)) out.push(FINALIZER_FOREGROUND);
  } else if (policy === "Background") {
    out = without(FINALIZER_ORPHAN);
    out = out.filter((f) => f !== FINALIZER_FOREGROUND);
  }
  const changed = out.length !== current.length || out.some((f, i) => f !== current[i]);
  return { finalizers: out, changed };
}
