import { type KubeObject, newInvalid } from "@informer-ts/apimachinery";
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
  resourcesFromCrd,
  validateCustomResourceDefinition,
} from "./custom-resource-definitions.js";
import { servedVersionsOf, servedVersionView } from "./custom-resource-versions.js";

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
  /** What each CustomResourceDefinition (by name) serves. */
  private readonly definitions = new Map<string, ServedDefinition>();

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

  /**
   * The resource a CustomResourceDefinition (by name) made served, if it is: its preferred served version, or, while
   * no version is served, the resource its objects are stored under.
   */
  definition(name: string): SimResource | undefined {
    const d = this.definitions.get(name);
    return d === undefined ? undefined : (d.served[0] ?? d.home);
  }

  /**
   * Serves the resources a stored CustomResourceDefinition declares (apiextensions-apiserver's `crdHandler` once
   * the definition is Established): one per served version ({@link resourcesFromCrd}), each a view
   * ({@link servedVersionView}) of one storage, the resource the definition's storage version first declared —
   * objects are written at the storage version and read at the requested one, and a watch of any version sees
   * every write. Lookups by group/resource answer the preferred version. A resource that is already served (a
   * built-in or one registered by hand) is left as it is.
   *
   * An update that changes what is served (versions, schemas, subresources, names): `crdHandler` drops the
   * definition's serving info — every version's watches end — and builds it anew; here each version is registered
   * again with a new watch cache over the same storage, whose objects keep their resourceVersions and are read with
   * the new schemas' defaults. A version no longer served is 404 from then on.
   */
  serveDefinition(crd: KubeObject): void {
    const crdName = crd.metadata!.name!;
    const current = this.definitions.get(crdName);
    const declared = servedVersionsOf(crd).length > 0 ? resourcesFromCrd(crd) : [];
    if (current === undefined) {
      const first = declared[0];
      if (first === undefined || this.byName.has(groupResourceString(first))) return;
      const home = storageResourceOf(crd);
      this.definitions.set(crdName, this.serveVersions(home, declared, storageResourceOf(crd)));
      return;
    }
    const next = declared.filter((r) => groupResourceString(r) === groupResourceString(current.home));
    const storage = storageResourceOf(crd);
    const before = current.served.map(({ storedAs: _s, storageVersion: _v, ...r }) => r);
    if (jsonEqual(before, next) && jsonEqual(current.storage, storage)) return;
    for (const r of current.served) this.unregister(r);
    this.definitions.set(crdName, this.serveVersions(current.home, next, storage));
  }

  /** Registers each version as a view of `home`; the first (the preferred version) answers group/resource lookups. */
  private serveVersions(home: SimResource, versions: SimResource[], storage: SimResource): ServedDefinition {
    const served = versions.map((r) => this.register(servedVersionView(r, home, storage)));
    if (served[0] !== undefined) this.byName.set(groupResourceString(home), served[0]);
    return { home, served, storage };
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
    const d = this.definitions.get(name);
    if (d === undefined) return;
    this.definitions.delete(name);
    for (const [, obj] of this.storage.snapshot(d.home)) {
      this.storage.delete(d.home, obj.metadata?.namespace ?? "", obj.metadata?.name ?? "");
    }
    for (const r of d.served) this.unregister(r);
  }
}

/** What one definition serves: the storage its objects live in and the views of it served per version. */
interface ServedDefinition {
  readonly home: SimResource;
  readonly served: readonly SimResource[];
  /** The storage version as a resource (its schema prunes what is written). */
  readonly storage: SimResource;
}

/** The definition's storage version as a resource, served or not (`resourceFromCrd` with every version served). */
function storageResourceOf(crd: KubeObject): SimResource {
  const vs = (crd.spec as { versions?: unknown } | undefined)?.versions;
  const versions = Array.isArray(vs) ? vs.map((v) => ({ ...(v as object), served: true })) : [];
  return resourceFromCrd({ ...crd, spec: { ...(crd.spec as object), versions } });
}

function versionKey(r: SimResource): string {
  return `${r.group}/${r.version}/${r.resource}`;
}
