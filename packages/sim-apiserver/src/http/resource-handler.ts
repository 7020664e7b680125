import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type FieldError,
  type KubeList,
  type KubeObject,
  newBadRequest,
  newInvalid,
  type Status,
} from "@informer-ts/apimachinery";
import { duplicateJsonFields } from "../engine/admission/index.js";
import { checkAuthorized } from "../engine/authorization/index.js";
import { podLogOptionsFromQuery } from "../engine/containers/pod-log.js";
import type { HttpFault } from "../engine/filters/index.js";
import { type DeleteOptions, FIELD_MANAGER_MAX_LENGTH, reviewUserOf } from "../engine/registry/index.js";
import type { PrinterColumn } from "../engine/resources.js";
import type { ServedResource } from "../engine/served-resource.js";
import type { ApiBackend, BackendRequestContext } from "./backend.js";
import { decodeRequestBody, inputParserFor, readBody } from "./body.js";
import { negotiateOutput, newNotAcceptable, type OutputMediaType } from "./negotiation.js";
import { listOptionsFromQuery, parseQueryBool, parseQueryInt64, writeOptionsFromQuery } from "./query.js";
import type { RequestInfo } from "./request-info.js";
import type { RequestMetrics } from "./request-metrics.js";
import { genericMethodNotAllowed, genericNotFound, writeJson, writeJsonList, writeStatus } from "./responsewriters.js";
import {
  asPartialObjectMetadata,
  type IncludeObjectPolicy,
  listToTable,
  objectToTable,
  tablePrinterFor,
} from "./table.js";
import { pumpWatch, type WatchServeOptions, type WatchStreamEndReason } from "./watch-server.js";

/** Live counters of the HTTP face (read them from `SimHttpServer.stats`). */
export interface HttpServerStats {
  /** Watch responses currently streaming. */
  openWatches: number;
  /** Watch responses currently waiting for the client to drain the socket. */
  blockedWatches: number;
  /** Times any watch writer had to wait for `drain`. */
  backpressureWaits: number;
  /** Watch events written, and their bytes. */
  watchEvents: number;
  watchBytes: number;
  /**
   * Finished requests whose accounting (metrics, audit, the backend's request record) or httplog line threw. Each
   * such request is also logged once, at `error`, with its request line (see `SimHttpServerOptions.logger`).
   */
  finishErrors: number;
}

/** Settings of the resource handlers (a slice of the server's options). */
export interface ResourceHandlerConfig {
  readonly backend: ApiBackend;
  readonly maxRequestBodyBytes: number;
  readonly now: () => number;
  /** Called when a watch response ends, with the request's context. */
  readonly onWatchEnd?: (reason: WatchStreamEndReason, ctx: BackendRequestContext) => void;
  /** Watch stream statistics sink. */
  readonly stats?: HttpServerStats;
  /** `apiserver_longrunning_requests` bookkeeping. */
  readonly requestMetrics?: RequestMetrics;
}

/** The Kubernetes verb of a resource request, as `RequestInfo.Verb` would name it. */
export function verbOf(method: string, info: RequestInfo, watchParam: boolean): string {
  if (info.legacyWatch) return "watch";
  const collection = info.name === "";
  switch (method) {
    case "GET":
    case "HEAD":
      return collection ? (watchParam ? "watch" : "list") : "get";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return collection ? "deletecollection" : "delete";
    default:
      return "";
  }
}

function includeObjectOf(query: URLSearchParams): IncludeObjectPolicy | undefined {
  const v = query.get("includeObject");
  if (v === null || v === "") return undefined;
  if (v === "None" || v === "Metadata" || v === "Object") return v;
  throw newBadRequest(`unrecognized includeObject value: ${JSON.stringify(v)}`);
}

