// Which of Kubernetes' e2e tests this suite re-implements, and why the rest are not (yet) here. Each entry is one
// upstream `It(...)` (its text and file under kubernetes/kubernetes `test/e2e/`). `registry.test.ts` checks the
// list against the test files — an implemented entry has an `it(...)` of that exact name in the file named, a pending
// one has none — and prints every pending entry with its reason.

/** Why an upstream test is not re-implemented here. */
export type PendingReason =
  | "needs a kubelet (pods must run)"
  | "needs workload controllers (issue #23)"
  | "needs the service-account / root-CA controllers (issue #23)"
  | "needs the admission chain (branch admission: validation, defaulting, CRD schemas)"
  | "needs a served subresource the simulator lacks"
  | "needs a service data path (kube-proxy, pods answering on their IPs)"
  | "needs a certificate signer (kube-controller-manager's csrsigning) and client-certificate authentication"
  | "needs API priority and fairness classification (X-Kubernetes-PF-* headers, impersonation)"
  | "needs the ValidatingAdmissionPolicy admission plugin (CEL policies enforced, status.typeChecking)"
  | "needs admission webhooks called (a webhook server pod and the webhook admission plugins)"
  | "needs an aggregated API server (APIService proxying to a pod)"
  | "needs CRD conversion webhooks (a webhook server pod)"
  | "needs a container that serves or is dialled (network to pods)"
  | "needs a cloud provider (load balancer, private registry)"
  | "needs an alpha feature gate"
  | "needs pod eviction (pods/eviction, branch kproto)"
  | "needs the disruption controller (PodDisruptionBudget status)"
  | "needs the ResourceQuota controller"
  | "needs kubectl exec into pods"
  | "not re-implemented yet";

export interface UpstreamTest {
  /** The upstream file, relative to `test/e2e/`. */
  readonly file: string;
  /** The upstream `It(...)` text. */
  readonly it: string;
  /**
   * The suite file (beside this one) that holds the re-implementation, or why there is none. The tests of
   * `needs-admission.test.ts` pass once the admission branch is merged.
   */
  readonly here: string | { readonly pending: PendingReason };
  /**
   * The script under `python/` that re-implements it a second time with the official Kubernetes Python client
   * (`python-client.test.ts` runs it), when there is one.
   */
  readonly python?: string;
}

/** `pods/attach` (CONNECT, which the webhooks would see) is not served. */
const WEBHOOK_ATTACH = { pending: "needs a served subresource the simulator lacks" } as const;
const KUBELET = { pending: "needs a kubelet (pods must run)" } as const;
const DATA_PATH = { pending: "needs a service data path (kube-proxy, pods answering on their IPs)" } as const;

const ADMISSION = {
  pending: "needs the admission chain (branch admission: validation, defaulting, CRD schemas)",
} as const;

