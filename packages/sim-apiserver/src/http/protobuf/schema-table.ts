// Derived by packages/sim-apiserver/scripts/gen-protobuf-schema.mjs from kubernetes/api and
// kubernetes/apimachinery (tag v0.34.10 of both):
// generated.proto (field numbers, types, repeated/map) and types.go (JSON names,
// pointer or non-omitempty scalars, inlined embedded structs). Regenerate instead of editing by hand.
//
// One entry per message reachable from Namespace, ConfigMap, Secret, Service, ServiceAccount, Pod, ResourceQuota, Event, Node, PersistentVolumeClaim, Endpoints, Binding, Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob, ClusterRole, ClusterRoleBinding, Role, RoleBinding, PodDisruptionBudget, PriorityClass, Ingress, Lease, Eviction, SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectReview, TokenRequest, TokenReview, CertificateSigningRequest, HorizontalPodAutoscaler, Scale. Each field is `<number> <json name> <type>`:
// `[]T` repeated, `map[T]` a map with string keys, `^` as the name an inlined embedded struct (its fields join
// the parent's JSON object), a trailing `!` a scalar kept in JSON even when zero (a Go pointer or a field without
// `omitempty`). Time, IntOrString, Quantity, FieldsV1 and ExtraValue (well-known.ts) have their own JSON form.

