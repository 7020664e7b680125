import type { DaemonSet, Node, Pod } from "@informer-ts/client";
import { scaledValue } from "../deployment/replica-sets.js";
import { computeHash } from "../deployment/revisions.js";
import { newControllerRef } from "../internal/controller-ref.js";
import {
  type NodeSelectorTerm,
  OBJECT_NAME_FIELD,
  podMatchesNodeSelectorAndAffinity,
} from "../internal/node-affinity.js";
import { type Taint, type Toleration, toleratesTaint } from "../scheduler/fit.js";
import { type ControllerRevision, revisionData } from "../statefulset/stateful-set-utils.js";

/** `apps.DefaultDaemonSetUniqueLabelKey` (`controller-revision-hash`): the revision hash a daemon pod was made from. */
export const DAEMON_SET_REVISION_LABEL = "controller-revision-hash";
/** `extensions.DaemonSetTemplateGenerationKey` (deprecated, still written): the set's generation at creation. */
export const DAEMON_SET_TEMPLATE_GENERATION_LABEL = "pod-template-generation";

/** What the DaemonSet controller reads of a DaemonSet's spec. */
export interface DaemonSetSpecView {
  selector?: unknown;
  template?: {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec?: Record<string, unknown>;
  };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  updateStrategy?: {
    type?: "RollingUpdate" | "OnDelete";
    rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
  };
}

export function daemonSpecOf(ds: DaemonSet): DaemonSetSpecView {
  return (ds.spec ?? {}) as DaemonSetSpecView;
}

/** The tolerations every daemon pod gets (`util.AddOrUpdateDaemonPodTolerations`), before `hostNetwork`'s. */
export const DEFAULT_DAEMON_POD_TOLERATIONS: readonly Toleration[] = Object.freeze([
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
]);

/** Added too when the pod uses the host network. */
export const NETWORK_UNAVAILABLE_TOLERATION: Toleration = Object.freeze({
  key: "node.kubernetes.io/network-unavailable",
  operator: "Exists",
  effect: "NoSchedule",
});

/**
 * `util.AddOrUpdateDaemonPodTolerations` (`pkg/controller/daemon/util/daemonset_util.go`): the pod spec's tolerations
 * with each default one added, replacing a toleration of the same key, operator and effect (`AddOrUpdateTolerationInPodSpec`).
 */
export function addOrUpdateDaemonPodTolerations(podSpec: Record<string, unknown>): Toleration[] {
  const out = [...((podSpec.tolerations ?? []) as Toleration[])];
  const defaults = [...DEFAULT_DAEMON_POD_TOLERATIONS];
  if (podSpec.hostNetwork === true) defaults.push(NETWORK_UNAVAILABLE_TOLERATION);
  for (const t of defaults) {
    const at = out.findIndex(
      (o) => (o.key ?? "") === t.key && (o.operator ?? "Equal") === t.operator && (o.effect ?? "") === t.effect,
    );
    if (at >= 0) out[at] = t;
    else out.push(t);
  }
  return out;
}

/**
 * `util.ReplaceDaemonSetPodNodeNameNodeAffinity`: the affinity with its required node-affinity terms replaced by one
 * term matching the field `metadata.name` against `nodeName` — how a daemon pod is bound to its node while the
 * scheduler still places it (preferred terms and pod (anti-)affinity are kept).
 */
export function replaceDaemonSetPodNodeNameNodeAffinity(affinity: unknown, nodeName: string): Record<string, unknown> {
  const term: NodeSelectorTerm = { matchFields: [{ key: OBJECT_NAME_FIELD, operator: "In", values: [nodeName] }] };
  const a = structuredClone((affinity ?? {}) as Record<string, unknown>);
  const na = (a.nodeAffinity ?? {}) as Record<string, unknown>;
  const required = (na.requiredDuringSchedulingIgnoredDuringExecution ?? {}) as Record<string, unknown>;
  return {
    ...a,
    nodeAffinity: { ...na, requiredDuringSchedulingIgnoredDuringExecution: { ...required, nodeSelectorTerms: [term] } },
  };
}

/**
 * `util.GetTargetNodeName`: the node a daemon pod is for — its `nodeName` once bound, else the node its required
 * affinity's `metadata.name` field names; undefined when neither says.
 */
export function getTargetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName !== undefined && pod.spec.nodeName !== "") return pod.spec.nodeName;
  const affinity = pod.spec?.affinity as
    | { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } } }
    | undefined;
  for (const t of affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of t.matchFields ?? []) {
      if (f.key === OBJECT_NAME_FIELD && f.operator === "In" && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}

/**
 * `NewPod`: the pod a DaemonSet would run on `nodeName` (template spec with `nodeName` set, the default
 * tolerations) — what {@link nodeShouldRunDaemonPod} checks a node against.
 */
export function newDaemonPodFor(ds: DaemonSet, nodeName: string): Pod {
  const t = daemonSpecOf(ds).template ?? {};
  const spec = structuredClone(t.spec ?? {});
  spec.nodeName = nodeName;
  spec.tolerations = addOrUpdateDaemonPodTolerations(spec);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: `${ds.metadata?.name ?? ""}-`,
      namespace: ds.metadata?.namespace ?? "",
      labels: { ...t.metadata?.labels },
      ...(t.metadata?.annotations !== undefined && { annotations: { ...t.metadata.annotations } }),
    },
    spec,
  } as unknown as Pod;
}

