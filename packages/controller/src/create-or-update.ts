// controller-runtime's controllerutil.CreateOrUpdate and CreateOrPatch.
import { isDeepStrictEqual } from "node:util";
import { isNotFound, type KubeObject } from "@informer-ts/apimachinery";
import type { ResourceDescriptor } from "@informer-ts/client";
import { createMergePatch } from "./merge-patch.js";
import type { ObjectClient } from "./object-client.js";

/**
 * What {@link createOrUpdate} / {@link createOrPatch} did (`controllerutil.OperationResult`): `unchanged` (nothing
 * sent), `created`, `updated` (the object without its status), `updatedStatus` (both), `updatedStatusOnly`.
 */
export type OperationResult = "unchanged" | "created" | "updated" | "updatedStatus" | "updatedStatusOnly";

/**
 * Edits the object in place to the desired state (`controllerutil.MutateFn`): it gets the object as read (or, when
 * absent, the one passed in) and may return a replacement instead. It must not change the name or namespace.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a mutation written as `(o) => { o.x = 1 }` returns `void`
export type MutateFn<T> = (object: T) => T | undefined | void | Promise<T | undefined | void>;

/** Options of {@link createOrUpdate} and {@link createOrPatch}. */
export interface CreateOrUpdateOptions {
  readonly signal?: AbortSignal;
  /** The `fieldManager` of the writes. */
  readonly fieldManager?: string;
}

/** What {@link createOrUpdate} / {@link createOrPatch} resolve with: the result and the object the server returned. */
export interface OperationOutcome<T> {
  readonly result: OperationResult;
  readonly object: T;
}

/** Thrown when a {@link MutateFn} changed the object's name or namespace. */
export class MutateKeyChangedError extends Error {
  override readonly name = "MutateKeyChangedError";
}

/**
 * `controllerutil.CreateOrUpdate`: reads the object named by `object` (its `metadata.name` and `namespace`) through
 * `client` — the manager's client reads it from the cache — then, when it is absent (404), mutates `object` and
 * creates it (`created`); otherwise mutates a copy of what was read and, unless the result equals it (`unchanged`: no
 * request), updates it (`updated`; a stale read is a 409 Conflict, so wrap the call in {@link retryOnConflict}). Any
 * other read error, a failing write, or a mutation that changes the name or namespace rejects.
 */
export async function createOrUpdate<T extends KubeObject>(
  client: ObjectClient,
  resource: ResourceDescriptor<T>,
  object: T,
  mutate: MutateFn<T>,
  options: CreateOrUpdateOptions = {},
): Promise<OperationOutcome<T>> {
  const p = await readOrCreate(client, resource, object, mutate, options);
  if (p.created !== undefined) return p.created;
  const { r, key, write, existing } = p;
  const desired = await mutated(mutate, structuredClone(existing as T), key);
  if (isDeepStrictEqual(json(existing), json(desired))) return { result: "unchanged", object: existing as T };
  const updated = await client.update(r, desired, write, options.signal);
  return { result: "updated", object: updated as T };
}

/**
 * `controllerutil.CreateOrPatch`: as {@link createOrUpdate}, but an existing object is changed by JSON merge patches
 * of what the mutation changed — one of the object without its status (`updated`), then one of the `/status`
 * subresource when the status changed (`updatedStatus`, or `updatedStatusOnly` when nothing else did). A patch does
 * not carry the resourceVersion, so concurrent writers of other fields do not conflict.
 */
export async function createOrPatch<T extends KubeObject>(
  client: ObjectClient,
  resource: ResourceDescriptor<T>,
  object: T,
  mutate: MutateFn<T>,
  options: CreateOrUpdateOptions = {},
): Promise<OperationOutcome<T>> {
  const p = await readOrCreate(client, resource, object, mutate, options);
  if (p.created !== undefined) return p.created;
  const { r, key, write, existing } = p;
  const before = json(existing) as Record<string, unknown>;
  const after = json(await mutated(mutate, structuredClone(existing as T), key)) as Record<string, unknown>;
  const { status: beforeStatus, ...beforeRest } = before;
  const { status: afterStatus, ...afterRest } = after;
  let result: OperationResult = "unchanged";
  let current = existing;
  if (!isDeepStrictEqual(beforeRest, afterRest)) {
    const patch = createMergePatch<unknown>(beforeRest, afterRest);
    current = await client.patch(r, key.name, patch, { ...write, patchType: "merge" }, options.signal);
    result = "updated";
  }
  if ((beforeStatus !== undefined || afterStatus !== undefined) && !isDeepStrictEqual(beforeStatus, afterStatus)) {
    const patch = { status: createMergePatch<unknown>(beforeStatus ?? {}, afterStatus ?? {}) };
    current = await client.patch(
      r,
      key.name,
      afterStatus === undefined ? { status: null } : patch,
      { ...write, patchType: "merge", subresource: "status" },
      options.signal,
    );
    result = result === "updated" ? "updatedStatus" : "updatedStatusOnly";
  }
  return { result, object: current as T };
}

interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

/** What {@link readOrCreate} found: the object was absent and is now created, or it exists as `existing`. */
type Prelude<T> =
  | { readonly created: OperationOutcome<T> }
  | {
      readonly created?: undefined;
      readonly r: ResourceDescriptor;
      readonly key: ObjectKey;
      readonly write: { readonly namespace: string; readonly fieldManager?: string };
      readonly existing: KubeObject;
    };

/**
 * The part `CreateOrUpdate` and `CreateOrPatch` share: read the object `object` names; when it is absent (404),
 * mutate `object` and create it; otherwise hand back what was read, with the key and the write options.
 */
async function readOrCreate<T extends KubeObject>(
  client: ObjectClient,
  resource: ResourceDescriptor<T>,
  object: T,
  mutate: MutateFn<T>,
  options: CreateOrUpdateOptions,
): Promise<Prelude<T>> {
  const key = keyOf(object);
  const r = resource as ResourceDescriptor;
  const write = {
    namespace: key.namespace,
    ...(options.fieldManager !== undefined && { fieldManager: options.fieldManager }),
  };
  const existing = await read(client, r, key, options.signal);
  if (existing !== undefined) return { r, key, write, existing };
  const desired = await mutated(mutate, structuredClone(object), key);
  const created = await client.create(r, desired, write, options.signal);
  return { created: { result: "created", object: created as T } };
}

function keyOf(object: KubeObject): ObjectKey {
  const name = object?.metadata?.name;
  if (typeof name !== "string" || name === "") {
    throw new TypeError("createOrUpdate: the object must have a metadata.name (it names the object to read)");
  }
  return { namespace: object.metadata?.namespace ?? "", name };
}

async function read(
  client: ObjectClient,
  resource: ResourceDescriptor,
  key: ObjectKey,
  signal: AbortSignal | undefined,
): Promise<KubeObject | undefined> {
  try {
    return await client.get(resource, key.name, { namespace: key.namespace }, signal);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Runs `mutate` on `object` (`controllerutil.mutate`) and checks it kept the name and namespace. */
async function mutated<T extends KubeObject>(mutate: MutateFn<T>, object: T, key: ObjectKey): Promise<T> {
  const out = ((await mutate(object)) ?? object) as T;
  const now = { namespace: out?.metadata?.namespace ?? "", name: out?.metadata?.name ?? "" };
  if (now.name !== key.name || now.namespace !== key.namespace) {
    throw new MutateKeyChangedError(
      `MutateFn cannot mutate object name and/or object namespace: ${key.namespace}/${key.name} became ${now.namespace}/${now.name}`,
    );
  }
  return out;
}

function json(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}
