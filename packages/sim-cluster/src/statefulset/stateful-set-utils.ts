import type { KubeObject } from "@informer-ts/apimachinery";
import type { Pod, StatefulSet } from "@informer-ts/client";
import { scaledValue } from "../deployment/replica-sets.js";
import { computeHash, stable } from "../deployment/revisions.js";
import { newControllerRef } from "../internal/controller-ref.js";
import { isPodReady } from "../internal/pod-util.js";

/** `apps.StatefulSetRevisionLabel` (`controller-revision-hash`): the revision a pod was made from. */
export const STATEFUL_SET_REVISION_LABEL = "controller-revision-hash";
/** `apps.StatefulSetPodNameLabel`. */
export const STATEFUL_SET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
/** `apps.PodIndexLabel`. */
export const POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";

/** A `ControllerRevision` (`apps/v1`) as JSON. */
export interface ControllerRevision extends KubeObject {
  data?: unknown;
  revision?: number;
}

/** What the StatefulSet controller reads of a StatefulSet's spec. */
export interface StatefulSetSpecView {
  replicas?: number;
  serviceName?: string;
  podManagementPolicy?: "OrderedReady" | "Parallel";
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  updateStrategy?: {
    type?: "RollingUpdate" | "OnDelete";
    rollingUpdate?: { partition?: number; maxUnavailable?: number | string };
  };
  /** `spec.ordinals` (StatefulSetStartOrdinal, GA in 1.31): the first ordinal. */
  ordinals?: { start?: number };
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: "Retain" | "Delete"; whenScaled?: "Retain" | "Delete" };
  volumeClaimTemplates?: { metadata?: { name?: string; labels?: Record<string, string> }; spec?: unknown }[];
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown };
  selector?: unknown;
}

export function setSpecOf(set: StatefulSet): StatefulSetSpecView {
  return (set.spec ?? {}) as StatefulSetSpecView;
}

/** `getParentNameAndOrdinal`: `web-3` → `["web", 3]`; a name without a trailing `-<digits>` → ordinal -1. */
export function getParentNameAndOrdinal(pod: Pod): { parent: string; ordinal: number } {
  const m = /^(.*)-([0-9]+)$/.exec(pod.metadata?.name ?? "");
  if (m === null) return { parent: "", ordinal: -1 };
  const ordinal = Number(m[2]);
  return Number.isSafeInteger(ordinal) ? { parent: m[1]!, ordinal } : { parent: "", ordinal: -1 };
}

/** `getOrdinal`. */
export function getOrdinal(pod: Pod): number {
  return getParentNameAndOrdinal(pod).ordinal;
}

/** `getStartOrdinal`: `spec.ordinals.start`, default 0. */
export function getStartOrdinal(set: StatefulSet): number {
  return setSpecOf(set).ordinals?.start ?? 0;
}

/** `getEndOrdinal`: the last ordinal of the set's range, `start + replicas − 1`. */
export function getEndOrdinal(set: StatefulSet): number {
  return getStartOrdinal(set) + (setSpecOf(set).replicas ?? 1) - 1;
}

/** `podInOrdinalRange`: the pod's ordinal is within `[start, end]`. */
export function podInOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const ord = getOrdinal(pod);
  return ord >= getStartOrdinal(set) && ord <= getEndOrdinal(set);
}

/**
 * `getStatefulSetMaxUnavailable`: `rollingUpdate.maxUnavailable` (default 1) of `replicaCount`, a percentage rounded
 * down, and never below 1.
 */
export function getStatefulSetMaxUnavailable(
  maxUnavailable: number | string | undefined,
  replicaCount: number,
): number {
  return Math.max(1, scaledValue(maxUnavailable ?? 1, replicaCount, false));
}