/** Message name → field list, in the notation above (parsed by schema.ts). */
export const SCHEMA_TABLE: Readonly<Record<string, string>> = {
  AWSElasticBlockStoreVolumeSource: "1 volumeID string!; 2 fsType string; 3 partition int32; 4 readOnly bool",
  Affinity: "1 nodeAffinity NodeAffinity; 2 podAffinity PodAffinity; 3 podAntiAffinity PodAntiAffinity",
  AggregationRule: "1 clusterRoleSelectors []LabelSelector",
  AppArmorProfile: "1 type string!; 2 localhostProfile string!",
  AttachedVolume: "1 name string!; 2 devicePath string!",
  AzureDiskVolumeSource:
    "1 diskName string!; 2 diskURI string!; 3 cachingMode string!; 4 fsType string!; 5 readOnly bool!; 6 kind string!",
  AzureFileVolumeSource: "1 secretName string!; 2 shareName string!; 3 readOnly bool",
  Binding: "1 metadata ObjectMeta; 2 target ObjectReference",
  BoundObjectReference: "1 kind string; 2 apiVersion string; 3 name string; 4 uid string",
  CSIVolumeSource:
    "1 driver string!; 2 readOnly bool!; 3 fsType string!; 4 volumeAttributes map[string]; 5 nodePublishSecretRef LocalObjectReference",
  Capabilities: "1 add []string; 2 drop []string",
  CephFSVolumeSource:
    "1 monitors []string; 2 path string; 3 user string; 4 secretFile string; 5 secretRef LocalObjectReference; 6 readOnly bool",
  CertificateSigningRequest:
    "1 metadata ObjectMeta; 2 spec CertificateSigningRequestSpec; 3 status CertificateSigningRequestStatus",
  CertificateSigningRequestCondition:
    "1 type string!; 2 reason string; 3 message string; 4 lastUpdateTime Time; 5 lastTransitionTime Time; 6 status string!",
  CertificateSigningRequestSpec:
    "1 request bytes!; 2 username string; 3 uid string; 4 groups []string; 5 usages []string; 6 extra map[ExtraValue]; 7 signerName string!; 8 expirationSeconds int32!",
  CertificateSigningRequestStatus: "1 conditions []CertificateSigningRequestCondition; 2 certificate bytes",
  CinderVolumeSource: "1 volumeID string!; 2 fsType string; 3 readOnly bool; 4 secretRef LocalObjectReference",
  ClientIPConfig: "1 timeoutSeconds int32!",
  ClusterRole: "1 metadata ObjectMeta; 2 rules []PolicyRule; 3 aggregationRule AggregationRule",
  ClusterRoleBinding: "1 metadata ObjectMeta; 2 subjects []Subject; 3 roleRef RoleRef",
  ClusterTrustBundleProjection:
    "1 name string!; 2 signerName string!; 3 labelSelector LabelSelector; 4 path string!; 5 optional bool!",
  Condition:
    "1 type string!; 2 status string!; 3 observedGeneration int64; 4 lastTransitionTime Time; 5 reason string!; 6 message string!",
  ConfigMap: "1 metadata ObjectMeta; 2 data map[string]; 3 binaryData map[bytes]; 4 immutable bool!",
  ConfigMapEnvSource: "1 ^ LocalObjectReference; 2 optional bool!",
  ConfigMapKeySelector: "1 ^ LocalObjectReference; 2 key string!; 3 optional bool!",
  ConfigMapNodeConfigSource:
    "1 namespace string!; 2 name string!; 3 uid string; 4 resourceVersion string; 5 kubeletConfigKey string!",
  ConfigMapProjection: "1 ^ LocalObjectReference; 2 items []KeyToPath; 4 optional bool!",
  ConfigMapVolumeSource: "1 ^ LocalObjectReference; 2 items []KeyToPath; 3 defaultMode int32!; 4 optional bool!",
  Container:
    "1 name string!; 2 image string; 3 command []string; 4 args []string; 5 workingDir string; 6 ports []ContainerPort; 7 env []EnvVar; 8 resources ResourceRequirements; 9 volumeMounts []VolumeMount; 10 livenessProbe Probe; 11 readinessProbe Probe; 12 lifecycle Lifecycle; 13 terminationMessagePath string; 14 imagePullPolicy string; 15 securityContext SecurityContext; 16 stdin bool; 17 stdinOnce bool; 18 tty bool; 19 envFrom []EnvFromSource; 20 terminationMessagePolicy string; 21 volumeDevices []VolumeDevice; 22 startupProbe Probe; 23 resizePolicy []ContainerResizePolicy; 24 restartPolicy string!; 25 restartPolicyRules []ContainerRestartRule",
  ContainerExtendedResourceRequest: "1 containerName string!; 2 resourceName string!; 3 requestName string!",
  ContainerImage: "1 names []string; 2 sizeBytes int64",
  ContainerPort: "1 name string; 2 hostPort int32; 3 containerPort int32!; 4 protocol string; 5 hostIP string",
  ContainerResizePolicy: "1 resourceName string!; 2 restartPolicy string!",
  ContainerRestartRule: "1 action string; 2 exitCodes ContainerRestartRuleOnExitCodes",
  ContainerRestartRuleOnExitCodes: "1 operator string; 2 values []int32",
  ContainerState:
    "1 waiting ContainerStateWaiting; 2 running ContainerStateRunning; 3 terminated ContainerStateTerminated",
  ContainerStateRunning: "1 startedAt Time",
  ContainerStateTerminated:
    "1 exitCode int32!; 2 signal int32; 3 reason string; 4 message string; 5 startedAt Time; 6 finishedAt Time; 7 containerID string",
  ContainerStateWaiting: "1 reason string; 2 message string",
  ContainerStatus:
    "1 name string!; 2 state ContainerState; 3 lastState ContainerState; 4 ready bool!; 5 restartCount int32!; 6 image string!; 7 imageID string!; 8 containerID string; 9 started bool!; 10 allocatedResources map[Quantity]; 11 resources ResourceRequirements; 12 volumeMounts []VolumeMountStatus; 13 user ContainerUser; 14 allocatedResourcesStatus []ResourceStatus; 15 stopSignal string!",
  ContainerUser: "1 linux LinuxContainerUser",
  CronJob: "1 metadata ObjectMeta; 2 spec CronJobSpec; 3 status CronJobStatus",
  CronJobSpec:
    "1 schedule string!; 2 startingDeadlineSeconds int64!; 3 concurrencyPolicy string; 4 suspend bool!; 5 jobTemplate JobTemplateSpec; 6 successfulJobsHistoryLimit int32!; 7 failedJobsHistoryLimit int32!; 8 timeZone string!",
  CronJobStatus: "1 active []ObjectReference; 4 lastScheduleTime Time; 5 lastSuccessfulTime Time",
  CrossVersionObjectReference: "1 kind string!; 2 name string!; 3 apiVersion string",
  DaemonEndpoint: "1 Port int32!",
  DaemonSet: "1 metadata ObjectMeta; 2 spec DaemonSetSpec; 3 status DaemonSetStatus",
  DaemonSetCondition: "1 type string!; 2 status string!; 3 lastTransitionTime Time; 4 reason string; 5 message string",
  DaemonSetSpec:
    "1 selector LabelSelector; 2 template PodTemplateSpec; 3 updateStrategy DaemonSetUpdateStrategy; 4 minReadySeconds int32; 6 revisionHistoryLimit int32!",
  DaemonSetStatus:
    "1 currentNumberScheduled int32!; 2 numberMisscheduled int32!; 3 desiredNumberScheduled int32!; 4 numberReady int32!; 5 observedGeneration int64; 6 updatedNumberScheduled int32; 7 numberAvailable int32; 8 numberUnavailable int32; 9 collisionCount int32!; 10 conditions []DaemonSetCondition",
  DaemonSetUpdateStrategy: "1 type string; 2 rollingUpdate RollingUpdateDaemonSet",
  DeleteOptions:
    "1 gracePeriodSeconds int64!; 2 preconditions Preconditions; 3 orphanDependents bool!; 4 propagationPolicy string!; 5 dryRun []string; 6 ignoreStoreReadErrorWithClusterBreakingPotential bool!",
  Deployment: "1 metadata ObjectMeta; 2 spec DeploymentSpec; 3 status DeploymentStatus",
  DeploymentCondition:
    "1 type string!; 2 status string!; 4 reason string; 5 message string; 6 lastUpdateTime Time; 7 lastTransitionTime Time",
  DeploymentSpec:
    "1 replicas int32!; 2 selector LabelSelector; 3 template PodTemplateSpec; 4 strategy DeploymentStrategy; 5 minReadySeconds int32; 6 revisionHistoryLimit int32!; 7 paused bool; 9 progressDeadlineSeconds int32!",
  DeploymentStatus:
    "1 observedGeneration int64; 2 replicas int32; 3 updatedReplicas int32; 4 availableReplicas int32; 5 unavailableReplicas int32; 6 conditions []DeploymentCondition; 7 readyReplicas int32; 8 collisionCount int32!; 9 terminatingReplicas int32!",
  DeploymentStrategy: "1 type string; 2 rollingUpdate RollingUpdateDeployment",
  DownwardAPIProjection: "1 items []DownwardAPIVolumeFile",
  DownwardAPIVolumeFile:
    "1 path string!; 2 fieldRef ObjectFieldSelector; 3 resourceFieldRef ResourceFieldSelector; 4 mode int32!",
  DownwardAPIVolumeSource: "1 items []DownwardAPIVolumeFile; 2 defaultMode int32!",
  EmptyDirVolumeSource: "1 medium string; 2 sizeLimit Quantity",
  EndpointAddress: "1 ip string!; 2 targetRef ObjectReference; 3 hostname string; 4 nodeName string!",
  EndpointPort: "1 name string; 2 port int32!; 3 protocol string; 4 appProtocol string!",
  EndpointSubset: "1 addresses []EndpointAddress; 2 notReadyAddresses []EndpointAddress; 3 ports []EndpointPort",
  Endpoints: "1 metadata ObjectMeta; 2 subsets []EndpointSubset",
  EnvFromSource: "1 prefix string; 2 configMapRef ConfigMapEnvSource; 3 secretRef SecretEnvSource",
  EnvVar: "1 name string!; 2 value string; 3 valueFrom EnvVarSource",
  EnvVarSource:
    "1 fieldRef ObjectFieldSelector; 2 resourceFieldRef ResourceFieldSelector; 3 configMapKeyRef ConfigMapKeySelector; 4 secretKeyRef SecretKeySelector; 5 fileKeyRef FileKeySelector",
  EphemeralContainer: "1 ^ EphemeralContainerCommon; 2 targetContainerName string",
  EphemeralContainerCommon:
    "1 name string!; 2 image string; 3 command []string; 4 args []string; 5 workingDir string; 6 ports []ContainerPort; 7 env []EnvVar; 8 resources ResourceRequirements; 9 volumeMounts []VolumeMount; 10 livenessProbe Probe; 11 readinessProbe Probe; 12 lifecycle Lifecycle; 13 terminationMessagePath string; 14 imagePullPolicy string; 15 securityContext SecurityContext; 16 stdin bool; 17 stdinOnce bool; 18 tty bool; 19 envFrom []EnvFromSource; 20 terminationMessagePolicy string; 21 volumeDevices []VolumeDevice; 22 startupProbe Probe; 23 resizePolicy []ContainerResizePolicy; 24 restartPolicy string!; 25 restartPolicyRules []ContainerRestartRule",
  EphemeralVolumeSource: "1 volumeClaimTemplate PersistentVolumeClaimTemplate",
  Event:
    "1 metadata ObjectMeta; 2 involvedObject ObjectReference; 3 reason string; 4 message string; 5 source EventSource; 6 firstTimestamp Time; 7 lastTimestamp Time; 8 count int32; 9 type string; 10 eventTime MicroTime; 11 series EventSeries; 12 action string; 13 related ObjectReference; 14 reportingComponent string!; 15 reportingInstance string!",
  EventSeries: "1 count int32; 2 lastObservedTime MicroTime",
  EventSource: "1 component string; 2 host string",
  Eviction: "1 metadata ObjectMeta; 2 deleteOptions DeleteOptions",
  ExecAction: "1 command []string",
  FCVolumeSource: "1 targetWWNs []string; 2 lun int32!; 3 fsType string; 4 readOnly bool; 5 wwids []string",
  FieldSelectorAttributes: "1 rawSelector string; 2 requirements []FieldSelectorRequirement",
  FieldSelectorRequirement: "1 key string!; 2 operator string!; 3 values []string",
  FileKeySelector: "1 volumeName string!; 2 path string!; 3 key string!; 4 optional bool!",
  FlexVolumeSource:
    "1 driver string!; 2 fsType string; 3 secretRef LocalObjectReference; 4 readOnly bool; 5 options map[string]",
  FlockerVolumeSource: "1 datasetName string; 2 datasetUUID string",
  GCEPersistentDiskVolumeSource: "1 pdName string!; 2 fsType string; 3 partition int32; 4 readOnly bool",
  GRPCAction: "1 port int32!; 2 service string!",
  GitRepoVolumeSource: "1 repository string!; 2 revision string; 3 directory string",
  GlusterfsVolumeSource: "1 endpoints string!; 2 path string!; 3 readOnly bool",
  HTTPGetAction: "1 path string; 2 port IntOrString; 3 host string; 4 scheme string; 5 httpHeaders []HTTPHeader",
  HTTPHeader: "1 name string!; 2 value string!",
  HTTPIngressPath: "1 path string; 2 backend IngressBackend; 3 pathType string!",
  HTTPIngressRuleValue: "1 paths []HTTPIngressPath",
  HorizontalPodAutoscaler:
    "1 metadata ObjectMeta; 2 spec HorizontalPodAutoscalerSpec; 3 status HorizontalPodAutoscalerStatus",
  HorizontalPodAutoscalerSpec:
    "1 scaleTargetRef CrossVersionObjectReference; 2 minReplicas int32!; 3 maxReplicas int32!; 4 targetCPUUtilizationPercentage int32!",
  HorizontalPodAutoscalerStatus:
    "1 observedGeneration int64!; 2 lastScaleTime Time; 3 currentReplicas int32!; 4 desiredReplicas int32!; 5 currentCPUUtilizationPercentage int32!",
  HostAlias: "1 ip string!; 2 hostnames []string",
  HostIP: "1 ip string!",
  HostPathVolumeSource: "1 path string!; 2 type string!",
  ISCSIVolumeSource:
    "1 targetPortal string!; 2 iqn string!; 3 lun int32!; 4 iscsiInterface string; 5 fsType string; 6 readOnly bool; 7 portals []string; 8 chapAuthDiscovery bool; 10 secretRef LocalObjectReference; 11 chapAuthSession bool; 12 initiatorName string!",
  ImageVolumeSource: "1 reference string; 2 pullPolicy string",
  Ingress: "1 metadata ObjectMeta; 2 spec IngressSpec; 3 status IngressStatus",
  IngressBackend: "3 resource TypedLocalObjectReference; 4 service IngressServiceBackend",
  IngressLoadBalancerIngress: "1 ip string; 2 hostname string; 4 ports []IngressPortStatus",
  IngressLoadBalancerStatus: "1 ingress []IngressLoadBalancerIngress",
  IngressPortStatus: "1 port int32!; 2 protocol string!; 3 error string!",
  IngressRule: "1 host string; 2 ^ IngressRuleValue",
  IngressRuleValue: "1 http HTTPIngressRuleValue",
  IngressServiceBackend: "1 name string!; 2 port ServiceBackendPort",
  IngressSpec: "1 defaultBackend IngressBackend; 2 tls []IngressTLS; 3 rules []IngressRule; 4 ingressClassName string!",
  IngressStatus: "1 loadBalancer IngressLoadBalancerStatus",
  IngressTLS: "1 hosts []string; 2 secretName string",
  Job: "1 metadata ObjectMeta; 2 spec JobSpec; 3 status JobStatus",
  JobCondition:
    "1 type string!; 2 status string!; 3 lastProbeTime Time; 4 lastTransitionTime Time; 5 reason string; 6 message string",
  JobSpec:
    "1 parallelism int32!; 2 completions int32!; 3 activeDeadlineSeconds int64!; 4 selector LabelSelector; 5 manualSelector bool!; 6 template PodTemplateSpec; 7 backoffLimit int32!; 8 ttlSecondsAfterFinished int32!; 9 completionMode string!; 10 suspend bool!; 11 podFailurePolicy PodFailurePolicy; 12 backoffLimitPerIndex int32!; 13 maxFailedIndexes int32!; 14 podReplacementPolicy string!; 15 managedBy string!; 16 successPolicy SuccessPolicy",
  JobStatus:
    "1 conditions []JobCondition; 2 startTime Time; 3 completionTime Time; 4 active int32; 5 succeeded int32; 6 failed int32; 7 completedIndexes string; 8 uncountedTerminatedPods UncountedTerminatedPods; 9 ready int32!; 10 failedIndexes string!; 11 terminating int32!",
  JobTemplateSpec: "1 metadata ObjectMeta; 2 spec JobSpec",
  KeyToPath: "1 key string!; 2 path string!; 3 mode int32!",
  LabelSelector: "1 matchLabels map[string]; 2 matchExpressions []LabelSelectorRequirement",
  LabelSelectorAttributes: "1 rawSelector string; 2 requirements []LabelSelectorRequirement",
  LabelSelectorRequirement: "1 key string!; 2 operator string!; 3 values []string",
  Lease: "1 metadata ObjectMeta; 2 spec LeaseSpec",
  LeaseSpec:
    "1 holderIdentity string!; 2 leaseDurationSeconds int32!; 3 acquireTime MicroTime; 4 renewTime MicroTime; 5 leaseTransitions int32!; 6 strategy string!; 7 preferredHolder string!",
  Lifecycle: "1 postStart LifecycleHandler; 2 preStop LifecycleHandler; 3 stopSignal string!",
  LifecycleHandler: "1 exec ExecAction; 2 httpGet HTTPGetAction; 3 tcpSocket TCPSocketAction; 4 sleep SleepAction",
  LinuxContainerUser: "1 uid int64!; 2 gid int64!; 3 supplementalGroups []int64",
  LoadBalancerIngress: "1 ip string; 2 hostname string; 3 ipMode string!; 4 ports []PortStatus",
  LoadBalancerStatus: "1 ingress []LoadBalancerIngress",
  LocalObjectReference: "1 name string",
  LocalSubjectAccessReview: "1 metadata ObjectMeta; 2 spec SubjectAccessReviewSpec; 3 status SubjectAccessReviewStatus",
  ManagedFieldsEntry:
    "1 manager string; 2 operation string; 3 apiVersion string; 4 time Time; 6 fieldsType string; 7 fieldsV1 FieldsV1; 8 subresource string",
  ModifyVolumeStatus: "1 targetVolumeAttributesClassName string; 2 status string!",
  NFSVolumeSource: "1 server string!; 2 path string!; 3 readOnly bool",
  Namespace: "1 metadata ObjectMeta; 2 spec NamespaceSpec; 3 status NamespaceStatus",
  NamespaceCondition: "1 type string!; 2 status string!; 4 lastTransitionTime Time; 5 reason string; 6 message string",
  NamespaceSpec: "1 finalizers []string",
  NamespaceStatus: "1 phase string; 2 conditions []NamespaceCondition",
  Node: "1 metadata ObjectMeta; 2 spec NodeSpec; 3 status NodeStatus",
  NodeAddress: "1 type string!; 2 address string!",
  NodeAffinity:
    "1 requiredDuringSchedulingIgnoredDuringExecution NodeSelector; 2 preferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm",
  NodeCondition:
    "1 type string!; 2 status string!; 3 lastHeartbeatTime Time; 4 lastTransitionTime Time; 5 reason string; 6 message string",
  NodeConfigSource: "2 configMap ConfigMapNodeConfigSource",
  NodeConfigStatus:
    "1 assigned NodeConfigSource; 2 active NodeConfigSource; 3 lastKnownGood NodeConfigSource; 4 error string",
  NodeDaemonEndpoints: "1 kubeletEndpoint DaemonEndpoint",
  NodeFeatures: "1 supplementalGroupsPolicy bool!",
  NodeRuntimeHandler: "1 name string!; 2 features NodeRuntimeHandlerFeatures",
  NodeRuntimeHandlerFeatures: "1 recursiveReadOnlyMounts bool!; 2 userNamespaces bool!",
  NodeSelector: "1 nodeSelectorTerms []NodeSelectorTerm",
  NodeSelectorRequirement: "1 key string!; 2 operator string!; 3 values []string",
  NodeSelectorTerm: "1 matchExpressions []NodeSelectorRequirement; 2 matchFields []NodeSelectorRequirement",
  NodeSpec:
    "1 podCIDR string; 2 externalID string; 3 providerID string; 4 unschedulable bool; 5 taints []Taint; 6 configSource NodeConfigSource; 7 podCIDRs []string",
  NodeStatus:
    "1 capacity map[Quantity]; 2 allocatable map[Quantity]; 3 phase string; 4 conditions []NodeCondition; 5 addresses []NodeAddress; 6 daemonEndpoints NodeDaemonEndpoints; 7 nodeInfo NodeSystemInfo; 8 images []ContainerImage; 9 volumesInUse []string; 10 volumesAttached []AttachedVolume; 11 config NodeConfigStatus; 12 runtimeHandlers []NodeRuntimeHandler; 13 features NodeFeatures",
  NodeSwapStatus: "1 capacity int64!",
  NodeSystemInfo:
    "1 machineID string!; 2 systemUUID string!; 3 bootID string!; 4 kernelVersion string!; 5 osImage string!; 6 containerRuntimeVersion string!; 7 kubeletVersion string!; 8 kubeProxyVersion string!; 9 operatingSystem string!; 10 architecture string!; 11 swap NodeSwapStatus",
  NonResourceAttributes: "1 path string; 2 verb string",
  NonResourceRule: "1 verbs []string; 2 nonResourceURLs []string",
  ObjectFieldSelector: "1 apiVersion string; 2 fieldPath string!",
  ObjectMeta:
    "1 name string; 2 generateName string; 3 namespace string; 4 selfLink string; 5 uid string; 6 resourceVersion string; 7 generation int64; 8 creationTimestamp Time; 9 deletionTimestamp Time; 10 deletionGracePeriodSeconds int64!; 11 labels map[string]; 12 annotations map[string]; 13 ownerReferences []OwnerReference; 14 finalizers []string; 17 managedFields []ManagedFieldsEntry",
  ObjectReference:
    "1 kind string; 2 namespace string; 3 name string; 4 uid string; 5 apiVersion string; 6 resourceVersion string; 7 fieldPath string",
  OwnerReference:
    "1 kind string!; 3 name string!; 4 uid string!; 5 apiVersion string!; 6 controller bool!; 7 blockOwnerDeletion bool!",
  PersistentVolumeClaim:
    "1 metadata ObjectMeta; 2 spec PersistentVolumeClaimSpec; 3 status PersistentVolumeClaimStatus",
  PersistentVolumeClaimCondition:
    "1 type string!; 2 status string!; 3 lastProbeTime Time; 4 lastTransitionTime Time; 5 reason string; 6 message string",
  PersistentVolumeClaimSpec:
    "1 accessModes []string; 2 resources VolumeResourceRequirements; 3 volumeName string; 4 selector LabelSelector; 5 storageClassName string!; 6 volumeMode string!; 7 dataSource TypedLocalObjectReference; 8 dataSourceRef TypedObjectReference; 9 volumeAttributesClassName string!",
  PersistentVolumeClaimStatus:
    "1 phase string; 2 accessModes []string; 3 capacity map[Quantity]; 4 conditions []PersistentVolumeClaimCondition; 5 allocatedResources map[Quantity]; 7 allocatedResourceStatuses map[string]; 8 currentVolumeAttributesClassName string!; 9 modifyVolumeStatus ModifyVolumeStatus",
  PersistentVolumeClaimTemplate: "1 metadata ObjectMeta; 2 spec PersistentVolumeClaimSpec",
  PersistentVolumeClaimVolumeSource: "1 claimName string!; 2 readOnly bool",
  PhotonPersistentDiskVolumeSource: "1 pdID string!; 2 fsType string",
  Pod: "1 metadata ObjectMeta; 2 spec PodSpec; 3 status PodStatus",
  PodAffinity:
    "1 requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm; 2 preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm",
  PodAffinityTerm:
    "1 labelSelector LabelSelector; 2 namespaces []string; 3 topologyKey string!; 4 namespaceSelector LabelSelector; 5 matchLabelKeys []string; 6 mismatchLabelKeys []string",
  PodAntiAffinity:
    "1 requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm; 2 preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm",
  PodCertificateProjection:
    "1 signerName string; 2 keyType string; 3 maxExpirationSeconds int32!; 4 credentialBundlePath string; 5 keyPath string; 6 certificateChainPath string",
  PodCondition:
    "1 type string!; 2 status string!; 3 lastProbeTime Time; 4 lastTransitionTime Time; 5 reason string; 6 message string; 7 observedGeneration int64",
  PodDNSConfig: "1 nameservers []string; 2 searches []string; 3 options []PodDNSConfigOption",
  PodDNSConfigOption: "1 name string; 2 value string!",
  PodDisruptionBudget: "1 metadata ObjectMeta; 2 spec PodDisruptionBudgetSpec; 3 status PodDisruptionBudgetStatus",
  PodDisruptionBudgetSpec:
    "1 minAvailable IntOrString; 2 selector LabelSelector; 3 maxUnavailable IntOrString; 4 unhealthyPodEvictionPolicy string!",
  PodDisruptionBudgetStatus:
    "1 observedGeneration int64; 2 disruptedPods map[Time]; 3 disruptionsAllowed int32!; 4 currentHealthy int32!; 5 desiredHealthy int32!; 6 expectedPods int32!; 7 conditions []Condition",
  PodExtendedResourceClaimStatus: "1 requestMappings []ContainerExtendedResourceRequest; 2 resourceClaimName string!",
  PodFailurePolicy: "1 rules []PodFailurePolicyRule",
  PodFailurePolicyOnExitCodesRequirement: "1 containerName string!; 2 operator string!; 3 values []int32",
  PodFailurePolicyOnPodConditionsPattern: "1 type string!; 2 status string!",
  PodFailurePolicyRule:
    "1 action string!; 2 onExitCodes PodFailurePolicyOnExitCodesRequirement; 3 onPodConditions []PodFailurePolicyOnPodConditionsPattern",
  PodIP: "1 ip string!",
  PodOS: "1 name string!",
  PodReadinessGate: "1 conditionType string!",
  PodResourceClaim: "1 name string!; 3 resourceClaimName string!; 4 resourceClaimTemplateName string!",
  PodResourceClaimStatus: "1 name string!; 2 resourceClaimName string!",
  PodSchedulingGate: "1 name string!",
  PodSecurityContext:
    "1 seLinuxOptions SELinuxOptions; 2 runAsUser int64!; 3 runAsNonRoot bool!; 4 supplementalGroups []int64; 5 fsGroup int64!; 6 runAsGroup int64!; 7 sysctls []Sysctl; 8 windowsOptions WindowsSecurityContextOptions; 9 fsGroupChangePolicy string!; 10 seccompProfile SeccompProfile; 11 appArmorProfile AppArmorProfile; 12 supplementalGroupsPolicy string!; 13 seLinuxChangePolicy string!",
  PodSpec:
    "1 volumes []Volume; 2 containers []Container; 3 restartPolicy string; 4 terminationGracePeriodSeconds int64!; 5 activeDeadlineSeconds int64!; 6 dnsPolicy string; 7 nodeSelector map[string]; 8 serviceAccountName string; 9 serviceAccount string; 10 nodeName string; 11 hostNetwork bool; 12 hostPID bool; 13 hostIPC bool; 14 securityContext PodSecurityContext; 15 imagePullSecrets []LocalObjectReference; 16 hostname string; 17 subdomain string; 18 affinity Affinity; 19 schedulerName string; 20 initContainers []Container; 21 automountServiceAccountToken bool!; 22 tolerations []Toleration; 23 hostAliases []HostAlias; 24 priorityClassName string; 25 priority int32!; 26 dnsConfig PodDNSConfig; 27 shareProcessNamespace bool!; 28 readinessGates []PodReadinessGate; 29 runtimeClassName string!; 30 enableServiceLinks bool!; 31 preemptionPolicy string!; 32 overhead map[Quantity]; 33 topologySpreadConstraints []TopologySpreadConstraint; 34 ephemeralContainers []EphemeralContainer; 35 setHostnameAsFQDN bool!; 36 os PodOS; 37 hostUsers bool!; 38 schedulingGates []PodSchedulingGate; 39 resourceClaims []PodResourceClaim; 40 resources ResourceRequirements; 41 hostnameOverride string!",
  PodStatus:
    "1 phase string; 2 conditions []PodCondition; 3 message string; 4 reason string; 5 hostIP string; 6 podIP string; 7 startTime Time; 8 containerStatuses []ContainerStatus; 9 qosClass string; 10 initContainerStatuses []ContainerStatus; 11 nominatedNodeName string; 12 podIPs []PodIP; 13 ephemeralContainerStatuses []ContainerStatus; 14 resize string; 15 resourceClaimStatuses []PodResourceClaimStatus; 16 hostIPs []HostIP; 17 observedGeneration int64; 18 extendedResourceClaimStatus PodExtendedResourceClaimStatus",
  PodTemplateSpec: "1 metadata ObjectMeta; 2 spec PodSpec",
  PolicyRule:
    "1 verbs []string; 2 apiGroups []string; 3 resources []string; 4 resourceNames []string; 5 nonResourceURLs []string",
  PortStatus: "1 port int32!; 2 protocol string!; 3 error string!",
  PortworxVolumeSource: "1 volumeID string!; 2 fsType string; 3 readOnly bool",
  Preconditions: "1 uid string!; 2 resourceVersion string!",
  PreferredSchedulingTerm: "1 weight int32!; 2 preference NodeSelectorTerm",
  PriorityClass:
    "1 metadata ObjectMeta; 2 value int32!; 3 globalDefault bool; 4 description string; 5 preemptionPolicy string!",
  Probe:
    "1 ^ ProbeHandler; 2 initialDelaySeconds int32; 3 timeoutSeconds int32; 4 periodSeconds int32; 5 successThreshold int32; 6 failureThreshold int32; 7 terminationGracePeriodSeconds int64!",
  ProbeHandler: "1 exec ExecAction; 2 httpGet HTTPGetAction; 3 tcpSocket TCPSocketAction; 4 grpc GRPCAction",
  ProjectedVolumeSource: "1 sources []VolumeProjection; 2 defaultMode int32!",
  QuobyteVolumeSource:
    "1 registry string!; 2 volume string!; 3 readOnly bool; 4 user string; 5 group string; 6 tenant string",
  RBDVolumeSource:
    "1 monitors []string; 2 image string!; 3 fsType string; 4 pool string; 5 user string; 6 keyring string; 7 secretRef LocalObjectReference; 8 readOnly bool",
  ReplicaSet: "1 metadata ObjectMeta; 2 spec ReplicaSetSpec; 3 status ReplicaSetStatus",
  ReplicaSetCondition: "1 type string!; 2 status string!; 3 lastTransitionTime Time; 4 reason string; 5 message string",
  ReplicaSetSpec: "1 replicas int32!; 2 selector LabelSelector; 3 template PodTemplateSpec; 4 minReadySeconds int32",
  ReplicaSetStatus:
    "1 replicas int32!; 2 fullyLabeledReplicas int32; 3 observedGeneration int64; 4 readyReplicas int32; 5 availableReplicas int32; 6 conditions []ReplicaSetCondition; 7 terminatingReplicas int32!",
  ResourceAttributes:
    "1 namespace string; 2 verb string; 3 group string; 4 version string; 5 resource string; 6 subresource string; 7 name string; 8 fieldSelector FieldSelectorAttributes; 9 labelSelector LabelSelectorAttributes",
  ResourceClaim: "1 name string!; 2 request string",
  ResourceFieldSelector: "1 containerName string; 2 resource string!; 3 divisor Quantity",
  ResourceHealth: "1 resourceID string!; 2 health string",
  ResourceQuota: "1 metadata ObjectMeta; 2 spec ResourceQuotaSpec; 3 status ResourceQuotaStatus",
  ResourceQuotaSpec: "1 hard map[Quantity]; 2 scopes []string; 3 scopeSelector ScopeSelector",
  ResourceQuotaStatus: "1 hard map[Quantity]; 2 used map[Quantity]",
  ResourceRequirements: "1 limits map[Quantity]; 2 requests map[Quantity]; 3 claims []ResourceClaim",
  ResourceRule: "1 verbs []string; 2 apiGroups []string; 3 resources []string; 4 resourceNames []string",
  ResourceStatus: "1 name string!; 2 resources []ResourceHealth",
  Role: "1 metadata ObjectMeta; 2 rules []PolicyRule",
  RoleBinding: "1 metadata ObjectMeta; 2 subjects []Subject; 3 roleRef RoleRef",
  RoleRef: "1 apiGroup string!; 2 kind string!; 3 name string!",
  RollingUpdateDaemonSet: "1 maxUnavailable IntOrString; 2 maxSurge IntOrString",
  RollingUpdateDeployment: "1 maxUnavailable IntOrString; 2 maxSurge IntOrString",
  RollingUpdateStatefulSetStrategy: "1 partition int32!; 2 maxUnavailable IntOrString",
  SELinuxOptions: "1 user string; 2 role string; 3 type string; 4 level string",
  Scale: "1 metadata ObjectMeta; 2 spec ScaleSpec; 3 status ScaleStatus",
  ScaleIOVolumeSource:
    "1 gateway string!; 2 system string!; 3 secretRef LocalObjectReference; 4 sslEnabled bool; 5 protectionDomain string; 6 storagePool string; 7 storageMode string; 8 volumeName string; 9 fsType string; 10 readOnly bool",
  ScaleSpec: "1 replicas int32",
  ScaleStatus: "1 replicas int32!; 2 selector string",
  ScopeSelector: "1 matchExpressions []ScopedResourceSelectorRequirement",
  ScopedResourceSelectorRequirement: "1 scopeName string!; 2 operator string!; 3 values []string",
  SeccompProfile: "1 type string!; 2 localhostProfile string!",
  Secret: "1 metadata ObjectMeta; 2 data map[bytes]; 3 type string; 4 stringData map[string]; 5 immutable bool!",
  SecretEnvSource: "1 ^ LocalObjectReference; 2 optional bool!",
  SecretKeySelector: "1 ^ LocalObjectReference; 2 key string!; 3 optional bool!",
  SecretProjection: "1 ^ LocalObjectReference; 2 items []KeyToPath; 4 optional bool!",
  SecretVolumeSource: "1 secretName string; 2 items []KeyToPath; 3 defaultMode int32!; 4 optional bool!",
  SecurityContext:
    "1 capabilities Capabilities; 2 privileged bool!; 3 seLinuxOptions SELinuxOptions; 4 runAsUser int64!; 5 runAsNonRoot bool!; 6 readOnlyRootFilesystem bool!; 7 allowPrivilegeEscalation bool!; 8 runAsGroup int64!; 9 procMount string!; 10 windowsOptions WindowsSecurityContextOptions; 11 seccompProfile SeccompProfile; 12 appArmorProfile AppArmorProfile",
  SelfSubjectAccessReview:
    "1 metadata ObjectMeta; 2 spec SelfSubjectAccessReviewSpec; 3 status SubjectAccessReviewStatus",
  SelfSubjectAccessReviewSpec: "1 resourceAttributes ResourceAttributes; 2 nonResourceAttributes NonResourceAttributes",
  SelfSubjectReview: "1 metadata ObjectMeta; 2 status SelfSubjectReviewStatus",
  SelfSubjectReviewStatus: "1 userInfo UserInfo",
  SelfSubjectRulesReview: "1 metadata ObjectMeta; 2 spec SelfSubjectRulesReviewSpec; 3 status SubjectRulesReviewStatus",
  SelfSubjectRulesReviewSpec: "1 namespace string",
  Service: "1 metadata ObjectMeta; 2 spec ServiceSpec; 3 status ServiceStatus",
  ServiceAccount:
    "1 metadata ObjectMeta; 2 secrets []ObjectReference; 3 imagePullSecrets []LocalObjectReference; 4 automountServiceAccountToken bool!",
  ServiceAccountTokenProjection: "1 audience string; 2 expirationSeconds int64!; 3 path string!",
  ServiceBackendPort: "1 name string; 2 number int32",
  ServicePort:
    "1 name string; 2 protocol string; 3 port int32!; 4 targetPort IntOrString; 5 nodePort int32; 6 appProtocol string!",
  ServiceSpec:
    "1 ports []ServicePort; 2 selector map[string]; 3 clusterIP string; 4 type string; 5 externalIPs []string; 7 sessionAffinity string; 8 loadBalancerIP string; 9 loadBalancerSourceRanges []string; 10 externalName string; 11 externalTrafficPolicy string; 12 healthCheckNodePort int32; 13 publishNotReadyAddresses bool; 14 sessionAffinityConfig SessionAffinityConfig; 17 ipFamilyPolicy string!; 18 clusterIPs []string; 19 ipFamilies []string; 20 allocateLoadBalancerNodePorts bool!; 21 loadBalancerClass string!; 22 internalTrafficPolicy string!; 23 trafficDistribution string!",
  ServiceStatus: "1 loadBalancer LoadBalancerStatus; 2 conditions []Condition",
  SessionAffinityConfig: "1 clientIP ClientIPConfig",
  SleepAction: "1 seconds int64!",
  StatefulSet: "1 metadata ObjectMeta; 2 spec StatefulSetSpec; 3 status StatefulSetStatus",
  StatefulSetCondition:
    "1 type string!; 2 status string!; 3 lastTransitionTime Time; 4 reason string; 5 message string",
  StatefulSetOrdinals: "1 start int32!",
  StatefulSetPersistentVolumeClaimRetentionPolicy: "1 whenDeleted string; 2 whenScaled string",
  StatefulSetSpec:
    "1 replicas int32!; 2 selector LabelSelector; 3 template PodTemplateSpec; 4 volumeClaimTemplates []PersistentVolumeClaim; 5 serviceName string!; 6 podManagementPolicy string; 7 updateStrategy StatefulSetUpdateStrategy; 8 revisionHistoryLimit int32!; 9 minReadySeconds int32; 10 persistentVolumeClaimRetentionPolicy StatefulSetPersistentVolumeClaimRetentionPolicy; 11 ordinals StatefulSetOrdinals",
  StatefulSetStatus:
    "1 observedGeneration int64; 2 replicas int32!; 3 readyReplicas int32; 4 currentReplicas int32; 5 updatedReplicas int32; 6 currentRevision string; 7 updateRevision string; 9 collisionCount int32!; 10 conditions []StatefulSetCondition; 11 availableReplicas int32!",
  StatefulSetUpdateStrategy: "1 type string; 2 rollingUpdate RollingUpdateStatefulSetStrategy",
  StorageOSVolumeSource:
    "1 volumeName string; 2 volumeNamespace string; 3 fsType string; 4 readOnly bool; 5 secretRef LocalObjectReference",
  Subject: "1 kind string!; 2 apiGroup string; 3 name string!; 4 namespace string",
  SubjectAccessReview: "1 metadata ObjectMeta; 2 spec SubjectAccessReviewSpec; 3 status SubjectAccessReviewStatus",
  SubjectAccessReviewSpec:
    "1 resourceAttributes ResourceAttributes; 2 nonResourceAttributes NonResourceAttributes; 3 user string; 4 groups []string; 5 extra map[ExtraValue]; 6 uid string",
  SubjectAccessReviewStatus: "1 allowed bool!; 2 reason string; 3 evaluationError string; 4 denied bool",
  SubjectRulesReviewStatus:
    "1 resourceRules []ResourceRule; 2 nonResourceRules []NonResourceRule; 3 incomplete bool!; 4 evaluationError string",
  SuccessPolicy: "1 rules []SuccessPolicyRule",
  SuccessPolicyRule: "1 succeededIndexes string!; 2 succeededCount int32!",
  Sysctl: "1 name string!; 2 value string!",
  TCPSocketAction: "1 port IntOrString; 2 host string",
  Taint: "1 key string!; 2 value string; 3 effect string!; 4 timeAdded Time",
  TokenRequest: "1 metadata ObjectMeta; 2 spec TokenRequestSpec; 3 status TokenRequestStatus",
  TokenRequestSpec: "1 audiences []string; 3 boundObjectRef BoundObjectReference; 4 expirationSeconds int64!",
  TokenRequestStatus: "1 token string!; 2 expirationTimestamp Time",
  TokenReview: "1 metadata ObjectMeta; 2 spec TokenReviewSpec; 3 status TokenReviewStatus",
  TokenReviewSpec: "1 token string; 2 audiences []string",
  TokenReviewStatus: "1 authenticated bool; 2 user UserInfo; 3 error string; 4 audiences []string",
  Toleration: "1 key string; 2 operator string; 3 value string; 4 effect string; 5 tolerationSeconds int64!",
  TopologySpreadConstraint:
    "1 maxSkew int32!; 2 topologyKey string!; 3 whenUnsatisfiable string!; 4 labelSelector LabelSelector; 5 minDomains int32!; 6 nodeAffinityPolicy string!; 7 nodeTaintsPolicy string!; 8 matchLabelKeys []string",
  TypedLocalObjectReference: "1 apiGroup string!; 2 kind string!; 3 name string!",
  TypedObjectReference: "1 apiGroup string!; 2 kind string!; 3 name string!; 4 namespace string!",
  UncountedTerminatedPods: "1 succeeded []string; 2 failed []string",
  UserInfo: "1 username string; 2 uid string; 3 groups []string; 4 extra map[ExtraValue]",
  Volume: "1 name string!; 2 ^ VolumeSource",
  VolumeDevice: "1 name string!; 2 devicePath string!",
  VolumeMount:
    "1 name string!; 2 readOnly bool; 3 mountPath string!; 4 subPath string; 5 mountPropagation string!; 6 subPathExpr string; 7 recursiveReadOnly string!",
  VolumeMountStatus: "1 name string!; 2 mountPath string!; 3 readOnly bool; 4 recursiveReadOnly string!",
  VolumeProjection:
    "1 secret SecretProjection; 2 downwardAPI DownwardAPIProjection; 3 configMap ConfigMapProjection; 4 serviceAccountToken ServiceAccountTokenProjection; 5 clusterTrustBundle ClusterTrustBundleProjection; 6 podCertificate PodCertificateProjection",
  VolumeResourceRequirements: "1 limits map[Quantity]; 2 requests map[Quantity]",
  VolumeSource:
    "1 hostPath HostPathVolumeSource; 2 emptyDir EmptyDirVolumeSource; 3 gcePersistentDisk GCEPersistentDiskVolumeSource; 4 awsElasticBlockStore AWSElasticBlockStoreVolumeSource; 5 gitRepo GitRepoVolumeSource; 6 secret SecretVolumeSource; 7 nfs NFSVolumeSource; 8 iscsi ISCSIVolumeSource; 9 glusterfs GlusterfsVolumeSource; 10 persistentVolumeClaim PersistentVolumeClaimVolumeSource; 11 rbd RBDVolumeSource; 12 flexVolume FlexVolumeSource; 13 cinder CinderVolumeSource; 14 cephfs CephFSVolumeSource; 15 flocker FlockerVolumeSource; 16 downwardAPI DownwardAPIVolumeSource; 17 fc FCVolumeSource; 18 azureFile AzureFileVolumeSource; 19 configMap ConfigMapVolumeSource; 20 vsphereVolume VsphereVirtualDiskVolumeSource; 21 quobyte QuobyteVolumeSource; 22 azureDisk AzureDiskVolumeSource; 23 photonPersistentDisk PhotonPersistentDiskVolumeSource; 24 portworxVolume PortworxVolumeSource; 25 scaleIO ScaleIOVolumeSource; 26 projected ProjectedVolumeSource; 27 storageos StorageOSVolumeSource; 28 csi CSIVolumeSource; 29 ephemeral EphemeralVolumeSource; 30 image ImageVolumeSource",
  VsphereVirtualDiskVolumeSource:
    "1 volumePath string!; 2 fsType string; 3 storagePolicyName string; 4 storagePolicyID string",
  WeightedPodAffinityTerm: "1 weight int32!; 2 podAffinityTerm PodAffinityTerm",
  WindowsSecurityContextOptions:
    "1 gmsaCredentialSpecName string!; 2 gmsaCredentialSpec string!; 3 runAsUserName string!; 4 hostProcess bool!",
};

