import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import { type Authorizer, checkAuthorized } from "../engine/authorization/index.js";
import { servedFromOfError } from "../engine/cacher/index.js";
import type { PodLogOptions, PodLogResponse } from "../engine/containers/pod-log.js";
import type { HttpFault, HttpRequestDescriptor } from "../engine/filters/index.js";
import type { ResourceRequest, ResultOf } from "../engine/handlers/resource-request.js";
import { type AggregatedDiscoveryVersion, kubeVersionGates } from "../engine/kube-version.js";
import { type DeleteOptions, reviewUserOf } from "../engine/registry/index.js";
import { outcomeOfError } from "../engine/request-models.js";
import type { ServedResource } from "../engine/served-resource.js";
import type { TokenAuthentication } from "../engine/serviceaccount/service-account-tokens.js";
import type { SimApiServer } from "../engine/sim-apiserver.js";
import type { ApiBackend, BackendRequestContext, CompletedRequest } from "./backend.js";
import { simVersionInfo } from "./discovery.js";
import type { WatchStreamSource } from "./watch-server.js";

/**
 * The {@link ApiBackend} of the real simulator: every HTTP request goes to the engine's request API
 * ({@link SimApiServer.requests}), so HTTP and in-process callers get the same semantics. The request context is the
 * engine request as it is (who asks, the write parameters, the `/watch/` path flag, a cancellation signal the engine
 * reads only while a request waits on injected latency); the engine's typed answer is unwrapped here and its outcome
 * (served-from, deleted, created) written to the context. Request faults are decided by the engine's injector and
 * applied by the HTTP face; each finished request is recorded once in the engine's accounting, with its bytes.
 */
export class EngineBackend implements ApiBackend {
  /** The engine's name of each resource seen (see {@link key}). */
  private readonly keys = new WeakMap<ServedResource, string>();

  constructor(readonly engine: SimApiServer) {}

  authorizer(): Authorizer {
    return this.engine.authorizer;
  }

  /**
   * The engine's name of a served resource: `deployments.apps` for the preferred version of a group/resource (the
   * first registered), `<resource>.<version>.<group>` (kube's fully specified resource argument) for another served
   * version (`horizontalpodautoscalers.v1.autoscaling`).
   */
  private key(r: ServedResource): string {
    let k = this.keys.get(r);
    if (k === undefined) {
      const gr = groupResource(r);
      const preferred = this.engine.resources().find((x) => groupResource(x) === gr);
      k = preferred === undefined || preferred === r ? gr : `${r.resource}.${r.version}.${r.group}`;
      this.keys.set(r, k);
    }
    return k;
  }

  resources(): readonly ServedResource[] {
    return this.engine.resources();
  }

  list(r: ServedResource, namespace: string, opts: ListOptions, ctx: BackendRequestContext): Promise<KubeList> {
    return this.serve({ verb: "list", resource: this.key(r), namespace, options: opts, context: ctx });
  }

  get(
    r: ServedResource,
    namespace: string,
    name: string,
    opts: { readonly resourceVersion?: string },
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    return this.serve({ verb: "get", resource: this.key(r), namespace, name, options: opts, context: ctx });
  }

  create(r: ServedResource, namespace: string, obj: KubeObject, ctx: BackendRequestContext): Promise<KubeObject> {
    return this.serve({ verb: "create", resource: this.key(r), namespace, body: obj, context: ctx });
  }

  update(
    r: ServedResource,
    namespace: string,
    name: string,
    obj: KubeObject,
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    return this.serve({ verb: "update", resource: this.key(r), namespace, name, body: obj, context: ctx });
  }

  patch(
    r: ServedResource,
    namespace: string,
    name: string,
    patchType: string,
    body: string,
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    return this.serve({ verb: "patch", resource: this.key(r), namespace, name, patchType, body, context: ctx });
  }

  delete(
    r: ServedResource,
    namespace: string,
    name: string,
    options: DeleteOptions | undefined,
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    return this.serve({ verb: "delete", resource: this.key(r), namespace, name, deleteOptions: options, context: ctx });
  }

  deleteCollection(
    r: ServedResource,
    namespace: string,
    opts: ListOptions,
    options: DeleteOptions | undefined,
    ctx: BackendRequestContext,
  ): Promise<KubeList> {
    return this.serve({
      verb: "deletecollection",
      resource: this.key(r),
      namespace,
      options: opts,
      deleteOptions: options,
      context: ctx,
    });
  }

  watch(
    r: ServedResource,
    namespace: string,
    opts: ListOptions,
    ctx: BackendRequestContext,
  ): Promise<WatchStreamSource> {
    return this.serve({ verb: "watch", resource: this.key(r), namespace, options: opts, context: ctx });
  }

  /** `/version` of the release the engine reproduces (`kubeVersion`). */
  versionInfo(): Readonly<Record<string, string>> {
    return simVersionInfo(this.engine.kubeVersion);
  }

  /** The aggregated discovery versions of the release the engine reproduces. */
  aggregatedDiscoveryVersions(): readonly AggregatedDiscoveryVersion[] {
    return kubeVersionGates(this.engine.kubeVersion).aggregatedDiscovery;
  }

  faultFor(req: HttpRequestDescriptor): HttpFault | undefined {
    return this.engine.faults.faultFor(req);
  }

  authenticateToken(token: string): TokenAuthentication {
    return this.engine.authenticateServiceAccountToken(token);
  }

  serviceAccountIssuerDiscovery(baseUrl: string): ReturnType<SimApiServer["serviceAccountIssuerDiscovery"]> {
    return this.engine.serviceAccountIssuerDiscovery(baseUrl);
  }

  recordRequest(rec: CompletedRequest): void {
    this.engine.accounting.record(rec);
  }

  /** `pods/log`: authorized as a `get` of the subresource, then the container's output from the engine. */
  async podLog(
    namespace: string,
    name: string,
    options: PodLogOptions,
    ctx: BackendRequestContext,
  ): Promise<PodLogResponse> {
    const authorizer = this.engine.authorizer;
    if (authorizer.mode !== "AlwaysAllow") {
      checkAuthorized(authorizer, {
        user: reviewUserOf(ctx.user, ctx.groups ?? []),
        resourceRequest: true,
        verb: "get",
        apiGroup: "",
        resource: "pods",
        subresource: "log",
        namespace,
        name,
      });
    }
    return this.engine.podLog(namespace, name, options);
  }

  /**
   * Serves one request object through the engine ({@link EngineRequests.serve}) and unwraps the answer, writing its
   * outcome (or, for a failed read, where it was answered) to the request's context.
   */
  private async serve<R extends ResourceRequest & { readonly context: BackendRequestContext }>(
    request: R,
  ): Promise<ResultOf<R>> {
    const ctx = request.context;
    try {
      const res = await this.engine.requests.serve(request);
      if (res.servedFrom !== undefined) ctx.servedFrom = res.servedFrom;
      if (res.deleted !== undefined) ctx.deleted = res.deleted;
      if (res.created !== undefined) ctx.created = res.created;
      if (res.outcome !== undefined) ctx.outcome = res.outcome;
      return res.object;
    } catch (err) {
      const from = servedFromOfError(err);
      if (from !== undefined) ctx.servedFrom = from;
      const outcome = outcomeOfError(err);
      if (outcome !== undefined) ctx.outcome = outcome;
      throw err;
    }
  }
}

function groupResource(r: ServedResource): string {
  return r.group === "" ? r.resource : `${r.resource}.${r.group}`;
}
