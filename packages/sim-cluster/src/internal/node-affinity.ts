import type { Node, Pod } from "@informer-ts/client";

/** `v1.NodeSelectorRequirement` as JSON. */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** `v1.NodeSelectorTerm` as JSON. */
export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

/** The one field a `matchFields` requirement may name (`metav1.ObjectNameField`). */
export const OBJECT_NAME_FIELD = "metadata.name";

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      if (value === undefined || values.length !== 1) return false;
      const have = Number.parseInt(value, 10);
      const want = Number.parseInt(values[0]!, 10);
      if (Number.isNaN(have) || Number.isNaN(want)) return false;
      return r.operator === "Gt" ? have > want : have < want;
    }
    default:
      return false;
  }
}

/**
 * `nodeaffinity.NodeSelector.Match` (`k8s.io/component-helpers/scheduling/corev1/nodeaffinity`): the terms are ORed;
 * within a term every expression (on labels) and every field requirement (only `metadata.name`) must hold; a term with
 * neither matches no node.
 */
export function nodeMatchesSelectorTerms(node: Node, terms: readonly NodeSelectorTerm[]): boolean {
  const labels = node.metadata?.labels ?? {};
  return terms.some((t) => {
    const exprs = t.matchExpressions ?? [];
    const fields = t.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((r) => requirementMatches(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)) &&
      fields.every((r) => r.key === OBJECT_NAME_FIELD && requirementMatches(r, node.metadata?.name))
    );
  });
}

/** The required node-affinity terms of a pod, or undefined when it has none. */
export function requiredNodeAffinityTerms(pod: Pod): readonly NodeSelectorTerm[] | undefined {
  const affinity = pod.spec?.affinity as
    | { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } } }
    | undefined;
  return affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
}

/**
 * `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`: the pod's `nodeSelector` labels all match, and its
 * required node affinity (when set) matches.
 */
export function podMatchesNodeSelectorAndAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) {
    if (labels[k] !== v) return false;
  }
  const terms = requiredNodeAffinityTerms(pod);
  return terms === undefined || nodeMatchesSelectorTerms(node, terms);
}
