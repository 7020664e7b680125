import {
  failureStatus,
  isAlreadyExists,
  isConflict,
  isNotFound,
  type KubeObject,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newInvalid,
  newNotFound,
  StatusError,
} from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import { Admission, type AdmissionAttributes, type PolicyOperation, type PolicyRequest } from "../admission/index.js";
import { deepCopyJson, deepFreeze, generateNameFrom, newUid, rfc3339Seconds, shareUnchanged } from "../object-util.js";
import { apiVersionOf, type SimResource } from "../resources.js";
import type { MvccStorage } from "../storage/index.js";
import { type DeleteOptions, finalizersForDeletion, validateDeleteOptions } from "./delete-options.js";
import { adoptManagedFields, releaseManagedFields } from "./field-manager/managed-fields.js";
import { beforeDelete } from "./graceful-delete.js";
import { validateObjectMeta, validateObjectMetaUpdate } from "./object-meta-validation.js";
import { applyPatch, decodePatch, type PatchContentType, patchTypeOf } from "./patch.js";
import type { ServiceIpAddresses } from "./service-ip-addresses.js";
import { type ResourceStrategy, strategyFor } from "./strategy.js";

/** The operation a {@link FieldManager} is told about (`managedFields[].operation`). */
export type FieldManagerOperation = "Create" | "Update" | "Apply";

/** What a {@link FieldManager} learns about a write. */
export interface FieldManagerContext {
  readonly resource: SimResource;
  /** `fieldManager` of the request, else the user agent up to its first `/` (`managerOrUserAgent`). */
  readonly manager: string;
  readonly operation: FieldManagerOperation;
  /** `""` or `"status"`. */
  readonly subresource: string;
  /** Apply only: `force=true`. */
  readonly force?: boolean;
}

/**
 * The registry's hook for field ownership (kube-apiserver's `fieldmanager.FieldManager`). `update` is called on every
 * create, update and non-apply patch after the strategy and validation, with the stored object (`undefined` on
 * create) and the object about to be stored; it returns the object to store (typically with `metadata.managedFields`
 * updated). `apply`, when present, computes the result of a server-side apply patch (`undefined` live object: the
 * apply creates) and throws the 409 of an ownership conflict. Without a field manager the registry keeps
 * `managedFields` as given and applies apply patches as merge patches.
 */
export interface FieldManager {
  update(live: KubeObject | undefined, next: KubeObject, ctx: FieldManagerContext): KubeObject;
  apply?(live: KubeObject | undefined, patch: Record<string, unknown>, ctx: FieldManagerContext): KubeObject;
}

/** Options of a write (the query parameters of create/update/patch and who asks). */
export interface WriteOptions {
  /** `dryRun=All`: everything is validated and answered, nothing is stored. */
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  /** Apply patches: take ownership of conflicting fields. */
  readonly force?: boolean;
  /** For `managerOrUserAgent` when no `fieldManager` is given. */
  readonly userAgent?: string;
  /** Called when a patch (server-side apply) created the object: the HTTP answer is then 201. */
  readonly onCreated?: () => void;
  /**
   * Internal: the object is the result of the field manager's `apply`, so its `managedFields` are final and the
   * create it leads to records no `Update` entry (upstream runs the field manager once per request).
   */
  readonly applied?: boolean;
  /** Internal: a seeded object ({@link RegistryStore.seed}). */
  readonly seed?: boolean;
  /** `""` (the object) or `"status"`. */
  readonly subresource?: string;
  /** `fieldValidation` (`Strict`, `Warn`, `Ignore`; absent: the server's default). */
  readonly fieldValidation?: string;
  /** Duplicate fields the face found in the body text. */
  readonly duplicateFields?: readonly string[];
  /** Where the admission chain appends its warnings (`Warn`'s unknown fields). */
  readonly warnings?: string[];
  /** Internal: one pass of a write admission webhooks take part in ({@link WebhookPass}). */
  readonly webhook?: WebhookPass;
}

/**
 * Internal: how a write exposes its object to the admission webhooks, which are asynchronous while the registry is
 * not (`handlers/webhook-writes.ts` runs a write as dry-run passes around the webhook calls, then for real).
 */
