import { type KubeObject, newInvalid } from "@informer-ts/apimachinery";
import { defaultCustomResource, type StructuralSchema } from "../admission/custom-resource-schema.js";
import type { Cacher } from "../cacher/index.js";
import { jsonEqual } from "../object-util.js";
import type { ResourceRef } from "../request-context.js";
import { groupResourceString, type SimResource } from "../resources.js";
import type { MvccStorage } from "../storage/index.js";
import { UnknownResourceError } from "../unknown-resource-error.js";
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  establishedDefinition,
  resourceFromCrd,
  validateCustomResourceDefinition,
} from "./custom-resource-definitions.js";

/**
 * The served resources and their watch caches (kube-apiserver's installed REST storage plus apiextensions'
 * `crdHandler`): lookup by name or object, registration, and the resources a CustomResourceDefinition serves from
 * the moment it is established until it is finalized.
 */
export class ResourceTable {
  /** Group/resource string → the resource served at the preferred version (the first registered of its versions). */
  private readonly byName = new Map<string, SimResource>();
  /** `<group>/<version>/<resource>` → the resource served at that version. */
  private readonly byVersion = new Map<string, SimResource>();
  private readonly cachers = new Map<SimResource, Cacher>();
  /** Resources served because a CustomResourceDefinition (by name) declares them. */
  private readonly definitions = new Map<string, SimResource>();

  constructor(
    private readonly storage: MvccStorage,
    private readonly newCacher: (r: SimResource) => Cacher,
  ) {}

  /**
   * Adds a resource with a new, empty and ready watch cache; throws when its group/resource is already served at its
   * version. A further version of a served group/resource (`autoscaling/v1` beside `autoscaling/v2`
   * horizontalpodautoscalers) is served beside it; lookups by group/resource keep answering the first registered,
   * the preferred version.
   */
  register(r: SimResource): SimResource {
    const name = groupResourceString(r);
    const gvr = versionKey(r);
    if (this.byVersion.has(gvr)) throw new Error(`resource ${name} is already registered at ${r.version}`);
    this.byVersion.set(gvr, r);
    if (!this.byName.has(name)) this.byName.set(name, r);
    this.cachers.set(r, this.newCacher(r));
    return r;
  }

  /** Stops serving `r` (its watch cache retired); a group/resource served at another version falls back to it. */
  private unregister(r: SimResource): void {
    this.byVersion.delete(versionKey(r));
    const name = groupResourceString(r);
    if (this.byName.get(name) === r) {
      this.byName.delete(name);
      const other = [...this.byVersion.values()].find((x) => groupResourceString(x) === name);
      if (other !== undefined) this.byName.set(name, other);
    }
    const cacher = this.cachers.get(r);
    this.cachers.delete(r);
    cacher?.retire();
  }

  /** A served resource at a version (`autoscaling`, `v1`, `horizontalpodautoscalers`), if served. */
  byGroupVersionResource(group: string, version: string, resource: string): SimResource | undefined {
    return this.byVersion.get(`${group}/${version}/${resource}`);
  }

  /** A served resource by group/resource string (`deployments.apps`), if served. */
  byGroupResource(name: string): SimResource | undefined {
    return this.byName.get(name);
  }

  /**
   * A served resource by reference, or undefined (never throws). A string is a group/resource (`deployments.apps`,
   * the preferred version) or a fully specified `<resource>.<version>.<group>` (`horizontalpodautoscalers.v1.autoscaling`,
   * `pods.v1.` for the core group), as kube's `schema.ParseResourceArg` reads both.
   */
  lookup(ref: ResourceRef): SimResource | undefined {
    if (typeof ref !== "string") {
      if (this.cachers.has(ref)) return ref;
      return this.byVersion.get(versionKey(ref)) ?? this.byName.get(groupResourceString(ref));
    }
    const r = this.byName.get(ref);
    if (r !== undefined) return r;
    const dot = ref.indexOf(".");
    if (dot < 0) return undefined;
    const rest = ref.slice(dot + 1);
    const dot2 = rest.indexOf(".");
    if (dot2 < 0) return undefined;
    return this.byVersion.get(`${rest.slice(dot2 + 1)}/${rest.slice(0, dot2)}/${ref.slice(0, dot)}`);
  }

  /** Looks a resource up; throws {@link UnknownResourceError} (404 naming it) when it is not served. */
  resolve(ref: ResourceRef): SimResource {
    const r = this.lookup(ref);
    if (r === undefined) throw new UnknownResourceError(typeof ref === "string" ? ref : groupResourceString(ref));
    return r;
  }

