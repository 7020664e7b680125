import type { KubeObject, OwnerReference } from "@informer-ts/apimachinery";
import type { Timer } from "@informer-ts/clock";
import { safeLog } from "@informer-ts/instrumentation";
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, type PropagationPolicy } from "../registry/index.js";
import type { SimResource } from "../resources.js";
import type { StorageEvent } from "../storage/index.js";
import { type ControllerDeps, ControllerLoop } from "./controller-loop.js";

/** The user agent / field manager of the garbage collector's writes. */
export const GARBAGE_COLLECTOR_USER_AGENT = "kube-controller-manager/v1.34.0 (garbage-collector)";

/** Where an object is stored. */
interface Place {
  readonly r: SimResource;
  readonly namespace: string;
  readonly name: string;
}

interface Node extends Place {
  readonly object: KubeObject;
}

const placeKey = (p: Place) => `${p.r.group}/${p.r.resource}\u0000${p.namespace}\u0000${p.name}`;

const nodeKey = (n: Node) => (n.namespace === "" ? n.name : `${n.namespace}/${n.name}`);

function ownerRefsOf(o: KubeObject | undefined): OwnerReference[] {
  const refs = o?.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs : [];
}

function finalizersOf(o: KubeObject): string[] {
  const f = o.metadata?.finalizers;
  return Array.isArray(f) ? f : [];
}

function deleting(o: KubeObject): boolean {
  return o.metadata?.deletionTimestamp !== undefined;
}

/** An owner deleting in the foreground: its dependents' references to it are *waiting*. */
function waiting(o: KubeObject | undefined): boolean {
  return o !== undefined && deleting(o) && finalizersOf(o).includes(FINALIZER_FOREGROUND);
}

/**
 * How one owner reference of a dependent resolves (`classifyReferences`); `unresolved`: its kind is not served (yet),
 * upstream's `restMappingError`.
 */
type RefClass = "solid" | "dangling" | "waiting" | "unresolved";

/**
 * The retry delay of a dependent whose owner's kind is not served, after `attempts` failed attempts: client-go's
 * `DefaultControllerRateLimiter` (the `attemptToDelete` queue's) per item, 5 ms doubling up to 1000 s.
 */
export function unresolvedRetryDelayMs(attempts: number): number {
  return Math.min(5 * 2 ** attempts, 1_000_000);
}

/**
 * The simulated garbage collector (kube-controller-manager's `pkg/controller/garbagecollector`), on the engine's
 * clock. Storage events keep the dependency edges (owner uid → dependents) and mark what a change may concern — the
 * changed dependent, the owners it names, the dependents of a changed owner — and each pass looks only at those:
 * - classifies every owner reference of a marked live, not-deleting object: the owner is looked up by kind (group and
 *   kind from `apiVersion`/`kind`), name and — for a namespaced owner — the dependent's namespace, and compared by
 *   uid: absent or another uid is *dangling*, an owner deleting with `foregroundDeletion` is *waiting*, otherwise
 *   *solid*. A cluster-scoped dependent naming a namespaced kind counts as solid (never collected through it, as
 *   upstream). A reference to a kind the server does not serve leaves the dependent as it is and looks again on the
 *   engine's clock with backoff ({@link unresolvedRetryDelayMs}), as `attemptToDelete` requeues an item whose owner's
 *   REST mapping failed (a CRD served later resolves it without another change);
 * - with a solid owner, removes the dangling and waiting references; without, deletes the dependent — in the
 *   foreground when a waiting owner exists and the dependent has dependents of its own, else with the policy its
 *   finalizers ask for (`orphan`, `foregroundDeletion`) or in the background;
 * - for an owner deleting with `orphan`: removes its references from every dependent, then the `orphan` finalizer;
 * - for an owner deleting with `foregroundDeletion`: once no dependent with `blockOwnerDeletion: true` is left,
 *   removes the finalizer (which deletes the owner when it was the last one).
 *
 * Only changes that may concern it (objects with owner references, owners of live dependents, objects deleting with
 * the GC's finalizers) arm a pass; a change of the served resources (a new CRD) marks every dependent again, so an engine without owner references never runs one.
 *
 * - breaks rings of foreground deletions as upstream's `attemptToDeleteItem` does: a dependent deleted in the
 *   foreground because its owner waits, whose own dependents already wait for their dependents, first has its
 *   owner references made non-blocking (so three pods owning each other in a ring are all deleted).
 *
 * An owner kind that is not served is logged once per kind, as a warning at the engine's logger.
 *
 * Differences from kube-controller-manager: the graph holds only edges (objects are read from storage in the pass),
 * no events (`OwnerRefInvalidNamespace`); writes are updates, not metadata patches.
 */