export interface WebhookPass {
  /**
   * Gets a copy of the object where the mutating webhooks see it (after decoding, defaulting and the built-in
   * mutating plugins, before the strategy and validation), with the stored object of an update.
   */
  readonly onMutating?: (obj: KubeObject, old: KubeObject | undefined) => void;
  /** Gets the object where the validating webhooks see it (validated, its name drawn). */
  readonly onValidating?: (obj: KubeObject) => void;
  /**
   * The mutating webhooks' result: replaces the object at the mutating point, then is decoded (unknown fields
   * dropped, silently) and defaulted again (`SetDefaults_*`, not the plugins), as upstream's conversion after
   * mutation does. On an update, a result from another resourceVersion than the stored one is a 409.
   */
  readonly mutated?: KubeObject;
}

/** The result of a delete: the object's last state, and whether it is gone (false: finalizers hold it). */
export interface DeleteResult {
  readonly object: KubeObject;
  readonly deleted: boolean;
}

/** Settings of {@link RegistryStore}. */
export interface RegistryStoreOptions {
  readonly storage: MvccStorage;
  readonly clock: Clock;
  readonly rand: Rand;
  /** The served `namespaces` resource, if any: the namespace lifecycle checks creates against it. */
  readonly namespaces: () => SimResource | undefined;
  /** NamespaceLifecycle admission (default true). */
  readonly namespaceLifecycle?: boolean;
  readonly fieldManager?: FieldManager;
  /** The admission chain (decode, defaults, validation) every create and update runs; default: on, v1.34's. */
  readonly admission?: Admission;
  /** The IPAddress objects of Services' cluster IPs (absent: none are kept). */
  readonly serviceIps?: ServiceIpAddresses;
}

/** Namespaces the lifecycle admission never lets anyone delete (`immortalNamespaces`). */
export const IMMORTAL_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public"];

/** The four namespaces kube-apiserver's system namespaces controller creates at start. */
export const SYSTEM_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/** Attempts of a patch against a concurrently changing object, and of a generateName that collides. */
const MAX_PATCH_ATTEMPTS = 5;
const MAX_GENERATE_NAME_ATTEMPTS = 8;

/**
 * `stored`, the frozen copy the storage kept of `written`: lets the field manager reuse what it decoded for the
 * managed fields it wrote (a no-op for managed fields it did not produce), and forget what it decoded for the
 * version `stored` replaced (`replaced`), unless both carry the same list.
 */
function kept(stored: KubeObject, written: KubeObject, replaced?: KubeObject): KubeObject {
  const list = stored.metadata?.managedFields;
  adoptManagedFields(list, written.metadata?.managedFields);
  const old = replaced?.metadata?.managedFields;
  if (old !== list) releaseManagedFields(old);
  return stored;
}

/**
 * `managerOrUserAgent`: the given field manager, else the user agent up to its first `/` without non-printable
 * characters and cut at 128 bytes (`kubectl/v1.32.4 (linux/amd64) …` records as `kubectl`).
 */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== "") return fieldManager;
  let out = "";
  let bytes = 0;
  for (const ch of (userAgent ?? "").split("/")[0]!) {
    if (/\p{C}/u.test(ch)) continue;
    const n = Buffer.byteLength(ch);
    if (bytes + n > 128) break;
    out += ch;
    bytes += n;
  }
  return out;
}

function metaOf(obj: KubeObject): Record<string, unknown> {
  if (typeof obj.metadata !== "object" || obj.metadata === null) obj.metadata = {};
  return obj.metadata as Record<string, unknown>;
}

function finalizersOf(obj: KubeObject): string[] {
  const f = obj.metadata?.finalizers;
  return Array.isArray(f) ? f : [];
}

function specFinalizersOf(obj: KubeObject): string[] {
  const f = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? (f as string[]) : [];
}

