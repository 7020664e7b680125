import type { KubeObject } from "@informer-ts/apimachinery";
import { defaultPodSpec } from "./pod-defaults.js";

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
