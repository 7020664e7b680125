import type { SharedIndexInformer } from "@informer-ts/cache";

/** What the index reads of an object: its namespace and labels. */
interface Labelled {
  metadata?: { namespace?: string; labels?: Readonly<Record<string, string>> };
}

/** Objects by each of their labels within their namespace: `<namespace>/<key>=<value>`. */
export const NAMESPACE_LABEL_INDEX = "namespaceLabel";

/** The value {@link NAMESPACE_LABEL_INDEX} files an object carrying label `key=value` in `namespace` under. */
export function namespaceLabelKey(namespace: string, key: string, value: string): string {
  return `${namespace}/${key}=${value}`;
}

/**
 * Indexes an informer's objects by namespace and label, so a Service's equality selector finds its pods among those
 * carrying one of its labels instead of scanning the namespace. Upstream's endpoint controllers list the namespace
 * through the lister with the selector (`podLister.Pods(ns).List(selector)`, pkg/controller/endpoint and
 * pkg/controller/endpointslice): the same result, read from an index. Idempotent: both controllers share the pods
 * informer and each call it.
 */
export function addNamespaceLabelIndexer<T extends Labelled>(informer: SharedIndexInformer<T>): void {
  if (informer.getIndexer().getIndexers()[NAMESPACE_LABEL_INDEX] !== undefined) return;
  informer.addIndexers({
    [NAMESPACE_LABEL_INDEX]: (obj: T) => {
      const labels = obj.metadata?.labels;
      if (labels == null) return [];
      const ns = obj.metadata?.namespace ?? "";
      const out: string[] = [];
      for (const k in labels) out.push(namespaceLabelKey(ns, k, labels[k] ?? ""));
      return out;
    },
  });
}

/**
 * The objects of `namespace` whose labels include every pair of `selector` (a non-empty equality selector, as a
 * Service's): the smallest of the pairs' index buckets, filtered by the whole selector. Needs
 * {@link addNamespaceLabelIndexer} on the informer; an empty selector matches nothing here (callers treat it as "no
 * selector").
 */
export function objectsWithLabels<T extends Labelled>(
  informer: SharedIndexInformer<T>,
  namespace: string,
  selector: Readonly<Record<string, string>>,
): T[] {
  const indexer = informer.getIndexer();
  let best: string | undefined;
  let bestSize = Number.POSITIVE_INFINITY;
  for (const k in selector) {
    const value = namespaceLabelKey(namespace, k, selector[k] ?? "");
    const size = indexer.indexKeys(NAMESPACE_LABEL_INDEX, value).length;
    if (size < bestSize) {
      best = value;
      bestSize = size;
    }
    if (size === 0) return [];
  }
  if (best === undefined) return [];
  return indexer.byIndex(NAMESPACE_LABEL_INDEX, best).filter((o) => {
    const labels = o.metadata?.labels;
    for (const k in selector) if (labels?.[k] !== selector[k]) return false;
    return true;
  });
}
