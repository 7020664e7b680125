import {
  failureStatus,
  type KubeObject,
  labelSelectorAsSelector,
  newBadRequest,
  newForbidden,
  type Status,
  StatusError,
} from "@informer-ts/apimachinery";
import type { SimResource } from "../resources.js";
import { type MvccStorage, prefixOf } from "../storage/index.js";
import type { DeleteOptions } from "./delete-options.js";
import type { DeleteResult, WriteOptions } from "./store.js";

/** `policy/v1` `Eviction`: what `kubectl drain` POSTs to `pods/<name>/eviction`. */
export interface PodEviction extends KubeObject {
  readonly deleteOptions?: {
    readonly gracePeriodSeconds?: number;
    readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
    readonly propagationPolicy?: string;
    readonly orphanDependents?: boolean;
    readonly dryRun?: readonly string[];
  };
}

/** What {@link evictPod} reads and writes through: the storage (reads) and the registry's update and delete. */
export interface EvictionDeps {
  readonly storage: MvccStorage;
  readonly pods: SimResource;
  readonly podDisruptionBudgets: SimResource;
  update(r: SimResource, namespace: string, name: string, obj: KubeObject, o: WriteOptions): KubeObject;
  delete(r: SimResource, namespace: string, name: string, d: DeleteOptions): DeleteResult;
  /** RFC 3339 seconds of the injected clock's now (`disruptedPods` and condition times). */
  now(): string;
}

/** Upstream's `MaxDisruptedPodSize`: more unconfirmed evictions than this and the PDB refuses more. */
export const MAX_DISRUPTED_POD_SIZE = 2000;

const PDB_GR = { group: "policy", resource: "poddisruptionbudget" } as const;
const VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget.";

interface PdbStatus {
  observedGeneration?: number;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  disruptedPods?: Record<string, string>;
  conditions?: {
    type: string;
    status: string;
    reason?: string;
    message?: string;
    observedGeneration?: number;
    lastTransitionTime?: string;
  }[];
}

function tooManyRequests(cause: string, retryAfterSeconds: number): StatusError {
  return new StatusError(
    failureStatus(429, "TooManyRequests", VIOLATES, {
      causes: [{ reason: "DisruptionBudget", message: cause }],
      ...(retryAfterSeconds > 0 && { retryAfterSeconds }),
    }),
  );
}

function phaseOf(pod: KubeObject): string {
  return ((pod.status as { phase?: unknown } | undefined)?.phase as string | undefined) ?? "";
}

/** `podutil.IsPodReady`: the `Ready` condition is `True`. */
function isPodReady(pod: KubeObject): boolean {
  const conds = (pod.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions;
  return Array.isArray(conds) && conds.some((c) => c.type === "Ready" && c.status === "True");
}

/** `canIgnorePDB`: a terminal, pending or already deleting pod is deleted without a budget check. */
function canIgnorePdb(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return (
    phase === "Succeeded" || phase === "Failed" || phase === "Pending" || pod.metadata?.deletionTimestamp !== undefined
  );
}

/** `shouldEnforceResourceVersion`: every pod but a terminal or deleting one. */
function shouldEnforceResourceVersion(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return !(phase === "Succeeded" || phase === "Failed" || pod.metadata?.deletionTimestamp !== undefined);
}

/** The eviction's `deleteOptions` as the registry's, with the request's dry run (`propagateDryRun`). */
function deleteOptionsOf(eviction: PodEviction, requestDryRun: boolean): DeleteOptions {
  const d = eviction.deleteOptions ?? {};
  const bodyDryRun = Array.isArray(d.dryRun) && d.dryRun.length > 0;
  const out: { -readonly [K in keyof DeleteOptions]: DeleteOptions[K] } = {};
  if (d.preconditions !== undefined) out.preconditions = { ...d.preconditions };
  if (typeof d.propagationPolicy === "string" && d.propagationPolicy !== "")
    out.propagationPolicy = d.propagationPolicy;
  if (typeof d.orphanDependents === "boolean") out.orphanDependents = d.orphanDependents;
  if (typeof d.gracePeriodSeconds === "number") out.gracePeriodSeconds = d.gracePeriodSeconds;
  if (bodyDryRun || requestDryRun) out.dryRun = true;
  return out;
}

function withResourceVersion(d: DeleteOptions, rv: string | undefined): DeleteOptions {
  return { ...d, preconditions: { ...d.preconditions, ...(rv !== undefined && { resourceVersion: rv }) } };
}

/** `getPodDisruptionBudgets`: the PDBs of the pod's namespace whose (non-empty, valid) selector matches its labels. */
function budgetsOf(deps: EvictionDeps, pod: KubeObject, namespace: string): KubeObject[] {
  const r = deps.podDisruptionBudgets;
  const page = deps.storage.list(r, { prefix: prefixOf(r, namespace), rev: 0, limit: 0, predicate: () => true });
  return page.items.filter((pdb) => {
    const raw = (pdb.spec as { selector?: unknown } | undefined)?.selector;
    try {
      const sel = labelSelectorAsSelector(raw as Parameters<typeof labelSelectorAsSelector>[0]);
      // A nil or empty selector matches nothing here, not everything.
      return !sel.empty() && !sel.matchesNothing() && sel.matches(pod.metadata?.labels);
    } catch {
      return false; // an invalid selector matches no pod
    }
  });
}

/** `pdbhelper.UpdateDisruptionAllowedCondition` with `meta.SetStatusCondition`'s transition-time rule. */
function withDisruptionAllowedCondition(status: PdbStatus, now: string): void {
  const allowed = (status.disruptionsAllowed ?? 0) > 0;
  const want = {
    type: "DisruptionAllowed",
    status: allowed ? "True" : "False",
    reason: allowed ? "SufficientPods" : "InsufficientPods",
    message: "",
    observedGeneration: status.observedGeneration ?? 0,
  };
  const conds = [...(status.conditions ?? [])];
  const i = conds.findIndex((c) => c.type === "DisruptionAllowed");
  if (i < 0) conds.push({ ...want, lastTransitionTime: now });
  else {
    const prev = conds[i]!;
    const lastTransitionTime = prev.status === want.status && prev.lastTransitionTime ? prev.lastTransitionTime : now;
    conds[i] = { ...prev, ...want, lastTransitionTime };
  }
  status.conditions = conds;
}

/**
 * `checkAndDecrement`: a budget not yet observed by the disruption controller (`status.observedGeneration <
 * metadata.generation`) is 429 with retry-after 10 s; a negative `disruptionsAllowed` or more than
 * {@link MAX_DISRUPTED_POD_SIZE} `disruptedPods` is 403; none allowed is 429 naming the healthy counts. Else
 * `disruptionsAllowed` is decremented and, unless dry run, the pod recorded in `disruptedPods` through a status update.
 */
function checkAndDecrement(deps: EvictionDeps, pdb: KubeObject, podName: string, dryRun: boolean): void {
  const name = pdb.metadata?.name ?? "";
  const status = structuredClone((pdb.status ?? {}) as PdbStatus);
  if ((status.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0)) {
    throw tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10);
  }
  const allowed = status.disruptionsAllowed ?? 0;
  if (allowed < 0) throw newForbidden(PDB_GR, name, "pdb disruptions allowed is negative");
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    throw newForbidden(PDB_GR, name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
  }
  if (allowed === 0) {
    throw tooManyRequests(
      `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`,
      0,
    );
  }
  status.disruptionsAllowed = allowed - 1;
  const now = deps.now();
  if (status.disruptionsAllowed === 0) withDisruptionAllowedCondition(status, now);
  if (dryRun) return;
  status.disruptedPods = { ...status.disruptedPods, [podName]: now };
  const ns = pdb.metadata?.namespace ?? "";
  deps.update(deps.podDisruptionBudgets, ns, name, { ...pdb, status } as KubeObject, { subresource: "status" });
}

