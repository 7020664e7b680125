import type { KubeObject } from "@informer-ts/apimachinery";

/** `v1.NamespaceCondition`. */
export interface NamespaceCondition {
  type: string;
  status: "True" | "False";
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The condition types the namespace controller writes, in its order (`conditionTypes`). */
export const NAMESPACE_CONDITION_TYPES: readonly string[] = Object.freeze([
  "NamespaceDeletionDiscoveryFailure",
  "NamespaceDeletionGroupVersionParsingFailure",
  "NamespaceDeletionContentFailure",
  "NamespaceContentRemaining",
  "NamespaceFinalizersRemaining",
]);

const OK: Readonly<Record<string, { reason: string; message: string }>> = Object.freeze({
  NamespaceDeletionDiscoveryFailure: {
    reason: "ResourcesDiscovered",
    message: "All resources successfully discovered",
  },
  NamespaceDeletionGroupVersionParsingFailure: {
    reason: "ParsedGroupVersions",
    message: "All legacy kube types successfully parsed",
  },
  NamespaceDeletionContentFailure: {
    reason: "ContentDeleted",
    message: "All content successfully deleted, may be waiting on finalization",
  },
  NamespaceContentRemaining: { reason: "ContentRemoved", message: "All content successfully removed" },
  NamespaceFinalizersRemaining: {
    reason: "ContentHasNoFinalizers",
    message: "All content-preserving finalizers finished",
  },
});

/** What one pass found left in a terminating namespace: instances by resource, and by finalizer. */
export interface ContentTotals {
  /** `<resource>.<group>` (core: `pods.`) → instances remaining. */
  readonly byResource: ReadonlyMap<string, number>;
  /** Finalizer → instances carrying it. */
  readonly byFinalizer: ReadonlyMap<string, number>;
}

function remainingList(m: ReadonlyMap<string, number>, format: (k: string, n: number) => string): string {
  return [...m.entries()]
    .filter(([, n]) => n > 0)
    .map(([k, n]) => format(k, n))
    .sort()
    .join(", ");
}

/**
 * The conditions a pass of the namespace controller leaves on a terminating namespace
 * (`pkg/controller/namespace/deletion/status_condition_utils.go`: `ProcessContentTotals` and `Update`): each of
 * {@link NAMESPACE_CONDITION_TYPES}, `False` with its "ok" reason unless content or finalizers remain —
 * `NamespaceContentRemaining` `True` `SomeResourcesRemain` "Some resources are remaining: pods. has 2 resource
 * instances, …" and `NamespaceFinalizersRemaining` `True` `SomeFinalizersRemain` "Some content in the namespace has
 * finalizers remaining: example.com/x in 1 resource instances" (entries sorted). A condition whose status, reason
 * and message did not change keeps its `lastTransitionTime`. Returns undefined when nothing changed.
 */
export function updatedConditions(
  ns: KubeObject,
  totals: ContentTotals,
  now: string,
): NamespaceCondition[] | undefined {
  const fresh = new Map<string, NamespaceCondition>();
  const resources = remainingList(totals.byResource, (k, n) => `${k} has ${n} resource instances`);
  if (resources !== "") {
    fresh.set("NamespaceContentRemaining", {
      type: "NamespaceContentRemaining",
      status: "True",
      lastTransitionTime: now,
      reason: "SomeResourcesRemain",
      message: `Some resources are remaining: ${resources}`,
    });
  }
  const finalizers = remainingList(totals.byFinalizer, (k, n) => `${k} in ${n} resource instances`);
  if (finalizers !== "") {
    fresh.set("NamespaceFinalizersRemaining", {
      type: "NamespaceFinalizersRemaining",
      status: "True",
      lastTransitionTime: now,
      reason: "SomeFinalizersRemain",
      message: `Some content in the namespace has finalizers remaining: ${finalizers}`,
    });
  }
  const status = (ns.status ?? {}) as { conditions?: unknown };
  const old = (Array.isArray(status.conditions) ? status.conditions : []) as NamespaceCondition[];
  const out = [...old];
  let changed = false;
  for (const type of NAMESPACE_CONDITION_TYPES) {
    const want = fresh.get(type) ?? { type, status: "False" as const, lastTransitionTime: now, ...OK[type]! };
    const i = out.findIndex((c) => c.type === type);
    if (i < 0) {
      out.push(want);
      changed = true;
    } else if (out[i]!.status !== want.status || out[i]!.reason !== want.reason || out[i]!.message !== want.message) {
      out[i] = want;
      changed = true;
    }
  }
  return changed ? out : undefined;
}