/** Responses for single objects always carry `kind`/`apiVersion` (items of built-in lists do not). */
function withTypeMeta(obj: KubeObject, r: ServedResource): KubeObject {
  if (typeof obj.kind === "string" && typeof obj.apiVersion === "string") return obj;
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return { kind: r.kind, apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`, ...rest };
}

const SCALE_KIND = { group: "autoscaling", version: "v1", kind: "Scale" } as const;

/** A custom resource version's `additionalPrinterColumns` (`SimResource.printerColumns`), if it declares some. */
function printerColumnsOf(r: ServedResource): readonly PrinterColumn[] | undefined {
  return (r as { printerColumns?: readonly PrinterColumn[] }).printerColumns;
}

function isCustom(r: ServedResource): boolean {
  return (r as { custom?: boolean }).custom === true;
}

/** The Go type kube-apiserver names in transform errors: `*v1.ConfigMapList`, `*unstructured.Unstructured`. */
function goTypeName(r: ServedResource, list: boolean): string {
  if (isCustom(r)) return list ? "*unstructured.UnstructuredList" : "*unstructured.Unstructured";
  return `*${r.version}.${r.kind}${list ? "List" : ""}`;
}

function transformObject(
  raw: KubeObject,
  r: ServedResource,
  out: OutputMediaType,
  query: URLSearchParams,
  now: number,
): unknown {
  const obj = withTypeMeta(raw, r);
  if (out.kind === "table") {
    const includeObject = includeObjectOf(query);
    return objectToTable(obj, tablePrinterFor(r.group, r.resource, isCustom(r), printerColumnsOf(r)), {
      apiVersion: out.apiVersion,
      ...(includeObject !== undefined && { includeObject }),
      now,
    });
  }
  if (out.kind === "partial") {
    if (out.list) {
      throw newNotAcceptable(
        `you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(r, false)})`,
      );
    }
    return asPartialObjectMetadata(obj, out.apiVersion);
  }
  return obj;
}

function transformList(
  list: KubeList,
  r: ServedResource,
  out: OutputMediaType,
  query: URLSearchParams,
  now: number,
): unknown {
  if (out.kind === "table") {
    const includeObject = includeObjectOf(query);
    // A row's full object is encoded on its own, so it carries kind/apiVersion (kubectl's --sort-by decodes it and
    // prints nothing useful without them), though items of a built-in list do not.
    const rows = includeObject === "Object" ? { ...list, items: list.items.map((o) => withTypeMeta(o, r)) } : list;
    return listToTable(rows, tablePrinterFor(r.group, r.resource, isCustom(r), printerColumnsOf(r)), {
      apiVersion: out.apiVersion,
      ...(includeObject !== undefined && { includeObject }),
      now,
    });
  }
  if (out.kind === "partial") {
    if (!out.list) {
      throw newNotAcceptable(
        `you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(r, true)})`,
      );
    }
    return {
      kind: "PartialObjectMetadataList",
      apiVersion: out.apiVersion,
      metadata: list.metadata,
      items: list.items.map((o) => asPartialObjectMetadata(o, out.apiVersion)),
    };
  }
  return list;
}

function metaOf(obj: KubeObject): Record<string, unknown> {
  if (typeof obj.metadata !== "object" || obj.metadata === null) obj.metadata = {};
  return obj.metadata as Record<string, unknown>;
}

/** `rest.EnsureObjectNamespaceMatchesRequestNamespace`: fills an empty namespace, rejects a different one. */
function ensureNamespace(obj: KubeObject, r: ServedResource, namespace: string): void {
  const meta = metaOf(obj);
  const objNs = typeof meta.namespace === "string" ? meta.namespace : "";
  if (!r.namespaced) {
    if (objNs !== "") delete meta.namespace;
    return;
  }
  if (objNs === "") meta.namespace = namespace;
  else if (objNs !== namespace) {
    throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
}

function successStatus(r: ServedResource, obj: KubeObject): Status {
  const meta = obj.metadata ?? {};
  const details: NonNullable<Status["details"]> = { name: meta.name ?? "" };
  if (r.group !== "") details.group = r.group;
  details.kind = r.resource;
  if (meta.uid !== undefined) details.uid = meta.uid;
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
}

/**
 * The authorization filter for a request no route serves: its attributes from the request info alone (the verb from
 * the method, the resource as the path names it), then the authorizer's 403 unless it allows them.
 */
function authorizeUnrouted(
  backend: ApiBackend,
  method: string,
  info: RequestInfo,
  query: URLSearchParams,
  ctx: BackendRequestContext,
): void {
  const authorizer = backend.authorizer?.();
  if (authorizer === undefined || authorizer.mode === "AlwaysAllow") return;
  checkAuthorized(authorizer, {
    user: reviewUserOf(ctx.user, ctx.groups ?? []),
    resourceRequest: true,
    verb: verbOf(method.toUpperCase(), info, parseQueryBool(query.get("watch"))) || method.toLowerCase(),
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  });
}

/**
 * Serves one resource request (`/api/...`, `/apis/...`) against the backend: routing by method and path shape, query
 * decoding, body decoding, output negotiation and watch streaming. Writes exactly one response (or one stream); every
 * error becomes a Status response.
 */
export async function handleResourceRequest(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
  fault: HttpFault | undefined,
): Promise<void> {
  const backend = cfg.backend;
  const method = (req.method ?? "GET").toUpperCase();
  // kube-apiserver authorizes before go-restful routes: a user who may not make the request gets its 403 even where
  // the route would be a 404 or a 405. The engine authorizes the requests that are routed.
  const unrouted = (err: Error): Error => {
    authorizeUnrouted(backend, req.method ?? "GET", info, query, ctx);
    return err;
  };
  const r = backend
    .resources()
    .find((x) => x.group === info.apiGroup && x.version === info.apiVersion && x.resource === info.resource);
  // `/api/v1/namespaces/<ns>` addresses the namespace object itself; its "namespace" is not a scope.
  const namespace = r?.resource === "namespaces" && info.parts.length <= 3 ? "" : info.namespace;
  // Subresources: `/status` of resources that declare it (GET, PUT, PATCH); any other is a route that does not exist.
  const sub = info.subresource;
  if (r === undefined || info.parts.length > 3) throw unrouted(genericNotFound());
  const subs = r.subresources ?? [];
  const finalize = sub === "finalize" && r.group === "" && r.resource === "namespaces";
  const binding = sub === "binding" && r.group === "" && r.resource === "pods";
  const eviction = sub === "eviction" && r.group === "" && r.resource === "pods";
  const log = sub === "log" && r.group === "" && r.resource === "pods" && backend.podLog !== undefined;
  const token = sub === "token" && r.group === "" && r.resource === "serviceaccounts";
  if (
    sub !== "" &&
    !binding &&
    !eviction &&
    !log &&
    !token &&
    !(((sub === "status" || sub === "scale" || sub === "approval") && subs.includes(sub)) || finalize)
  )
    throw unrouted(genericNotFound());
  // `namespaces/finalize` serves PUT only (the FinalizeREST is an updater).
  if (finalize && method !== "PUT") throw unrouted(genericMethodNotAllowed());
  if (sub !== "") ctx.subresource = sub;
  if (!r.namespaced && namespace !== "") throw unrouted(genericNotFound());
  const collection = info.name === "";
  if (r.namespaced && namespace === "" && !collection) throw unrouted(genericNotFound());

  // A verb the resource does not serve (a review's GET, a namespace's deletecollection) has no route: 405.
  const verb = verbOf(method, info, parseQueryBool(query.get("watch")));
  if (verb !== "" && !r.verbs.includes(verb)) throw unrouted(genericMethodNotAllowed());
  // A deprecated custom resource version: every request to it is answered with its Warning (crdHandler's ServeHTTP).
  const deprecation = (r as { deprecationWarning?: string }).deprecationWarning;
  if (deprecation !== undefined) setWarnings(res, [deprecation]);
  if (info.legacyWatch) {
    if (method !== "GET") throw unrouted(genericMethodNotAllowed());
    return listOrWatch(res, r, namespace, info, query, ctx, cfg, true, fault, req.headers.accept);
  }
  if (collection) {
    if (method === "GET")
      return listOrWatch(res, r, namespace, info, query, ctx, cfg, false, fault, req.headers.accept);
    if (method === "POST" && (namespace !== "" || !r.namespaced))
      return create(req, res, r, namespace, query, ctx, cfg);
    // Namespaces serve no deletecollection: go-restful's generic 405, as upstream.
    const noCollectionDelete = r.group === "" && r.resource === "namespaces";
    if (method === "DELETE" && !noCollectionDelete && (namespace !== "" || !r.namespaced) && backend.deleteCollection)
      return removeCollection(req, res, r, namespace, info, query, ctx, cfg);
    throw unrouted(genericMethodNotAllowed());
  }
  if (binding || eviction || token) {
    if (method !== "POST") throw unrouted(genericMethodNotAllowed());
    const kind = binding
      ? { group: "", version: "v1", kind: "Binding" }
      : eviction
        ? { group: "policy", version: "v1", kind: "Eviction", alsoAccepts: ["policy/v1beta1"] }
        : { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" };
    return createOnSubresource(req, res, r, namespace, info.name, query, ctx, cfg, kind);
  }
  if (log) {
    if (method !== "GET") throw unrouted(genericMethodNotAllowed());
    return servePodLog(req, res, namespace, info.name, query, ctx, cfg);
  }
  if (sub !== "" && method !== "GET" && method !== "PUT" && method !== "PATCH")
    throw unrouted(genericMethodNotAllowed());
  switch (method) {
    case "GET": {
      const out = negotiateOutput(req.headers.accept, isCustom(r));
      const rv = query.get("resourceVersion") ?? "";
      const obj = await backend.get(r, namespace, info.name, rv === "" ? {} : { resourceVersion: rv }, ctx);
      writeJson(res, 200, transformObject(obj, r, out, query, cfg.now()));
      return;
    }
    case "PUT":
      return update(req, res, r, namespace, info.name, query, ctx, cfg);
    case "PATCH":
      return patch(req, res, r, namespace, info.name, query, ctx, cfg);
    case "DELETE":
      return remove(req, res, r, namespace, info.name, query, ctx, cfg);
    default:
      throw unrouted(genericMethodNotAllowed());
  }
}

async function listOrWatch(
  res: ServerResponse,
  r: ServedResource,
  namespace: string,
  info: RequestInfo,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
  forceWatch: boolean,
  fault: HttpFault | undefined,
  accept: string | undefined,
): Promise<void> {
  const output = negotiateOutput(accept, isCustom(r));
  // Only decoding here: the backend defaults and validates the options and picks the default watch timeout.
  const lq = listOptionsFromQuery(query, info.name !== "" ? { name: info.name } : {});
  if (!(lq.watch || forceWatch)) {
    const list = await cfg.backend.list(r, namespace, lq.options, ctx);
    await writeJsonList(res, transformList(list, r, output, query, cfg.now()) as Record<string, unknown>);
    return;
  }
  const includeObject = includeObjectOf(query);
  // A `/watch/` path without `watch=true`: the backend validates the options as a list's (no WatchList defaulting).
  if (!lq.watch) ctx.legacyWatchPath = true;
  const source = await cfg.backend.watch(r, namespace, lq.options, ctx);
  ctx.onAbort = () => source.stop();
  const stats = cfg.stats;
  if (stats !== undefined) stats.openWatches++;
  cfg.requestMetrics?.watchStarted(r.resource);
  let done = false;
  const ended = (reason: WatchStreamEndReason) => {
    if (done) return;
    done = true;
    try {
      cfg.requestMetrics?.watchEnded(r.resource);
      if (stats !== undefined) stats.openWatches--;
      cfg.onWatchEnd?.(reason, ctx);
    } catch {
      // onWatchEnd or a metrics hook threw: the watch is over either way.
    }
  };
  // Not awaited, and no promise: the request's async frames complete now, and only the pump's callbacks stay alive
  // per watch. A failure of the writer itself (a bug) ends the watch as a write error and frees the source.
  try {
    pumpWatch(
      res,
      source,
      {
        output,
        printer: tablePrinterFor(r.group, r.resource, isCustom(r), printerColumnsOf(r)),
        ...(includeObject !== undefined && { includeObject }),
        now: cfg.now,
        ...(fault?.type === "truncate-watch" && { truncateAfterEvents: fault.afterEvents }),
        ...(stats !== undefined && statsHooks(stats)),
      },
      ended,
    );
  } catch (error) {
    source.stop();
    if (!res.destroyed) res.destroy(error instanceof Error ? error : new Error(String(error)));
    ended("write-error");
  }
}

/** The watch counters' hooks of one stats object, made once and shared by all its watches. */
function statsHooks(stats: HttpServerStats): Pick<WatchServeOptions, "onEvent" | "onBlocked"> {
  let hooks = statsHooksOf.get(stats);
  if (hooks === undefined) {
    hooks = {
      onEvent: (_e, bytes) => {
        stats.watchEvents++;
        stats.watchBytes += bytes;
      },
      onBlocked: (b) => {
        stats.blockedWatches += b ? 1 : -1;
        if (b) stats.backpressureWaits++;
      },
    };
    statsHooksOf.set(stats, hooks);
  }
  return hooks;
}

const statsHooksOf = new WeakMap<HttpServerStats, Pick<WatchServeOptions, "onEvent" | "onBlocked">>();

async function create(
  req: IncomingMessage,
  res: ServerResponse,
  r: ServedResource,
  namespace: string,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
): Promise<void> {
  // The review kinds have no table convertor: a Table is not acceptable (upstream's AllowsMediaTypeTransform).
  const review = (r as { review?: boolean }).review === true;
  const out = negotiateOutput(req.headers.accept, isCustom(r), !review);
  const body = await readBody(req, cfg.maxRequestBodyBytes);
  const { object: obj, warnings } = decodeRequestBody(body, req.headers["content-type"], r);
  ensureNamespace(obj, r, namespace);
  const w = writeOptionsFromQuery(query);
  const wctx = withWrite(ctx, w, jsonDuplicates(body, req.headers["content-type"]));
  const created = await cfg.backend.create(r, namespace, obj, wctx);
  setWarnings(res, [...warnings, ...(wctx.warnings ?? [])]);
  writeJson(res, 201, transformObject(created, r, out, query, cfg.now()));
}

/**
 * `GET pods/<name>/log`: the log as `text/plain`; with `follow` on a running container the response stays open
 * (chunked) until the container ends or the client goes away.
 */
async function servePodLog(
  req: IncomingMessage,
  res: ServerResponse,
  namespace: string,
  name: string,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
): Promise<void> {
  const answer = await cfg.backend.podLog!(namespace, name, podLogOptionsFromQuery(query), ctx);
  res.statusCode = 200;
  res.setHeader("Content-Type", "text/plain");
  if (answer.follow === undefined) {
    res.setHeader("Content-Length", Buffer.byteLength(answer.text));
    res.end(answer.text);
    return;
  }
  res.setHeader("Transfer-Encoding", "chunked");
  if (answer.text !== "") res.write(answer.text);
  else res.flushHeaders();
  const gone = new AbortController();
  const onClose = () => gone.abort();
  req.once("close", onClose);
  res.once("close", onClose);
  try {
    await answer.follow(gone.signal);
  } finally {
    req.off("close", onClose);
    res.off("close", onClose);
  }
  if (!res.writableEnded) res.end();
}

/**
 * A POST to a create subresource whose body is its own kind: `pods/<name>/binding` (a Binding: `BindingREST.Create`,
 * the engine sets the pod's node, see `bindPod`), `pods/<name>/eviction` (a policy/v1 or v1beta1 Eviction) and
 * `serviceaccounts/<name>/token` (a TokenRequest). The object is named after the URL.
 */
async function createOnSubresource(
  req: IncomingMessage,
  res: ServerResponse,
  r: ServedResource,
  namespace: string,
  name: string,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
  kind: { readonly group: string; readonly version: string; readonly kind: string },
): Promise<void> {
  const body = await readBody(req, cfg.maxRequestBodyBytes);
  const { object: obj } = decodeRequestBody(body, req.headers["content-type"], kind);
  const objNs = obj.metadata?.namespace;
  if (objNs !== undefined && objNs !== "" && objNs !== namespace) {
    throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  const objName = obj.metadata?.name;
  if (objName !== undefined && objName !== "" && objName !== name) {
    throw newBadRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  }
  const w = writeOptionsFromQuery(query);
  const status = await cfg.backend.create(
    r,
    namespace,
    { ...obj, metadata: { ...obj.metadata, name, namespace } },
    withWrite(ctx, w),
  );
  writeJson(res, 201, status);
}

/** kube-apiserver's warning headers: `Warning: 299 - "<text>"`, one per warning (kubectl prints each), added to any set before. */
function setWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  const had = res.getHeader("Warning");
  const before = had === undefined ? [] : Array.isArray(had) ? had : [String(had)];
  res.setHeader("Warning", [...before, ...warnings.map((w) => `299 - ${JSON.stringify(w)}`)]);
}

/** Duplicate fields of a JSON body (`JSON.parse` keeps the last value; strict field validation reports them). */
function jsonDuplicates(body: Buffer | string, contentType: string | undefined): readonly string[] {
  const t = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (t !== "" && !t.endsWith("json")) return [];
  return duplicateJsonFields(typeof body === "string" ? body : body.toString("utf8"));
}

function withWrite(
  ctx: BackendRequestContext,
  w: ReturnType<typeof writeOptionsFromQuery>,
  duplicateFields: readonly string[] = [],
): BackendRequestContext {
  return {
    ...ctx,
    dryRun: w.dryRun,
    ...(w.fieldManager !== undefined && { fieldManager: w.fieldManager }),
    ...(w.force !== undefined && { force: w.force }),
    ...(w.fieldValidation !== undefined && { fieldValidation: w.fieldValidation }),
    ...(duplicateFields.length > 0 && { duplicateFields }),
    warnings: [],
  };
}

async function update(
  req: IncomingMessage,
  res: ServerResponse,
  r: ServedResource,
  namespace: string,
  name: string,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
): Promise<void> {
  const out = negotiateOutput(req.headers.accept, isCustom(r));
  const body = await readBody(req, cfg.maxRequestBodyBytes);
  // `/scale` takes an autoscaling/v1 Scale.
  const expected = ctx.subresource === "scale" ? SCALE_KIND : r;
  const { object: obj, warnings } = decodeRequestBody(body, req.headers["content-type"], expected);
  const meta = metaOf(obj);
  const objName = typeof meta.name === "string" ? meta.name : "";
  if (objName === "") meta.name = name;
  else if (objName !== name) {
    throw newBadRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  }
  ensureNamespace(obj, r, namespace);
  const w = writeOptionsFromQuery(query);
  const wctx = withWrite(ctx, w, jsonDuplicates(body, req.headers["content-type"]));
  const updated = await cfg.backend.update(r, namespace, name, obj, wctx);
  setWarnings(res, [...warnings, ...(wctx.warnings ?? [])]);
  writeJson(res, 200, transformObject(updated, r, out, query, cfg.now()));
}

async function patch(
  req: IncomingMessage,
  res: ServerResponse,
  r: ServedResource,
  namespace: string,
  name: string,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
): Promise<void> {
  const out = negotiateOutput(req.headers.accept, isCustom(r));
  const text = (await readBody(req, cfg.maxRequestBodyBytes)).toString("utf8");
  const w = writeOptionsFromQuery(query);
  const contentType = req.headers["content-type"] ?? "";
  // ValidatePatchOptions' query-level rules (the registry checks the patch type (415) and the apply field manager).
  const isApply = contentType.split(";")[0]!.trim().toLowerCase() === "application/apply-patch+yaml";
  const errs: FieldError[] = [];
  if (!isApply && query.get("force") !== null) {
    errs.push({ type: "FieldValueForbidden", field: "force", detail: "may not be specified for non-apply patch" });
  }
  if (Buffer.byteLength(w.fieldManager ?? "") > FIELD_MANAGER_MAX_LENGTH) {
    errs.push({
      type: "FieldValueTooLong",
      field: "fieldManager",
      detail: `may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
    });
  }
  if (errs.length > 0) throw newInvalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", errs);
  // The registry decodes, applies and retries (engine/registry/store.ts); an apply may create (201).
  const isJsonPatch = contentType.split(";")[0]!.trim().toLowerCase() === "application/json-patch+json";
  const wctx = withWrite(ctx, w, isApply || isJsonPatch ? [] : jsonDuplicates(text, "application/json"));
  const result = await cfg.backend.patch(r, namespace, name, contentType, text, wctx);
  setWarnings(res, wctx.warnings ?? []);
  writeJson(res, wctx.created === true ? 201 : 200, transformObject(result, r, out, query, cfg.now()));
}

