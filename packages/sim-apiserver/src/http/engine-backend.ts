import type { KubeList, KubeObject, ListOptions } from "@informer-ts/apimachinery";
import type { HttpFault, HttpRequestDescriptor } from "../engine/http-faults.js";
import type { DeleteOptions } from "../engine/registry/delete-options.js";
import type { ServedResource } from "../engine/served-resource.js";
import type { RequestContext, SimApiServer } from "../engine/sim-apiserver.js";
import type { ApiBackend, BackendRequestContext, CompletedRequest } from "./backend.js";
import type { WatchSource } from "./watch-server.js";

/**
 * The {@link ApiBackend} of the real simulator: every HTTP request goes to the {@link SimApiServer} engine, so HTTP
 * and in-process callers get the same semantics. Request faults are decided by the engine's injector and applied by
 * the HTTP face; each finished request is recorded once in the engine's accounting, with its bytes and where it was
 * served from.
 */
export class EngineBackend implements ApiBackend {
  constructor(readonly engine: SimApiServer) {}

  resources(): readonly ServedResource[] {
    return this.engine.resources();
  }

  list(r: ServedResource, namespace: string, opts: ListOptions, ctx: BackendRequestContext): Promise<KubeList> {
    return this.engine.list(key(r), namespace, opts, ctx as RequestContext, false);
  }

  get(
    r: ServedResource,
    namespace: string,
    name: string,
    opts: { readonly resourceVersion?: string },
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    return this.engine.get(key(r), namespace, name, opts, ctx as RequestContext, false);
  }

  create(r: ServedResource, namespace: string, obj: KubeObject, ctx: BackendRequestContext): Promise<KubeObject> {
    return this.engine.create(key(r), namespace, obj, ctx as RequestContext, false);
  }

  update(
    r: ServedResource,
    namespace: string,
    name: string,
    obj: KubeObject,
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    return this.engine.update(key(r), namespace, name, obj, ctx as RequestContext, false);
  }

  patch(
    r: ServedResource,
    namespace: string,
    name: string,
    patchType: string,
    body: string,
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    return this.engine.patch(key(r), namespace, name, patchType, body, ctx as RequestContext, false);
  }

  delete(
    r: ServedResource,
    namespace: string,
    name: string,
    options: DeleteOptions | undefined,
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    return this.engine.delete(key(r), namespace, name, options, ctx as RequestContext, false);
  }

  deleteCollection(
    r: ServedResource,
    namespace: string,
    opts: ListOptions,
    options: DeleteOptions | undefined,
    ctx: BackendRequestContext,
  ): Promise<KubeList> {
    return this.engine.deleteCollection(key(r), namespace, opts, options, ctx as RequestContext, false);
  }

  watch(r: ServedResource, namespace: string, opts: ListOptions, ctx: BackendRequestContext): Promise<WatchSource> {
    return this.engine.watch(key(r), namespace, opts, ctx as RequestContext, false);
  }

  faultFor(req: HttpRequestDescriptor): HttpFault | undefined {
    return this.engine.faultFor(req);
  }

  recordRequest(rec: CompletedRequest): void {
    this.engine.accounting.record(rec);
  }
}

function key(r: ServedResource): string {
  return r.group === "" ? r.resource : `${r.resource}.${r.group}`;
}
