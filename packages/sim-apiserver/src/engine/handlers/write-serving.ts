import {
  isNotFound,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newConflict,
  newInvalid,
  newMethodNotSupported,
  newNotFound,
} from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import type { Authorizer } from "../authorization/index.js";
import { answeredBy, type ServedFrom } from "../cacher/index.js";
import { rfc3339Seconds } from "../object-util.js";
import {
  answerReview,
  applyPatch,
  bindPod,
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  CUSTOM_RESOURCE_DEFINITIONS,
  type DeleteOptions,
  establishedDefinition,
  evictPod,
  type PatchContentType,
  type PodBinding,
  type PodEviction,
  patchTypeOf,
  type RegistryStore,
  type ResourceTable,
  reviewUserOf,
  scaleOf,
  unsupportedPatchType,
  validateCustomResourceDefinition,
  validateDeleteOptions,
  validateScale,
  withScaledReplicas,
  withTerminatingCondition,
} from "../registry/index.js";
import type { WebhookPass } from "../registry/store.js";
import type { EngineRequest, Served } from "../request-context.js";
import { BUILTIN_RESOURCES, type SimResource } from "../resources.js";
import type { ServiceAccountTokens } from "../serviceaccount/service-account-tokens.js";
import type { MvccStorage } from "../storage/index.js";
import { type ListOptionGates, listOptionsFor, scalePathsOf } from "./list-serving.js";

/** Whether a PATCH content type is server-side apply (reported as verb `APPLY`). */
export function isApplyPatch(type: PatchContentType | string): boolean {
  return type.split(";")[0]!.trim().toLowerCase() === "application/apply-patch+yaml";
}

/**
 * The write handlers (kube-apiserver's `createHandler`, `UpdateResource`, `PatchResource`, `DeleteResource`,
 * `DeleteCollection`) on top of the {@link RegistryStore}: the `/scale` subresource, the CustomResourceDefinition
 * REST's validation and two-step delete, and the request's write parameters.
 */
export class WriteServing {
  constructor(
    private readonly deps: {
      readonly clock: Clock;
      readonly storage: MvccStorage;
      readonly registry: RegistryStore;
      readonly table: ResourceTable;
      readonly defaultUserAgent: string;
      readonly gates: ListOptionGates;
      /** `serviceaccounts/<name>/token` and TokenReviews of those tokens. */
      readonly tokens?: ServiceAccountTokens;
      /** What the review kinds answer from (default: every request allowed). */
      readonly authorizer?: Authorizer;
      /** Where a definition's warnings (rules the simulator cannot evaluate) are logged; the engine logs each once. */
      readonly log?: (line: string) => void;
      /** The release (1.x) whose CEL environment a definition's new rules are compiled for. */
      readonly celCompatibility?: number;
    },
  ) {}

  /**
   * Validates a CustomResourceDefinition (`validateCustomResourceDefinition`): the 422 when invalid; else its
   * warnings (rules accepted but not evaluated) go to the response's `Warning` headers and to the log.
   */
  private checkDefinition(obj: KubeObject, name: string, req: EngineRequest): void {
    const warnings: string[] = [];
    const errs = validateCustomResourceDefinition(obj, warnings, this.deps.celCompatibility);
    if (errs.length > 0)
      throw newInvalid({ group: "apiextensions.k8s.io", kind: "CustomResourceDefinition" }, name, errs);
    req.warnings?.push(...warnings);
    for (const w of warnings) this.deps.log?.(`CustomResourceDefinition ${name}: ${w}`);
  }