/** `DeleteOptions` from the body (JSON or YAML) and the query (`propagationPolicy`, `gracePeriodSeconds`, …). */
function deleteOptionsOf(body: Buffer, contentType: string | undefined, query: URLSearchParams): DeleteOptions {
  let fromBody: Record<string, unknown> = {};
  if (body.length > 0) {
    const parse = inputParserFor(contentType);
    let v: unknown;
    try {
      v = parse(body.toString("utf8"));
    } catch (err) {
      throw newBadRequest(
        `the object provided is unrecognized (must be of type DeleteOptions): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (typeof v === "object" && v !== null && !Array.isArray(v)) fromBody = v as Record<string, unknown>;
  }
  const out: {
    -readonly [K in keyof DeleteOptions]: DeleteOptions[K];
  } = {};
  const p = fromBody.preconditions;
  if (typeof p === "object" && p !== null) {
    const { uid, resourceVersion } = p as { uid?: unknown; resourceVersion?: unknown };
    out.preconditions = {
      ...(typeof uid === "string" && { uid }),
      ...(typeof resourceVersion === "string" && { resourceVersion }),
    };
  }
  const policy = query.get("propagationPolicy") ?? fromBody.propagationPolicy;
  if (typeof policy === "string" && policy !== "") out.propagationPolicy = policy;
  const orphan = query.get("orphanDependents");
  if (orphan !== null) out.orphanDependents = parseQueryBool(orphan);
  else if (typeof fromBody.orphanDependents === "boolean") out.orphanDependents = fromBody.orphanDependents;
  const grace = query.get("gracePeriodSeconds");
  if (grace !== null) out.gracePeriodSeconds = Number(parseQueryInt64(grace));
  else if (typeof fromBody.gracePeriodSeconds === "number") out.gracePeriodSeconds = fromBody.gracePeriodSeconds;
  const dry = query.getAll("dryRun").length > 0 || (Array.isArray(fromBody.dryRun) && fromBody.dryRun.length > 0);
  if (dry) out.dryRun = true;
  return out;
}

async function remove(
  req: IncomingMessage,
  res: ServerResponse,
  r: ServedResource,
  namespace: string,
  name: string,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
): Promise<void> {
  const body = await readBody(req, cfg.maxRequestBodyBytes);
  const options = deleteOptionsOf(body, req.headers["content-type"], query);
  const deleted = await cfg.backend.delete(r, namespace, name, options, ctx);
  if (ctx.deleted === false) {
    // Finalizers keep the object: the answer is the object with its deletionTimestamp (202 only when the caller
    // asked for cascading through the deprecated orphanDependents=false, as upstream).
    writeJson(res, options.orphanDependents === false ? 202 : 200, withTypeMeta(deleted, r));
    return;
  }
  if (r.returnDeletedObject === true) {
    writeJson(res, 200, withTypeMeta(deleted, r));
    return;
  }
  writeJson(res, 200, successStatus(r, deleted));
}

/**
 * DELETE on a collection (`DeleteCollection` handler): list options from the query, `DeleteOptions` from the body
 * (and `dryRun`/`propagationPolicy`/`gracePeriodSeconds` from the query), answered with the list of the objects
 * selected (their state before the deletes), as upstream's store returns it.
 */
async function removeCollection(
  req: IncomingMessage,
  res: ServerResponse,
  r: ServedResource,
  namespace: string,
  info: RequestInfo,
  query: URLSearchParams,
  ctx: BackendRequestContext,
  cfg: ResourceHandlerConfig,
): Promise<void> {
  const output = negotiateOutput(req.headers.accept, isCustom(r));
  const body = await readBody(req, cfg.maxRequestBodyBytes);
  const options = deleteOptionsOf(body, req.headers["content-type"], query);
  const lq = listOptionsFromQuery(query, info.name !== "" ? { name: info.name } : {});
  const backend = cfg.backend;
  if (backend.deleteCollection === undefined) throw genericMethodNotAllowed();
  const list = await backend.deleteCollection(r, namespace, lq.options, options, ctx);
  await writeJsonList(res, transformList(list, r, output, query, cfg.now()) as Record<string, unknown>);
}

export { writeStatus };