/** `getPodName`: `<set>-<ordinal>`. */
export function getPodName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name ?? ""}-${ordinal}`;
}

/** `isMemberOf`: the pod's name has the set's name as parent. */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return getParentNameAndOrdinal(pod).parent === set.metadata?.name;
}

/** `identityMatches`: name, namespace, the pod-name label and (with a service) hostname/subdomain are the set's. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = getParentNameAndOrdinal(pod);
  return (
    ordinal >= 0 &&
    parent === set.metadata?.name &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    pod.metadata?.labels?.[STATEFUL_SET_POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** `getPersistentVolumeClaimName`: `<template>-<set>-<ordinal>`. */
export function getPersistentVolumeClaimName(set: StatefulSet, claim: string, ordinal: number): string {
  return `${claim}-${set.metadata?.name ?? ""}-${ordinal}`;
}

/** `storageMatches`: every claim template has a volume of the pod on the claim of this ordinal. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = getOrdinal(pod);
  if (ordinal < 0) return false;
  const volumes = (pod.spec?.volumes ?? []) as { name?: string; persistentVolumeClaim?: { claimName?: string } }[];
  for (const t of setSpecOf(set).volumeClaimTemplates ?? []) {
    const name = t.metadata?.name ?? "";
    const v = volumes.find((x) => x.name === name);
    if (v?.persistentVolumeClaim?.claimName !== getPersistentVolumeClaimName(set, name, ordinal)) return false;
  }
  return true;
}

/** `isRunningAndReady`. */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === "Running" && isPodReady(pod);
}

/** `isTerminating`. */
export function isTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp != null;
}

/** `isFailed` / `isSucceeded` together: the pod finished and will be replaced. */
export function isFinished(pod: Pod): boolean {
  return pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded";
}

/** `getPodRevision`. */
export function getPodRevision(pod: Pod): string | undefined {
  return pod.metadata?.labels?.[STATEFUL_SET_REVISION_LABEL];
}

/**
 * `getPatch`: the revision's data — the pod template, replacing the owner's whole template when applied (the
 * StatefulSet's and the DaemonSet's revisions alike).
 */
export function revisionData(owner: { spec?: unknown }): unknown {
  const template = ((owner.spec ?? {}) as { template?: object }).template ?? {};
  return { spec: { template: { ...structuredClone(template), $patch: "replace" } } };
}

/**
 * `newRevision` (with `history.NewControllerRevision`): a ControllerRevision of the set's template named
 * `<set>-<hash>` (the hash of the data and `collisionCount`), labelled with the template's labels and owned by the set.
 */
export function newRevision(
  set: StatefulSet,
  revision: number,
  collisionCount: number | undefined,
): ControllerRevision {
  const data = revisionData(set);
  const hash = computeHash(data, collisionCount);
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: `${set.metadata?.name ?? ""}-${hash}`,
      namespace: set.metadata?.namespace ?? "",
      labels: { ...setSpecOf(set).template?.metadata?.labels, [STATEFUL_SET_REVISION_LABEL]: hash },
      ownerReferences: [newControllerRef(set, "apps/v1", "StatefulSet")],
    },
    data,
    revision,
  };
}

/** `history.EqualRevision`: the same data (whatever the order of its keys, which a round trip may change). */
export function equalRevision(a: ControllerRevision, b: ControllerRevision): boolean {
  return JSON.stringify(stable(a.data ?? null)) === JSON.stringify(stable(b.data ?? null));
}

/** `ApplyRevision`: the set (or DaemonSet) with the template a revision holds. */
export function applyRevision<T extends { spec?: object }>(set: T, revision: ControllerRevision): T {
  const tmpl = { ...((revision.data as { spec?: { template?: Record<string, unknown> } })?.spec?.template ?? {}) };
  delete tmpl.$patch;
  return { ...set, spec: { ...set.spec, template: tmpl } } as T;
}

/** `nextRevision`: one more than the highest revision number (1 without revisions). */
export function nextRevision(revisions: readonly ControllerRevision[]): number {
  return revisions.reduce((m, r) => Math.max(m, r.revision ?? 0), 0) + 1;
}

/**
 * `newStatefulSetPod` + `newVersionedStatefulSetPod`'s labelling: the pod of `ordinal` from `set`'s template —
 * name `<set>-<ordinal>`, the identity labels and the revision label, hostname and subdomain (the set's service),
 * the claim templates' volumes, and a controller reference.
 */
export function newStatefulSetPod(set: StatefulSet, ordinal: number, revisionName: string): Pod {
  const spec = setSpecOf(set);
  const name = getPodName(set, ordinal);
  const podSpec = structuredClone((spec.template?.spec ?? {}) as Record<string, unknown>);
  const claims = (spec.volumeClaimTemplates ?? []).map((t) => t.metadata?.name ?? "");
  if (claims.length > 0) {
    const volumes = ((podSpec.volumes ?? []) as { name?: string }[]).filter((v) => !claims.includes(v.name ?? ""));
    for (const c of claims) {
      volumes.push({
        name: c,
        persistentVolumeClaim: { claimName: getPersistentVolumeClaimName(set, c, ordinal) },
      } as { name: string });
    }
    podSpec.volumes = volumes;
  }
  podSpec.hostname = name;
  if (spec.serviceName !== undefined && spec.serviceName !== "") podSpec.subdomain = spec.serviceName;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: set.metadata?.namespace ?? "",
      labels: {
        ...spec.template?.metadata?.labels,
        [STATEFUL_SET_POD_NAME_LABEL]: name,
        [POD_INDEX_LABEL]: String(ordinal),
        [STATEFUL_SET_REVISION_LABEL]: revisionName,
      },
      ...(spec.template?.metadata?.annotations !== undefined && {
        annotations: { ...spec.template.metadata.annotations },
      }),
      ownerReferences: [newControllerRef(set, "apps/v1", "StatefulSet")],
    },
    spec: podSpec,
  } as unknown as Pod;
}

/**
 * Which revision the pod of `ordinal` is created from (`newVersionedStatefulSetPod`): under `RollingUpdate`, ordinals
 * below the partition (or, without `rollingUpdate`, below `status.currentReplicas`) — counted from the start ordinal —
 * keep the current revision; all others get the update revision.
 */
export function createsFromCurrent(set: StatefulSet, ordinal: number): boolean {
  const spec = setSpecOf(set);
  const ru = spec.updateStrategy?.rollingUpdate;
  const start = getStartOrdinal(set);
  // Upstream's condition groups as (RollingUpdate && no rollingUpdate && below currentReplicas) || (partition given &&
  // below it): a partition counts whatever the strategy type.
  if (ru !== undefined) return ordinal < start + (ru.partition ?? 0);
  const rolling = (spec.updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate";
  return rolling && ordinal < start + ((set.status as { currentReplicas?: number } | undefined)?.currentReplicas ?? 0);
}
