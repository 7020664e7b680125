import type { KubeObject, OwnerReference } from "@informer-ts/apimachinery";
import { apiVersionOf, type ResourceDescriptor } from "@informer-ts/client";
import { groupOf } from "./handler.js";

/**
 * `setControllerReference` found another controller owner (controllerutil's `AlreadyOwnedError`): an object has at
 * most one controller.
 */
export class AlreadyOwnedError extends Error {
  override readonly name = "AlreadyOwnedError";
  constructor(
    readonly object: string,
    readonly owner: OwnerReference,
  ) {
    super(`Object ${object} is already owned by another ${owner.kind} controller ${owner.name}`);
  }
}

/** Options of {@link setControllerReference} and {@link setOwnerReference}. */
export interface OwnerReferenceOptions {
  /** `blockOwnerDeletion` of the reference. Default true for a controller reference, unset for a plain owner. */
  readonly blockOwnerDeletion?: boolean;
  /**
   * Whether the owner's kind is namespaced. Default: `ownerType.namespaced` when `ownerType` is given, else inferred
   * (an owner without namespace is cluster-scoped).
   */
  readonly ownerNamespaced?: boolean;
  /**
   * The owner's resource: the reference takes its `apiVersion` and `kind` from here (controller-runtime looks them up
   * in its scheme). Needed for owners read from a list or an informer's cache, which carry no `apiVersion`/`kind`
   * (the API server leaves them off list items); an owner that does carry them must agree in group and kind.
   */
  readonly ownerType?: ResourceDescriptor<unknown>;
}

/** Options of {@link removeOwnerReference}. */
export interface RemoveOwnerReferenceOptions {
  /** The owner's resource, for owners without `apiVersion`/`kind` (see {@link OwnerReferenceOptions.ownerType}). */
  readonly ownerType?: ResourceDescriptor<unknown>;
}

/**
 * Makes `owner` the controller of `object` (controllerutil's `SetControllerReference`), editing `object` in place
 * (pass a copy of a cached object): adds or replaces the owner reference with `controller: true` and
 * `blockOwnerDeletion: true`. Rules (controller-runtime's): the owner must have apiVersion, kind, name and uid; a
 * namespaced owner must be in the object's namespace and a cluster-scoped object cannot have a namespaced owner; an
 * object controlled by another owner throws {@link AlreadyOwnedError}. Other failures throw a `TypeError` naming the
 * problem. References are matched by group (not version), kind and name.
 *
 * An owner read from an informer's cache after its initial list has no `apiVersion`/`kind` (list items carry none,
 * as client-go's do): pass its descriptor, `setControllerReference(widget, cm, { ownerType: widgets })`, as a Go
 * caller passes the scheme.
 */
export function setControllerReference(
  owner: KubeObject,
  object: KubeObject,
  options: OwnerReferenceOptions = {},
): void {
  const ref = referenceTo(owner, object, options);
  ref.controller = true;
  ref.blockOwnerDeletion = options.blockOwnerDeletion ?? true;
  const existing = getControllerOf(object);
  if (existing !== undefined && !sameReference(existing, ref)) {
    throw new AlreadyOwnedError(describeObject(object), existing);
  }
  upsert(object, ref);
}

/**
 * Adds `owner` as a non-controller owner of `object` (controllerutil's `SetOwnerReference`), or updates the existing
 * reference to it, keeping its `controller` flag. Same validation as {@link setControllerReference}.
 */
