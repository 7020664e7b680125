import type { KubeObject } from "@informer-ts/apimachinery";
import { jsonEqual } from "../object-util.js";
import type { SimResource } from "../resources.js";
import { prepareForCsrApprovalUpdate, preserveCsrApprovalConditions } from "./csr-approval.js";
import { withStorageVersionRecorded } from "./custom-resource-versions.js";
import { generateJobSelector } from "./job-selector.js";
import { FINALIZER_KUBERNETES } from "./object-meta-validation.js";
import { convertSecretStringData } from "./secret-conversion.js";

/**
 * The per-resource part of the registry (`rest.RESTCreateStrategy`/`RESTUpdateStrategy` and the status strategy of
 * each kind): what a create or update may set, how `metadata.generation` moves, what a `/status` write may change.
 * All methods work on copies the registry owns and mutate them in place.
 */
export interface ResourceStrategy {
  /** The resource has a `status` subresource. */
  readonly hasStatus: boolean;
  /** `PrepareForCreate`: resets what a create may not set (status of resources with a status subresource, …). */
  prepareForCreate(obj: KubeObject): void;
  /** `PrepareForUpdate` of the main resource: keeps the stored status; bumps the generation per the kind's rule. */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** `PrepareForUpdate` of the status strategy: returns the object a `/status` write stores. */
  prepareForStatusUpdate(obj: KubeObject, old: KubeObject): KubeObject;
  /**
   * `PrepareForUpdate` of another status-like subresource the resource serves (CertificateSigningRequests'
   * `approval`): returns the object such a write stores.
   */
  prepareForSubresourceUpdate(subresource: string, obj: KubeObject, old: KubeObject): KubeObject;
}

/** What moves `metadata.generation` on an update of the main resource. */
type GenerationRule = "none" | "spec" | "spec+annotations" | "non-metadata";

const APPS_WORKLOADS = new Set(["deployments", "statefulsets", "daemonsets", "replicasets"]);

function generationRule(r: SimResource): GenerationRule {
  if (r.custom === true) return "non-metadata";
  if (r.group === "apps" && r.resource === "deployments") return "spec+annotations";
  if (
    APPS_WORKLOADS.has(r.resource) ||
    r.resource === "pods" ||
    r.resource === "jobs" ||
    r.resource === "cronjobs" ||
    r.resource === "replicationcontrollers" ||
    // pkg/registry/policy/poddisruptionbudget/strategy.go: generation 1 on create, bumped on spec changes.
    (r.group === "policy" && r.resource === "poddisruptionbudgets") ||
    // pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}/strategy.go: likewise.
    (r.group === "admissionregistration.k8s.io" &&
      (r.resource === "validatingadmissionpolicies" || r.resource === "validatingadmissionpolicybindings"))
  )
    return "spec";
  return "none";
}

function meta(obj: KubeObject): Record<string, unknown> {
  if (typeof obj.metadata !== "object" || obj.metadata === null) obj.metadata = {};
  return obj.metadata as Record<string, unknown>;
}

function withoutMetaAndStatus(obj: KubeObject, dropStatus: boolean): Record<string, unknown> {
  const { metadata: _m, status, ...rest } = obj;
  return dropStatus ? rest : { ...rest, status };
}