export class GarbageCollector extends ControllerLoop {
  protected readonly actionName = "garbage-collector";
  /** uid → number of live objects referencing it as an owner. */
  private readonly referenced = new Map<string, number>();
  /** owner uid → the dependents naming it (uid → where the dependent is stored): upstream's dependency graph's edges. */
  private readonly dependentsOf = new Map<string, Map<string, Place>>();
  /** Objects a change may concern, to look at in the next pass (place key → place). */
  private dirty = new Map<string, Place>();
  /** The served resources the kind index was built from (a new CRD may resolve references that did not resolve). */
  private servedSeen: readonly SimResource[] = [];
  private readonly byKind = new Map<string, SimResource>();
  /** Dependents with a reference to a kind not served: failed attempts so far and the pending retry. */
  private readonly unresolved = new Map<string, { attempts: number; timer: Timer }>();
  /** Owner kinds (`apiVersion`/`kind`) already reported as not served: each is logged once. */
  private readonly reportedKinds = new Set<string>();

  constructor(deps: ControllerDeps) {
    super(deps);
  }

  /** Dependents waiting to look again at an owner's kind that was not served. */
  get unresolvedRetries(): number {
    return this.unresolved.size;
  }

  /** Stops the loop and every pending retry of an unresolved owner kind. */
  override stop(): void {
    super.stop();
    for (const { timer } of this.unresolved.values()) timer.stop();
    this.unresolved.clear();
  }

  /** Looks at `n` again after the backoff of its attempts so far (`AddRateLimited`). */
  private retryLater(n: Node): void {
    const key = placeKey(n);
    const attempts = this.unresolved.get(key)?.attempts ?? 0;
    const place: Place = { r: n.r, namespace: n.namespace, name: n.name };
    const timer = this.deps.clock.afterFunc(unresolvedRetryDelayMs(attempts), () => {
      const entry = this.unresolved.get(key);
      if (entry?.timer !== timer) return;
      const current = this.deps.storage.get(place.r, place.namespace, place.name);
      if (current === undefined || current.metadata?.uid !== n.object.metadata?.uid) {
        this.unresolved.delete(key);
        return;
      }
      this.mark(place);
      this.arm();
    });
    this.unresolved.get(key)?.timer.stop();
    this.unresolved.set(key, { attempts: attempts + 1, timer });
  }

  /**
   * Logs, once per owner kind, that a dependent names a kind the server does not serve (upstream's
   * `restMappingError`, which `attemptToDeleteWorker` reports before requeueing): a warning at the engine's logger
   * naming the kind, the dependent and that it is retried with backoff.
   */
  private reportUnresolved(n: Node, ref: OwnerReference): void {
    const kind = `${String(ref.apiVersion ?? "")}/${String(ref.kind ?? "")}`;
    if (this.reportedKinds.has(kind)) return;
    this.reportedKinds.add(kind);
    const logger = this.deps.logger;
    if (logger === undefined) return;
    const where = n.namespace === "" ? n.name : `${n.namespace}/${n.name}`;
    safeLog(
      logger,
      "warn",
      `garbage collector: owner kind ${String(ref.kind ?? "")} (apiVersion ${String(ref.apiVersion ?? "")}) of ${n.r.resource} ${where} is not served; its dependents are left as they are and looked at again with backoff (logged once per kind)`,
      { controller: "garbage-collector", ownerKind: kind, dependent: `${n.r.resource}/${where}`, owner: ref.name },
    );
  }

