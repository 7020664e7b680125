export {
  Admission,
  type AdmissionAttributes,
  type AdmissionOptions,
  builtinRootOf,
} from "./admission-chain.js";
export { type BuiltinDecodeResult, decodeBuiltin } from "./builtin-decode.js";
export { type ValidationRule, validateCustomResourceRules } from "./cel/validation.js";
export {
  defaultCustomResource,
  pruneCustomResource,
  type StructuralSchema,
  validateCustomResource,
} from "./custom-resource-schema.js";
export {
  defaultDaemonSet,
  defaultDeployment,
  defaultReplicaSet,
  defaultStatefulSet,
} from "./defaults/apps-defaults.js";
export { defaultPod, defaultPodSpec, defaultPullPolicy } from "./defaults/pod-defaults.js";
export { defaultService, ServiceIpAllocator } from "./defaults/service-defaults.js";
export { duplicateJsonFields } from "./duplicate-fields.js";
export {
  type FieldValidationDirective,
  fieldValidationDirective,
  strictDecodingError,
  type WriteOptionsKind,
} from "./field-validation.js";
export { BUILTIN_DEFINITIONS, OPENAPI_KUBE_VERSION } from "./openapi/builtin-definitions.js";
export type { OpenApiDefinitions, OpenApiSchema } from "./openapi/openapi-schema.js";
export type { PolicyOperation, PolicyRequest } from "./policy/policy-request.js";
export { schemaOfResource } from "./policy/policy-schema.js";
export {
  type PolicyAuditRecord,
  ValidatingAdmissionPolicies,
  type ValidatingAdmissionPoliciesOptions,
} from "./policy/validating-admission-policy.js";
export { validateAnnotations } from "./validation/annotations.js";
export {
  selectorMatches,
  validateDaemonSet,
  validateDeployment,
  validateReplicaSet,
  validateStatefulSet,
  validateWorkloadUpdate,
} from "./validation/apps.js";
export {
  isConfigMapKey,
  MAX_SECRET_SIZE,
  validateConfigMap,
  validateConfigMapUpdate,
  validateSecret,
  validateSecretUpdate,
} from "./validation/config-map.js";
export { validateEvent, validateEventUpdate } from "./validation/event.js";
export { validateLease } from "./validation/lease.js";
export { type PodSpecRules, validatePodSpec } from "./validation/pod.js";
export { validateService, validateServiceUpdate } from "./validation/service.js";
export {
  AdmissionWebhooks,
  type AdmissionWebhooksOptions,
  type WebhookRequest,
} from "./webhook/admission-webhooks.js";