const SUCCESS: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };

/**
 * Evicts a pod (kube-apiserver's `EvictionREST.Create`, pkg/registry/core/pod/storage/eviction.go): the pod is deleted
 * through the registry's delete (graceful deletion included) with the Eviction's `deleteOptions`, unless a
 * PodDisruptionBudget forbids it:
 * - a Succeeded, Failed or Pending pod, or one already deleting, is deleted without looking at budgets;
 * - more than one budget selecting the pod: a 500 Status `This pod has more than one PodDisruptionBudget, which the
 *   eviction subresource does not support.`;
 * - an unready pod whose budget has `unhealthyPodEvictionPolicy: AlwaysAllow`, or (the default `IfHealthyBudget`)
 *   `currentHealthy >= desiredHealthy > 0`, is deleted without decrementing the budget (with the pod's
 *   resourceVersion as precondition);
 * - else {@link checkAndDecrement}: 429 `Cannot evict pod as it would violate the pod's disruption budget.` with a
 *   `DisruptionBudget` cause when no disruption is allowed.
 * Answers the `Success` Status (201). The engine is single-threaded, so upstream's conflict retries never happen.
 */
export function evictPod(
  deps: EvictionDeps,
  namespace: string,
  name: string,
  eviction: PodEviction,
  requestDryRun: boolean,
): Status {
  const evictionName = eviction.metadata?.name ?? "";
  if (evictionName !== name) throw newBadRequest("name in URL does not match name in Eviction object");
  const options = deleteOptionsOf(eviction, requestDryRun);
  const rvUnset = options.preconditions?.resourceVersion === undefined;
  const pods = deps.pods;
  const pod = deps.storage.get(pods, namespace, name);
  if (pod === undefined) {
    // The registry's delete answers the 404 upstream's Get does.
    deps.delete(pods, namespace, name, options);
    return SUCCESS;
  }
  if (canIgnorePdb(pod)) {
    const d =
      shouldEnforceResourceVersion(pod) && rvUnset
        ? withResourceVersion(options, pod.metadata?.resourceVersion)
        : options;
    deps.delete(pods, namespace, name, d);
    return SUCCESS;
  }
  const budgets = budgetsOf(deps, pod, namespace);
  if (budgets.length > 1) {
    throw new StatusError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      code: 500,
    });
  }
  let unreadyAllowed = false;
  if (budgets.length === 1) {
    const pdb = budgets[0]!;
    const spec = (pdb.spec ?? {}) as { unhealthyPodEvictionPolicy?: string };
    const st = (pdb.status ?? {}) as PdbStatus;
    const desired = st.desiredHealthy ?? 0;
    if (!isPodReady(pod) && spec.unhealthyPodEvictionPolicy === "AlwaysAllow") unreadyAllowed = true;
    else if (!isPodReady(pod) && (st.currentHealthy ?? 0) >= desired && desired > 0) unreadyAllowed = true;
    else checkAndDecrement(deps, pdb, name, options.dryRun === true);
  }
  const d = unreadyAllowed ? withResourceVersion(options, pod.metadata?.resourceVersion) : options;
  deps.delete(pods, namespace, name, d);
  return SUCCESS;
}
