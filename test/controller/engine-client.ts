// An ObjectClient straight onto the in-process SimApiServer engine (no HTTP): what the controller package's writes
// need, with the engine's own semantics (409 on a stale resourceVersion, 404, request faults). The engine has no
// PATCH verb in-process, so a patch is read + the simulator's own JSON merge / JSON patch + update guarded by the
// resourceVersion that was read (a concurrent write in between is a 409, as kube-apiserver's GuaranteedUpdate would
// retry it; callers here retry on conflict themselves).
import type { KubeObject, Status } from "@informer-ts/apimachinery";
import type { ResourceDescriptor } from "@informer-ts/client";
import type { ObjectClient } from "@informer-ts/controller";
import { jsonPatch, mergePatch, type SimApiServer } from "@informer-ts/sim-apiserver";

export class EngineClient implements ObjectClient {
  constructor(private readonly engine: SimApiServer) {}

  get(r: ResourceDescriptor, name: string, o: { namespace?: string } = {}): Promise<KubeObject> {
    return this.engine.get(r.resource, o.namespace ?? "", name);
  }

  create(r: ResourceDescriptor, obj: KubeObject, o: { namespace?: string } = {}): Promise<KubeObject> {
    return this.engine.create(r.resource, o.namespace ?? obj.metadata?.namespace ?? "", obj);
  }

  update(r: ResourceDescriptor, obj: KubeObject, o: { namespace?: string } = {}): Promise<KubeObject> {
    return this.engine.update(r.resource, o.namespace ?? obj.metadata?.namespace ?? "", obj.metadata?.name ?? "", obj);
  }

  async patch(
    r: ResourceDescriptor,
    name: string,
    patch: unknown,
    o: { namespace?: string; patchType?: string } = {},
  ): Promise<KubeObject> {
    const ns = o.namespace ?? "";
    const current = await this.engine.get(r.resource, ns, name);
    const rv = current.metadata?.resourceVersion;
    const next = (o.patchType === "json" ? jsonPatch(current, patch) : mergePatch(current, patch)) as KubeObject;
    next.metadata = { ...next.metadata, resourceVersion: next.metadata?.resourceVersion ?? rv };
    return this.engine.update(r.resource, ns, name, next);
  }

  delete(r: ResourceDescriptor, name: string, o: { namespace?: string } = {}): Promise<KubeObject | Status> {
    return this.engine.delete(r.resource, o.namespace ?? "", name);
  }
}
