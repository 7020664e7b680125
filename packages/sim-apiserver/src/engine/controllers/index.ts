// The engine's controllers (kube-controller-manager and apiextensions-apiserver pieces the simulator runs itself):
// the controller loop, the garbage collector, the namespace controller and the CRD finalizer. These are the names
// the other engine folders may use.
export { CrdFinalizer } from "./crd-finalizer.js";
export { DEFAULT_SERVICE_CIDR, DEFAULT_SERVICE_CIDR_NAME, ensureDefaultServiceCidr } from "./default-service-cidr.js";
export { GarbageCollector } from "./garbage-collector.js";
export { GRACEFUL_DELETION_USER_AGENT, GracefulDeletion } from "./graceful-deletion.js";
export {
  ensureKubernetesService,
  KUBERNETES_SERVICE_IP,
  KUBERNETES_SERVICE_TARGET_PORT,
} from "./kubernetes-service.js";
export {
  type ContentTotals,
  NAMESPACE_CONDITION_TYPES,
  type NamespaceCondition,
  updatedConditions,
} from "./namespace-conditions.js";
export {
  NAMESPACE_CONTROLLER_USER_AGENT,
  NamespaceController,
  type NamespaceControllerOptions,
} from "./namespace-controller.js";
export {
  VAP_STATUS_CONTROLLER,
  ValidatingAdmissionPolicyStatusController,
} from "./validating-admission-policy-status.js";