/**
 * The pod the controller creates for `nodeName` (`syncNodes` with `CreatePods`): {@link newDaemonPodFor} with the
 * revision hash label (and the template generation's, when the set has one) and a controller reference to the set;
 * no `nodeName`: its required node affinity is replaced by its node's name (the node was checked against the
 * template's own affinity), and the scheduler binds it.
 */
export function newDaemonPod(ds: DaemonSet, nodeName: string, hash: string, templateGeneration?: number): Pod {
  const pod = newDaemonPodFor(ds, nodeName);
  const spec = pod.spec as Record<string, unknown>;
  delete spec.nodeName;
  spec.affinity = replaceDaemonSetPodNodeNameNodeAffinity(spec.affinity, nodeName);
  pod.metadata!.labels = {
    ...pod.metadata?.labels,
    ...(templateGeneration !== undefined && { [DAEMON_SET_TEMPLATE_GENERATION_LABEL]: String(templateGeneration) }),
    [DAEMON_SET_REVISION_LABEL]: hash,
  };
  pod.metadata!.ownerReferences = [newControllerRef(ds, "apps/v1", "DaemonSet")];
  return pod;
}

/** What {@link nodeShouldRunDaemonPod} answers. */
export interface NodeShouldRun {
  /** A daemon pod should be created on the node (`shouldRun`). */
  readonly shouldRun: boolean;
  /** A daemon pod already there may stay (`shouldContinueRunning`). */
  readonly shouldContinueRunning: boolean;
}

/**
 * `nodeShouldRunDaemonPod` (`pkg/controller/daemon/daemon_controller.go`): with the set's template's `nodeName` naming
 * another node, or its node selector / required affinity not matching, no pod at all; with a `NoSchedule`/`NoExecute`
 * taint not tolerated (the default daemon tolerations included), none is created, and one already there keeps running
 * unless an untolerated taint is `NoExecute`.
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): NodeShouldRun {
  const name = node.metadata?.name ?? "";
  const pod = newDaemonPodFor(ds, name);
  const want = daemonSpecOf(ds).template?.spec?.nodeName as string | undefined;
  if (want !== undefined && want !== "" && want !== name) return { shouldRun: false, shouldContinueRunning: false };
  if (!podMatchesNodeSelectorAndAffinity(pod, node)) return { shouldRun: false, shouldContinueRunning: false };
  const tolerations = (pod.spec?.tolerations ?? []) as Toleration[];
  const untolerated = ((node.spec?.taints ?? []) as Taint[]).filter(
    (t) => (t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerations.some((x) => toleratesTaint(x, t)),
  );
  if (untolerated.length === 0) return { shouldRun: true, shouldContinueRunning: true };
  return { shouldRun: false, shouldContinueRunning: !untolerated.some((t) => t.effect === "NoExecute") };
}

/** The hash of the set's template with `collisionCount` (`controller.ComputeHash` of the template). */
export function daemonTemplateHash(ds: DaemonSet): string {
  return computeHash(
    daemonSpecOf(ds).template ?? {},
    (ds.status as { collisionCount?: number } | undefined)?.collisionCount,
  );
}

/**
 * `constructHistory`'s new revision (`history.NewControllerRevision`): `<set>-<hash>` holding the template patch,
 * labelled with the template's labels and the hash, owned by the set.
 */
export function newDaemonRevision(ds: DaemonSet, hash: string, revision: number): ControllerRevision {
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: `${ds.metadata?.name ?? ""}-${hash}`,
      namespace: ds.metadata?.namespace ?? "",
      labels: { ...daemonSpecOf(ds).template?.metadata?.labels, [DAEMON_SET_REVISION_LABEL]: hash },
      ownerReferences: [newControllerRef(ds, "apps/v1", "DaemonSet")],
    },
    data: revisionData(ds),
    revision,
  };
}

/** `util.IsPodUpdated`: the pod carries the current revision's hash, or the set's template generation when it has one. */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const byGeneration = generation !== undefined && labels[DAEMON_SET_TEMPLATE_GENERATION_LABEL] === String(generation);
  const byHash = hash !== "" && labels[DAEMON_SET_REVISION_LABEL] === hash;
  return byHash || byGeneration;
}

/**
 * `maxSurgeAndUnavailable` (`update.go`) for `desired` scheduled nodes: `maxUnavailable` scaled rounding up (default
 * 1), `maxSurge` rounding up (default 0); both 0 means 1 unavailable.
 */
export function surgeAndUnavailable(ds: DaemonSet, desired: number): { surge: number; unavailable: number } {
  const ru = daemonSpecOf(ds).updateStrategy?.rollingUpdate;
  const surge = scaledValue(ru?.maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(ru?.maxUnavailable ?? 1, desired, true);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** `util.AllowsSurge`: a `RollingUpdate` whose `maxSurge`, scaled to one node, is not 0. */
export function allowsSurge(ds: DaemonSet): boolean {
  const strategy = daemonSpecOf(ds).updateStrategy;
  if ((strategy?.type ?? "RollingUpdate") !== "RollingUpdate") return false;
  try {
    return scaledValue(strategy?.rollingUpdate?.maxSurge ?? 0, 1, true) !== 0;
  } catch {
    return false;
  }
}
