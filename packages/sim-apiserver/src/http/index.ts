// Public API of @informer-ts/sim-apiserver/http: the HTTP(S) face of the simulated apiserver and its building
// blocks (request decoding, discovery, tables, negotiation, response writers, query parsing). `.` re-exports the
// part a user of the simulator needs.

// Deprecated aliases (docs/api-surface.md)
export type { WatchEndReason, WatchSource } from "../deprecated.js";
export type {
  AuthorizationMode,
  Authorizer,
  AuthzAttributes,
  AuthzDecision,
  AuthzRule,
  AuthzUser,
} from "../engine/authorization/index.js";
export type { PodLogOptions, PodLogResponse } from "../engine/containers/pod-log.js";
export type { AggregatedDiscoveryVersion } from "../engine/kube-version.js";
export type { PrinterColumn } from "../engine/resources.js";
export type { TokenAuthentication } from "../engine/serviceaccount/service-account-tokens.js";
export { type AdminHooks, createAdminHandler } from "./admin.js";
export {
  type APIGroupDiscovery,
  type APIGroupDiscoveryList,
  type APIResourceDiscovery,
  type APISubresourceDiscovery,
  type APIVersionDiscovery,
  aggregatedDiscovery,
  aggregatedDiscoveryETag,
  negotiateAggregatedDiscovery,
  type ResponseKind,
} from "./aggregated-discovery.js";
export type { AuthOptions, BearerTokenAuthenticator, UserInfo } from "./auth.js";
export { authenticate, authRequired, parseTokenEntry } from "./auth.js";
export type {
  ApiBackend,
  BackendRequestContext,
  CompletedRequest,
  DeletePreconditions,
} from "./backend.js";
export {
  type DecodedBody,
  decodeObject,
  decodeRequestBody,
  type ExpectedKind,
  inputParserFor,
  MAX_REQUEST_BODY_BYTES,
  readBody,
  SUPPORTED_INPUT_MEDIA_TYPES,
} from "./body.js";
export {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  compareKubeVersions,
  groupVersionString,
  type ServedSubresources,
  SIM_VERSION_INFO,
  simVersionInfo,
} from "./discovery.js";
export { EngineBackend } from "./engine-backend.js";
export type { HttpLogLine } from "./httplog.js";
export { type KubeconfigOptions, renderKubeconfig, writeKubeconfig } from "./kubeconfig.js";
export { negotiateOutput, type OutputMediaType } from "./negotiation.js";
export {
  buildOpenApiV2,
  buildOpenApiV3,
  type OpenApiV2,
  type OpenApiV3,
  openApiV2Doc,
  openApiV3GroupVersionDoc,
  openApiV3PathKey,
} from "./openapi.js";
export {
  decodeListOptions,
  type ListQuery,
  type ListQueryContext,
  listOptionsFromQuery,
  parseQueryBool,
  parseQueryInt64,
  type WriteQuery,
  writeOptionsFromQuery,
} from "./query.js";
export { parseRequestInfo, type RequestInfo } from "./request-info.js";
export { type HttpServerStats, handleResourceRequest, type ResourceHandlerConfig, verbOf } from "./resource-handler.js";
export {
  genericMethodNotAllowed,
  genericNotFound,
  orderedStatus,
  statusForError,
  writeApfTooManyRequests,
  writeJson,
  writeStatus,
} from "./responsewriters.js";
export { loadSeedFile, parseSeed } from "./seed.js";
export {
  type AdminHandler,
  type MetricsRenderer,
  SimHttpServer,
  type SimHttpServerOptions,
} from "./server.js";
export {
  asPartialObjectMetadata,
  configMapTablePrinter,
  customResourceTablePrinter,
  defaultTablePrinter,
  humanDuration,
  type IncludeObjectPolicy,
  listToTable,
  namespaceTablePrinter,
  objectToTable,
  type Table,
  type TableColumnDefinition,
  type TableOptions,
  type TablePrinter,
  type TableRow,
  tablePrinterFor,
} from "./table.js";
export { type CertKeyPair, type GeneratePkiOptions, generatePki, type SimPki } from "./tls.js";
export {
  serveWatch,
  type WatchServeOptions,
  type WatchStreamEndReason,
  type WatchStreamSource,
} from "./watch-server.js";
