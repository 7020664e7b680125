import type { KubeObject } from "@informer-ts/apimachinery";
import type { PersistentVolumeClaim, Pod, StatefulSet } from "@informer-ts/client";
import { newControllerRef } from "../internal/controller-ref.js";
import { podInOrdinalRange, setSpecOf } from "./stateful-set-utils.js";

/**
 * `persistentVolumeClaimRetentionPolicy` (StatefulSetAutoDeletePVC, GA in 1.32), a port of the claim-ownership part
 * of `pkg/controller/statefulset/stateful_set_utils.go`: which owner references a pod's claims carry so that the
 * garbage collector deletes them when the set is deleted (`whenDeleted: Delete`: the set controls the claim) or when
 * the pod is scaled away (`whenScaled: Delete`: the condemned pod controls it).
 */

/** One `metadata.ownerReferences` entry. */
interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** A set's retention policy with its defaults. */
export interface ClaimRetentionPolicy {
  readonly whenDeleted: "Retain" | "Delete";
  readonly whenScaled: "Retain" | "Delete";
}

const SET_KIND = { apiVersion: "apps/v1", kind: "StatefulSet" } as const;
const POD_KIND = { apiVersion: "v1", kind: "Pod" } as const;

/** `getPersistentVolumeClaimRetentionPolicy`: the set's policy, `Retain`/`Retain` when absent. */
export function getPersistentVolumeClaimRetentionPolicy(set: StatefulSet): ClaimRetentionPolicy {
  const p = setSpecOf(set).persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted ?? "Retain", whenScaled: p?.whenScaled ?? "Retain" };
}

function refsOf(claim: KubeObject): OwnerReference[] {
  return (claim.metadata?.ownerReferences ?? []) as OwnerReference[];
}

/** `matchesRef`: the reference names `obj` by kind, API version and name (whatever its UID). */
function matchesRef(ref: OwnerReference, obj: KubeObject, gvk: { apiVersion: string; kind: string }): boolean {
  return ref.apiVersion === gvk.apiVersion && ref.kind === gvk.kind && ref.name === obj.metadata?.name;
}

/** `hasOwnerRef`: some reference has the owner's UID (controller or not). */
function hasOwnerRef(claim: KubeObject, owner: KubeObject): boolean {
  return refsOf(claim).some((r) => r.uid === owner.metadata?.uid);
}

/** `hasStaleOwnerRef`: a reference names `obj` but with another UID (a previous object of that name). */
function hasStaleOwnerRef(claim: KubeObject, obj: KubeObject, gvk: { apiVersion: string; kind: string }): boolean {
  const ref = refsOf(claim).find((r) => matchesRef(r, obj, gvk));
  return ref !== undefined && ref.uid !== obj.metadata?.uid;
}

/**
 * `hasUnexpectedController`: under a policy other than Retain/Retain, the claim is controlled by something that is
 * neither this set nor this pod, or names them with a stale UID.
 */
function hasUnexpectedController(claim: KubeObject, set: StatefulSet, pod: Pod): boolean {
  const policy = getPersistentVolumeClaimRetentionPolicy(set);
  if (policy.whenScaled === "Retain" && policy.whenDeleted === "Retain") return false;
  for (const ref of refsOf(claim)) {
    if (matchesRef(ref, set, SET_KIND)) {
      if (ref.uid !== set.metadata?.uid) return true;
      continue;
    }
    if (matchesRef(ref, pod, POD_KIND)) {
      if (ref.uid !== pod.metadata?.uid) return true;
      continue;
    }
    if (ref.controller === true) return true;
  }
  return false;
}

/** `hasNonControllerOwner`: the set or the pod owns the claim without being its controller. */
function hasNonControllerOwner(claim: KubeObject, set: StatefulSet, pod: Pod): boolean {
  return refsOf(claim).some(
    (r) => (r.uid === set.metadata?.uid || r.uid === pod.metadata?.uid) && r.controller !== true,
  );
}

/**
 * `isClaimOwnerUpToDate`: the claim's references match the policy — Retain/Retain: neither the set nor the pod;
 * Retain on scale, Delete on deletion: the set only; Delete on scale, Retain on deletion: the pod once it is out of
 * the ordinal range; Delete/Delete: the set while the pod is in range, the pod once it is not. A claim with stale or
 * foreign controllers (and no reference to this set or pod) is left alone, and counts as up to date.
 */
export function isClaimOwnerUpToDate(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  if (hasStaleOwnerRef(claim, set, SET_KIND) || hasStaleOwnerRef(claim, pod, POD_KIND)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const { setRef, podRef } = wantedRefs(set, pod);
  return hasOwnerRef(claim, set) === setRef && hasOwnerRef(claim, pod) === podRef;
}

/** Which of the set and the pod should control the claim under the set's policy. */
function wantedRefs(set: StatefulSet, pod: Pod): { setRef: boolean; podRef: boolean } {
  const policy = getPersistentVolumeClaimRetentionPolicy(set);
  const scaledDown = !podInOrdinalRange(pod, set);
  if (policy.whenScaled === "Delete" && policy.whenDeleted === "Delete")
    return { setRef: !scaledDown, podRef: scaledDown };
  if (policy.whenScaled === "Delete") return { setRef: false, podRef: scaledDown };
  return { setRef: policy.whenDeleted === "Delete", podRef: false };
}

/**
 * `updateClaimOwnerRefForSetAndPod`: the claim's owner references with those to this set and pod replaced by what
 * the policy wants (controller references with `blockOwnerDeletion`); with an unexpected controller only the
 * references to this set and pod are removed. Other owners are kept.
 */
export function claimOwnerRefsForSetAndPod(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): OwnerReference[] {
  const unexpected = hasUnexpectedController(claim, set, pod);
  const refs = refsOf(claim).filter((r) => !matchesRef(r, set, SET_KIND) && !matchesRef(r, pod, POD_KIND));
  if (unexpected) return refs;
  const { setRef, podRef } = wantedRefs(set, pod);
  if (podRef) refs.push(newControllerRef(pod, POD_KIND.apiVersion, POD_KIND.kind));
  if (setRef) refs.push(newControllerRef(set, SET_KIND.apiVersion, SET_KIND.kind));
  return refs;
}
