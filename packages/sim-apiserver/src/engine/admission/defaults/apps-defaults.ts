import type { KubeObject } from "@informer-ts/apimachinery";
import { defaultTemplate } from "./pod-defaults.js";

type Obj = Record<string, unknown>;

/** `obj[key]` as an object, created empty when absent. */
function child(obj: Obj, key: string): Obj {
  const v = obj[key];
  if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Obj;
  const created: Obj = {};
  obj[key] = created;
  return created;
}

function specOf(obj: KubeObject): Obj | undefined {
  const s = obj.spec;
  return typeof s === "object" && s !== null && !Array.isArray(s) ? (s as Obj) : undefined;
}

/**
 * `SetDefaults_Deployment` of apps/v1: `replicas: 1`, `strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable:
 * 25%, maxSurge: 25%}}`, `revisionHistoryLimit: 10`, `progressDeadlineSeconds: 600`, and the template's pod defaults.
 */
export function defaultDeployment(d: KubeObject): void {
  const spec = specOf(d);
  if (spec === undefined) return;
  spec.replicas ??= 1;
  const strategy = child(spec, "strategy");
  strategy.type ??= "RollingUpdate";
  if (strategy.type === "RollingUpdate") {
    const ru = child(strategy, "rollingUpdate");
    ru.maxUnavailable ??= "25%";
    ru.maxSurge ??= "25%";
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultTemplate(d);
}

/**
 * `SetDefaults_StatefulSet`: `replicas: 1`, `podManagementPolicy: OrderedReady`, `updateStrategy: {type:
 * RollingUpdate, rollingUpdate: {partition: 0}}`, `revisionHistoryLimit: 10`,
 * `persistentVolumeClaimRetentionPolicy: Retain/Retain`, and the template's pod defaults.
 */
export function defaultStatefulSet(sts: KubeObject): void {
  const spec = specOf(sts);
  if (spec === undefined) return;
  spec.replicas ??= 1;
  spec.podManagementPolicy ??= "OrderedReady";
  const us = child(spec, "updateStrategy");
  us.type ??= "RollingUpdate";
  if (us.type === "RollingUpdate") child(us, "rollingUpdate").partition ??= 0;
  spec.revisionHistoryLimit ??= 10;
  const pvc = child(spec, "persistentVolumeClaimRetentionPolicy");
  pvc.whenDeleted ??= "Retain";
  pvc.whenScaled ??= "Retain";
  defaultTemplate(sts);
}

/**
 * `SetDefaults_DaemonSet`: `updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1, maxSurge: 0}}`,
 * `revisionHistoryLimit: 10`, and the template's pod defaults.
 */
export function defaultDaemonSet(ds: KubeObject): void {
  const spec = specOf(ds);
  if (spec === undefined) return;
  const us = child(spec, "updateStrategy");
  us.type ??= "RollingUpdate";
  if (us.type === "RollingUpdate") {
    const ru = child(us, "rollingUpdate");
    ru.maxUnavailable ??= 1;
    ru.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultTemplate(ds);
}

/** `SetDefaults_ReplicaSet`: `replicas: 1` and the template's pod defaults. */
export function defaultReplicaSet(rs: KubeObject): void {
  const spec = specOf(rs);
  if (spec === undefined) return;
  spec.replicas ??= 1;
  defaultTemplate(rs);
}
