// An ObjectClient straight onto the in-process SimApiServer engine (no HTTP): the controller package's writes with the
// engine's registry semantics (409 on a stale resourceVersion, 404, finalizers and deletionTimestamp, patch types,
// request faults) and no sockets, so a whole cluster runs under one FakeClock.
import type { KubeObject, Status } from "@informer-ts/apimachinery";
import type { DeleteCallOptions, PatchOptions, ResourceDescriptor } from "@informer-ts/client";
import type { ObjectClient } from "@informer-ts/controller";
import type { SimApiServer } from "@informer-ts/sim-apiserver";

const PATCH_CONTENT_TYPES: Record<string, string> = {
  merge: "application/merge-patch+json",
  "strategic-merge": "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
};

/** The engine's name of a resource: `configmaps`, `leases.coordination.k8s.io`. */
export function ref(r: ResourceDescriptor): string {
  return r.group === "" ? r.resource : `${r.resource}.${r.group}`;
}

export class EngineClient implements ObjectClient {
  constructor(
    private readonly engine: SimApiServer,
    private readonly userAgent = "controller-test",
  ) {}

  get(r: ResourceDescriptor, name: string, o: { namespace?: string } = {}, signal?: AbortSignal): Promise<KubeObject> {
    return this.engine.get(ref(r), o.namespace ?? "", name, {}, this.ctx(signal));
  }

  create(
    r: ResourceDescriptor,
    obj: KubeObject,
    o: { namespace?: string } = {},
    signal?: AbortSignal,
  ): Promise<KubeObject> {
    return this.engine.create(ref(r), o.namespace ?? obj.metadata?.namespace ?? "", obj, this.ctx(signal));
  }

  update(
    r: ResourceDescriptor,
    obj: KubeObject,
    o: { namespace?: string } = {},
    signal?: AbortSignal,
  ): Promise<KubeObject> {
    const ns = o.namespace ?? obj.metadata?.namespace ?? "";
    return this.engine.update(ref(r), ns, obj.metadata?.name ?? "", obj, this.ctx(signal));
  }

  patch(
    r: ResourceDescriptor,
    name: string,
    patch: unknown,
    o: PatchOptions = {},
    signal?: AbortSignal,
  ): Promise<KubeObject> {
    const type = PATCH_CONTENT_TYPES[o.patchType ?? "merge"]!;
    const body = typeof patch === "string" ? patch : JSON.stringify(patch);
    return this.engine.patch(ref(r), o.namespace ?? "", name, type, body, this.ctx(signal));
  }

  delete(
    r: ResourceDescriptor,
    name: string,
    o: DeleteCallOptions = {},
    signal?: AbortSignal,
  ): Promise<KubeObject | Status> {
    const { namespace, ...rest } = o;
    return this.engine.delete(ref(r), namespace ?? "", name, rest as never, this.ctx(signal));
  }

  private ctx(signal?: AbortSignal) {
    return { userAgent: this.userAgent, ...(signal !== undefined && { signal }) };
  }
}