  /** `Forget`: a dependent whose references all resolve starts its backoff afresh. */
  private resolved(n: Node): void {
    const key = placeKey(n);
    const entry = this.unresolved.get(key);
    if (entry === undefined) return;
    entry.timer.stop();
    this.unresolved.delete(key);
  }

  private count(o: KubeObject | undefined, place: Place, delta: number): void {
    const depUid = o?.metadata?.uid;
    for (const ref of ownerRefsOf(o)) {
      if (typeof ref.uid !== "string") continue;
      const n = (this.referenced.get(ref.uid) ?? 0) + delta;
      if (n <= 0) this.referenced.delete(ref.uid);
      else this.referenced.set(ref.uid, n);
      if (depUid === undefined) continue;
      let deps = this.dependentsOf.get(ref.uid);
      if (delta > 0) {
        if (deps === undefined) {
          deps = new Map();
          this.dependentsOf.set(ref.uid, deps);
        }
        deps.set(depUid, place);
      } else if (deps !== undefined) {
        deps.delete(depUid);
        if (deps.size === 0) this.dependentsOf.delete(ref.uid);
      }
    }
  }

  private mark(place: Place): void {
    this.dirty.set(placeKey(place), place);
  }

  /** Marks the owners `o` names (found by kind and name, as {@link classify} looks them up). */
  private markOwners(o: KubeObject | undefined, place: Place): void {
    for (const ref of ownerRefsOf(o)) {
      const r = this.resolve(ref);
      if (r === undefined || (r.namespaced && !place.r.namespaced)) continue;
      this.mark({ r, namespace: r.namespaced ? place.namespace : "", name: ref.name });
    }
  }

  protected relevant(ev: StorageEvent): boolean {
    // A resource kept in another's storage (events.k8s.io events) holds the same objects: they are seen once, through
    // the resource that stores them.
    if (ev.resource.storedAs !== undefined) return false;
    if (this.servedSeen.length === 0) this.served();
    const o = ev.object;
    const place: Place = { r: ev.resource, namespace: o.metadata?.namespace ?? "", name: o.metadata?.name ?? "" };
    if (ev.prevObject !== undefined) this.count(ev.prevObject, place, -1);
    if (ev.type !== "DELETED") this.count(o, place, +1);
    let concerns = false;
    if (ownerRefsOf(o).length > 0 || ownerRefsOf(ev.prevObject).length > 0) {
      // A dependent changed: itself (its references' classes), and its owners (blocking dependents, orphaning).
      concerns = true;
      if (ev.type !== "DELETED") this.mark(place);
      this.markOwners(ev.prevObject, place);
      this.markOwners(o, place);
    }
    const uid = o.metadata?.uid;
    if (uid !== undefined && this.referenced.has(uid)) {
      concerns = true;
      // An owner appeared, went or started waiting for its dependents: their references classify otherwise. (Any
      // other change of an owner — a status write — changes no dependent's class.)
      if (ev.type !== "MODIFIED" || waiting(ev.prevObject) !== waiting(o)) {
        for (const dep of this.dependentsOf.get(uid)?.values() ?? []) this.mark(dep);
      }
    }
    const f = finalizersOf(o);
    if (ev.type !== "DELETED" && deleting(o) && (f.includes(FINALIZER_ORPHAN) || f.includes(FINALIZER_FOREGROUND))) {
      concerns = true;
      this.mark(place);
    }
    return concerns;
  }