/** The object kinds with a schema (each kind's message has the kind's name). */
export const SCHEMA_ROOTS: readonly { readonly group: string; readonly version: string; readonly kind: string }[] = [
  { group: "", version: "v1", kind: "Namespace" },
  { group: "", version: "v1", kind: "ConfigMap" },
  { group: "", version: "v1", kind: "Secret" },
  { group: "", version: "v1", kind: "Service" },
  { group: "", version: "v1", kind: "ServiceAccount" },
  { group: "", version: "v1", kind: "Pod" },
  { group: "", version: "v1", kind: "ResourceQuota" },
  { group: "", version: "v1", kind: "Event" },
  { group: "", version: "v1", kind: "Node" },
  { group: "", version: "v1", kind: "PersistentVolumeClaim" },
  { group: "", version: "v1", kind: "Endpoints" },
  { group: "", version: "v1", kind: "Binding" },
  { group: "apps", version: "v1", kind: "Deployment" },
  { group: "apps", version: "v1", kind: "StatefulSet" },
  { group: "apps", version: "v1", kind: "ReplicaSet" },
  { group: "apps", version: "v1", kind: "DaemonSet" },
  { group: "batch", version: "v1", kind: "Job" },
  { group: "batch", version: "v1", kind: "CronJob" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "Role" },
  { group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding" },
  { group: "policy", version: "v1", kind: "PodDisruptionBudget" },
  { group: "scheduling.k8s.io", version: "v1", kind: "PriorityClass" },
  { group: "networking.k8s.io", version: "v1", kind: "Ingress" },
  { group: "coordination.k8s.io", version: "v1", kind: "Lease" },
  { group: "policy", version: "v1", kind: "Eviction" },
  { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectAccessReview" },
  { group: "authorization.k8s.io", version: "v1", kind: "SelfSubjectRulesReview" },
  { group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview" },
  { group: "authorization.k8s.io", version: "v1", kind: "LocalSubjectAccessReview" },
  { group: "authentication.k8s.io", version: "v1", kind: "SelfSubjectReview" },
  { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
  { group: "authentication.k8s.io", version: "v1", kind: "TokenReview" },
  { group: "certificates.k8s.io", version: "v1", kind: "CertificateSigningRequest" },
  { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler" },
  { group: "autoscaling", version: "v1", kind: "Scale" },
];
