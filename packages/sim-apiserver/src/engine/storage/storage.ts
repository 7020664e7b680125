import {
  failureStatus,
  type KubeObject,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegmentName,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInvalid,
  newNotFound,
  newResourceExpired,
  newTooLargeResourceVersion,
  StatusError,
  validateObjectMetaName,
} from "@informer-ts/apimachinery";
import type { Clock, Rand } from "@informer-ts/clock";
import {
  deepFreeze,
  generateNameFrom,
  jsonEqual,
  newUid,
  rfc3339Seconds,
  withResourceVersion,
} from "../object-util.js";
import { apiVersionOf, groupResourceString, type SimResource } from "../resources.js";
import { SortedKeyMap } from "./sorted-keys.js";

/** One change committed to storage (an etcd watch event). */
export interface StorageEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly resource: SimResource;
  /** Key relative to the resource: `<namespace>/<name>` or `<name>`. */
  readonly key: string;
  /** The new state; for DELETED the last state with the deletion's resourceVersion. */
  readonly object: KubeObject;
  /** The state before (MODIFIED, DELETED). */
  readonly prevObject: KubeObject | undefined;
  /** The revision of this change. */
  readonly rev: number;
}

/** What observes storage: the watch caches (etcd watches) and the engine (progress notifications). */
export interface StorageListener {
  onEvent(ev: StorageEvent): void;
  /** The global revision moved without an event for the listener's resources (another resource, compaction). */
  onRevision?(rev: number): void;
}

interface Version {
  readonly rev: number;
  /** `undefined` = deleted at `rev`. */
  readonly object: KubeObject | undefined;
}

interface ResourceData {
  readonly live: SortedKeyMap<KubeObject>;
  /** Every key that has history newer than the compaction point. Versions in ascending rev. */
  readonly history: SortedKeyMap<Version[]>;
}

/** A page of a storage list. */
export interface StoragePage {
  readonly items: KubeObject[];
  /** Key of the last item when more keys follow (the caller builds the continue token). */
  readonly lastKey: string | undefined;
  /** Keys after the page (all of them count, as etcd's `count`). */
  readonly remaining: number;
  readonly rev: number;
  /** Keys the read examined, matching or not (the cost model's "keys scanned"). */
  readonly scanned: number;
}

/** Options of {@link MvccStorage.list}. */
export interface StorageListOptions {
  /** Key prefix (`<namespace>/` or ""). */
  readonly prefix: string;
  /** First key to consider (inclusive); default the prefix. */
  readonly fromKey?: string;
  /** Revision to read at; 0 = current. */
  readonly rev: number;
  /** Page size; 0 = everything. */
  readonly limit: number;
  readonly predicate: (o: KubeObject) => boolean;
}

/** Key of an object of `r`. */
export function keyOf(r: SimResource, namespace: string, name: string): string {
  return r.namespaced ? `${namespace}/${name}` : name;
}

/** The key prefix of a list of `r` in `namespace` ("" = all namespaces). */
export function prefixOf(r: SimResource, namespace: string): string {
  return r.namespaced && namespace !== "" ? `${namespace}/` : "";
}

/**
 * The etcd stand-in: one global revision shared by every resource (every create/update/delete and every compaction
 * bumps it; a no-op update does not), each object's `metadata.resourceVersion` = its modification revision, the
 * history of every key kept until {@link compact}, lists in key order at the current or any retained revision.
 * Stored objects are deep-frozen: readers share them.
 *
 * A resource with {@link SimResource.storedAs} (`events.k8s.io/v1` events) has no data of its own: every method
 * reads and writes the storage resource's keys, converting what goes in and what comes out (one conversion per
 * stored object and view, memoized — stored objects never change), and every commit of the storage resource is also
 * told to listeners as an event of each such view seen so far (the same key and revision, converted objects). This
 * is how etcd holds one prefix per kind at its storage version while each served version decodes it.
 */