  /**
   * The kind index, rebuilt (at each pass's start) when the served resources changed; then every dependent is looked
   * at again, since a reference to a kind that was not served resolves now.
   */
  private served(): Map<string, SimResource> {
    const rs = this.deps.resources();
    if (rs.length !== this.servedSeen.length || rs.some((r, i) => r !== this.servedSeen[i])) {
      const first = this.servedSeen.length === 0;
      this.servedSeen = rs;
      this.byKind.clear();
      // An owner reference names a group/kind at any served version (`autoscaling/v1` or `/v2`): the resource that
      // stores the kind answers for every version of it (a view of a served resource's storage is skipped).
      for (const r of rs) {
        if (r.storedAs !== undefined && rs.includes(r.storedAs.resource)) continue;
        if (!this.byKind.has(`${r.group}/${r.kind}`)) this.byKind.set(`${r.group}/${r.kind}`, r);
      }
      if (!first) for (const deps of this.dependentsOf.values()) for (const p of deps.values()) this.mark(p);
    }
    return this.byKind;
  }

  private resolve(ref: OwnerReference): SimResource | undefined {
    const av = typeof ref.apiVersion === "string" ? ref.apiVersion : "";
    const group = av.includes("/") ? av.slice(0, av.indexOf("/")) : "";
    return this.byKind.get(`${group}/${ref.kind}`);
  }

  private classify(dep: Node, ref: OwnerReference): RefClass {
    const r = this.resolve(ref);
    if (r === undefined) return "unresolved";
    if (r.namespaced && !dep.r.namespaced) return "solid";
    const owner = this.deps.storage.get(r, r.namespaced ? dep.namespace : "", ref.name);
    if (owner === undefined || owner.metadata?.uid !== ref.uid) return "dangling";
    if (waiting(owner)) return "waiting";
    return "solid";
  }

  /** The live dependents of an owner uid, as stored now. */
  private dependents(uid: string): Array<{ node: Node; ref: OwnerReference }> {
    const out: Array<{ node: Node; ref: OwnerReference }> = [];
    for (const [depUid, p] of this.dependentsOf.get(uid) ?? []) {
      const object = this.deps.storage.get(p.r, p.namespace, p.name);
      if (object === undefined || object.metadata?.uid !== depUid) continue;
      const ref = ownerRefsOf(object).find((x) => x.uid === uid);
      if (ref !== undefined) out.push({ node: { ...p, object }, ref });
    }
    return out;
  }

  /**
   * Looks at the objects changes since the last pass may concern (upstream's attemptToDelete and attemptToOrphan
   * queues, fed by the graph builder's events): each pass costs what changed, not the whole store.
   */
  protected pass(): void {
    this.served();
    const todo = [...this.dirty.values()];
    this.dirty = new Map();
    let i = 0;
    try {
      for (; i < todo.length; i++) {
        const p = todo[i]!;
        const object = this.deps.storage.get(p.r, p.namespace, p.name);
        if (object !== undefined) this.attempt({ ...p, object });
      }
    } finally {
      // A pass that threw leaves what it did not reach for the next one.
      for (; i < todo.length; i++) this.mark(todo[i]!);
    }
  }