/**
 * The registry of the simulated apiserver (`genericregistry.Store` of `k8s.io/apiserver`
 * `pkg/registry/generic/registry/store.go`, with `rest.BeforeCreate`/`BeforeUpdate`/`BeforeDelete` and the kinds'
 * strategies): every write of the engine goes through it, from HTTP and in-process alike.
 *
 * - create: `generateName` (5 random characters from the engine's `Rand`, retried on a collision), `uid`,
 *   `creationTimestamp` (server clock), no `deletionTimestamp`, the kind's `PrepareForCreate` (status reset,
 *   generation 1), object-meta validation (names, labels, finalizers as qualified names, owner references with a
 *   uid: 422), the NamespaceLifecycle admission (404 missing namespace, 403 terminating), the field manager hook;
 * - update: optimistic concurrency (409), identity fields kept, the main resource keeps the stored status and the
 *   `/status` subresource keeps everything else, generation by the kind's rule, no new finalizers on a deleting
 *   object (422), and the update that removes the last finalizer of a deleting object deletes it;
 * - patch: JSON, merge, strategic merge (built-ins) and apply patches against the stored object, retried on a
 *   conflict the client did not pin;
 * - delete: preconditions (409), propagation finalizers (`orphan`, `foregroundDeletion`), objects with finalizers get
 *   `deletionTimestamp` + `deletionGracePeriodSeconds: 0` and stay (MODIFIED) until their finalizers are removed;
 *   namespaces go Terminating (the namespace controller empties and then deletes them); immortal namespaces are 403;
 * - `dryRun` on every write: validated and answered, nothing stored.
 *
 * - graceful deletion of pods (`rest.BeforeDelete` + the pod strategy's `CheckGracefulDelete`, see
 *   `registry/graceful-delete.ts`): a pod bound to a node deleted with a grace period > 0 gets `deletionTimestamp` =
 *   now + period and `deletionGracePeriodSeconds` and stays (MODIFIED) until a delete with a shorter period (the
 *   kubelet's grace 0) or the engine's {@link GracefulDeletion} timer at the deadline removes it;
 *
 * Differences from kube-apiserver: no defaulting beyond the strategies above; validation covers object metadata
 * only.
 */
export class RegistryStore {
  private readonly storage: MvccStorage;
  private readonly clock: Clock;
  private readonly rand: Rand;
  private readonly strategies = new WeakMap<SimResource, ResourceStrategy>();
  /** Hook for field ownership; replaceable (server-side apply installs one). */
  fieldManager: FieldManager | undefined;
  namespaceLifecycle: boolean;
  /** The admission chain of every create and update ({@link Admission}). */
  readonly admission: Admission;

  constructor(private readonly opts: RegistryStoreOptions) {
    this.admission = opts.admission ?? new Admission();
    this.storage = opts.storage;
    this.clock = opts.clock;
    this.rand = opts.rand;
    this.fieldManager = opts.fieldManager;
    this.namespaceLifecycle = opts.namespaceLifecycle ?? true;
  }

  /** The strategy of a resource (cached). */
  strategy(r: SimResource): ResourceStrategy {
    let s = this.strategies.get(r);
    if (s === undefined) {
      s = strategyFor(r);
      this.strategies.set(r, s);
    }
    return s;
  }

  private gr(r: SimResource) {
    return { group: r.group, resource: r.resource };
  }

  private now(): string {
    return rfc3339Seconds(this.clock.now());
  }

  private fieldManaged(
    r: SimResource,
    live: KubeObject | undefined,
    next: KubeObject,
    operation: FieldManagerOperation,
    o: WriteOptions,
  ): KubeObject {
    const fm = this.fieldManager;
    if (fm === undefined || o.applied === true || o.seed === true) return next;
    return fm.update(live, next, {
      resource: r,
      manager: managerOrUserAgent(o.fieldManager, o.userAgent),
      operation,
      subresource: o.subresource ?? "",
    });
  }

  private attributes(o: WriteOptions): AdmissionAttributes {
    return {
      ...(o.fieldValidation !== undefined && { fieldValidation: o.fieldValidation }),
      ...(o.duplicateFields !== undefined && { duplicateFields: o.duplicateFields }),
      ...(o.warnings !== undefined && { warnings: o.warnings }),
      ...(o.subresource !== undefined && { subresource: o.subresource }),
      ...(o.seed === true && { internal: true }),
    };
  }

  /** What the validating admission plugins see of a write. */
  private policyRequest(
    r: SimResource,
    operation: PolicyOperation,
    namespace: string,
    name: string,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    o: WriteOptions,
  ): PolicyRequest {
    return {
      resource: r,
      operation,
      subresource: o.subresource ?? "",
      namespace: r.namespaced ? namespace : "",
      name,
      object,
      oldObject,
      dryRun: o.dryRun === true,
      ...(o.warnings !== undefined && { warnings: o.warnings }),
    };
  }

  /** `/status` on a resource without that subresource: the route does not exist (404 as go-restful answers). */
  private checkSubresource(r: SimResource, o: WriteOptions): void {
    const sub = o.subresource ?? "";
    if (sub === "") return;
    if (sub === "status" && this.strategy(r).hasStatus) return;
    if (sub === "approval" && r.subresources?.includes(sub) === true) return;
    throw new StatusError(failureStatus(404, "NotFound", "the server could not find the requested resource", {}));
  }

  // ---- admission ----------------------------------------------------------------------------------------------

