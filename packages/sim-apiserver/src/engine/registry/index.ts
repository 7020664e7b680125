// The engine's registry (kube-apiserver's generic registry and apiextensions-apiserver): the served-resource table,
// strategies, patch, delete options, object-meta validation, scale, CRDs, and server-side apply (field-manager/).
// These are the names the other engine folders may use.
export {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  CUSTOM_RESOURCE_DEFINITIONS,
  establishedDefinition,
  validateCustomResourceDefinition,
  withTerminatingCondition,
} from "./custom-resource-definitions.js";
export { type DeleteOptions, type PropagationPolicy, validateDeleteOptions } from "./delete-options.js";
export { ServerSideApply } from "./field-manager/server-side-apply.js";
export { FIELD_MANAGER_MAX_LENGTH } from "./field-manager/structured-merge-manager.js";
export { FINALIZER_FOREGROUND, FINALIZER_KUBERNETES, FINALIZER_ORPHAN } from "./object-meta-validation.js";
export { applyPatch, type PatchContentType, patchTypeOf, unsupportedPatchType } from "./patch.js";
export { bindPod, type PodBinding } from "./pod-binding.js";
export { type EvictionDeps, evictPod, MAX_DISRUPTED_POD_SIZE, type PodEviction } from "./pod-eviction.js";
export { ResourceTable } from "./resource-table.js";
export { answerReview, IN_PROCESS_USER, type ReviewUser, reviewUserOf } from "./reviews.js";
export {
  APPS_SCALE,
  CORE_SCALE,
  type ScaleSubresource,
  scaleOf,
  validateScale,
  withScaledReplicas,
} from "./scale.js";
export { type FieldManager, RegistryStore } from "./store.js";
