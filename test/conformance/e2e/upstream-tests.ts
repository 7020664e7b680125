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
  | "needs several served versions per CustomResourceDefinition (the engine serves one)"
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
    here: { pending: "needs several served versions per CustomResourceDefinition (the engine serves one)" },
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "updates the published spec when one version gets renamed",
    here: { pending: "needs several served versions per CustomResourceDefinition (the engine serves one)" },
  },
  {
    file: "apimachinery/crd_publish_openapi.go",
    it: "removes definition from spec when one version gets changed to not be served",
    here: { pending: "needs several served versions per CustomResourceDefinition (the engine serves one)" },
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
];