  /**
   * NamespaceLifecycle on create: the namespace must exist (404 `namespaces "x" not found`) and not be terminating
   * (403 `… is forbidden: unable to create new content in namespace x because it is being terminated`, with a
   * `NamespaceTerminating` cause).
   */
  private admitCreate(r: SimResource, namespace: string, name: string): void {
    if (!this.namespaceLifecycle || !r.namespaced) return;
    const nsr = this.opts.namespaces();
    if (nsr === undefined) return;
    const ns = this.storage.get(nsr, "", namespace);
    if (ns === undefined) throw newNotFound({ group: "", resource: "namespaces" }, namespace);
    if (
      ns.metadata?.deletionTimestamp !== undefined ||
      (ns.status as { phase?: unknown } | undefined)?.phase === "Terminating"
    ) {
      const err = newForbidden(
        this.gr(r),
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      err.status.details!.causes = [
        {
          reason: "NamespaceTerminating",
          message: `namespace ${namespace} is being terminated`,
          field: "metadata.namespace",
        },
      ];
      throw err;
    }
  }

  // ---- create -------------------------------------------------------------------------------------------------

  /** Creates an object (see the class comment). Returns the stored object (dry run: the object as it would be). */
  create(r: SimResource, namespace: string, input: KubeObject, o: WriteOptions = {}): KubeObject {
    this.checkSubresource(r, o);
    const bodyNs = input.metadata?.namespace;
    if (r.namespaced && bodyNs !== undefined && bodyNs !== "" && bodyNs !== namespace) {
      throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    const src = deepCopyJson(input);
    const meta = metaOf(src);
    // etcd3 store.Create refuses a resourceVersion that parses as a non-zero uint64 with a plain error (500).
    const givenRV = meta.resourceVersion;
    if (
      typeof givenRV === "string" &&
      /^[0-9]+$/.test(givenRV) &&
      BigInt(givenRV) > 0n &&
      BigInt(givenRV) < 2n ** 64n
    ) {
      throw new StatusError(failureStatus(500, "", "resourceVersion should not be set on objects to be created"));
    }
    delete meta.resourceVersion;
    delete meta.selfLink;
    let generate =
      (meta.name === undefined || meta.name === "") &&
      typeof meta.generateName === "string" &&
      meta.generateName !== "";
    if (o.seed !== true) this.admitCreate(r, namespace, generate ? "" : String(meta.name ?? ""));
    if (r.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    meta.uid = newUid(this.rand);
    meta.creationTimestamp = this.now();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    let obj: KubeObject = { ...src, apiVersion: apiVersionOf(r), kind: r.kind, metadata: meta };
    const attrs = this.attributes(o);
    this.admission.decode(r, obj, attrs, true);
    this.admission.default(r, obj, undefined, attrs);
    if (o.webhook !== undefined) {
      o.webhook.onMutating?.(deepCopyJson(obj), undefined);
      if (o.webhook.mutated !== undefined) {
        obj = this.afterMutation(r, obj, o.webhook.mutated, undefined, attrs);
        // A name the webhooks' passes drew is kept (the real write stores the object they validated).
        if ((obj.metadata?.name ?? "") !== "") generate = false;
      }
    }
    // The name is drawn before PrepareForCreate, which may read it (a Job's `job-name` label), and each retry of a
    // colliding generated name prepares a fresh copy (genericregistry.Store's create with RetryGenerateName).
    const unprepared = generate ? deepCopyJson(obj) : obj;
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) obj = deepCopyJson(unprepared);
      if (generate) metaOf(obj).name = generateNameFrom(meta.generateName as string, this.rand);
      this.strategy(r).prepareForCreate(obj);
      // A seeded object's status is the state its controllers left: kept (the strategy's defaults fill only a missing one).
      if (o.seed === true && src.status !== undefined) obj.status = src.status;
      const errs = [...validateObjectMeta(r, obj), ...this.admission.validate(r, obj, undefined, attrs)];
      if (errs.length > 0) throw newInvalid({ group: r.group, kind: r.kind }, String(obj.metadata?.name ?? ""), errs);
      const name = String(obj.metadata!.name);
      if (o.seed !== true)
        this.admission.admitValidating(this.policyRequest(r, "CREATE", namespace, name, obj, undefined, o));
      o.webhook?.onValidating?.(deepCopyJson(obj));
      if (o.dryRun === true) {
        if (this.storage.get(r, namespace, name) !== undefined) throw newAlreadyExists(this.gr(r), name);
        this.opts.serviceIps?.checkFree(r, obj);
        return deepFreeze(this.fieldManaged(r, undefined, obj, "Create", o));
      }
      const managed = this.fieldManaged(r, undefined, obj, "Create", o);
      try {
        if (this.storage.get(r, namespace, name) === undefined) this.opts.serviceIps?.checkFree(r, managed);
        const stored = kept(this.storage.insert(r, namespace, managed), managed);
        this.opts.serviceIps?.allocated(r, stored);
        return stored;
      } catch (err) {
        // RetryGenerateName (GA in v1.32): a generated name that collides is drawn again.
        if (!(generate && isAlreadyExists(err) && attempt < MAX_GENERATE_NAME_ATTEMPTS)) throw err;
      }
    }
  }

  /**
   * Stores an object as if it existed before the server started (`--seed`, the CLI backend's `seed`): the create
   * path — identity fields, the kind's `PrepareForCreate` (a Namespace's `Active` phase and `kubernetes` finalizer, a
   * Pod's `Pending` status, generation, a Secret's `stringData`), validation — with three exceptions: a `status` given
   * in the object is kept, there is no namespace lifecycle admission (a seed may fill a namespace it does not
   * declare), and the field manager records no entry. Throws as `create` does.
   */
  seed(r: SimResource, namespace: string, input: KubeObject): KubeObject {
    return this.create(r, namespace, input, { seed: true });
  }

  // ---- update -------------------------------------------------------------------------------------------------

  /**
   * Replaces an object or its status (`o.subresource`): see the class comment. Returns the stored object; when the
   * update removed the last finalizer of a deleting object, the object is deleted and its last state returned.
   */
  update(r: SimResource, namespace: string, name: string, input: KubeObject, o: WriteOptions = {}): KubeObject {
    this.checkSubresource(r, o);
    const bodyNs = input.metadata?.namespace;
    if (r.namespaced && bodyNs !== undefined && bodyNs !== "" && bodyNs !== namespace) {
      throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    const bodyName = input.metadata?.name;
    if (bodyName !== undefined && bodyName !== "" && bodyName !== name) {
      throw newBadRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
    const current = this.storage.get(r, namespace, name);
    if (current === undefined) throw newNotFound(this.gr(r), name);
    const wantRV = input.metadata?.resourceVersion;
    if (wantRV !== undefined && wantRV !== "" && wantRV !== current.metadata?.resourceVersion) {
      throw newConflict(this.gr(r), name);
    }
    const next = this.prepareUpdate(r, namespace, name, deepCopyJson(input), current, o);
    const managed = this.fieldManaged(r, current, next, "Update", o);
    return this.commitUpdate(r, namespace, name, managed, current, o);
  }

  /** `BeforeUpdate` + the strategy + validation. */
  private prepareUpdate(
    r: SimResource,
    namespace: string,
    name: string,
    src: KubeObject,
    current: KubeObject,
    o: WriteOptions,
  ): KubeObject {
    const cm = current.metadata ?? {};
    let obj: KubeObject = { ...src, apiVersion: apiVersionOf(r), kind: r.kind };
    const meta = metaOf(obj);
    meta.name = name;
    if (r.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    meta.resourceVersion = cm.resourceVersion;
    delete meta.selfLink;
    if (meta.uid === undefined || meta.uid === "") meta.uid = cm.uid;
    meta.creationTimestamp = cm.creationTimestamp;
    // An update can never remove or change a deletion timestamp, nor drop the grace period.
    if (cm.deletionTimestamp !== undefined) meta.deletionTimestamp = cm.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (cm.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined)
      meta.deletionGracePeriodSeconds = cm.deletionGracePeriodSeconds;
    if (cm.generation === undefined) delete meta.generation;
    else meta.generation = cm.generation;
    const attrs = this.attributes(o);
    this.admission.decode(r, obj, attrs, false);
    this.admission.default(r, obj, current, attrs);
    if (o.webhook !== undefined) {
      o.webhook.onMutating?.(deepCopyJson(obj), current);
      if (o.webhook.mutated !== undefined) {
        if (o.webhook.mutated.metadata?.resourceVersion !== cm.resourceVersion) throw newConflict(this.gr(r), name);
        obj = this.afterMutation(r, obj, o.webhook.mutated, current, attrs);
      }
    }
    const strategy = this.strategy(r);
    const sub = o.subresource ?? "";
    if (sub === "status") obj = strategy.prepareForStatusUpdate(obj, current);
    else if (sub !== "") obj = strategy.prepareForSubresourceUpdate(sub, obj, current);
    else strategy.prepareForUpdate(obj, current);
    // What the update left as it was is the stored object's own (frozen) parts from here on: the validation's
    // comparisons with the old object (`ValidatePodUpdate`, immutable fields), the field manager's comparison, the
    // storage's no-op check and its freeze pass them by identity, and the versions share them. Validation only reads.
    const shared = shareUnchanged(obj, current);
    const errs = [
      ...validateObjectMetaUpdate(r, shared, current),
      ...this.admission.validate(r, shared, current, attrs),
    ];
    if (errs.length > 0) throw newInvalid({ group: r.group, kind: r.kind }, name, errs);
    this.admission.admitValidating(this.policyRequest(r, "UPDATE", namespace, name, shared, current, o));
    o.webhook?.onValidating?.(deepCopyJson(shared));
    return shared;
  }

  /**
   * The object after the mutating webhooks: their `mutated` object with the server's identity fields of `base` (the
   * object before them), decoded and defaulted again (see {@link WebhookPass.mutated}).
   */
  private afterMutation(
    r: SimResource,
    base: KubeObject,
    mutated: KubeObject,
    current: KubeObject | undefined,
    attrs: AdmissionAttributes,
  ): KubeObject {
    const obj = deepCopyJson(mutated);
    const meta = metaOf(obj);
    const bm = base.metadata ?? {};
    for (const key of ["namespace", "uid", "creationTimestamp", "deletionTimestamp", "resourceVersion"] as const) {
      if (key === "uid" && current === undefined && meta.uid !== undefined) continue;
      if (key === "creationTimestamp" && current === undefined && meta.creationTimestamp !== undefined) continue;
      if (bm[key] === undefined) delete meta[key];
      else (meta as Record<string, unknown>)[key] = bm[key];
    }
    if (current !== undefined) meta.name = bm.name;
    const out: KubeObject = { ...obj, apiVersion: apiVersionOf(r), kind: r.kind, metadata: meta };
    const internal = { ...attrs, internal: true };
    this.admission.decode(r, out, internal, current === undefined);
    this.admission.default(r, out, current, internal);
    return out;
  }

  /** Stores an update (or deletes when the last finalizer of a deleting object went away). */
  private commitUpdate(
    r: SimResource,
    namespace: string,
    name: string,
    obj: KubeObject,
    current: KubeObject,
    o: WriteOptions,
  ): KubeObject {
    const rv = current.metadata?.resourceVersion ?? "";
    // `shouldDeleteDuringUpdate`: a graceful deletion still pending (grace period > 0) is not finished by an update.
    const shouldDelete =
      obj.metadata?.deletionTimestamp !== undefined &&
      (obj.metadata.deletionGracePeriodSeconds ?? 0) === 0 &&
      finalizersOf(obj).length === 0 &&
      !this.namespaceHeld(r, obj);
    if (o.dryRun === true) return deepFreeze(obj);
    if (shouldDelete) {
      const removed = this.remove(r, namespace, name, rv, obj);
      releaseManagedFields(current.metadata?.managedFields);
      return removed;
    }
    return kept(this.storage.replace(r, namespace, name, obj, rv), obj, current);
  }

  /** Removes a stored object; a Service's IPAddresses go with it. */
  private remove(r: SimResource, namespace: string, name: string, rv: string, last?: KubeObject): KubeObject {
    const removed = this.storage.remove(r, namespace, name, rv, last);
    this.opts.serviceIps?.released(r, removed);
    return removed;
  }

  /** A namespace stays while its spec finalizers (the namespace controller's `kubernetes`) remain. */
  private namespaceHeld(r: SimResource, obj: KubeObject): boolean {
    return r.group === "" && r.resource === "namespaces" && specFinalizersOf(obj).length > 0;
  }

  // ---- patch --------------------------------------------------------------------------------------------------

  /**
   * PATCH (`patchResource`): decodes `body` as `type`, applies it to the stored object (or its status) and updates
   * with the stored resourceVersion, re-reading and re-applying up to 5 times when the object changes underneath.
   * A patch that sets `metadata.resourceVersion` is a precondition: a different stored version is 409 at once. An
   * apply patch goes to the field manager's `apply` when one is installed (else it is merged like a merge patch) and
   * creates a missing object; every other patch of a missing object is 404.
   */
  patch(
    r: SimResource,
    namespace: string,
    name: string,
    type: PatchContentType | string,
    body: string,
    o: WriteOptions = {},
  ): KubeObject {
    this.checkSubresource(r, o);
    const pt = patchTypeOf(type, r.custom === true);
    const isApply = pt === "application/apply-patch+yaml";
    if (isApply && (o.fieldManager ?? "") === "") {
      throw newInvalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", [
        { type: "FieldValueRequired", field: "fieldManager", detail: "is required for apply patch" },
      ]);
    }
    for (let attempt = 1; ; attempt++) {
      const current = this.storage.get(r, namespace, name);
      if (current === undefined && !isApply) throw newNotFound(this.gr(r), name);
      let patched: KubeObject;
      const fm = this.fieldManager;
      if (isApply && fm?.apply !== undefined) {
        const p = decodePatch(pt, body) as Record<string, unknown>;
        const uid = (p.metadata as { uid?: unknown } | undefined)?.uid;
        if (current === undefined && typeof uid === "string" && uid !== "") {
          throw newConflict(
            this.gr(r),
            name,
            `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
          );
        }
        patched = fm.apply(current, p, {
          resource: r,
          manager: o.fieldManager ?? "",
          operation: "Apply",
          subresource: o.subresource ?? "",
          force: o.force === true,
        });
      } else {
        const base: KubeObject = current ?? {
          apiVersion: apiVersionOf(r),
          kind: r.kind,
          metadata: { name, ...(r.namespaced && { namespace }) },
        };
        const out = applyPatch(pt, base, body, { kind: r.kind, custom: r.custom === true });
        if (typeof out !== "object" || out === null || Array.isArray(out))
          throw newBadRequest("the patched object is not a JSON object");
        patched = out as KubeObject;
      }
      const meta = metaOf(patched);
      const patchedName = meta.name;
      if (typeof patchedName === "string" && patchedName !== "" && patchedName !== name) {
        throw newBadRequest(`the name of the object (${patchedName}) does not match the name on the URL (${name})`);
      }
      meta.name = name;
      const currentRV = current?.metadata?.resourceVersion;
      const pinned =
        typeof meta.resourceVersion === "string" && meta.resourceVersion !== "" && meta.resourceVersion !== currentRV;
      if (pinned) throw newConflict(this.gr(r), name);
      try {
        if (current === undefined) {
          delete meta.resourceVersion;
          const created = this.create(r, namespace, patched, {
            ...o,
            subresource: "",
            ...(isApply && fm?.apply !== undefined && { applied: true }),
          });
          o.onCreated?.();
          return created;
        }
        meta.resourceVersion = currentRV;
        const next = this.prepareUpdate(r, namespace, name, patched, current, o);
        const managed = isApply && fm?.apply !== undefined ? next : this.fieldManaged(r, current, next, "Update", o);
        return this.commitUpdate(r, namespace, name, managed, current, o);
      } catch (err) {
        // GuaranteedUpdate re-reads and re-applies on a conflict the client did not ask for.
        if (!(isConflict(err) || (isNotFound(err) && current !== undefined)) || attempt >= MAX_PATCH_ATTEMPTS)
          throw err;
      }
    }
  }

  // ---- delete -------------------------------------------------------------------------------------------------

  /**
   * DELETE (`Store.Delete` + `BeforeDelete`): see the class comment. An object without finalizers after the
   * propagation policy is removed (DELETED); one with finalizers gets `deletionTimestamp` (first delete only, which
   * also increments a `metadata.generation` > 0, as upstream's `markAsDeleting`) and `deletionGracePeriodSeconds: 0`
   * and is kept (MODIFIED, `deleted: false`).
   */
  delete(r: SimResource, namespace: string, name: string, d: DeleteOptions = {}): DeleteResult {
    validateDeleteOptions(d);
    if (
      this.namespaceLifecycle &&
      r.group === "" &&
      r.resource === "namespaces" &&
      IMMORTAL_NAMESPACES.includes(name)
    ) {
      throw newForbidden(this.gr(r), name, "this namespace may not be deleted");
    }
    const current = this.storage.get(r, namespace, name);
    if (current === undefined) throw newNotFound(this.gr(r), name);
    const m = current.metadata ?? {};
    const pre = d.preconditions;
    if (pre?.uid !== undefined && pre.uid !== m.uid) {
      throw newConflict(
        this.gr(r),
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${m.uid ?? ""}`,
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== m.resourceVersion) {
      throw newConflict(
        this.gr(r),
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ""}`,
      );
    }
    this.admission.admitValidating(
      this.policyRequest(r, "DELETE", namespace, name, undefined, current, { dryRun: d.dryRun === true }),
    );
    const rv = m.resourceVersion ?? "";
    const graceful = beforeDelete(r, current, d, this.clock.now());
    // A pending graceful deletion that this request does not shorten: nothing changes (`finalizeDelete`).
    if (graceful.kind === "pending") return { object: current, deleted: false };
    const { finalizers } = finalizersForDeletion(current, d);
    const isNamespace = r.group === "" && r.resource === "namespaces";
    const held = finalizers.length > 0 || (isNamespace && specFinalizersOf(current).length > 0);
    if (graceful.kind === "graceful") {
      const next = structuredClone(current) as KubeObject;
      const nm = metaOf(next);
      if (finalizers.length > 0) nm.finalizers = finalizers;
      else delete nm.finalizers;
      if (nm.deletionTimestamp === undefined && typeof nm.generation === "number" && nm.generation > 0)
        nm.generation += 1;
      nm.deletionTimestamp = rfc3339Seconds(graceful.deletionTimestampMs);
      nm.deletionGracePeriodSeconds = graceful.period;
      // Grace period 0 without finalizers (`updateForGracefulDeletionAndFinalizers` with `lastGraceful` 0): the
      // deletion timestamp is written first — watchers see MODIFIED — and the object is deleted right after.
      const now = graceful.period <= 0 && !held;
      if (d.dryRun === true) return { object: deepFreeze(next), deleted: now };
      const marked = this.storage.replace(r, namespace, name, next, rv);
      releaseManagedFields(current.metadata?.managedFields);
      if (!now) return { object: marked, deleted: false };
      return { object: this.remove(r, namespace, name, marked.metadata?.resourceVersion ?? ""), deleted: true };
    }
    if (!held) {
      if (d.dryRun === true) return { object: current, deleted: true };
      const removed = this.remove(r, namespace, name, rv);
      releaseManagedFields(current.metadata?.managedFields);
      return { object: removed, deleted: true };
    }
    const next = structuredClone(current) as KubeObject;
    const nm = metaOf(next);
    if (finalizers.length > 0) nm.finalizers = finalizers;
    else delete nm.finalizers;
    if (nm.deletionTimestamp === undefined) {
      // markAsDeleting: the first delete changes what controllers of the object must do, so a generation that is
      // tracked (> 0) is bumped once, when deletionTimestamp is first set.
      if (typeof nm.generation === "number" && nm.generation > 0) nm.generation += 1;
      nm.deletionTimestamp = this.now();
    }
    // The namespace registry sets no grace period; the generic store sets 0 (no graceful deletion is pending).
    if (isNamespace) next.status = { ...(next.status as object | undefined), phase: "Terminating" };
    else nm.deletionGracePeriodSeconds = 0;
    if (d.dryRun === true) return { object: deepFreeze(next), deleted: false };
    return { object: this.storage.replace(r, namespace, name, next, rv), deleted: false };
  }

  /**
   * `/finalize` of a namespace (the namespace controller's last step): replaces `spec.finalizers`; a deleting
   * namespace left without spec and metadata finalizers is deleted. `resourceVersion` (the request body's) must match
   * the stored one when given (409 Conflict); `dryRun` stores nothing.
   */
  finalizeNamespace(
    r: SimResource,
    name: string,
    specFinalizers: readonly string[],
    o: { readonly resourceVersion?: string; readonly dryRun?: boolean } = {},
  ): KubeObject {
    const current = this.storage.get(r, "", name);
    if (current === undefined) throw newNotFound(this.gr(r), name);
    const rv = current.metadata?.resourceVersion ?? "";
    if (o.resourceVersion !== undefined && o.resourceVersion !== "" && o.resourceVersion !== rv) {
      throw newConflict(this.gr(r), name);
    }
    const next = structuredClone(current) as KubeObject;
    next.spec = { ...(next.spec as object | undefined), finalizers: [...specFinalizers] };
    if (o.dryRun === true) return deepFreeze(next);
    if (
      next.metadata?.deletionTimestamp !== undefined &&
      specFinalizers.length === 0 &&
      finalizersOf(next).length === 0
    ) {
      return this.remove(r, "", name, rv, next);
    }
    return this.storage.replace(r, "", name, next, rv);
  }

  /** Creates the system namespaces that do not exist yet (kube-apiserver's system namespaces controller). */
  ensureSystemNamespaces(nsr: SimResource): void {
    for (const ns of SYSTEM_NAMESPACES) {
      if (this.storage.get(nsr, "", ns) === undefined) this.create(nsr, "", { metadata: { name: ns } });
    }
  }
}