  /**
   * CREATE through the registry (with `subresource: "binding"` on pods: {@link bindPod}, the pod named by the
   * Binding's `metadata.name`; `"eviction"` on pods: {@link evictPod}; `"token"` on serviceaccounts: a TokenRequest answered by {@link ServiceAccountTokens}): generateName, uid, creationTimestamp, the kind's strategy, validation, the
   * namespace lifecycle; `dryRun` stores nothing. A CustomResourceDefinition is validated, stored established, and
   * its resource served.
   */
  create(
    r: SimResource,
    namespace: string,
    obj: KubeObject,
    req: EngineRequest,
    pass?: WebhookPass,
  ): Served<KubeObject> {
    const { registry, clock, table } = this.deps;
    if (r.review === true)
      return {
        object: answerReview(
          r,
          namespace,
          obj,
          reviewUserOf(req.user, req.groups, req.uid, req.extra),
          this.deps.tokens,
          this.deps.authorizer,
        ),
      };
    if (req.subresource === "token") {
      if (r.group !== "" || r.resource !== "serviceaccounts" || this.deps.tokens === undefined)
        throw newNotFound({ group: r.group, resource: r.resource }, "");
      return { object: this.deps.tokens.request(namespace, (obj.metadata?.name ?? "") as string, obj) };
    }
    if (req.subresource === "eviction") {
      if (r.group !== "" || r.resource !== "pods") throw newNotFound({ group: r.group, resource: r.resource }, "");
      const name = (obj.metadata?.name ?? "") as string;
      const status = evictPod(this.evictionDeps(r), namespace, name, obj as PodEviction, req.dryRun === true);
      return { object: status as unknown as KubeObject };
    }
    if (req.subresource === "binding") {
      if (r.group !== "" || r.resource !== "pods") throw newNotFound({ group: r.group, resource: r.resource }, "");
      const name = (obj.metadata?.name ?? "") as string;
      const status = bindPod(this.deps.storage, r, namespace, name, obj as PodBinding, req.dryRun === true);
      return { object: status as unknown as KubeObject };
    }
    if (r !== CUSTOM_RESOURCE_DEFINITIONS) {
      return { object: registry.create(r, namespace, obj, this.writeOptions(req, pass)) };
    }
    this.checkDefinition(obj, obj.metadata?.name ?? "", req);
    const stored = registry.create(
      r,
      namespace,
      establishedDefinition(obj, rfc3339Seconds(clock.now())),
      this.writeOptions(req, pass),
    );
    if (req.dryRun !== true) table.serveDefinition(stored);
    return { object: stored };
  }

  /** UPDATE (PUT) of an object, of its status (`subresource: "status"`) or of its Scale (`"scale"`). */
  update(
    r: SimResource,
    namespace: string,
    name: string,
    obj: KubeObject,
    req: EngineRequest,
    pass?: WebhookPass,
  ): Served<KubeObject> {
    if (req.subresource === "scale") return { object: this.writeScale(r, namespace, name, obj, req) };
    if (req.subresource === "finalize") return { object: this.finalize(r, name, obj, req) };
    if (r === CUSTOM_RESOURCE_DEFINITIONS && req.subresource !== "status") this.checkDefinition(obj, name, req);
    const object = this.deps.registry.update(r, namespace, name, obj, this.writeOptions(req, pass));
    this.servedDefinitionChanged(r, object, req);
    return { object };
  }

  /** A written CustomResourceDefinition's served version is served as it now reads (see `serveDefinition`). */
  private servedDefinitionChanged(r: SimResource, object: KubeObject, req: EngineRequest): void {
    if (r !== CUSTOM_RESOURCE_DEFINITIONS || req.dryRun === true || req.subresource === "status") return;
    if (object.metadata?.deletionTimestamp !== undefined) return;
    this.deps.table.serveDefinition(object);
  }

  /**
   * `PUT /api/v1/namespaces/<name>/finalize` (the namespace `FinalizeREST`): the body's `spec.finalizers` replace the
   * stored ones, everything else is kept; a deleting namespace left without finalizers is deleted. 404 for any
   * other resource (the route does not exist).
   */
  private finalize(r: SimResource, name: string, obj: KubeObject, req: EngineRequest): KubeObject {
    if (!(r.group === "" && r.resource === "namespaces"))
      throw newNotFound({ group: r.group, resource: r.resource }, name);
    const fins = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
    const list = Array.isArray(fins) ? fins.filter((f): f is string => typeof f === "string") : [];
    const rv = obj.metadata?.resourceVersion;
    return this.deps.registry.finalizeNamespace(r, name, list, {
      ...(rv !== undefined && { resourceVersion: rv }),
      ...(req.dryRun === true && { dryRun: true }),
    });
  }