export const UPSTREAM_TESTS: readonly UpstreamTest[] = [
  // apimachinery/watch.go
  {
    file: "apimachinery/watch.go",
    it: "should observe add, update, and delete watch notifications on configmaps",
    here: "apimachinery-watch.test.ts",
    python: "watch.py",
  },
  {
    file: "apimachinery/watch.go",
    it: "should be able to start watching from a specific resource version",
    here: "apimachinery-watch.test.ts",
    python: "watch.py",
  },
  {
    file: "apimachinery/watch.go",
    it: "should be able to restart watching from the last resource version observed by the previous watch",
    here: "apimachinery-watch.test.ts",
  },
  {
    file: "apimachinery/watch.go",
    it: "should observe an object deletion if it stops meeting the requirements of the selector",
    here: "apimachinery-watch.test.ts",
  },
  {
    file: "apimachinery/watch.go",
    it: "should receive events on concurrent watches in same order",
    here: "apimachinery-watch.test.ts",
  },
  // apimachinery/chunking.go
  {
    file: "apimachinery/chunking.go",
    it: "should return chunks of results for list calls",
    here: "apimachinery-chunking.test.ts",
  },
  {
    file: "apimachinery/chunking.go",
    it: "should support continue listing from the last key if the original version has been compacted away, though the list is inconsistent",
    here: "apimachinery-chunking.test.ts",
  },
  // apimachinery/namespace.go
  {
    file: "apimachinery/namespace.go",
    it: "should ensure that all pods are removed when a namespace is deleted",
    here: "apimachinery-namespace.test.ts",
  },
  {
    file: "apimachinery/namespace.go",
    it: "should ensure that all services are removed when a namespace is deleted",
    here: "apimachinery-namespace.test.ts",
  },
  {
    file: "apimachinery/namespace.go",
    it: "should patch a Namespace",
    here: "apimachinery-namespace.test.ts",
    python: "namespace.py",
  },
  {
    file: "apimachinery/namespace.go",
    it: "should apply changes to a namespace status",
    here: "apimachinery-namespace.test.ts",
  },
  {
    file: "apimachinery/namespace.go",
    it: "should apply an update to a Namespace",
    here: "apimachinery-namespace.test.ts",
    python: "namespace.py",
  },
  {
    file: "apimachinery/namespace.go",
    it: "should apply a finalizer to a Namespace",
    here: "apimachinery-namespace.test.ts",
  },
  {
    file: "apimachinery/namespace.go",
    it: "should delete fast enough (90 percent of 100 namespaces in 150 seconds)",
    here: "apimachinery-namespace.test.ts",
  },
  {
    file: "apimachinery/namespace.go",
    it: "should always delete fast (ALL of 100 namespaces in 150 seconds)",
    here: "apimachinery-namespace.test.ts",
  },
  // apimachinery/garbage_collector.go
  {
    file: "apimachinery/garbage_collector.go",
    it: "should delete pods created by rc when not orphaning",
    here: "apimachinery-garbage-collector-workloads.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should orphan pods created by rc if delete options say so",
    here: "apimachinery-garbage-collector-workloads.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should delete RS created by deployment when not orphaning",
    here: "apimachinery-garbage-collector-workloads.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan",
    here: "apimachinery-garbage-collector-workloads.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should keep the rc around until all its pods are deleted if the deleteOptions says so",
    here: "apimachinery-garbage-collector-workloads.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should not delete dependents that have both valid owner and owner that's waiting for dependents to be deleted",
    here: "apimachinery-garbage-collector-workloads.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should not be blocked by dependency circle",
    here: "apimachinery-garbage-collector.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should support cascading deletion of custom resources",
    here: "apimachinery-garbage-collector.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should support orphan deletion of custom resources",
    here: "apimachinery-garbage-collector.test.ts",
  },
  {
    file: "apimachinery/garbage_collector.go",
    it: "should delete jobs and pods created by cronjob",
    here: "apimachinery-garbage-collector-cronjob.test.ts",
  },
  // apps/job.go
  {
    file: "apps/job.go",
    it: "should run a job to completion when tasks succeed",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  { file: "apps/job.go", it: "should delete a job", here: "apps-job-statefulset-cronjob.test.ts" },
  { file: "apps/job.go", it: "should fail to exceed backoffLimit", here: "apps-job-statefulset-cronjob.test.ts" },
  { file: "apps/job.go", it: "should fail when exceeds active deadline", here: "apps-job-statefulset-cronjob.test.ts" },
  {
    file: "apps/job.go",
    it: "should allow to use the pod failure policy on exit code to fail the job early",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should create pods for an Indexed job with completion indexes and specified hostname",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should execute all indexes despite some failing when using backoffLimitPerIndex",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should terminate job execution when the number of failed indexes exceeds maxFailedIndexes",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should mark indexes as failed when the FailIndex action is matched in podFailurePolicy",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  // apps/statefulset.go
  { file: "apps/statefulset.go", it: "should provide basic identity", here: "apps-job-statefulset-cronjob.test.ts" },
  {
    file: "apps/statefulset.go",
    it: "should perform rolling updates and roll backs of template modifications",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "Scaling should happen in predictable order and halt if any stateful pod is unhealthy",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should list, patch and delete a collection of StatefulSets",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should delete PVCs with a WhenDeleted policy",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should delete PVCs with a OnScaledown policy",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  // apps/cronjob.go
  {
    file: "apps/cronjob.go",
    it: "should support CronJob API operations",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/cronjob.go",
    it: "should not schedule jobs when suspended",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  // apimachinery/crd_watch.go
  {
    file: "apimachinery/crd_watch.go",
    it: "watch on custom resource definition objects",
    here: "apimachinery-crd.test.ts",
  },
  // apimachinery/crd_publish_openapi.go
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "works for CRD with validation schema",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "works for CRD without validation schema",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "works for CRD preserving unknown fields at the schema root",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "works for CRD preserving unknown fields in an embedded object",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "works for multiple CRDs of different groups",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "works for multiple CRDs of same group and version but different kinds",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "[Flaky] kubectl explain works for CR with the same resource name as built-in object.",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "works for multiple CRDs of same group but different versions",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "updates the published spec when one version gets renamed",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "removes definition from spec when one version gets changed to not be served",
    here: "apimachinery-crd-publish-openapi.test.ts",
  },
  // apimachinery/custom_resource_definition.go
  {
    file: "apimachinery/custom_resource_definition.go",
    it: "creating/deleting custom resource definition objects works",
    here: "apimachinery-crd.test.ts",
  },
  {
    file: "apimachinery/custom_resource_definition.go",
    it: "listing custom resource definition objects works",
    here: "needs-admission.test.ts",
  },
  {
    file: "apimachinery/custom_resource_definition.go",
    it: "getting/updating/patching custom resource definition status sub-resource works",
    here: "needs-admission.test.ts",
  },
  {
    file: "apimachinery/custom_resource_definition.go",
    it: "should include custom resource definition resources in discovery documents",
    here: "apimachinery-crd.test.ts",
  },
  {
    file: "apimachinery/custom_resource_definition.go",
    it: "custom resource defaulting for requests and from storage works",
    here: "needs-admission.test.ts",
  },
  // apimachinery/crd_validation_rules.go
  {
    file: "apimachinery/crd_validation_rules.go",
    it: "MUST NOT fail validation for create of a custom resource that satisfies the x-kubernetes-validations rules",
    here: "apimachinery-crd-validation-rules.test.ts",
  },
  {
    file: "apimachinery/crd_validation_rules.go",
    it: "MUST fail validation for create of a custom resource that does not satisfy the x-kubernetes-validations rules",
    here: "apimachinery-crd-validation-rules.test.ts",
  },
  {
    file: "apimachinery/crd_validation_rules.go",
    it: "MUST fail create of a custom resource definition that contains a x-kubernetes-validations rule that refers to a property that do not exist",
    here: "apimachinery-crd-validation-rules.test.ts",
  },
  {
    file: "apimachinery/crd_validation_rules.go",
    it: "MUST fail create of a custom resource definition that contains an x-kubernetes-validations rule that contains a syntax error",
    here: "apimachinery-crd-validation-rules.test.ts",
  },
  {
    file: "apimachinery/crd_validation_rules.go",
    it: "MUST fail create of a custom resource definition that contains an x-kubernetes-validations rule that exceeds the estimated cost limit",
    here: "apimachinery-crd-validation-rules.test.ts",
  },
  {
    file: "apimachinery/crd_validation_rules.go",
    it: "MUST fail create of a custom resource that exceeds the runtime cost limit for x-kubernetes-validations rule execution",
    here: "apimachinery-crd-validation-rules.test.ts",
  },
  {
    file: "apimachinery/crd_validation_rules.go",
    it: "MUST fail update of a custom resource that does not satisfy a x-kubernetes-validations transition rule",
    here: "apimachinery-crd-validation-rules.test.ts",
  },
  // apimachinery/apply.go
  {
    file: "apimachinery/apply.go",
    it: "should create an applied object if it does not already exist",
    here: "apimachinery-apply.test.ts",
  },
  { file: "apimachinery/apply.go", it: "should work for subresources", here: "apimachinery-apply.test.ts" },
  {
    file: "apimachinery/apply.go",
    it: "should remove a field if it is owned but removed in the apply request",
    here: "apimachinery-apply.test.ts",
  },
  {
    file: "apimachinery/apply.go",
    it: "should not remove a field if an owner unsets the field but other managers still have ownership of the field",
    here: "apimachinery-apply.test.ts",
  },
  {
    file: "apimachinery/apply.go",
    it: "should ignore conflict errors if force apply is used",
    here: "apimachinery-apply.test.ts",
  },
  { file: "apimachinery/apply.go", it: "should work for CRDs", here: ADMISSION },
  {
    file: "apimachinery/apply.go",
    it: "should give up ownership of a field if forced applied by a controller",
    here: "apimachinery-apply.test.ts",
  },
  // apimachinery/field_validation.go
  {
    file: "apimachinery/field_validation.go",
    it: "should detect unknown and duplicate fields of a typed object",
    here: "needs-admission.test.ts",
  },
  {
    file: "apimachinery/field_validation.go",
    it: "should detect unknown metadata fields of a typed object",
    here: "needs-admission.test.ts",
  },
  {
    file: "apimachinery/field_validation.go",
    it: "should create/apply a valid CR for CRD with validation schema",
    here: "needs-admission.test.ts",
  },
  {
    file: "apimachinery/field_validation.go",
    it: "should create/apply a CR with unknown fields for CRD with no validation schema",
    here: "needs-admission.test.ts",
  },
  {
    file: "apimachinery/field_validation.go",
    it: "should detect unknown metadata fields in both the root and embedded object of a CR",
    here: "needs-admission.test.ts",
  },
  {
    file: "apimachinery/field_validation.go",
    it: "should detect duplicates in a CR when preserving unknown fields",
    here: "needs-admission.test.ts",
  },
  {
    file: "apimachinery/field_validation.go",
    it: "should create/apply an invalid CR with extra properties for CRD with validation schema",
    here: "needs-admission.test.ts",
  },
  // apimachinery/table_conversion.go
  {
    file: "apimachinery/table_conversion.go",
    it: "should return pod details",
    here: "apimachinery-table-conversion.test.ts",
  },
  {
    file: "apimachinery/table_conversion.go",
    it: "should return chunks of table results for list calls",
    here: "apimachinery-table-conversion.test.ts",
  },
  {
    file: "apimachinery/table_conversion.go",
    it: "should return a 406 for a backend which does not implement metadata",
    here: "apimachinery-table-conversion.test.ts",
  },
  // common/node/configmap.go
  {
    file: "common/node/configmap.go",
    it: "should be consumable via environment variable",
    here: "core-container-output.test.ts",
  },
  {
    file: "common/node/configmap.go",
    it: "should be consumable via the environment",
    here: "core-container-output.test.ts",
  },
  {
    file: "common/node/configmap.go",
    it: "should fail to create ConfigMap with empty key",
    here: "needs-admission.test.ts",
    python: "configmap.py",
  },
  { file: "common/node/configmap.go", it: "should update ConfigMap successfully", here: "core-lifecycle.test.ts" },
  {
    file: "common/node/configmap.go",
    it: "should run through a ConfigMap lifecycle",
    here: "core-lifecycle.test.ts",
    python: "configmap.py",
  },
  // common/node/secrets.go
  {
    file: "common/node/secrets.go",
    it: "should be consumable from pods in env vars",
    here: "core-container-output.test.ts",
  },
  {
    file: "common/node/secrets.go",
    it: "should be consumable via the environment",
    here: "core-container-output.test.ts",
  },
  {
    file: "common/node/secrets.go",
    it: "should fail to create secret due to empty secret key",
    here: "needs-admission.test.ts",
  },
  { file: "common/node/secrets.go", it: "should patch a secret", here: "core-lifecycle.test.ts" },
  // instrumentation/events.go (events.k8s.io/v1) and instrumentation/core_events.go
  {
    file: "instrumentation/events.go",
    it: "should ensure that an event can be fetched, patched, deleted, and listed",
    here: "core-lifecycle.test.ts",
  },
  { file: "instrumentation/events.go", it: "should delete a collection of events", here: "core-lifecycle.test.ts" },
  {
    file: "instrumentation/core_events.go",
    it: "should manage the lifecycle of an event",
    here: "core-lifecycle.test.ts",
    python: "events.py",
  },
  // common/node/lease.go
  { file: "common/node/lease.go", it: "lease API should be available", here: "core-lifecycle.test.ts" },
  // auth/service_accounts.go
  {
    file: "auth/service_accounts.go",
    it: "should run through the lifecycle of a ServiceAccount",
    here: "core-lifecycle.test.ts",
  },
  { file: "auth/service_accounts.go", it: "should update a ServiceAccount", here: "core-lifecycle.test.ts" },
  {
    file: "auth/service_accounts.go",
    it: "should guarantee kube-root-ca.crt exist in any namespace",
    here: "auth-service-accounts-cluster.test.ts",
  },
  {
    file: "auth/service_accounts.go",
    it: "should mount an API token into pods",
    here: "core-container-output.test.ts",
  },
  {
    file: "auth/service_accounts.go",
    it: "should allow opting out of API token automount",
    here: "core-container-output.test.ts",
  },
  {
    file: "auth/service_accounts.go",
    it: "should mount projected service account token",
    here: "core-container-output.test.ts",
  },
  {
    file: "auth/service_accounts.go",
    it: "should create a serviceAccountToken and ensure a successful TokenReview",
    here: "core-container-output.test.ts",
  },
  // network/service.go (the lifecycle tests that need no proxy or endpoints controller)
  { file: "network/service.go", it: "should provide secure master service", here: "core-lifecycle.test.ts" },
  { file: "network/service.go", it: "should test the lifecycle of an Endpoint", here: "core-lifecycle.test.ts" },
  { file: "network/service.go", it: "should delete a collection of services", here: "core-lifecycle.test.ts" },
  {
    file: "network/service.go",
    it: "should find a service from listing all namespaces",
    here: "core-lifecycle.test.ts",
  },
  { file: "network/service.go", it: "should complete a service status lifecycle", here: "core-lifecycle.test.ts" },
  // apps/deployment.go, replica_set.go, rc.go (the cases that need no images, logs or quota)
  {
    file: "apps/deployment.go",
    it: "deployment reaping should cascade to its replica sets and pods",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/deployment.go",
    it: "RollingUpdateDeployment should delete old pods and create new ones",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/deployment.go",
    it: "RecreateDeployment should delete old pods and create new ones",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/deployment.go",
    it: "deployment should delete old replica sets",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/replica_set.go",
    it: "should adopt matching pods on creation and release no longer matching pods",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/replica_set.go",
    it: "should list and delete a collection of ReplicaSets",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  { file: "apps/rc.go", it: "should adopt matching pods on creation", here: "apps-deployment-replicaset-rc.test.ts" },
  { file: "apps/rc.go", it: "should release no longer matching pods", here: "apps-deployment-replicaset-rc.test.ts" },
  // apps/daemon_set.go
  { file: "apps/daemon_set.go", it: "should run and stop simple daemon", here: "apps-daemonset.test.ts" },
  { file: "apps/daemon_set.go", it: "should run and stop complex daemon", here: "apps-daemonset.test.ts" },
  {
    file: "apps/daemon_set.go",
    it: "should update pod when spec was updated and update strategy is RollingUpdate",
    here: "apps-daemonset.test.ts",
  },
  {
    file: "apps/daemon_set.go",
    it: "should surge pods onto nodes when spec was updated and update strategy is RollingUpdate",
    here: "apps-daemonset.test.ts",
  },
  // apimachinery/discovery.go, server_version.go, health_handlers.go
  {
    file: "apimachinery/discovery.go",
    it: "should accurately determine present and missing resources",
    here: "apimachinery-discovery.test.ts",
  },
  {
    file: "apimachinery/discovery.go",
    it: "Custom resource should have storage version hash",
    here: "apimachinery-discovery.test.ts",
  },
  {
    file: "apimachinery/discovery.go",
    it: "should validate PreferredVersion for each APIGroup",
    here: "apimachinery-discovery.test.ts",
  },
  {
    file: "apimachinery/discovery.go",
    it: "should locate the groupVersion and a resource within each APIGroup",
    here: "apimachinery-discovery.test.ts",
  },
  {
    file: "apimachinery/server_version.go",
    it: "should find the server version",
    here: "apimachinery-discovery.test.ts",
  },
  {
    file: "apimachinery/health_handlers.go",
    it: "should contain necessary checks",
    here: "apimachinery-discovery.test.ts",
  },
  // network/ingress.go, ingressclass.go
  {
    file: "network/ingress.go",
    it: "should support creating Ingress API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "network/ingressclass.go",
    it: " should support creating IngressClass API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "network/ingressclass.go",
    it: "should allow IngressClass to have Namespace-scoped parameters",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "network/ingressclass.go",
    it: "should set default value on new IngressClass",
    here: "network-ingressclass.test.ts",
  },
  {
    file: "network/ingressclass.go",
    it: "should not set default value if no default IngressClass",
    here: "network-ingressclass.test.ts",
  },
  {
    // Upstream's text since the plugin picks the newest default (it refused an Ingress before v1.27).
    file: "network/ingressclass.go",
    it: "should choose the one with the later CreationTimestamp, if equal the one with the lower name when two ingressClasses are marked as default",
    here: "network-ingressclass.test.ts",
  },
  // network/endpointslice.go
  {
    file: "network/endpointslice.go",
    it: "should support creating EndpointSlice API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "network/endpointslice.go",
    it: "should support a Service with multiple ports specified in multiple EndpointSlices",
    here: DATA_PATH,
  },
  {
    file: "network/endpointslice.go",
    it: "should support a Service with multiple endpoint IPs specified in multiple EndpointSlices",
    here: DATA_PATH,
  },
  // common/node/runtimeclass.go
  {
    file: "common/node/runtimeclass.go",
    it: "should support RuntimeClasses API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "common/node/runtimeclass.go",
    it: "should reject a Pod requesting a non-existent RuntimeClass",
    here: "node-runtimeclass-cluster.test.ts",
  },
  {
    file: "common/node/runtimeclass.go",
    it: "should reject a Pod requesting a deleted RuntimeClass",
    here: "node-runtimeclass-cluster.test.ts",
  },
  {
    file: "common/node/runtimeclass.go",
    it: "should schedule a Pod requesting a RuntimeClass without PodOverhead",
    here: "node-runtimeclass-cluster.test.ts",
  },
  {
    file: "common/node/runtimeclass.go",
    it: "should schedule a Pod requesting a RuntimeClass and initialize its Overhead",
    here: "node-runtimeclass-cluster.test.ts",
  },
  {
    file: "common/node/runtimeclass.go",
    it: "should reject a Pod requesting a RuntimeClass with an unconfigured handler",
    here: KUBELET,
  },
  {
    file: "common/node/runtimeclass.go",
    it: "should run a Pod requesting a RuntimeClass with a configured handler",
    here: KUBELET,
  },
  // apimachinery/flowcontrol.go
  {
    file: "apimachinery/flowcontrol.go",
    it: "should support FlowSchema API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "apimachinery/flowcontrol.go",
    it: "should support PriorityLevelConfiguration API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "apimachinery/flowcontrol.go",
    it: "should ensure that requests can be classified by adding FlowSchema and PriorityLevelConfiguration",
    here: { pending: "needs API priority and fairness classification (X-Kubernetes-PF-* headers, impersonation)" },
  },
  {
    file: "apimachinery/flowcontrol.go",
    it: "should ensure that requests can't be drowned out (priority)",
    here: { pending: "needs API priority and fairness classification (X-Kubernetes-PF-* headers, impersonation)" },
  },
  {
    file: "apimachinery/flowcontrol.go",
    it: "should ensure that requests can't be drowned out (fairness)",
    here: { pending: "needs API priority and fairness classification (X-Kubernetes-PF-* headers, impersonation)" },
  },
  // auth/certificates.go
  { file: "auth/certificates.go", it: "should support CSR API operations", here: "api-groups-lifecycle.test.ts" },
  {
    file: "auth/certificates.go",
    it: "should support building a client with a CSR",
    here: {
      pending:
        "needs a certificate signer (kube-controller-manager's csrsigning) and client-certificate authentication",
    },
  },
  // common/node/podtemplates.go
  {
    file: "common/node/podtemplates.go",
    it: "should run the lifecycle of PodTemplates",
    here: "core-kinds-lifecycle.test.ts",
  },
  {
    file: "common/node/podtemplates.go",
    it: "should delete a collection of pod templates",
    here: "core-kinds-lifecycle.test.ts",
  },
  { file: "common/node/podtemplates.go", it: "should replace a pod template", here: "core-kinds-lifecycle.test.ts" },
  // scheduling/limit_range.go
  {
    file: "scheduling/limit_range.go",
    it: "should list, patch and delete a LimitRange by collection",
    here: "core-kinds-lifecycle.test.ts",
  },
  {
    file: "scheduling/limit_range.go",
    it: "should create a LimitRange with defaults and ensure pod has those defaults applied.",
    here: "core-kinds-lifecycle.test.ts",
  },
  {
    file: "network/endpointslice.go",
    it: "should have Endpoints and EndpointSlices pointing to API Server",
    here: "core-kinds-lifecycle.test.ts",
  },
  // apimachinery/validatingadmissionpolicy.go
  {
    file: "apimachinery/validatingadmissionpolicy.go",
    it: "should support ValidatingAdmissionPolicy API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "apimachinery/validatingadmissionpolicy.go",
    it: "should support ValidatingAdmissionPolicyBinding API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "apimachinery/validatingadmissionpolicy.go",
    it: "should validate against a Deployment",
    here: "apimachinery-validating-admission-policy.test.ts",
  },
  {
    file: "apimachinery/validatingadmissionpolicy.go",
    it: "should type check validation expressions",
    here: "apimachinery-validating-admission-policy.test.ts",
  },
  {
    file: "apimachinery/validatingadmissionpolicy.go",
    it: "should allow expressions to refer variables.",
    here: "apimachinery-validating-admission-policy.test.ts",
  },
  {
    file: "apimachinery/validatingadmissionpolicy.go",
    it: "should type check a CRD",
    here: "apimachinery-validating-admission-policy.test.ts",
  },
  // storage/csistoragecapacity.go, storageclass.go
  {
    file: "storage/csistoragecapacity.go",
    it: "should support CSIStorageCapacities API operations",
    here: "storage-api-lifecycle.test.ts",
  },
  {
    file: "storage/storageclass.go",
    it: "should run through the lifecycle of a StorageClass",
    here: "storage-api-lifecycle.test.ts",
  },
  // apimachinery/generated_clientset.go
  {
    file: "apimachinery/generated_clientset.go",
    it: "should create pods, set the deletionTimestamp and deletionGracePeriodSeconds of the pod",
    here: "apimachinery-generated-clientset.test.ts",
  },
  {
    file: "apimachinery/generated_clientset.go",
    it: "should create v1 cronJobs, delete cronJobs, watch cronJobs",
    here: "apimachinery-generated-clientset.test.ts",
  },
  {
    file: "network/endpointslice.go",
    it: "should create and delete Endpoints and EndpointSlices for a Service with a selector specified",
    here: "network-endpointslice-cluster.test.ts",
  },
  {
    file: "network/endpointslice.go",
    it: "should create Endpoints and EndpointSlices for Pods matching a Service",
    here: "network-endpointslice-cluster.test.ts",
  },
  {
    file: "instrumentation/core_events.go",
    it: "should delete a collection of events",
    here: "core-kinds-lifecycle.test.ts",
  },
  // apimachinery/webhook.go (the conformance tests)
  {
    file: "apimachinery/webhook.go",
    it: "should include webhook resources in discovery documents",
    here: "apimachinery-discovery.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "listing mutating webhooks should work",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "listing validating webhooks should work",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "patching/updating a mutating webhook should work",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "patching/updating a validating webhook should work",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should be able to create and update mutating webhook configurations with match conditions",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should be able to create and update validating webhook configurations with match conditions",
    here: "apimachinery-webhook.test.ts",
  },
  { file: "apimachinery/webhook.go", it: "should be able to deny attaching pod", here: WEBHOOK_ATTACH },
  {
    file: "apimachinery/webhook.go",
    it: "should be able to deny custom resource creation, update and deletion",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should be able to deny pod and configmap creation",
    here: "apimachinery-webhook.test.ts",
  },
  { file: "apimachinery/webhook.go", it: "should deny crd creation", here: "apimachinery-webhook.test.ts" },
  { file: "apimachinery/webhook.go", it: "should honor timeout", here: "apimachinery-webhook.test.ts" },
  { file: "apimachinery/webhook.go", it: "should mutate configmap", here: "apimachinery-webhook.test.ts" },
  { file: "apimachinery/webhook.go", it: "should mutate custom resource", here: "apimachinery-webhook.test.ts" },
  {
    file: "apimachinery/webhook.go",
    it: "should mutate custom resource with different stored version",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should mutate custom resource with pruning",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should mutate everything except 'skip-me' configmaps",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should mutate pod and apply defaults after mutation",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should not be able to mutate or prevent deletion of webhook configuration objects",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should reject mutating webhook configurations with invalid match conditions",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should reject validating webhook configurations with invalid match conditions",
    here: "apimachinery-webhook.test.ts",
  },
  {
    file: "apimachinery/webhook.go",
    it: "should unconditionally reject operations on fail closed webhook",
    here: "apimachinery-webhook.test.ts",
  },
  // apimachinery/aggregated_discovery.go
  {
    file: "apimachinery/aggregated_discovery.go",
    it: "should support aggregated discovery interface",
    here: "apimachinery-aggregated-discovery.test.ts",
  },
  {
    file: "apimachinery/aggregated_discovery.go",
    it: "should support aggregated discovery interface for CRDs",
    here: "apimachinery-aggregated-discovery.test.ts",
  },
  {
    file: "apimachinery/aggregated_discovery.go",
    it: "should support raw aggregated discovery endpoint Accept headers",
    here: "apimachinery-aggregated-discovery.test.ts",
  },
  {
    file: "apimachinery/aggregated_discovery.go",
    it: "should support raw aggregated discovery request for CRDs",
    here: "apimachinery-aggregated-discovery.test.ts",
  },
  // apimachinery/aggregator.go, crd_conversion_webhook.go, crd_selectable_fields.go
  {
    file: "apimachinery/aggregator.go",
    it: "Should be able to support the 1.17 Sample API Server using the current Aggregator",
    here: { pending: "needs an aggregated API server (APIService proxying to a pod)" },
  },
  {
    file: "apimachinery/crd_conversion_webhook.go",
    it: "should be able to convert from CR v1 to CR v2",
    here: { pending: "needs CRD conversion webhooks (a webhook server pod)" },
  },
  {
    file: "apimachinery/crd_conversion_webhook.go",
    it: "should be able to convert a non homogeneous list of CRs",
    here: { pending: "needs CRD conversion webhooks (a webhook server pod)" },
  },
  {
    file: "apimachinery/crd_selectable_fields.go",
    it: "MUST list and watch custom resources matching the field selector",
    here: { pending: "needs CRD conversion webhooks (a webhook server pod)" },
  },
  // apps/controller_revision.go
  {
    file: "apps/controller_revision.go",
    it: "should manage the lifecycle of a ControllerRevision",
    here: "apps-daemonset-history.test.ts",
  },
  // apimachinery/namespace.go (1.33+)
  {
    file: "apimachinery/namespace.go",
    it: "namespace deletion should delete pod first",
    here: "apimachinery-namespace.test.ts",
  },
  // network/service_cidrs.go
  {
    file: "network/service_cidrs.go",
    it: "should support ServiceCIDR API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "network/service_cidrs.go",
    it: "should support IPAddress API operations",
    here: "api-groups-lifecycle.test.ts",
  },
  {
    file: "network/service_cidrs.go",
    it: "should create Services and serve on different Service CIDRs",
    here: DATA_PATH,
  },
  // auth/service_accounts.go (the tests beyond the lifecycle and token ones above)
  {
    file: "auth/service_accounts.go",
    it: "ServiceAccountIssuerDiscovery should support OIDC discovery of service account issuer",
    here: "auth-service-account-issuer-discovery.test.ts",
  },
  {
    file: "auth/service_accounts.go",
    it: "should set ownership and permission when RunAsUser or FsGroup is present",
    here: KUBELET,
  },
  { file: "auth/service_accounts.go", it: "should support InClusterConfig with token rotation", here: KUBELET },
  // The rest of apps/*.go (upstream v1.34; the [Slow] clustered-application and [Disruptive] StatefulSet cases left out)
  {
    file: "apps/deployment.go",
    it: "RecreateDeployment with TerminationStarted PodReplacementPolicy should delete old pods and create new ones before the old ones terminate",
    here: { pending: "needs an alpha feature gate" },
  },
  {
    file: "apps/deployment.go",
    it: "deployment should support rollover",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/deployment.go",
    it: "iterative rollouts should eventually progress",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/deployment.go",
    it: "test Deployment ReplicaSet orphaning and adoption regarding controllerRef",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/deployment.go",
    it: "Deployment should have a working scale subresource",
    here: "apps-scale-status.test.ts",
  },
  {
    file: "apps/deployment.go",
    it: "deployment should support proportional scaling",
    here: "apps-deployment-replicaset-rc.test.ts",
  },
  {
    file: "apps/deployment.go",
    it: "deployment should take terminating pods into account during a rollout with TerminationComplete PodReplacementPolicy and should support proportional scaling",
    here: { pending: "needs an alpha feature gate" },
  },
  {
    file: "apps/deployment.go",
    it: "should not disrupt a cloud load-balancer's connectivity during rollout",
    here: { pending: "needs a cloud provider (load balancer, private registry)" },
  },
  { file: "apps/deployment.go", it: "should run the lifecycle of a Deployment", here: "apps-scale-status.test.ts" },
  { file: "apps/deployment.go", it: "should validate Deployment Status endpoints", here: "apps-scale-status.test.ts" },
  {
    file: "apps/replica_set.go",
    it: "should serve a basic image on each replica with a public image ",
    here: { pending: "needs a container that serves or is dialled (network to pods)" },
  },
  {
    file: "apps/replica_set.go",
    it: "should serve a basic image on each replica with a private image",
    here: { pending: "needs a cloud provider (load balancer, private registry)" },
  },
  {
    file: "apps/replica_set.go",
    it: "should surface a failure condition on a common issue like exceeded quota",
    here: { pending: "needs the ResourceQuota controller" },
  },
  {
    file: "apps/replica_set.go",
    it: "Replicaset should have a working scale subresource",
    here: "apps-scale-status.test.ts",
  },
  { file: "apps/replica_set.go", it: "Replace and Patch tests", here: "apps-scale-status.test.ts" },
  { file: "apps/replica_set.go", it: "should validate Replicaset Status endpoints", here: "apps-scale-status.test.ts" },
  {
    file: "apps/rc.go",
    it: "should serve a basic image on each replica with a public image ",
    here: { pending: "needs a container that serves or is dialled (network to pods)" },
  },
  {
    file: "apps/rc.go",
    it: "should serve a basic image on each replica with a private image",
    here: { pending: "needs a cloud provider (load balancer, private registry)" },
  },
  {
    file: "apps/rc.go",
    it: "should surface a failure condition on a common issue like exceeded quota",
    here: { pending: "needs the ResourceQuota controller" },
  },
  { file: "apps/rc.go", it: "should test the lifecycle of a ReplicationController", here: "apps-scale-status.test.ts" },
  { file: "apps/rc.go", it: "should get and update a ReplicationController scale", here: "apps-scale-status.test.ts" },
  {
    file: "apps/statefulset.go",
    it: "should adopt matching orphans and release non-matching pods",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should not deadlock when a pod's predecessor fails",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should perform rolling updates and roll backs of template modifications with PVCs",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should perform canary updates and phased rolling updates of template modifications",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 without failing container",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should perform canary updates and phased rolling updates of template modifications for partiton1 and delete pod-0 with failing container",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should implement legacy replacement when the update strategy is OnDelete",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "Burst scaling should run to completion even with unhealthy pods",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "Should recreate evicted statefulset",
    here: "apps-statefulset.test.ts",
  },
  { file: "apps/statefulset.go", it: "should have a working scale subresource", here: "apps-scale-status.test.ts" },
  {
    file: "apps/statefulset.go",
    it: "should validate Statefulset Status endpoints",
    here: "apps-scale-status.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "MinReadySeconds should be honored when enabled",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "AvailableReplicas should get updated accordingly when MinReadySeconds is enabled",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should delete PVCs after adopting pod (WhenDeleted)",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should delete PVCs after adopting pod (WhenScaled)",
    here: "apps-statefulset.test.ts",
  },
  {
    file: "apps/statefulset.go",
    it: "should not delete PVCs when there is another controller",
    here: "apps-statefulset.test.ts",
  },
  { file: "apps/statefulset.go", it: "Setting .start.ordinal", here: "apps-job-statefulset-cronjob.test.ts" },
  { file: "apps/statefulset.go", it: "Increasing .start.ordinal", here: "apps-job-statefulset-cronjob.test.ts" },
  { file: "apps/statefulset.go", it: "Decreasing .start.ordinal", here: "apps-job-statefulset-cronjob.test.ts" },
  { file: "apps/statefulset.go", it: "Removing .start.ordinal", here: "apps-job-statefulset-cronjob.test.ts" },
  {
    file: "apps/job.go",
    it: "should allow to use a pod failure policy to ignore failure matching on exit code",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should allow to use a pod failure policy to ignore failure matching on DisruptionTarget condition",
    here: { pending: "needs pod eviction (pods/eviction, branch kproto)" },
  },
  {
    file: "apps/job.go",
    it: "should not create pods when created in suspend state",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  { file: "apps/job.go", it: "should delete pods when suspended", here: "apps-job-statefulset-cronjob.test.ts" },
  {
    file: "apps/job.go",
    it: "should recreate pods only after they have failed if pod replacement policy is set to Failed",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should create pods with completion indexes for an Indexed Job",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "with successPolicy should succeeded when all indexes succeeded",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "with successPolicy succeededIndexes rule should succeeded even when some indexes remain pending",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "with successPolicy succeededCount rule should succeeded even when some indexes remain pending",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should record the failure-count in the Pod annotation when using backoffLimitPerIndex",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  { file: "apps/job.go", it: "should remove pods when job is deleted", here: "apps-job-statefulset-cronjob.test.ts" },
  {
    file: "apps/job.go",
    it: "should run a job to completion when tasks sometimes fail and are locally restarted",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should run a job to completion when tasks sometimes fail and are not locally restarted",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "should adopt matching orphans and release non-matching pods",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  { file: "apps/job.go", it: "should apply changes to a job status", here: "apps-scale-status.test.ts" },
  { file: "apps/job.go", it: "should manage the lifecycle of a job", here: "apps-scale-status.test.ts" },
  { file: "apps/job.go", it: "should update the status ready field", here: "apps-job-statefulset-cronjob.test.ts" },
  {
    file: "apps/job.go",
    it: "should allow to delegate reconciliation to external controller",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/job.go",
    it: "containers restarted by container restart policy should not trigger PodFailurePolicy",
    here: { pending: "needs an alpha feature gate" },
  },
  {
    file: "apps/cronjob.go",
    it: "should schedule multiple jobs concurrently",
    here: "apps-cronjob.test.ts",
  },
  {
    file: "apps/cronjob.go",
    it: "should not schedule new jobs when ForbidConcurrent",
    here: "apps-cronjob.test.ts",
  },
  {
    file: "apps/cronjob.go",
    it: "should replace jobs when ReplaceConcurrent",
    here: "apps-cronjob.test.ts",
  },
  {
    file: "apps/cronjob.go",
    it: "should be able to schedule after more than 100 missed schedule",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  { file: "apps/cronjob.go", it: "should not emit unexpected warnings", here: "apps-cronjob.test.ts" },
  {
    file: "apps/cronjob.go",
    it: "should set the cronjob-scheduled-timestamp annotation on a job",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/cronjob.go",
    it: "should remove from active list jobs that have been deleted",
    here: "apps-job-statefulset-cronjob.test.ts",
  },
  {
    file: "apps/cronjob.go",
    it: "should delete successful finished jobs with limit of one successful job",
    here: "apps-cronjob.test.ts",
  },
  {
    file: "apps/cronjob.go",
    it: "should delete failed finished jobs with limit of one job",
    here: "apps-cronjob.test.ts",
  },
  { file: "apps/cronjob.go", it: "should support timezone", here: "apps-cronjob.test.ts" },
  {
    file: "apps/daemon_set.go",
    it: "should run and stop complex daemon with node affinity",
    here: "apps-daemonset.test.ts",
  },
  {
    file: "apps/daemon_set.go",
    it: "should retry creating failed daemon pods",
    here: "apps-daemonset-history.test.ts",
  },
  {
    file: "apps/daemon_set.go",
    it: "should not update pod when spec was updated and update strategy is OnDelete",
    here: "apps-daemonset.test.ts",
  },
  {
    file: "apps/daemon_set.go",
    it: "should rollback without unnecessary restarts",
    here: "apps-daemonset-history.test.ts",
  },
  {
    file: "apps/daemon_set.go",
    it: "should list and delete a collection of DaemonSets",
    here: "apps-scale-status.test.ts",
  },
  { file: "apps/daemon_set.go", it: "should verify changes to a daemon set status", here: "apps-scale-status.test.ts" },
  {
    file: "apps/disruption.go",
    it: "should list and delete a collection of PodDisruptionBudgets",
    here: "apps-disruption.test.ts",
  },
  { file: "apps/disruption.go", it: "should create a PodDisruptionBudget", here: "apps-disruption.test.ts" },
  {
    file: "apps/disruption.go",
    it: "should observe PodDisruptionBudget status updated",
    here: "apps-disruption.test.ts",
  },
  { file: "apps/disruption.go", it: "should update/patch PodDisruptionBudget status", here: "apps-disruption.test.ts" },
  {
    file: "apps/disruption.go",
    it: "should observe that the PodDisruptionBudget status is not updated for unmanaged pods",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "evictions: no PDB => should allow an eviction",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "evictions: too few pods, absolute => should not allow an eviction",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "evictions: enough pods, absolute => should allow an eviction",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "evictions: enough pods, replicaSet, percentage => should allow an eviction",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "evictions: too few pods, replicaSet, percentage => should not allow an eviction",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "evictions: maxUnavailable allow single eviction, percentage => should allow an eviction",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "evictions: maxUnavailable deny evictions, integer => should not allow an eviction",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "should block an eviction until the PDB is updated to allow it",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "should evict ready pods with Default UnhealthyPodEvictionPolicy",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "should evict ready pods with IfHealthyBudget UnhealthyPodEvictionPolicy",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "should evict ready pods with AlwaysAllow UnhealthyPodEvictionPolicy",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "should not evict unready pods with Default UnhealthyPodEvictionPolicy",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "should not evict unready pods with IfHealthyBudget UnhealthyPodEvictionPolicy",
    here: "apps-disruption.test.ts",
  },
  {
    file: "apps/disruption.go",
    it: "should evict unready pods with AlwaysAllow UnhealthyPodEvictionPolicy",
    here: "apps-disruption.test.ts",
  },
];
