// Public API of @informer-ts/sim-apiserver (`.`): what a user of the simulator needs — the engine in process
// (`SimApiServer`), its HTTP(S) face (`SimHttpServer` over an `EngineBackend`), their options, the fault and
// introspection types, the resource table, kubeconfig and PKI helpers. Named re-exports only.
//
// The engine's building blocks (storage, cacher, registry, filters, the APF and cost-model constants) are the
// `@informer-ts/sim-apiserver/engine` entry point; the HTTP face's (request decoding, discovery, tables,
// response writers, query parsing) are `@informer-ts/sim-apiserver/http`. The command's flag parsing is internal.

// The engine, in process

export {
  type AccountingDimension,
  type AccountingRow,
  type BookmarkMode,
  BUILTIN_RESOURCES,
  COLLECTION_VERBS,
  type CostModel,
  type CostModelLatency,
  CUSTOM_RESOURCE_DEFINITIONS,
  DEFAULT_COST_MODEL,
  DEFAULT_KUBE_VERSION,
  DEFAULT_VERBS,
  DEFAULT_WATCH_MEMORY_MODEL,
  type DeleteOptions,
  type EngineCaches,
  type EngineFaults,
  type EngineRequest,
  type EngineRequests,
  type FieldManager,
  type HttpFault,
  type HttpFaultRule,
  type HttpFaultState,
  type HttpRequestDescriptor,
  type InProcessListerWatcher,
  type InProcessListWatchScope,
  isKubeVersion,
  KUBE_VERSIONS,
  type KubeVersion,
  type KubeVersionGates,
  type LatencyRule,
  newCostModel,
  type PodLogOptions,
  type PodLogResponse,
  type PrinterColumn,
  parseHttpFaultRule,
  parseKubeVersion,
  type RequestContext,
  type RequestCost,
  type RequestInFlight,
  type RequestOutcome,
  type RequestRecord,
  type ResourceRef,
  resourceFromCrd,
  type ScaleSubresource,
  type ServedFrom,
  type ServedResource,
  SimApiServer,
  type SimApiServerOptions,
  SimConnectionError,
  type SimResource,
  SimTruncatedWatchError,
  type SimWatch,
  type StoredAs,
  type TraceLogConfig,
  type UnansweredRequestStatus,
  UnknownResourceError,
  type WatcherInfo,
  type WatcherSelector,
  type WatchMemoryGauge,
  type WatchMemoryModel,
  type WorkEstimatorConfig,
} from "./engine/index.js";

// The HTTP(S) face

// Authorization (`authorization` option): the types a caller of `SimApiServer.authorizer` sees.
// The engine's patch content types (the client's `PatchType` names the short kinds: "merge" | "json" | …).
export type {
  AggregatedDiscoveryVersion,
  AuthorizationMode,
  Authorizer,
  AuthzAttributes,
  AuthzDecision,
  AuthzRule,
  AuthzUser,
  PatchContentType,
} from "./engine/index.js";
export {
  type AdminHandler,
  type ApiBackend,
  type AuthOptions,
  type BackendRequestContext,
  type CertKeyPair,
  type CompletedRequest,
  EngineBackend,
  type GeneratePkiOptions,
  generatePki,
  type HttpLogLine,
  type HttpServerStats,
  type KubeconfigOptions,
  loadSeedFile,
  type MetricsRenderer,
  parseSeed,
  renderKubeconfig,
  SimHttpServer,
  type SimHttpServerOptions,
  type SimPki,
  type TokenAuthentication,
  type UserInfo,
  writeKubeconfig,
} from "./http/index.js";

// Deprecated aliases (docs/api-surface.md)

export type { ListerWatcherScope } from "./deprecated.js";
