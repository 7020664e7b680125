import type { KubeObject } from "@informer-ts/apimachinery";

/** The label a Job's selector matches (`batch.ControllerUidLabel`). */
export const JOB_CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
/** `batch.JobNameLabel`. */
export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
/** The pre-1.27 forms a template gets too (`batch.LegacyControllerUidLabel`, `batch.LegacyJobNameLabel`). */
const LEGACY_CONTROLLER_UID_LABEL = "controller-uid";
const LEGACY_JOB_NAME_LABEL = "job-name";

function objectAt(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = parent[key];
  if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  const made: Record<string, unknown> = {};
  parent[key] = made;
  return made;
}

/**
 * A Job's generated selector, as the Job strategy's `PrepareForCreate` writes it (`generateSelector` in
 * kubernetes/kubernetes `pkg/registry/batch/job/strategy.go`) unless `spec.manualSelector` is true: the template gets
 * `batch.kubernetes.io/job-name` and `job-name` (the Job's name) and `batch.kubernetes.io/controller-uid` and
 * `controller-uid` (its uid) where it does not carry them already, and `spec.selector.matchLabels` gets
 * `batch.kubernetes.io/controller-uid`. Labels the user set are kept: a wrong one is left for validation (the selector
 * then does not match the template). Runs after the name is generated and the uid assigned; `job` is changed in place.
 */
export function generateJobSelector(job: KubeObject): void {
  const spec = objectAt(job as Record<string, unknown>, "spec");
  if (spec.manualSelector === true) return;
  const name = String(job.metadata?.name ?? "");
  const uid = String(job.metadata?.uid ?? "");
  const labels = objectAt(objectAt(objectAt(spec, "template"), "metadata"), "labels");
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, JOB_CONTROLLER_UID_LABEL]) if (!(key in labels)) labels[key] = uid;
  const matchLabels = objectAt(objectAt(spec, "selector"), "matchLabels");
  if (!(JOB_CONTROLLER_UID_LABEL in matchLabels)) matchLabels[JOB_CONTROLLER_UID_LABEL] = uid;
}