  private attempt(n: Node): void {
    const o = n.object;
    const uid = o.metadata?.uid ?? "";
    if (deleting(o)) {
      const f = finalizersOf(o);
      if (f.includes(FINALIZER_ORPHAN)) this.orphanDependents(n, this.dependents(uid));
      else if (f.includes(FINALIZER_FOREGROUND)) {
        const blocking = this.dependents(uid).filter((d) => d.ref.blockOwnerDeletion === true);
        if (blocking.length === 0) this.removeFinalizer(n, FINALIZER_FOREGROUND);
      }
      // A deleting object is not collected again; a foreground one was handled above as an owner.
      return;
    }
    const refs = ownerRefsOf(o);
    if (refs.length === 0) return;
    const classes = refs.map((ref) => this.classify(n, ref));
    if (classes.includes("unresolved")) {
      for (const [i, ref] of refs.entries()) if (classes[i] === "unresolved") this.reportUnresolved(n, ref);
      this.retryLater(n);
      return;
    }
    this.resolved(n);
    if (classes.includes("solid")) {
      if (classes.every((c) => c === "solid")) return;
      const dropped = this.update(n, (obj) => {
        obj.metadata!.ownerReferences = refs.filter((_, i) => classes[i] === "solid");
      });
      if (dropped) this.report(`removed dangling owner references from ${n.r.resource} ${nodeKey(n)}`);
      return;
    }
    let policy: PropagationPolicy;
    const deps = this.dependents(uid);
    if (classes.includes("waiting") && deps.length > 0) {
      policy = "Foreground";
      // attemptToDeleteItem's cycle guard: a dependent that is itself deleting its dependents may be waiting on
      // this object through a ring of owners, so this object's references stop blocking its owners first.
      if (deps.some(({ node }) => deleting(node.object) && finalizersOf(node.object).includes(FINALIZER_FOREGROUND))) {
        if (!this.unblockOwnerReferences(n)) return;
      }
    } else if (finalizersOf(o).includes(FINALIZER_ORPHAN)) policy = "Orphan";
    else if (finalizersOf(o).includes(FINALIZER_FOREGROUND)) policy = "Foreground";
    else policy = "Background";
    const deleted = this.tryWrite(() => {
      this.deps.registry.delete(n.r, n.namespace, n.name, {
        propagationPolicy: policy,
        preconditions: { uid: o.metadata?.uid ?? "" },
      });
    });
    if (deleted) {
      const owners = refs.map((ref) => `${ref.kind} ${ref.name}`).join(", ");
      this.report(`deleted ${n.r.resource} ${nodeKey(n)} (${policy}): its owner ${owners} is gone`);
    }
  }

  /** `unblockOwnerReferences`: every `blockOwnerDeletion: true` reference of the node becomes `false`. */
  private unblockOwnerReferences(n: Node): boolean {
    if (!ownerRefsOf(n.object).some((ref) => ref.blockOwnerDeletion === true)) return true;
    return this.update(n, (obj) => {
      obj.metadata!.ownerReferences = ownerRefsOf(obj).map((ref) =>
        ref.blockOwnerDeletion === true ? { ...ref, blockOwnerDeletion: false } : ref,
      );
    });
  }

  /** Removes the owner's references from its dependents, then its `orphan` finalizer. */
  private orphanDependents(owner: Node, deps: ReadonlyArray<{ node: Node; ref: OwnerReference }>): void {
    const uid = owner.object.metadata?.uid;
    let pending = false;
    for (const { node } of deps) {
      const ok = this.update(node, (obj) => {
        const left = ownerRefsOf(obj).filter((ref) => ref.uid !== uid);
        if (left.length > 0) obj.metadata!.ownerReferences = left;
        else delete obj.metadata!.ownerReferences;
      });
      if (!ok) pending = true;
    }
    if (!pending) this.removeFinalizer(owner, FINALIZER_ORPHAN);
  }

  private removeFinalizer(n: Node, finalizer: string): void {
    const ok = this.update(n, (obj) => {
      const left = finalizersOf(obj).filter((f) => f !== finalizer);
      if (left.length > 0) obj.metadata!.finalizers = left;
      else delete obj.metadata!.finalizers;
    });
    if (ok) this.report(`removed finalizer ${finalizer} from ${n.r.resource} ${nodeKey(n)}`);
  }

  /** An update of the node's object as read by this pass (409 when it changed since: the next pass retries). */
  private update(n: Node, change: (obj: KubeObject) => void): boolean {
    return this.tryWrite(() => {
      const obj = structuredClone(n.object) as KubeObject;
      obj.metadata = { ...obj.metadata };
      change(obj);
      this.deps.registry.update(n.r, n.namespace, n.name, obj, { userAgent: GARBAGE_COLLECTOR_USER_AGENT });
    });
  }

  private tryWrite(fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch {
      // Lost a race with another writer (409) or the object is gone (404): its event arms the next pass.
      return false;
    }
  }
}