export function setOwnerReference(owner: KubeObject, object: KubeObject, options: OwnerReferenceOptions = {}): void {
  const ref = referenceTo(owner, object, options);
  if (options.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = options.blockOwnerDeletion;
  const existing = (object.metadata?.ownerReferences ?? []).find((r) => sameReference(r, ref));
  if (existing?.controller !== undefined) ref.controller = existing.controller;
  upsert(object, ref);
}

/** The owner reference with `controller: true`, if any (`metav1.GetControllerOf`). */
export function getControllerOf(object: KubeObject): OwnerReference | undefined {
  const refs = object.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  return refs.find((r) => r?.controller === true);
}

/** Whether `owner` is `object`'s controller (matched by UID, as `metav1.IsControlledBy`). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const ref = getControllerOf(object);
  return ref !== undefined && owner.metadata?.uid !== undefined && ref.uid === owner.metadata.uid;
}

/**
 * Removes the reference to `owner` from `object` (controllerutil's `RemoveOwnerReference`); false if there was none.
 * The reference is found by the owner's group, kind and name; an owner without `apiVersion`/`kind` needs `ownerType`
 * (a `TypeError` says so).
 */
export function removeOwnerReference(
  owner: KubeObject,
  object: KubeObject,
  options: RemoveOwnerReferenceOptions = {},
): boolean {
  const { apiVersion, kind } = ownerTypeOf(owner, options.ownerType);
  if (apiVersion === undefined || kind === undefined) {
    throw new TypeError(`owner ${describeObject(owner)} has no apiVersion/kind: ${PASS_OWNER_TYPE}`);
  }
  const refs = object.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return false;
  const probe = { apiVersion, kind, name: owner.metadata?.name ?? "", uid: "" };
  const kept = refs.filter((r) => !sameReference(r, probe));
  if (kept.length === refs.length) return false;
  object.metadata!.ownerReferences = kept;
  return true;
}

const PASS_OWNER_TYPE =
  "objects listed from the API server or read from an informer's cache carry none: pass the owner's descriptor as { ownerType }";

/** The owner's apiVersion and kind: from `ownerType` when given (checked against the object's own), else the object's. */
function ownerTypeOf(
  owner: KubeObject,
  ownerType: ResourceDescriptor<unknown> | undefined,
): { apiVersion: string | undefined; kind: string | undefined } {
  const own = {
    apiVersion: typeof owner.apiVersion === "string" && owner.apiVersion !== "" ? owner.apiVersion : undefined,
    kind: typeof owner.kind === "string" && owner.kind !== "" ? owner.kind : undefined,
  };
  if (ownerType === undefined) return own;
  if (
    typeof ownerType !== "object" ||
    ownerType === null ||
    typeof ownerType.kind !== "string" ||
    ownerType.kind === ""
  ) {
    throw new TypeError("ownerType must be a ResourceDescriptor with a kind");
  }
  const apiVersion = apiVersionOf(ownerType);
  if (
    (own.kind !== undefined && own.kind !== ownerType.kind) ||
    (own.apiVersion !== undefined && groupOf(own.apiVersion) !== ownerType.group)
  ) {
    throw new TypeError(
      `owner ${describeObject(owner)} is a ${own.apiVersion ?? "?"} ${own.kind ?? "?"}, but ownerType says ${apiVersion} ${ownerType.kind}`,
    );
  }
  return { apiVersion, kind: ownerType.kind };
}

function referenceTo(owner: KubeObject, object: KubeObject, options: OwnerReferenceOptions): OwnerReference {
  const { apiVersion, kind } = ownerTypeOf(owner, options.ownerType);
  const missing: string[] = [];
  if (apiVersion === undefined) missing.push("apiVersion");
  if (kind === undefined) missing.push("kind");
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (typeof name !== "string" || name === "") missing.push("metadata.name");
  if (typeof uid !== "string" || uid === "") missing.push("metadata.uid");
  if (missing.length > 0) {
    const hint = apiVersion === undefined || kind === undefined ? ` (${PASS_OWNER_TYPE})` : "";
    throw new TypeError(`owner ${describeObject(owner)} cannot be referenced: it has no ${missing.join(", ")}${hint}`);
  }
  const ownerNs = owner.metadata?.namespace ?? "";
  const ownerNamespaced = options.ownerNamespaced ?? options.ownerType?.namespaced ?? ownerNs !== "";
  const objectNs = object.metadata?.namespace ?? "";
  if (ownerNamespaced) {
    if (objectNs === "") {
      throw new TypeError(
        `cluster-scoped resource ${describeObject(object)} must not have a namespace-scoped owner, owner's namespace ${ownerNs}`,
      );
    }
    if (ownerNs !== objectNs) {
      throw new TypeError(
        `cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objectNs}`,
      );
    }
  }
  return { apiVersion: apiVersion!, kind: kind!, name: name!, uid: uid! };
}

function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function upsert(object: KubeObject, ref: OwnerReference): void {
  object.metadata ??= {};
  const refs = Array.isArray(object.metadata.ownerReferences) ? [...object.metadata.ownerReferences] : [];
  const i = refs.findIndex((r) => sameReference(r, ref));
  if (i >= 0) refs[i] = ref;
  else refs.push(ref);
  object.metadata.ownerReferences = refs;
}

function describeObject(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  const name = o.metadata?.name ?? "<unnamed>";
  return `${o.kind ?? "object"} ${ns ? `${ns}/` : ""}${name}`;
}
