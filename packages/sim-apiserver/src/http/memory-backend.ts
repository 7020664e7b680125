// A minimal in-memory ApiBackend: one global resourceVersion, list/get/create/update/delete, watches with the
// watch-list initial events and the init-end bookmark. No watch cache, history window, paging, selectors (except an
// exact metadata.name) or faults: it exists so the HTTP face can run and be tested on its own. The engine backend
// is the real simulator.
import {
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeList,
  type KubeObject,
  type ListOptions,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newNotFound,
  parseLabelSelector,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import type {
  ApiBackend,
  BackendRequestContext,
  DeletePreconditions,
  HttpFault,
  HttpRequestDescriptor,
} from "./backend.js";
import { DEFAULT_VERBS, type ServedResource } from "./discovery.js";
import type { WatchSource } from "./watch-server.js";

/** The ConfigMap resource (core/v1), served by default. */
export const CONFIGMAPS: ServedResource = {
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  singularName: "configmap",
  namespaced: true,
  shortNames: ["cm"],
  verbs: DEFAULT_VERBS,
};

type Predicate = (o: KubeObject) => boolean;

/** Label selector (full syntax) and field selector on `metadata.name`/`metadata.namespace` (`=`, `==`, `!=`). */
function predicateOf(opts: ListOptions): Predicate {
  const labels = parseLabelSelector(opts.labelSelector ?? "");
  const terms: Array<{ field: string; neg: boolean; value: string }> = [];
  for (const raw of (opts.fieldSelector ?? "").split(",")) {
    const t = raw.trim();
    if (t === "") continue;
    const m = /^([^!=]+?)\s*(!=|==|=)\s*(.*)$/.exec(t);
    if (m === null) throw newBadRequest(`invalid selector: '${opts.fieldSelector}'; can't understand '${t}'`);
    const field = m[1]!;
    if (field !== "metadata.name" && field !== "metadata.namespace") {
      throw newBadRequest(`"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    terms.push({ field, neg: m[2] === "!=", value: m[3]!.replace(/\\(.)/g, "$1") });
  }
  return (o) => {
    if (!labels.matches(o.metadata?.labels)) return false;
    for (const t of terms) {
      const v = (t.field === "metadata.name" ? o.metadata?.name : o.metadata?.namespace) ?? "";
      if ((v === t.value) === t.neg) return false;
    }
    return true;
  };
}

interface Watcher {
  readonly r: ServedResource;
  readonly namespace: string;
  readonly matches: Predicate;
  push(e: WatchEvent): void;
}

/**
 * The simplest {@link ApiBackend}: objects in a Map keyed by resource/namespace/name, a global RV bumped by every
 * write, watches fed synchronously by writes. Lists ignore `limit` and `continue`; watches honour only
 * `sendInitialEvents` and `allowWatchBookmarks` (for the init-end bookmark) besides the selectors.
 * `creationTimestamp` is a fixed date. Label selectors and `metadata.name`/`metadata.namespace` field selectors are
 * applied to lists and watches. Meant for tests of the HTTP layer and interop smoke tests.
 */
export class MemoryBackend implements ApiBackend {
  private rv = 100;
  private readonly store = new Map<string, KubeObject>();
  private readonly watchers = new Set<Watcher>();
  /** A fault applied to every resource request while set. */
  fault: HttpFault | undefined;

  constructor(
    private readonly served: readonly ServedResource[] = [CONFIGMAPS],
    private readonly injector?: { faultFor(req: HttpRequestDescriptor): HttpFault | undefined },
  ) {}

  resources(): readonly ServedResource[] {
    return this.served;
  }

  private key(r: ServedResource, ns: string, name: string) {
    return `${r.group}/${r.resource}/${ns}/${name}`;
  }

  private typed(r: ServedResource, o: KubeObject): KubeObject {
    return { kind: r.kind, apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`, ...o };
  }

  private emit(r: ServedResource, type: "ADDED" | "MODIFIED" | "DELETED", o: KubeObject) {
    // One event object for every watcher, so the HTTP layer serializes it once.
    const event: WatchEvent = { type, object: this.typed(r, o) };
    for (const w of this.watchers) {
      if (w.r !== r) continue;
      if (w.namespace !== "" && w.namespace !== o.metadata?.namespace) continue;
      if (!w.matches(o)) continue;
      w.push(event);
    }
  }

  private items(r: ServedResource, ns: string): KubeObject[] {
    const prefix = `${r.group}/${r.resource}/`;
    return [...this.store.entries()]
      .filter(([k, o]) => k.startsWith(prefix) && (ns === "" || o.metadata?.namespace === ns))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, o]) => o);
  }

  async list(r: ServedResource, ns: string, opts: ListOptions, _ctx?: BackendRequestContext): Promise<KubeList> {
    const matches = predicateOf(opts);
    return {
      kind: `${r.kind}List`,
      apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`,
      metadata: { resourceVersion: String(this.rv) },
      items: this.items(r, ns).filter(matches),
    };
  }

  async get(
    r: ServedResource,
    ns: string,
    name: string,
    _opts?: { readonly resourceVersion?: string },
    _ctx?: BackendRequestContext,
  ): Promise<KubeObject> {
    const o = this.store.get(this.key(r, ns, name));
    if (o === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
    return this.typed(r, o);
  }

  async create(r: ServedResource, ns: string, obj: KubeObject, _ctx?: BackendRequestContext): Promise<KubeObject> {
    const name = obj.metadata?.name ?? "";
    const k = this.key(r, ns, name);
    if (this.store.has(k)) throw newAlreadyExists({ group: r.group, resource: r.resource }, name);
    this.rv++;
    const { kind: _k, apiVersion: _a, ...rest } = obj;
    const o: KubeObject = {
      ...rest,
      metadata: {
        ...obj.metadata,
        uid: `uid-${this.rv}`,
        resourceVersion: String(this.rv),
        creationTimestamp: "2026-01-01T00:00:00Z",
      },
    };
    this.store.set(k, o);
    this.emit(r, "ADDED", o);
    return this.typed(r, o);
  }

  async update(
    r: ServedResource,
    ns: string,
    name: string,
    obj: KubeObject,
    _ctx?: BackendRequestContext,
  ): Promise<KubeObject> {
    const k = this.key(r, ns, name);
    const cur = this.store.get(k);
    if (cur === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
    const want = obj.metadata?.resourceVersion;
    if (want !== undefined && want !== "" && want !== cur.metadata?.resourceVersion) {
      throw newConflict({ group: r.group, resource: r.resource }, name);
    }
    this.rv++;
    const { kind: _k, apiVersion: _a, ...rest } = obj;
    const o: KubeObject = { ...rest, metadata: { ...cur.metadata, ...obj.metadata, resourceVersion: String(this.rv) } };
    this.store.set(k, o);
    this.emit(r, "MODIFIED", o);
    return this.typed(r, o);
  }

  async delete(
    r: ServedResource,
    ns: string,
    name: string,
    _preconditions?: DeletePreconditions,
    _ctx?: BackendRequestContext,
  ): Promise<KubeObject> {
    const k = this.key(r, ns, name);
    const cur = this.store.get(k);
    if (cur === undefined) throw newNotFound({ group: r.group, resource: r.resource }, name);
    this.store.delete(k);
    this.rv++;
    const o = { ...cur, metadata: { ...cur.metadata, resourceVersion: String(this.rv) } };
    this.emit(r, "DELETED", o);
    return this.typed(r, o);
  }

  async watch(r: ServedResource, ns: string, opts: ListOptions, _ctx?: BackendRequestContext): Promise<WatchSource> {
    const queue: WatchEvent[] = [];
    let wake: (() => void) | undefined;
    let stopped = false;
    const matches = predicateOf(opts);
    const w: Watcher = {
      r,
      namespace: ns,
      matches,
      push: (e) => {
        queue.push(e);
        wake?.();
      },
    };
    if (opts.sendInitialEvents === true) {
      for (const o of this.items(r, ns)) {
        if (matches(o)) queue.push({ type: "ADDED", object: this.typed(r, o) });
      }
      if (opts.allowWatchBookmarks === true) {
        queue.push({
          type: "BOOKMARK",
          object: {
            kind: r.kind,
            apiVersion: "v1",
            metadata: { resourceVersion: String(this.rv), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: "true" } },
          },
        });
      }
    }
    this.watchers.add(w);
    const stop = () => {
      stopped = true;
      this.watchers.delete(w);
      wake?.();
    };
    return {
      next: async () => {
        while (!stopped && queue.length === 0) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
        if (stopped) return { done: true, value: undefined };
        return { done: false, value: queue.shift()! };
      },
      stop,
    };
  }

  faultFor(req: HttpRequestDescriptor): HttpFault | undefined {
    return this.fault ?? this.injector?.faultFor(req);
  }
}