  /** The watch cache of a resource (404 as {@link resolve} when not served). */
  cacher(ref: ResourceRef): Cacher {
    return this.cachers.get(this.resolve(ref))!;
  }

  /** The watch cache of a resource, if it is served (for storage events, which may race a retirement). */
  cacherIfServed(r: SimResource): Cacher | undefined {
    return this.cachers.get(r);
  }

  /** Every served resource at every served version, in registration order. */
  resources(): SimResource[] {
    return [...this.cachers.keys()];
  }

  /** Every watch cache, in registration order. */
  allCachers(): Cacher[] {
    return [...this.cachers.values()];
  }

  /** The resource a CustomResourceDefinition (by name) made served, if it is. */
  definition(name: string): SimResource | undefined {
    return this.definitions.get(name);
  }

  /**
   * Serves the resource a stored CustomResourceDefinition declares (apiextensions-apiserver's `crdHandler` once the
   * definition is Established). A resource that is already served (a built-in or one registered by hand) is left
   * as it is.
   */
  serveDefinition(crd: KubeObject): void {
    const r = resourceFromCrd(crd);
    const crdName = crd.metadata!.name!;
    const served = this.definitions.get(crdName);
    if (served !== undefined && groupResourceString(served) === groupResourceString(r)) {
      this.refreshDefinition(crdName, served, r);
      return;
    }
    if (this.byName.has(groupResourceString(r))) return;
    this.register(r);
    this.definitions.set(crdName, r);
  }

  /**
   * An updated definition whose served version changed (schema, version name, subresources): apiextensions'
   * `crdHandler` drops the old serving info and storage — its watches end — and builds new ones, whose decoder
   * applies the new schema's defaults to every object read from etcd (`structuraldefaulting` on read) while etcd
   * keeps the bytes as written. Here the new resource is a view ({@link SimResource.storedAs}) of the first
   * resource's storage that defaults each object on its way out (once per stored object), so GET, LIST and WATCH
   * show the defaults, objects keep their resourceVersions, and writes through it store what they send.
   */
  private refreshDefinition(crdName: string, served: SimResource, next: SimResource): void {
    const { storedAs: _s, ...before } = served;
    if (jsonEqual(before, next)) return;
    const home = served.storedAs?.resource ?? served;
    const schema = next.openAPIV3Schema as StructuralSchema | undefined;
    const view: SimResource = {
      ...next,
      storedAs: {
        resource: home,
        toStorage: (o) => o,
        fromStorage: (stored) => {
          if (schema === undefined) return stored;
          const out = structuredClone(stored) as KubeObject;
          defaultCustomResource(out, schema);
          return out;
        },
      },
    };
    this.unregister(served);
    this.register(view);
    this.definitions.set(crdName, view);
  }

  /**
   * Stores a CustomResourceDefinition straight in storage (seeding: no registry, no request) with the defaults and
   * status the apiextensions controllers write at `now`, and serves its resource. An invalid definition is the 422
   * with upstream's messages, nothing stored; `warnings` gets the rules accepted but not evaluated (`celCompatibility`:
   * see `validateCustomResourceDefinition`).
   */
  seedDefinition(crd: KubeObject, now: string, warnings?: string[], celCompatibility?: number): KubeObject {
    const errs = validateCustomResourceDefinition(crd, warnings, celCompatibility);
    if (errs.length > 0) {
      const gk = { group: "apiextensions.k8s.io", kind: "CustomResourceDefinition" };
      throw newInvalid(gk, crd.metadata?.name ?? "", errs);
    }
    const stored = this.storage.create(CUSTOM_RESOURCE_DEFINITIONS, "", establishedDefinition(crd, now));
    this.serveDefinition(stored);
    return stored;
  }

  /**
   * Stops serving what a deleted definition declared (apiextensions' `CRDFinalizer`): every object of the resource
   * is deleted (watchers see DELETED events), then its watchers end and requests for it are 404.
   */
  retireDefinition(name: string): void {
    const r = this.definitions.get(name);
    if (r === undefined) return;
    this.definitions.delete(name);
    for (const [, obj] of this.storage.snapshot(r)) {
      this.storage.delete(r, obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
    }
    this.unregister(r);
  }
}

function versionKey(r: SimResource): string {
  return `${r.group}/${r.version}/${r.resource}`;
}
