// Derived by packages/sim-apiserver/scripts/gen-protobuf-schema.mjs from kubernetes/api and
// kubernetes/apimachinery (tag v0.34.10 of both):
// generated.proto (field numbers, types, repeated/map) and types.go (JSON names,
// pointer or non-omitempty scalars, inlined embedded structs). Regenerate instead of editing by hand.
//
// One entry per message reachable from Namespace, ConfigMap, Secret, Service, ServiceAccount, Pod, Deployment, Job. Each field is `<number> <json name> <type>`:
// `[]T` repeated, `map[T]` a map with string keys, `^` as the name an inlined embedded struct (its fields join
// the parent's JSON object), a trailing `!` a scalar kept in JSON even when zero (a Go pointer or a field without
// `omitempty`). Time, IntOrString, Quantity and FieldsV1 (well-known.ts) have their own JSON form.

/** Message name → field list, in the notation above (parsed by schema.ts). */
export const SCHEMA_TABLE: Readonly<Record<string, string>> = {
  AWSElasticBlockStoreVolumeSource: "1 volumeID string!; 2 fsType string; 3 partition int32; 4 readOnly bool",
  Affinity: "1 nodeAffinity NodeAffinity; 2 podAffinity PodAffinity; 3 podAntiAffinity PodAntiAffinity",
  AppArmorProfile: "1 type string!; 2 localhostProfile string!",
  AzureDiskVolumeSource:
    "1 diskName string!; 2 diskURI string!; 3 cachingMode string!; 4 fsType string!; 5 readOnly bool!; 6 kind string!",
  AzureFileVolumeSource: "1 secretName string!; 2 shareName string!; 3 readOnly bool",
  CSIVolumeSource:
    "1 driver string!; 2 readOnly bool!; 3 fsType string!; 4 volumeAttributes map[string]; 5 nodePublishSecretRef LocalObjectReference",
  Capabilities: "1 add []string; 2 drop []string",
  CephFSVolumeSource:
    "1 monitors []string; 2 path string; 3 user string; 4 secretFile string; 5 secretRef LocalObjectReference; 6 readOnly bool",
  CinderVolumeSource: "1 volumeID string!; 2 fsType string; 3 readOnly bool; 4 secretRef LocalObjectReference",
  ClientIPConfig: "1 timeoutSeconds int32!",
  ClusterTrustBundleProjection:
    "1 name string!; 2 signerName string!; 3 labelSelector LabelSelector; 4 path string!; 5 optional bool!",
  Condition:
    "1 type string!; 2 status string!; 3 observedGeneration int64; 4 lastTransitionTime Time; 5 reason string!; 6 message string!",
  ConfigMap: "1 metadata ObjectMeta; 2 data map[string]; 3 binaryData map[bytes]; 4 immutable bool!",
  ConfigMapEnvSource: "1 ^ LocalObjectReference; 2 optional bool!",
  ConfigMapKeySelector: "1 ^ LocalObjectReference; 2 key string!; 3 optional bool!",
  ConfigMapProjection: "1 ^ LocalObjectReference; 2 items []KeyToPath; 4 optional bool!",
  ConfigMapVolumeSource: "1 ^ LocalObjectReference; 2 items []KeyToPath; 3 defaultMode int32!; 4 optional bool!",
  Container:
    "1 name string!; 2 image string; 3 command []string; 4 args []string; 5 workingDir string; 6 ports []ContainerPort; 7 env []EnvVar; 8 resources ResourceRequirements; 9 volumeMounts []VolumeMount; 10 livenessProbe Probe; 11 readinessProbe Probe; 12 lifecycle Lifecycle; 13 terminationMessagePath string; 14 imagePullPolicy string; 15 securityContext SecurityContext; 16 stdin bool; 17 stdinOnce bool; 18 tty bool; 19 envFrom []EnvFromSource; 20 terminationMessagePolicy string; 21 volumeDevices []VolumeDevice; 22 startupProbe Probe; 23 resizePolicy []ContainerResizePolicy; 24 restartPolicy string!; 25 restartPolicyRules []ContainerRestartRule",
  ContainerExtendedResourceRequest: "1 containerName string!; 2 resourceName string!; 3 requestName string!",
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
  EnvFromSource: "1 prefix string; 2 configMapRef ConfigMapEnvSource; 3 secretRef SecretEnvSource",
  EnvVar: "1 name string!; 2 value string; 3 valueFrom EnvVarSource",
  EnvVarSource:
    "1 fieldRef ObjectFieldSelector; 2 resourceFieldRef ResourceFieldSelector; 3 configMapKeyRef ConfigMapKeySelector; 4 secretKeyRef SecretKeySelector; 5 fileKeyRef FileKeySelector",
  EphemeralContainer: "1 ^ EphemeralContainerCommon; 2 targetContainerName string",
  EphemeralContainerCommon:
    "1 name string!; 2 image string; 3 command []string; 4 args []string; 5 workingDir string; 6 ports []ContainerPort; 7 env []EnvVar; 8 resources ResourceRequirements; 9 volumeMounts []VolumeMount; 10 livenessProbe Probe; 11 readinessProbe Probe; 12 lifecycle Lifecycle; 13 terminationMessagePath string; 14 imagePullPolicy string; 15 securityContext SecurityContext; 16 stdin bool; 17 stdinOnce bool; 18 tty bool; 19 envFrom []EnvFromSource; 20 terminationMessagePolicy string; 21 volumeDevices []VolumeDevice; 22 startupProbe Probe; 23 resizePolicy []ContainerResizePolicy; 24 restartPolicy string!; 25 restartPolicyRules []ContainerRestartRule",
  EphemeralVolumeSource: "1 volumeClaimTemplate PersistentVolumeClaimTemplate",
  ExecAction: "1 command []string",
  FCVolumeSource: "1 targetWWNs []string; 2 lun int32!; 3 fsType string; 4 readOnly bool; 5 wwids []string",
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
  HostAlias: "1 ip string!; 2 hostnames []string",
  HostIP: "1 ip string!",
  HostPathVolumeSource: "1 path string!; 2 type string!",
  ISCSIVolumeSource:
    "1 targetPortal string!; 2 iqn string!; 3 lun int32!; 4 iscsiInterface string; 5 fsType string; 6 readOnly bool; 7 portals []string; 8 chapAuthDiscovery bool; 10 secretRef LocalObjectReference; 11 chapAuthSession bool; 12 initiatorName string!",
  ImageVolumeSource: "1 reference string; 2 pullPolicy string",
  Job: "1 metadata ObjectMeta; 2 spec JobSpec; 3 status JobStatus",
  JobCondition:
    "1 type string!; 2 status string!; 3 lastProbeTime Time; 4 lastTransitionTime Time; 5 reason string; 6 message string",
  JobSpec:
    "1 parallelism int32!; 2 completions int32!; 3 activeDeadlineSeconds int64!; 4 selector LabelSelector; 5 manualSelector bool!; 6 template PodTemplateSpec; 7 backoffLimit int32!; 8 ttlSecondsAfterFinished int32!; 9 completionMode string!; 10 suspend bool!; 11 podFailurePolicy PodFailurePolicy; 12 backoffLimitPerIndex int32!; 13 maxFailedIndexes int32!; 14 podReplacementPolicy string!; 15 managedBy string!; 16 successPolicy SuccessPolicy",
  JobStatus:
    "1 conditions []JobCondition; 2 startTime Time; 3 completionTime Time; 4 active int32; 5 succeeded int32; 6 failed int32; 7 completedIndexes string; 8 uncountedTerminatedPods UncountedTerminatedPods; 9 ready int32!; 10 failedIndexes string!; 11 terminating int32!",
  KeyToPath: "1 key string!; 2 path string!; 3 mode int32!",
  LabelSelector: "1 matchLabels map[string]; 2 matchExpressions []LabelSelectorRequirement",
  LabelSelectorRequirement: "1 key string!; 2 operator string!; 3 values []string",
  Lifecycle: "1 postStart LifecycleHandler; 2 preStop LifecycleHandler; 3 stopSignal string!",
  LifecycleHandler: "1 exec ExecAction; 2 httpGet HTTPGetAction; 3 tcpSocket TCPSocketAction; 4 sleep SleepAction",
  LinuxContainerUser: "1 uid int64!; 2 gid int64!; 3 supplementalGroups []int64",
  LoadBalancerIngress: "1 ip string; 2 hostname string; 3 ipMode string!; 4 ports []PortStatus",
  LoadBalancerStatus: "1 ingress []LoadBalancerIngress",
  LocalObjectReference: "1 name string",
  ManagedFieldsEntry:
    "1 manager string; 2 operation string; 3 apiVersion string; 4 time Time; 6 fieldsType string; 7 fieldsV1 FieldsV1; 8 subresource string",
  NFSVolumeSource: "1 server string!; 2 path string!; 3 readOnly bool",
  Namespace: "1 metadata ObjectMeta; 2 spec NamespaceSpec; 3 status NamespaceStatus",
  NamespaceCondition: "1 type string!; 2 status string!; 4 lastTransitionTime Time; 5 reason string; 6 message string",
  NamespaceSpec: "1 finalizers []string",
  NamespaceStatus: "1 phase string; 2 conditions []NamespaceCondition",
  NodeAffinity:
    "1 requiredDuringSchedulingIgnoredDuringExecution NodeSelector; 2 preferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm",
  NodeSelector: "1 nodeSelectorTerms []NodeSelectorTerm",
  NodeSelectorRequirement: "1 key string!; 2 operator string!; 3 values []string",
  NodeSelectorTerm: "1 matchExpressions []NodeSelectorRequirement; 2 matchFields []NodeSelectorRequirement",
  ObjectFieldSelector: "1 apiVersion string; 2 fieldPath string!",
  ObjectMeta:
    "1 name string; 2 generateName string; 3 namespace string; 4 selfLink string; 5 uid string; 6 resourceVersion string; 7 generation int64; 8 creationTimestamp Time; 9 deletionTimestamp Time; 10 deletionGracePeriodSeconds int64!; 11 labels map[string]; 12 annotations map[string]; 13 ownerReferences []OwnerReference; 14 finalizers []string; 17 managedFields []ManagedFieldsEntry",
  ObjectReference:
    "1 kind string; 2 namespace string; 3 name string; 4 uid string; 5 apiVersion string; 6 resourceVersion string; 7 fieldPath string",
  OwnerReference:
    "1 kind string!; 3 name string!; 4 uid string!; 5 apiVersion string!; 6 controller bool!; 7 blockOwnerDeletion bool!",
  PersistentVolumeClaimSpec:
    "1 accessModes []string; 2 resources VolumeResourceRequirements; 3 volumeName string; 4 selector LabelSelector; 5 storageClassName string!; 6 volumeMode string!; 7 dataSource TypedLocalObjectReference; 8 dataSourceRef TypedObjectReference; 9 volumeAttributesClassName string!",
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
  PortStatus: "1 port int32!; 2 protocol string!; 3 error string!",
  PortworxVolumeSource: "1 volumeID string!; 2 fsType string; 3 readOnly bool",
  PreferredSchedulingTerm: "1 weight int32!; 2 preference NodeSelectorTerm",
  Probe:
    "1 ^ ProbeHandler; 2 initialDelaySeconds int32; 3 timeoutSeconds int32; 4 periodSeconds int32; 5 successThreshold int32; 6 failureThreshold int32; 7 terminationGracePeriodSeconds int64!",
  ProbeHandler: "1 exec ExecAction; 2 httpGet HTTPGetAction; 3 tcpSocket TCPSocketAction; 4 grpc GRPCAction",
  ProjectedVolumeSource: "1 sources []VolumeProjection; 2 defaultMode int32!",
  QuobyteVolumeSource:
    "1 registry string!; 2 volume string!; 3 readOnly bool; 4 user string; 5 group string; 6 tenant string",
  RBDVolumeSource:
    "1 monitors []string; 2 image string!; 3 fsType string; 4 pool string; 5 user string; 6 keyring string; 7 secretRef LocalObjectReference; 8 readOnly bool",
  ResourceClaim: "1 name string!; 2 request string",
  ResourceFieldSelector: "1 containerName string; 2 resource string!; 3 divisor Quantity",
  ResourceHealth: "1 resourceID string!; 2 health string",
  ResourceRequirements: "1 limits map[Quantity]; 2 requests map[Quantity]; 3 claims []ResourceClaim",
  ResourceStatus: "1 name string!; 2 resources []ResourceHealth",
  RollingUpdateDeployment: "1 maxUnavailable IntOrString; 2 maxSurge IntOrString",
  SELinuxOptions: "1 user string; 2 role string; 3 type string; 4 level string",
  ScaleIOVolumeSource:
    "1 gateway string!; 2 system string!; 3 secretRef LocalObjectReference; 4 sslEnabled bool; 5 protectionDomain string; 6 storagePool string; 7 storageMode string; 8 volumeName string; 9 fsType string; 10 readOnly bool",
  SeccompProfile: "1 type string!; 2 localhostProfile string!",
  Secret: "1 metadata ObjectMeta; 2 data map[bytes]; 3 type string; 4 stringData map[string]; 5 immutable bool!",
  SecretEnvSource: "1 ^ LocalObjectReference; 2 optional bool!",
  SecretKeySelector: "1 ^ LocalObjectReference; 2 key string!; 3 optional bool!",
  SecretProjection: "1 ^ LocalObjectReference; 2 items []KeyToPath; 4 optional bool!",
  SecretVolumeSource: "1 secretName string; 2 items []KeyToPath; 3 defaultMode int32!; 4 optional bool!",
  SecurityContext:
    "1 capabilities Capabilities; 2 privileged bool!; 3 seLinuxOptions SELinuxOptions; 4 runAsUser int64!; 5 runAsNonRoot bool!; 6 readOnlyRootFilesystem bool!; 7 allowPrivilegeEscalation bool!; 8 runAsGroup int64!; 9 procMount string!; 10 windowsOptions WindowsSecurityContextOptions; 11 seccompProfile SeccompProfile; 12 appArmorProfile AppArmorProfile",
  Service: "1 metadata ObjectMeta; 2 spec ServiceSpec; 3 status ServiceStatus",
  ServiceAccount:
    "1 metadata ObjectMeta; 2 secrets []ObjectReference; 3 imagePullSecrets []LocalObjectReference; 4 automountServiceAccountToken bool!",
  ServiceAccountTokenProjection: "1 audience string; 2 expirationSeconds int64!; 3 path string!",
  ServicePort:
    "1 name string; 2 protocol string; 3 port int32!; 4 targetPort IntOrString; 5 nodePort int32; 6 appProtocol string!",
  ServiceSpec:
    "1 ports []ServicePort; 2 selector map[string]; 3 clusterIP string; 4 type string; 5 externalIPs []string; 7 sessionAffinity string; 8 loadBalancerIP string; 9 loadBalancerSourceRanges []string; 10 externalName string; 11 externalTrafficPolicy string; 12 healthCheckNodePort int32; 13 publishNotReadyAddresses bool; 14 sessionAffinityConfig SessionAffinityConfig; 17 ipFamilyPolicy string!; 18 clusterIPs []string; 19 ipFamilies []string; 20 allocateLoadBalancerNodePorts bool!; 21 loadBalancerClass string!; 22 internalTrafficPolicy string!; 23 trafficDistribution string!",
  ServiceStatus: "1 loadBalancer LoadBalancerStatus; 2 conditions []Condition",
  SessionAffinityConfig: "1 clientIP ClientIPConfig",
  SleepAction: "1 seconds int64!",
  StorageOSVolumeSource:
    "1 volumeName string; 2 volumeNamespace string; 3 fsType string; 4 readOnly bool; 5 secretRef LocalObjectReference",
  SuccessPolicy: "1 rules []SuccessPolicyRule",
  SuccessPolicyRule: "1 succeededIndexes string!; 2 succeededCount int32!",
  Sysctl: "1 name string!; 2 value string!",
  TCPSocketAction: "1 port IntOrString; 2 host string",
  Toleration: "1 key string; 2 operator string; 3 value string; 4 effect string; 5 tolerationSeconds int64!",
  TopologySpreadConstraint:
    "1 maxSkew int32!; 2 topologyKey string!; 3 whenUnsatisfiable string!; 4 labelSelector LabelSelector; 5 minDomains int32!; 6 nodeAffinityPolicy string!; 7 nodeTaintsPolicy string!; 8 matchLabelKeys []string",
  TypedLocalObjectReference: "1 apiGroup string!; 2 kind string!; 3 name string!",
  TypedObjectReference: "1 apiGroup string!; 2 kind string!; 3 name string!; 4 namespace string!",
  UncountedTerminatedPods: "1 succeeded []string; 2 failed []string",
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
  { group: "apps", version: "v1", kind: "Deployment" },
  { group: "batch", version: "v1", kind: "Job" },
];
