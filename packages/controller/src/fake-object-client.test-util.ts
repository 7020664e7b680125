// An in-memory ObjectClient with apiserver-like optimistic concurrency, for unit tests of the finalizer helpers, the
// leader elector and the event recorder: create (409 AlreadyExists), update and merge patch guarded by a given
// resourceVersion (409 Conflict), get/delete (404), and a fault hook called before every request.
import { type KubeObject, newAlreadyExists, newConflict, newNotFound, type Status } from "@informer-ts/apimachinery";
import type { ResourceDescriptor } from "@informer-ts/client";
import type { ObjectClient } from "./object-client.js";

export interface RecordedRequest {
  readonly verb: "get" | "create" | "update" | "patch" | "delete";
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly body?: unknown;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class FakeObjectClient implements ObjectClient {
  readonly objects = new Map<string, KubeObject>();
  readonly requests: RecordedRequest[] = [];
  private rv = 100;
  /** Called before each request; throw to fail it, return a promise to delay it. */
  fault: ((req: RecordedRequest) => unknown) | undefined;

  private key(r: ResourceDescriptor, ns: string, name: string): string {
    return `${r.resource}/${ns}/${name}`;
  }

  private async before(req: RecordedRequest): Promise<void> {
    this.requests.push(req);
    await this.fault?.(req);
  }

  private gr(r: ResourceDescriptor) {
    return { group: r.group, resource: r.resource };
  }

  async get(r: ResourceDescriptor, name: string, o: { namespace?: string } = {}): Promise<KubeObject> {
    const ns = o.namespace ?? "";
    await this.before({ verb: "get", resource: r.resource, namespace: ns, name });
    const cur = this.objects.get(this.key(r, ns, name));
    if (cur === undefined) throw newNotFound(this.gr(r), name);
    return structuredClone(cur);
  }

  async create(r: ResourceDescriptor, obj: KubeObject, o: { namespace?: string } = {}): Promise<KubeObject> {
    const ns = o.namespace ?? obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    await this.before({ verb: "create", resource: r.resource, namespace: ns, name, body: structuredClone(obj) });
    const k = this.key(r, ns, name);
    if (this.objects.has(k)) throw newAlreadyExists(this.gr(r), name);
    const stored = structuredClone(obj);
    stored.metadata = {
      ...stored.metadata,
      namespace: ns,
      uid: `uid-${++this.rv}`,
      resourceVersion: String(++this.rv),
    };
    if (ns === "") delete stored.metadata.namespace;
    this.objects.set(k, stored);
    return structuredClone(stored);
  }

  async update(r: ResourceDescriptor, obj: KubeObject, o: { namespace?: string } = {}): Promise<KubeObject> {
    const ns = o.namespace ?? obj.metadata?.namespace ?? "";
    const name = obj.metadata?.name ?? "";
    await this.before({ verb: "update", resource: r.resource, namespace: ns, name, body: structuredClone(obj) });
    return this.write(r, ns, name, structuredClone(obj));
  }

  async patch(
    r: ResourceDescriptor,
    name: string,
    patch: unknown,
    o: { namespace?: string } = {},
  ): Promise<KubeObject> {
    const ns = o.namespace ?? "";
    await this.before({ verb: "patch", resource: r.resource, namespace: ns, name, body: structuredClone(patch) });
    const cur = this.objects.get(this.key(r, ns, name));
    if (cur === undefined) throw newNotFound(this.gr(r), name);
    return this.write(r, ns, name, mergePatch(structuredClone(cur), patch) as KubeObject);
  }

  async delete(r: ResourceDescriptor, name: string, o: { namespace?: string } = {}): Promise<KubeObject | Status> {
    const ns = o.namespace ?? "";
    await this.before({ verb: "delete", resource: r.resource, namespace: ns, name });
    const k = this.key(r, ns, name);
    const cur = this.objects.get(k);
    if (cur === undefined) throw newNotFound(this.gr(r), name);
    this.objects.delete(k);
    return cur;
  }

  /** Writes as a third party would (bumps the resourceVersion). */
  touch(r: ResourceDescriptor, ns: string, name: string, edit: (o: KubeObject) => void): KubeObject {
    const cur = this.objects.get(this.key(r, ns, name));
    if (cur === undefined) throw new Error(`no ${name}`);
    edit(cur);
    cur.metadata!.resourceVersion = String(++this.rv);
    return structuredClone(cur);
  }

  private write(r: ResourceDescriptor, ns: string, name: string, next: KubeObject): KubeObject {
    const k = this.key(r, ns, name);
    const cur = this.objects.get(k);
    if (cur === undefined) throw newNotFound(this.gr(r), name);
    const want = next.metadata?.resourceVersion;
    if (want !== undefined && want !== "" && want !== cur.metadata?.resourceVersion) {
      throw newConflict(this.gr(r), name);
    }
    next.metadata = { ...next.metadata, uid: cur.metadata?.uid, resourceVersion: String(++this.rv) };
    this.objects.set(k, next);
    return structuredClone(next);
  }
}