export class MvccStorage {
  private revision: number;
  private compacted = 0;
  private readonly data = new Map<SimResource, ResourceData>();
  private readonly listeners = new Set<StorageListener>();
  /** The views of each storage resource ({@link SimResource.storedAs}) that reached this storage. */
  private readonly views = new Map<SimResource, Set<SimResource>>();
  /** Stored object → the view's object, per view. */
  private readonly converted = new WeakMap<SimResource, WeakMap<KubeObject, KubeObject>>();

  constructor(
    private readonly clock: Clock,
    private readonly rand: Rand,
    initialRevision = 1,
  ) {
    this.revision = initialRevision;
  }

  /** The current global revision (etcd's header revision). */
  get currentRevision(): number {
    return this.revision;
  }

  /** Revisions below this are compacted. */
  get compactedRevision(): number {
    return this.compacted;
  }

  subscribe(l: StorageListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** The resource whose data holds `r`'s objects (itself unless `r` is a view); remembers views for commits. */
  private home(r: SimResource): SimResource {
    const home = r.storedAs?.resource;
    if (home === undefined) return r;
    let views = this.views.get(home);
    if (views === undefined) {
      views = new Set();
      this.views.set(home, views);
    }
    views.add(r);
    return home;
  }

  /** A stored object as the view `r` serves it (`r` not a view: itself). Frozen and memoized. */
  private out(r: SimResource, stored: KubeObject): KubeObject;
  private out(r: SimResource, stored: KubeObject | undefined): KubeObject | undefined;
  private out(r: SimResource, stored: KubeObject | undefined): KubeObject | undefined {
    const codec = r.storedAs;
    if (codec === undefined || stored === undefined) return stored;
    let memo = this.converted.get(r);
    if (memo === undefined) {
      memo = new WeakMap();
      this.converted.set(r, memo);
    }
    let o = memo.get(stored);
    if (o === undefined) {
      o = deepFreeze(codec.fromStorage(stored));
      memo.set(stored, o);
    }
    return o;
  }

  /** A view's object as storage keeps it (`r` not a view: itself). */
  private in(r: SimResource, served: KubeObject): KubeObject {
    return r.storedAs === undefined ? served : r.storedAs.toStorage(served);
  }

  /** A page of the view `r`'s home resource as `r` serves it, the predicate applied to `r`'s objects. */
  private viewPage(
    r: SimResource,
    predicate: (o: KubeObject) => boolean,
    read: (home: SimResource, pred: (o: KubeObject) => boolean) => StoragePage,
  ): StoragePage {
    const page = read(this.home(r), (o) => predicate(this.out(r, o)));
    return { ...page, items: page.items.map((o) => this.out(r, o)) };
  }

  private dataOf(r: SimResource): ResourceData {
    let d = this.data.get(r);
    if (d === undefined) {
      d = { live: new SortedKeyMap(), history: new SortedKeyMap() };
      this.data.set(r, d);
    }
    return d;
  }

  /** Number of live objects of `r`. */
  count(r: SimResource): number {
    return this.data.get(this.home(r))?.live.size ?? 0;
  }

  /** The current state of one object, or undefined. */
  get(r: SimResource, namespace: string, name: string): KubeObject | undefined {
    return this.out(r, this.data.get(this.home(r))?.live.get(keyOf(r, namespace, name)));
  }

  /** Every live object of `r` in key order (the watch cache's initial list). */
  snapshot(r: SimResource): Array<[string, KubeObject]> {
    const live = this.dataOf(this.home(r)).live;
    return live.keys().map((k) => [k, this.out(r, live.get(k)!)]);
  }

  private commit(ev: Omit<StorageEvent, "rev">, rev: number): StorageEvent {
    const d = this.dataOf(ev.resource);
    const event: StorageEvent = { ...ev, rev };
    if (ev.type === "DELETED") d.live.delete(ev.key);
    else d.live.set(ev.key, ev.object);
    let versions = d.history.get(ev.key);
    if (versions === undefined) {
      versions = [];
      d.history.set(ev.key, versions);
    }
    versions.push({ rev, object: ev.type === "DELETED" ? undefined : ev.object });
    for (const l of this.listeners) l.onEvent(event);
    for (const view of this.views.get(ev.resource) ?? []) {
      const seen: StorageEvent = {
        ...event,
        resource: view,
        object: this.out(view, event.object),
        prevObject: this.out(view, event.prevObject),
      };
      for (const l of this.listeners) l.onEvent(seen);
    }
    return event;
  }

  private newUid(): string {
    return newUid(this.rand);
  }

  private validate(r: SimResource, obj: KubeObject): void {
    const errs = validateObjectMetaName(obj.metadata, {
      requiresNamespace: r.namespaced,
      nameFn:
        r.resource === "namespaces"
          ? nameIsDNSLabel
          : r.group === "rbac.authorization.k8s.io"
            ? nameIsPathSegmentName
            : nameIsDNSSubdomain,
    });
    if (errs.length > 0) throw newInvalid({ group: r.group, kind: r.kind }, obj.metadata?.name ?? "", errs);
  }

  private checkNamespace(r: SimResource, namespace: string, obj: KubeObject): void {
    const ns = obj.metadata?.namespace;
    if (r.namespaced && ns !== undefined && ns !== "" && ns !== namespace) {
      throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
  }

  /**
   * Creates an object (the registry's `Create`): `generateName`, uid, creationTimestamp, generation 1 for objects
   * with a `spec`, name validation (422), 409 AlreadyExists. `obj` is copied, never kept.
   */
  create(r: SimResource, namespace: string, input: KubeObject): KubeObject {
    if (r.storedAs !== undefined) return this.out(r, this.create(this.home(r), namespace, this.in(r, input)));
    this.checkNamespace(r, namespace, input);
    const src = structuredClone(input) as KubeObject;
    const meta = { ...src.metadata };
    // etcd3 store.Create: a resourceVersion that parses as a non-zero uint64 is refused with a plain error, which the
    // handler turns into a 500 without reason; anything else ("0", "-1", garbage) is silently replaced.
    const givenRV = meta.resourceVersion;
    if (
      typeof givenRV === "string" &&
      /^[0-9]+$/.test(givenRV) &&
      BigInt(givenRV) > 0n &&
      BigInt(givenRV) < 2n ** 64n
    ) {
      throw new StatusError(failureStatus(500, "", "resourceVersion should not be set on objects to be created"));
    }
    if (
      (meta.name === undefined || meta.name === "") &&
      typeof meta.generateName === "string" &&
      meta.generateName !== ""
    ) {
      meta.name = generateNameFrom(meta.generateName, this.rand);
    }
    // EnsureObjectNamespaceMatchesRequestNamespace: cluster-scoped objects lose a namespace given in the body.
    if (r.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    const candidate: KubeObject = { ...src, apiVersion: apiVersionOf(r), kind: r.kind, metadata: meta };
    this.validate(r, candidate);
    const key = keyOf(r, namespace, meta.name as string);
    if (this.dataOf(r).live.has(key))
      throw newAlreadyExists({ group: r.group, resource: r.resource }, meta.name as string);
    const rev = ++this.revision;
    meta.uid = this.newUid();
    meta.creationTimestamp = rfc3339Seconds(this.clock.now());
    meta.resourceVersion = String(rev);
    if (Object.hasOwn(src, "spec")) meta.generation = 1;
    else delete meta.generation;
    const stored = deepFreeze(candidate);
    this.commit({ type: "ADDED", resource: r, key, object: stored, prevObject: undefined }, rev);
    return stored;
  }

  /**
   * Replaces an object (`GuaranteedUpdate`): 404 when absent, 409 Conflict when the request carries a stale
   * resourceVersion (none = unconditional), identity fields kept, generation bumped when `spec` changed, and no new
   * revision or event when nothing changed.
   */
  update(r: SimResource, namespace: string, name: string, input: KubeObject): KubeObject {
    if (r.storedAs !== undefined) return this.out(r, this.update(this.home(r), namespace, name, this.in(r, input)));
    this.checkNamespace(r, namespace, input);
    const bodyName = input.metadata?.name;
    if (bodyName !== undefined && bodyName !== "" && bodyName !== name) {
      throw newBadRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
    const key = keyOf(r, namespace, name);
    const current = this.dataOf(r).live.get(key);
    const gr = { group: r.group, resource: r.resource };
    if (current === undefined) throw newNotFound(gr, name);
    const src = structuredClone(input) as KubeObject;
    const wantRV = src.metadata?.resourceVersion;
    if (wantRV !== undefined && wantRV !== "" && wantRV !== current.metadata?.resourceVersion)
      throw newConflict(gr, name);
    const cm = current.metadata ?? {};
    const meta: Record<string, unknown> = {
      ...src.metadata,
      name,
      uid: cm.uid,
      creationTimestamp: cm.creationTimestamp,
    };
    if (r.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    if (cm.generation !== undefined) {
      meta.generation = jsonEqual(src.spec, current.spec) ? cm.generation : cm.generation + 1;
    } else delete meta.generation;
    meta.resourceVersion = cm.resourceVersion;
    const candidate: KubeObject = { ...src, apiVersion: apiVersionOf(r), kind: r.kind, metadata: meta };
    this.validate(r, candidate);
    if (jsonEqual(candidate, current)) return current;
    const rev = ++this.revision;
    meta.resourceVersion = String(rev);
    const stored = deepFreeze(candidate);
    this.commit({ type: "MODIFIED", resource: r, key, object: stored, prevObject: current }, rev);
    return stored;
  }

  /** Deletes an object; returns its last state with the deletion's resourceVersion. 404 / 409 on preconditions. */
  delete(
    r: SimResource,
    namespace: string,
    name: string,
    preconditions?: { readonly uid?: string; readonly resourceVersion?: string },
  ): KubeObject {
    if (r.storedAs !== undefined) return this.out(r, this.delete(this.home(r), namespace, name, preconditions));
    const key = keyOf(r, namespace, name);
    const current = this.dataOf(r).live.get(key);
    const gr = { group: r.group, resource: r.resource };
    if (current === undefined) throw newNotFound(gr, name);
    const m = current.metadata ?? {};
    if (preconditions?.uid !== undefined && preconditions.uid !== m.uid) {
      throw newConflict(
        gr,
        name,
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${m.uid ?? ""}`,
      );
    }
    if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== m.resourceVersion) {
      throw newConflict(
        gr,
        name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ""}`,
      );
    }
    const rev = ++this.revision;
    const last = withResourceVersion(current, rev);
    this.commit({ type: "DELETED", resource: r, key, object: last, prevObject: current }, rev);
    return last;
  }

  /**
   * Runs `fn` (writes through any layer) as the store's initial content: every object it writes ends up at the
   * current revision, which does not move, and listeners hear nothing. For objects that exist before anyone watches
   * (the system namespaces): the store "starts" holding them. Only valid before the first listener subscribes.
   */
  seedAtInitialRevision(fn: () => void): void {
    if (this.listeners.size > 0) throw new Error("seedAtInitialRevision: the store already has listeners");
    const start = this.revision;
    fn();
    if (this.revision === start) return;
    for (const d of this.data.values()) {
      for (const key of d.history.keys()) {
        const versions = d.history.get(key)!;
        if (!versions.some((v) => v.rev > start)) continue;
        const last = versions[versions.length - 1]!;
        const object = last.object === undefined ? undefined : withResourceVersion(last.object, start);
        d.history.set(key, object === undefined ? [] : [{ rev: start, object }]);
        if (object === undefined) d.live.delete(key);
        else d.live.set(key, object);
      }
    }
    this.revision = start;
  }

  /**
   * Stores a new object exactly as prepared by the registry (`store.Create` → etcd `Create`): only
   * `metadata.resourceVersion` is set, to the new revision. 409 AlreadyExists when the key is taken. `obj` is frozen
   * and kept: callers pass a copy they own.
   */
  insert(r: SimResource, namespace: string, obj: KubeObject): KubeObject {
    if (r.storedAs !== undefined) return this.out(r, this.insert(this.home(r), namespace, this.in(r, obj)));
    const name = obj.metadata?.name ?? "";
    const key = keyOf(r, namespace, name);
    if (this.dataOf(r).live.has(key)) throw newAlreadyExists({ group: r.group, resource: r.resource }, name);
    const rev = ++this.revision;
    const stored = deepFreeze({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(rev) } });
    this.commit({ type: "ADDED", resource: r, key, object: stored, prevObject: undefined }, rev);
    return stored;
  }

  /**
   * Replaces an object with one prepared by the registry (`GuaranteedUpdate`'s write): 404 when absent, 409 Conflict
   * when its current resourceVersion is not `expectedRV`; an object equal to the current one (resourceVersion aside)
   * is a no-op that returns the current state without a new revision or event.
   */
  replace(r: SimResource, namespace: string, name: string, obj: KubeObject, expectedRV: string): KubeObject {
    if (r.storedAs !== undefined) {
      return this.out(r, this.replace(this.home(r), namespace, name, this.in(r, obj), expectedRV));
    }
    const key = keyOf(r, namespace, name);
    const current = this.dataOf(r).live.get(key);
    const gr = { group: r.group, resource: r.resource };
    if (current === undefined) throw newNotFound(gr, name);
    if (current.metadata?.resourceVersion !== expectedRV) throw newConflict(gr, name);
    const candidate = { ...obj, metadata: { ...obj.metadata, resourceVersion: expectedRV } };
    if (jsonEqual(candidate, current)) return current;
    const rev = ++this.revision;
    const stored = deepFreeze({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(rev) } });
    this.commit({ type: "MODIFIED", resource: r, key, object: stored, prevObject: current }, rev);
    return stored;
  }

  /**
   * Removes an object whose current resourceVersion is `expectedRV` (404 absent, 409 Conflict changed); `last`, when
   * given, is the state the DELETED event carries (the registry's final update folded into the delete, as etcd's
   * delete-after-update of a removed last finalizer). Returns that state at the delete revision.
   */
  remove(r: SimResource, namespace: string, name: string, expectedRV: string, last?: KubeObject): KubeObject {
    if (r.storedAs !== undefined) {
      const stored = last === undefined ? undefined : this.in(r, last);
      return this.out(r, this.remove(this.home(r), namespace, name, expectedRV, stored));
    }
    const key = keyOf(r, namespace, name);
    const current = this.dataOf(r).live.get(key);
    const gr = { group: r.group, resource: r.resource };
    if (current === undefined) throw newNotFound(gr, name);
    if (current.metadata?.resourceVersion !== expectedRV) throw newConflict(gr, name);
    const rev = ++this.revision;
    const out = withResourceVersion(last ?? current, rev);
    this.commit({ type: "DELETED", resource: r, key, object: out, prevObject: current }, rev);
    return out;
  }

  /**
   * Lists in key order at the current revision (`rev` 0) or at a retained one.
   *
   * @throws {StatusError} 410 `The resourceVersion for the provided list is too old.` below the compaction point,
   *   504 `Too large resource version` (no Retry-After, as etcd answers) above the current revision.
   */
  list(r: SimResource, opts: StorageListOptions): StoragePage {
    if (r.storedAs !== undefined) {
      return this.viewPage(r, opts.predicate, (home, predicate) => this.list(home, { ...opts, predicate }));
    }
    const rev = opts.rev === 0 ? this.revision : opts.rev;
    if (rev > this.revision) throw newTooLargeResourceVersion(rev, this.revision, 0);
    if (rev < this.compacted) throw newResourceExpired("The resourceVersion for the provided list is too old.");
    const d = this.dataOf(r);
    const current = rev === this.revision;
    const index: SortedKeyMap<unknown> = current ? d.live : d.history;
    const objectAt = (k: string): KubeObject | undefined => {
      if (current) return d.live.get(k);
      const versions = d.history.get(k)!;
      for (let i = versions.length - 1; i >= 0; i--) if (versions[i]!.rev <= rev) return versions[i]!.object;
      return undefined;
    };
    return paginate(index, opts, rev, objectAt, !current);
  }

  /**
   * Reads one key at the current revision (`rev` 0) or a retained one, as a page of at most one item matching
   * `predicate` (etcd's `GetList` without `Recursive`: a range of one key). One key examined.
   *
   * @throws {StatusError} as {@link list}: 410 below the compaction point, 504 above the current revision.
   */
  listKey(r: SimResource, key: string, rev: number, predicate: (o: KubeObject) => boolean): StoragePage {
    if (r.storedAs !== undefined) {
      return this.viewPage(r, predicate, (home, pred) => this.listKey(home, key, rev, pred));
    }
    const at = rev === 0 ? this.revision : rev;
    if (at > this.revision) throw newTooLargeResourceVersion(at, this.revision, 0);
    if (at < this.compacted) throw newResourceExpired("The resourceVersion for the provided list is too old.");
    const d = this.data.get(r);
    let o: KubeObject | undefined;
    if (at === this.revision) o = d?.live.get(key);
    else {
      const versions = d?.history.get(key) ?? [];
      for (let i = versions.length - 1; i >= 0; i--) {
        if (versions[i]!.rev <= at) {
          o = versions[i]!.object;
          break;
        }
      }
    }
    const items = o !== undefined && predicate(o) ? [o] : [];
    return { items, lastKey: undefined, remaining: 0, rev: at, scanned: 1 };
  }

  /**
   * Compacts history below `rev` (default: the current revision), as kube-apiserver's periodic compaction does.
   * Writes the compaction key, so the global revision moves by one. Returns the compacted revision. Throws a
   * `RangeError` naming `rev` when it is not an integer ≥ 0 (nothing compacted).
   */
  compact(rev = this.revision): number {
    if (!Number.isSafeInteger(rev) || rev < 0) {
      throw new RangeError(`compact: the revision must be an integer ≥ 0, got ${String(rev)}`);
    }
    const target = Math.min(rev, this.revision);
    if (target <= this.compacted) return this.compacted;
    for (const d of this.data.values()) {
      for (const key of [...d.history.keys()]) {
        const versions = d.history.get(key)!;
        // Keep the newest version at or below the target (the state at `target`) and everything after it.
        let keepFrom = 0;
        for (let i = versions.length - 1; i >= 0; i--) {
          if (versions[i]!.rev <= target) {
            keepFrom = i;
            break;
          }
        }
        const kept = versions.slice(keepFrom);
        if (kept.length > 0 && kept[0]!.object === undefined && kept[0]!.rev <= target) kept.shift();
        if (kept.length === 0) d.history.delete(key);
        else d.history.set(key, kept);
      }
    }
    this.compacted = target;
    this.revision++;
    for (const l of this.listeners) l.onRevision?.(this.revision);
    return target;
  }

  /** Human-readable name of a resource for messages. */
  static nameOf(r: SimResource): string {
    return groupResourceString(r);
  }
}

/**
 * One page over a sorted index: items from `fromKey` in the prefix that match, at most `limit`; `lastKey` set when
 * keys remain. Shared by storage and the watch cache.
 */
export function paginate(
  index: SortedKeyMap<unknown>,
  opts: {
    readonly prefix: string;
    readonly fromKey?: string;
    readonly limit: number;
    readonly predicate: (o: KubeObject) => boolean;
  },
  rev: number,
  objectAt: (key: string) => KubeObject | undefined,
  countLiveOnly: boolean,
): StoragePage {
  const keys = index.keys();
  const [lo, hi] = index.prefixRange(opts.prefix);
  let i = opts.fromKey === undefined ? lo : Math.max(lo, index.lowerBound(opts.fromKey));
  const first = i;
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  for (; i < hi; i++) {
    if (opts.limit > 0 && items.length >= opts.limit) break;
    const k = keys[i]!;
    const o = objectAt(k);
    if (o === undefined || !opts.predicate(o)) continue;
    items.push(o);
    lastKey = k;
  }
  const scanned = i - first;
  if (i >= hi) return { items, lastKey: undefined, remaining: 0, rev, scanned };
  let remaining = hi - i;
  if (countLiveOnly) {
    remaining = 0;
    for (let j = i; j < hi; j++) if (objectAt(keys[j]!) !== undefined) remaining++;
    if (remaining === 0) return { items, lastKey: undefined, remaining: 0, rev, scanned };
  }
  return { items, lastKey, remaining, rev, scanned }; // the loop stopped at the limit, so lastKey is set
}