/** `qos.ComputePodQOS` in short: BestEffort without requests/limits, Guaranteed when limits = requests everywhere. */
function podQosClass(pod: KubeObject): string {
  const spec = (pod.spec ?? {}) as { containers?: unknown; initContainers?: unknown };
  const containers = [
    ...(Array.isArray(spec.containers) ? spec.containers : []),
    ...(Array.isArray(spec.initContainers) ? spec.initContainers : []),
  ] as Array<{ resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } }>;
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    if (Object.keys(req).length > 0 || Object.keys(lim).length > 0) any = true;
    for (const res of ["cpu", "memory"]) {
      const l = lim[res];
      const q = req[res] ?? l;
      if (l === undefined || String(q) !== String(l)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

/**
 * The strategy of a served resource:
 * - resources with a status subresource drop a given status on create (pods start `{phase: Pending, qosClass}`,
 *   namespaces `{phase: Active}`), keep the stored status on a main-resource update, and take only the status (plus,
 *   for built-ins, the metadata except apps workloads' labels) from a `/status` write;
 * - `metadata.generation` is 1 on create and moves on update: on `spec` changes for pods, jobs, cronjobs,
 *   replication controllers, PodDisruptionBudgets and apps workloads, on
 *   `spec` or annotation changes for deployments, on any change outside `metadata` (and `status` when it is a
 *   subresource) for custom resources; other kinds carry no generation;
 * - namespaces get the `kubernetes` spec finalizer on create and keep their spec finalizers on update (only
 *   `/finalize` changes them);
 * - jobs get their generated selector and template labels unless `spec.manualSelector` ({@link generateJobSelector});
 * - secrets have their write-only `stringData` merged into `data` (base64) and dropped on every write (the v1
 *   conversion; see {@link convertSecretStringData}).
 *
 * Differences from kube-apiserver: no field defaulting or dropping of disabled fields; node status is kept on
 * create (kubelet registers nodes with one).
 */
export function strategyFor(r: SimResource): ResourceStrategy {
  const hasStatus = r.subresources?.includes("status") === true;
  const rule = generationRule(r);
  const isNamespaces = r.group === "" && r.resource === "namespaces";
  const isSecrets = r.group === "" && r.resource === "secrets";
  const isDefinitions = r.group === "apiextensions.k8s.io" && r.resource === "customresourcedefinitions";
  const isJobs = r.group === "batch" && r.resource === "jobs";
  const isCsrs = r.group === "certificates.k8s.io" && r.resource === "certificatesigningrequests";
  return {
    hasStatus,
    prepareForCreate(obj) {
      if (isSecrets) convertSecretStringData(obj);
      if (isJobs) generateJobSelector(obj);
      const m = meta(obj);
      if (rule !== "none") m.generation = 1;
      else delete m.generation;
      // A CustomResourceDefinition's create body already carries the status its controllers would write at once
      // (`establishedDefinition`: NamesAccepted, Established, storedVersions), which replaced the client's status.
      const keepsStatus = (r.group === "" && r.resource === "nodes") || isDefinitions;
      if (hasStatus && !keepsStatus) {
        delete obj.status;
        if (r.group === "" && r.resource === "pods") obj.status = { phase: "Pending", qosClass: podQosClass(obj) };
        if (isNamespaces) obj.status = { phase: "Active" };
      }
      if (isNamespaces) {
        const spec = (typeof obj.spec === "object" && obj.spec !== null ? obj.spec : {}) as { finalizers?: unknown };
        const fins = Array.isArray(spec.finalizers) ? spec.finalizers : [];
        obj.spec = {
          ...spec,
          finalizers: fins.includes(FINALIZER_KUBERNETES) ? fins : [...fins, FINALIZER_KUBERNETES],
        };
      }
    },
    prepareForUpdate(obj, old) {
      if (isSecrets) convertSecretStringData(obj);
      const m = meta(obj);
      const om = old.metadata ?? {};
      if (hasStatus) {
        if (old.status === undefined) delete obj.status;
        else obj.status = old.status;
      }
      // The definition strategy's PrepareForUpdate: a new storage version joins status.storedVersions.
      if (isDefinitions) {
        const status = (typeof old.status === "object" && old.status !== null ? old.status : {}) as {
          storedVersions?: unknown;
        };
        obj.status = { ...status, storedVersions: withStorageVersionRecorded(status.storedVersions, obj) };
      }
      if (isNamespaces) {
        const spec = (typeof obj.spec === "object" && obj.spec !== null ? obj.spec : {}) as Record<string, unknown>;
        const oldFins = (old.spec as { finalizers?: unknown } | undefined)?.finalizers;
        if (oldFins === undefined) delete spec.finalizers;
        else spec.finalizers = oldFins;
        obj.spec = spec;
      }
      if (rule === "none") {
        if (om.generation === undefined) delete m.generation;
        else m.generation = om.generation;
        return;
      }
      const gen = typeof om.generation === "number" ? om.generation : 0;
      let changed: boolean;
      if (rule === "non-metadata")
        changed = !jsonEqual(withoutMetaAndStatus(obj, hasStatus), withoutMetaAndStatus(old, hasStatus));
      else {
        changed = !jsonEqual(obj.spec, old.spec);
        if (rule === "spec+annotations") changed ||= !jsonEqual(m.annotations ?? {}, om.annotations ?? {});
      }
      m.generation = changed ? gen + 1 : gen;
    },
    prepareForStatusUpdate(obj, old) {
      if (r.custom === true) {
        // customResourceStatusStrategy: the stored object with the new status (and managedFields) only.
        const out = structuredClone(old) as KubeObject;
        const managed = obj.metadata?.managedFields;
        if (managed !== undefined) meta(out).managedFields = managed;
        else delete meta(out).managedFields;
        if (obj.status === undefined) delete out.status;
        else out.status = obj.status;
        meta(out).resourceVersion = obj.metadata?.resourceVersion;
        return out;
      }
      const out = obj;
      if (old.spec === undefined) delete out.spec;
      else out.spec = old.spec;
      const m = meta(out);
      if (APPS_WORKLOADS.has(r.resource)) {
        if (old.metadata?.labels === undefined) delete m.labels;
        else m.labels = old.metadata.labels;
      }
      if (old.metadata?.generation === undefined) delete m.generation;
      else m.generation = old.metadata.generation;
      if (isCsrs) preserveCsrApprovalConditions(out, old);
      return out;
    },
    prepareForSubresourceUpdate(subresource, obj, old) {
      if (isCsrs && subresource === "approval") {
        const out = prepareForCsrApprovalUpdate(obj, old);
        if (old.metadata?.generation === undefined) delete meta(out).generation;
        else meta(out).generation = old.metadata.generation;
        return out;
      }
      return this.prepareForStatusUpdate(obj, old);
    },
  };
}