  /**
   * PATCH of an object, its status or its Scale: `type` is the patch content type (JSON patch, merge, strategic
   * merge for built-ins, apply), `body` its text. `created` tells whether an apply created the object.
   */
  patch(
    r: SimResource,
    namespace: string,
    name: string,
    type: PatchContentType | string,
    body: string,
    req: EngineRequest,
    pass?: WebhookPass,
  ): Served<KubeObject> {
    const { storage, registry } = this.deps;
    if (req.subresource === "scale") {
      const paths = scalePathsOf(r);
      const pt = patchTypeOf(type);
      if (pt === "application/apply-patch+yaml") {
        throw unsupportedPatchType([
          "application/json-patch+json",
          "application/merge-patch+json",
          "application/strategic-merge-patch+json",
        ]);
      }
      const current = storage.get(r, namespace, name);
      if (current === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
      const scale = applyPatch(pt, scaleOf(current, paths), body, { kind: "Scale", custom: false }) as KubeObject;
      return { object: this.writeScale(r, namespace, name, scale, req), created: false };
    }
    let created = false;
    const object = registry.patch(r, namespace, name, type, body, {
      ...this.writeOptions(req, pass),
      onCreated: () => {
        created = true;
      },
    });
    this.servedDefinitionChanged(r, object, req);
    return { object, created };
  }

  /**
   * DELETE: preconditions, propagation policy, finalizers. Answers the object's last state; `deleted` tells whether
   * it is gone or held by finalizers (then it carries its deletionTimestamp). `options.dryRun` or the request's
   * `dryRun` stores nothing. A CustomResourceDefinition is first marked Terminating with the cleanup finalizer.
   */
  delete(
    r: SimResource,
    namespace: string,
    name: string,
    options: DeleteOptions | undefined,
    req: EngineRequest,
  ): Served<KubeObject> {
    const dryRun = req.dryRun === true || options?.dryRun === true;
    const crd = r === CUSTOM_RESOURCE_DEFINITIONS && !dryRun;
    const opts = crd ? this.markDefinitionDeleting(name, options) : options;
    const res = this.deps.registry.delete(r, namespace, name, {
      ...opts,
      ...(req.dryRun === true && { dryRun: true }),
    });
    if (crd && res.deleted) this.deps.table.retireDefinition(name);
    return { object: res.object, deleted: res.deleted };
  }

  /**
   * DELETE on a collection (`Store.DeleteCollection`): lists what `listOpts` select in `namespace` (`""`: every
   * namespace of a namespaced resource) as a LIST does (same validation and errors), then deletes each listed object
   * through the delete path with `options`. An object gone meanwhile is skipped; the first other error stops the loop
   * and rejects (the deletes before it stay done: not atomic, as upstream). Answers the list as it was selected.
   * Namespaces do not serve it (405, as kube-apiserver's namespace REST). CustomResourceDefinitions go one by one
   * through their own delete (the cleanup finalizer and the Terminating condition first, as their REST's Delete).
   */
  async deleteCollection(
    r: SimResource,
    namespace: string,
    listOpts: ListOptions,
    options: DeleteOptions | undefined,
    req: EngineRequest,
  ): Promise<Served<KubeList>> {
    if (r.group === "" && r.resource === "namespaces") {
      throw newMethodNotSupported({ group: r.group, resource: r.resource }, "deletecollection");
    }
    if (options !== undefined) validateDeleteOptions(options);
    const { v, sel } = listOptionsFor(r, listOpts, false, this.deps.gates);
    const res = await this.deps.table.cacher(r).list(namespace, v, sel);
    const servedFrom: ServedFrom = res.servedFrom;
    const opts: DeleteOptions = { ...options, ...(req.dryRun === true && { dryRun: true }) };
    for (const item of res.list.items) {
      const m = item.metadata ?? {};
      try {
        if (r === CUSTOM_RESOURCE_DEFINITIONS) this.delete(r, "", m.name ?? "", options, req);
        else this.deps.registry.delete(r, m.namespace ?? "", m.name ?? "", opts);
      } catch (err) {
        if (!isNotFound(err)) throw answeredBy(err, servedFrom);
      }
    }
    return { object: res.list, servedFrom };
  }

  /**
   * Writes an `autoscaling/v1` Scale to its object (`/scale` PUT, and PATCH after patching the current Scale):
   * `spec.replicas` validated (422 `Scale.autoscaling "x" is invalid: spec.replicas: Invalid value: -1: must be
   * greater than or equal to 0`), a given `metadata.resourceVersion` must be the stored one (409), then the object's
   * desired replicas are set through the registry. Returns the new Scale.
   */
  private writeScale(r: SimResource, namespace: string, name: string, scale: KubeObject, req: EngineRequest) {
    const paths = scalePathsOf(r);
    const errs = validateScale(scale);
    if (errs.length > 0) throw newInvalid({ group: "autoscaling", kind: "Scale" }, name, errs);
    const current = this.deps.storage.get(r, namespace, name);
    if (current === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
    const rv = scale.metadata?.resourceVersion;
    if (typeof rv === "string" && rv !== "" && rv !== current.metadata?.resourceVersion) {
      throw newConflict({ group: r.group, resource: r.resource }, name);
    }
    const next = withScaledReplicas(current, scale, paths);
    const stored = this.deps.registry.update(r, namespace, name, next, { ...this.writeOptions(req), subresource: "" });
    return scaleOf(stored, paths);
  }

  /**
   * The CustomResourceDefinition REST's first delete: the `customresourcecleanup.apiextensions.k8s.io` finalizer and
   * `Terminating` (`InstanceDeletionPending`) are written first, so the registry's delete then only sets the
   * deletionTimestamp and the `CrdFinalizer` empties the resource before the definition goes. Preconditions are
   * checked against the definition as it was; returns the options for the delete that follows.
   */
  private markDefinitionDeleting(name: string, options: DeleteOptions | undefined) {
    const { storage, clock } = this.deps;
    const current = storage.get(CUSTOM_RESOURCE_DEFINITIONS, "", name);
    if (current === undefined || current.metadata?.deletionTimestamp !== undefined) return options;
    const pre = options?.preconditions;
    const uidOk = pre?.uid === undefined || pre.uid === current.metadata?.uid;
    const rvOk = pre?.resourceVersion === undefined || pre.resourceVersion === current.metadata?.resourceVersion;
    if (!uidOk || !rvOk) return options; // the registry answers the 409
    let next = structuredClone(current);
    const finalizers = next.metadata?.finalizers ?? [];
    if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) {
      next.metadata = { ...next.metadata, finalizers: [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER] };
    }
    next = withTerminatingCondition(
      next,
      "InstanceDeletionPending",
      "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
      rfc3339Seconds(clock.now()),
    );
    // One storage write of both, past the strategy (which keeps a main write's status), as the REST's Delete does
    // with a GuaranteedUpdate.
    storage.update(CUSTOM_RESOURCE_DEFINITIONS, "", name, next);
    if (pre === undefined) return options;
    const { resourceVersion: _rv, ...rest } = pre;
    return { ...options, preconditions: rest };
  }

  /** What pods/eviction reads and writes through: storage reads, the registry's status update and delete. */
  private evictionDeps(pods: SimResource) {
    const { storage, registry, clock } = this.deps;
    const pdbs = BUILTIN_RESOURCES.find((x) => x.group === "policy" && x.resource === "poddisruptionbudgets");
    if (pdbs === undefined) throw new Error("poddisruptionbudgets is not a built-in resource");
    return {
      storage,
      pods,
      podDisruptionBudgets: pdbs,
      update: (r: SimResource, ns: string, name: string, obj: KubeObject, o: { subresource?: string }) =>
        registry.update(r, ns, name, obj, { ...o, userAgent: this.deps.defaultUserAgent }),
      delete: (r: SimResource, ns: string, name: string, d: DeleteOptions) => registry.delete(r, ns, name, d),
      now: () => rfc3339Seconds(clock.now()),
    };
  }

  /** The registry's write options of a request. */
  private writeOptions(req: EngineRequest, pass?: WebhookPass) {
    return {
      ...(pass !== undefined && { webhook: pass }),
      ...(req.dryRun === true && { dryRun: true }),
      ...(req.fieldManager !== undefined && { fieldManager: req.fieldManager }),
      ...(req.force === true && { force: true }),
      ...(req.subresource !== undefined && { subresource: req.subresource }),
      ...(req.fieldValidation !== undefined && { fieldValidation: req.fieldValidation }),
      ...(req.duplicateFields !== undefined && { duplicateFields: req.duplicateFields }),
      ...(req.warnings !== undefined && { warnings: req.warnings }),
      userAgent: req.userAgent ?? this.deps.defaultUserAgent,
    };
  }
}
