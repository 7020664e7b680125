import type { KubeObject } from "@informer-ts/apimachinery";
import { defaultPodSpec, defaultTemplate } from "./pod-defaults.js";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `SetDefaults_CronJob` of batch/v1 (pkg/apis/batch/v1/defaults.go), in place: `concurrencyPolicy: Allow`,
 * `suspend: false`, `successfulJobsHistoryLimit: 3`, `failedJobsHistoryLimit: 1`, and the pod defaults of the job
 * template's pod template (`spec.jobTemplate.spec.template.spec`), as the generated defaulter recurses into it.
 */
export function defaultCronJob(cj: KubeObject): void {
  const spec = cj.spec;
  if (!isObj(spec)) return;
  if (spec.concurrencyPolicy === undefined || spec.concurrencyPolicy === "") spec.concurrencyPolicy = "Allow";
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const jobSpec = isObj(spec.jobTemplate) ? spec.jobTemplate.spec : undefined;
  const template = isObj(jobSpec) ? jobSpec.template : undefined;
  if (isObj(template)) defaultPodSpec(template.spec);
}

/** `math.MaxInt32`: the `backoffLimit` of a Job that limits its failures per index instead. */
const MAX_INT32 = 2_147_483_647;

/**
 * `SetDefaults_Job` of batch/v1 (pkg/apis/batch/v1/defaults.go, v1.34 with its default gates), in place:
 * - `completions` and `parallelism` both 1 when neither is set, else `parallelism` 1 when unset (a work-queue Job
 *   keeps `completions` unset);
 * - `backoffLimit` 6, or `math.MaxInt32` when `backoffLimitPerIndex` is set;
 * - the Job's `metadata.labels` from the pod template's when the Job has none;
 * - `completionMode: NonIndexed`, `suspend: false`, `manualSelector: false`;
 * - `podFailurePolicy` rules' `onPodConditions[].status` `True` when empty
 *   (`SetDefaults_PodFailurePolicyOnPodConditionsPattern`);
 * - `podReplacementPolicy` (`JobPodReplacementPolicy`, on): `Failed` with a `podFailurePolicy`, else
 *   `TerminatingOrFailed`;
 * and the pod defaults of `spec.template.spec`, as the generated defaulter recurses into it.
 */
export function defaultJob(job: KubeObject): void {
  const spec = job.spec;
  if (!isObj(spec)) return;
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? MAX_INT32 : 6;
  const template = isObj(spec.template) ? spec.template : undefined;
  const templateLabels = isObj(template?.metadata) ? template.metadata.labels : undefined;
  if (isObj(templateLabels) && Object.keys(job.metadata?.labels ?? {}).length === 0) {
    job.metadata = { ...job.metadata, labels: { ...(templateLabels as Record<string, string>) } };
  }
  spec.completionMode ??= "NonIndexed";
  spec.suspend ??= false;
  const failurePolicy = isObj(spec.podFailurePolicy) ? spec.podFailurePolicy : undefined;
  if (failurePolicy !== undefined && Array.isArray(failurePolicy.rules)) {
    for (const rule of failurePolicy.rules) {
      if (!isObj(rule) || !Array.isArray(rule.onPodConditions)) continue;
      for (const pattern of rule.onPodConditions) {
        if (isObj(pattern) && (pattern.status === undefined || pattern.status === "")) pattern.status = "True";
      }
    }
  }
  spec.podReplacementPolicy ??= failurePolicy !== undefined ? "Failed" : "TerminatingOrFailed";
  spec.manualSelector ??= false;
  defaultTemplate(job);
}
