import { type GroupResource, matchesNothing, newNotFound } from "@informer-ts/apimachinery";
import { NamespaceIndex } from "./index-funcs.js";
import { metaOf, noMetaReason } from "./internal/meta-accessor.js";
import { type Indexer, KeyError, type Store } from "./store.js";

/**
 * What the listers need from a label selector (`labels.Selector`): `matches` a label set, and `empty()` when
 * it selects everything. A selector may also say it `matchesNothing()` (`labels.Nothing()`), which
 * short-circuits every list. Structurally satisfied by the label selectors of `@informer-ts/apimachinery`.
 */
export interface LabelSelectorLike {
  matches(labels: Readonly<Record<string, string>>): boolean;
  empty(): boolean;
  matchesNothing?(): boolean;
}

/** Receives each matching object (`cache.AppendFunc`). */
export type AppendFunc<T> = (obj: T) => void;

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

function labelsOf(obj: unknown): Readonly<Record<string, string>> {
  const meta = metaOf(obj);
  if (meta === undefined) throw new KeyError(`object has no meta: ${noMetaReason(obj)}`, obj);
  return meta.labels ?? NO_LABELS;
}

/**
 * Calls `appendFn` for each object of `store` whose labels match `selector` (`cache.ListAll`, S20). A
 * selector that matches nothing returns at once; an empty selector appends everything without reading
 * labels.
 *
 * @throws KeyError `object has no meta: …` when a label check meets an object without metadata (objects
 *   before it were already appended, as in client-go).
 */
export function listAll<T>(store: Pick<Store<T>, "list">, selector: LabelSelectorLike, appendFn: AppendFunc<T>): void {
  if (matchesNothing(selector)) return;
  const items = store.list();
  if (selector.empty()) {
    for (let i = 0; i < items.length; i++) appendFn(items[i]!);
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (selector.matches(labelsOf(item))) appendFn(item);
  }
}

/**
 * Like {@link listAll} but only for objects in `namespace` (`cache.ListAllByNamespace`, S20); `""` means all
 * namespaces. Uses the {@link NamespaceIndex} index; if the indexer has none, it falls back to a full scan
 * comparing each object's namespace.
 *
 * Differences from client-go: the fallback is silent (client-go logs a warning through klog).
 *
 * @throws KeyError `object has no meta: …` for an object without metadata met by a label or namespace check.
 */
export function listAllByNamespace<T>(
  indexer: Indexer<T>,
  namespace: string,
  selector: LabelSelectorLike,
  appendFn: AppendFunc<T>,
): void {
  if (matchesNothing(selector)) return;
  if (namespace === "") {
    listAll(indexer, selector, appendFn);
    return;
  }
  let items: T[];
  try {
    items = indexer.index(NamespaceIndex, { metadata: { namespace } } as T);
  } catch {
    // No namespace index (or it cannot answer): scan everything.
    for (const item of indexer.list()) {
      const meta = metaOf(item);
      if (meta === undefined) throw new KeyError(`object has no meta: ${noMetaReason(item)}`, item);
      if ((meta.namespace ?? "") === namespace && selector.matches(meta.labels ?? NO_LABELS)) appendFn(item);
    }
    return;
  }
  const selectAll = selector.empty();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (selectAll || selector.matches(labelsOf(item))) appendFn(item);
  }
}

/** A read-only view of an indexer for one resource, across namespaces (`cache.GenericLister`). */
export interface GenericLister<T> {
  /** All objects matching `selector`, in every namespace. */
  list(selector: LabelSelectorLike): T[];
  /** The object stored under key `name` (a cluster-scoped name, or `namespace/name`). @throws StatusError NotFound */
  get(name: string): T;
  /** The same view restricted to one namespace. */
  byNamespace(namespace: string): GenericNamespaceLister<T>;
}

/** A read-only view of an indexer for one resource in one namespace (`cache.GenericNamespaceLister`). */
export interface GenericNamespaceLister<T> {
  /** Objects of this namespace matching `selector`. */
  list(selector: LabelSelectorLike): T[];
  /** The object `namespace/name`. @throws StatusError NotFound */
  get(name: string): T;
}

/**
 * A lister over `indexer` for `resource` (`cache.NewGenericLister`). The indexer's key function must be the
 * `namespace/name` one (`metaNamespaceKeyFunc` or its deletion-handling form). Missing objects throw a
 * `StatusError` NotFound (404) naming the resource, as client-go returns `errors.NewNotFound`.
 */
export function newGenericLister<T>(indexer: Indexer<T>, resource: GroupResource): GenericLister<T> {
  return {
    list(selector) {
      const out: T[] = [];
      listAll(indexer, selector, (obj) => out.push(obj));
      return out;
    },
    get(name) {
      const obj = indexer.getByKey(name);
      if (obj === undefined) throw newNotFound(resource, name);
      return obj;
    },
    byNamespace(namespace) {
      return {
        list(selector) {
          const out: T[] = [];
          listAllByNamespace(indexer, namespace, selector, (obj) => out.push(obj));
          return out;
        },
        get(name) {
          const obj = indexer.getByKey(namespace + "/" + name);
          if (obj === undefined) throw newNotFound(resource, name);
          return obj;
        },
      };
    },
  };
}
