import type { KubeObject, OwnerReference } from "@informer-ts/apimachinery";
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, type PropagationPolicy } from "../registry/index.js";
import type { SimResource } from "../resources.js";
import type { StorageEvent } from "../storage/index.js";
import { type ControllerDeps, ControllerLoop } from "./controller-loop.js";

/** The user agent / field manager of the garbage collector's writes. */
export const GARBAGE_COLLECTOR_USER_AGENT = "kube-controller-manager/v1.34.0 (garbage-collector)";

interface Node {
  readonly r: SimResource;
  readonly namespace: string;
  readonly name: string;
  readonly object: KubeObject;
}

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

/** How one owner reference of a dependent resolves (`classifyReferences`). */
type RefClass = "solid" | "dangling" | "waiting";

/**
 * The simulated garbage collector (kube-controller-manager's `pkg/controller/garbagecollector`), on the engine's
 * clock: each pass reads the whole store and
 * - classifies every owner reference of every live, not-deleting object: the owner is looked up by kind (group and
 *   kind from `apiVersion`/`kind`), name and — for a namespaced owner — the dependent's namespace, and compared by
 *   uid: absent or another uid is *dangling*, an owner deleting with `foregroundDeletion` is *waiting*, otherwise
 *   *solid*. A cluster-scoped dependent naming a namespaced kind, or a kind the server does not serve, is
 *   unresolvable and counts as solid (never collected through it, as upstream);
 * - with a solid owner, removes the dangling and waiting references; without, deletes the dependent — in the
 *   foreground when a waiting owner exists and the dependent has dependents of its own, else with the policy its
 *   finalizers ask for (`orphan`, `foregroundDeletion`) or in the background;
 * - for an owner deleting with `orphan`: removes its references from every dependent, then the `orphan` finalizer;
 * - for an owner deleting with `foregroundDeletion`: once no dependent with `blockOwnerDeletion: true` is left,
 *   removes the finalizer (which deletes the owner when it was the last one).
 *
 * Only changes that may concern it (objects with owner references, owners of live dependents, objects deleting with
 * the GC's finalizers) arm a pass, so an engine without owner references never runs one.
 *
 * - breaks rings of foreground deletions as upstream's `attemptToDeleteItem` does: a dependent deleted in the
 *   foreground because its owner waits, whose own dependents already wait for their dependents, first has its
 *   owner references made non-blocking (so three pods owning each other in a ring are all deleted).
 *
 * Differences from kube-controller-manager: no dependency graph kept between passes (each pass re-reads storage),
 * no events (`OwnerRefInvalidNamespace`); writes are updates, not metadata patches.
 */
export class GarbageCollector extends ControllerLoop {
  protected readonly actionName = "garbage-collector";
  /** uid → number of live objects referencing it as an owner. */
  private readonly referenced = new Map<string, number>();

  constructor(deps: ControllerDeps) {
    super(deps);
  }

  private count(o: KubeObject | undefined, delta: number): void {
    for (const ref of ownerRefsOf(o)) {
      if (typeof ref.uid !== "string") continue;
      const n = (this.referenced.get(ref.uid) ?? 0) + delta;
      if (n <= 0) this.referenced.delete(ref.uid);
      else this.referenced.set(ref.uid, n);
    }
  }

  protected relevant(ev: StorageEvent): boolean {
    if (ev.prevObject !== undefined) this.count(ev.prevObject, -1);
    if (ev.type !== "DELETED") this.count(ev.object, +1);
    if (ownerRefsOf(ev.object).length > 0 || ownerRefsOf(ev.prevObject).length > 0) return true;
    const uid = ev.object.metadata?.uid;
    if (uid !== undefined && this.referenced.has(uid)) return true;
    const f = finalizersOf(ev.object);
    return deleting(ev.object) && (f.includes(FINALIZER_ORPHAN) || f.includes(FINALIZER_FOREGROUND));
  }

  private resolve(ref: OwnerReference): SimResource | undefined {
    const av = typeof ref.apiVersion === "string" ? ref.apiVersion : "";
    const group = av.includes("/") ? av.slice(0, av.indexOf("/")) : "";
    return this.deps.resources().find((r) => r.group === group && r.kind === ref.kind);
  }

  private classify(dep: Node, ref: OwnerReference): RefClass {
    const r = this.resolve(ref);
    if (r === undefined || (r.namespaced && !dep.r.namespaced)) return "solid";
    const owner = this.deps.storage.get(r, r.namespaced ? dep.namespace : "", ref.name);
    if (owner === undefined || owner.metadata?.uid !== ref.uid) return "dangling";
    if (deleting(owner) && finalizersOf(owner).includes(FINALIZER_FOREGROUND)) return "waiting";
    return "solid";
  }

  protected pass(): void {
    const nodes: Node[] = [];
    const dependents = new Map<string, Array<{ node: Node; ref: OwnerReference }>>();
    for (const r of this.deps.resources()) {
      // A resource kept in another's storage (events.k8s.io events) holds the same objects: visit them once.
      if (r.storedAs !== undefined) continue;
      for (const [, o] of this.deps.storage.snapshot(r)) {
        const node: Node = { r, namespace: o.metadata?.namespace ?? "", name: o.metadata?.name ?? "", object: o };
        nodes.push(node);
        for (const ref of ownerRefsOf(o)) {
          let list = dependents.get(ref.uid);
          if (list === undefined) {
            list = [];
            dependents.set(ref.uid, list);
          }
          list.push({ node, ref });
        }
      }
    }
    const hasDependents = (n: Node) => (dependents.get(n.object.metadata?.uid ?? "")?.length ?? 0) > 0;
    for (const n of nodes) {
      const o = n.object;
      const uid = o.metadata?.uid ?? "";
      if (deleting(o)) {
        const f = finalizersOf(o);
        if (f.includes(FINALIZER_ORPHAN)) this.orphanDependents(n, dependents.get(uid) ?? []);
        else if (f.includes(FINALIZER_FOREGROUND)) {
          const blocking = (dependents.get(uid) ?? []).filter((d) => d.ref.blockOwnerDeletion === true);
          if (blocking.length === 0) this.removeFinalizer(n, FINALIZER_FOREGROUND);
        }
        // A deleting object is not collected again; a foreground one was handled above as an owner.
        continue;
      }
      const refs = ownerRefsOf(o);
      if (refs.length === 0) continue;
      const classes = refs.map((ref) => this.classify(n, ref));
      if (classes.includes("solid")) {
        if (classes.every((c) => c === "solid")) continue;
        const dropped = this.update(n, (obj) => {
          obj.metadata!.ownerReferences = refs.filter((_, i) => classes[i] === "solid");
        });
        if (dropped) this.report(`removed dangling owner references from ${n.r.resource} ${nodeKey(n)}`);
        continue;
      }
      let policy: PropagationPolicy;
      if (classes.includes("waiting") && hasDependents(n)) {
        policy = "Foreground";
        // attemptToDeleteItem's cycle guard: a dependent that is itself deleting its dependents may be waiting on
        // this object through a ring of owners, so this object's references stop blocking its owners first.
        const deps = dependents.get(uid) ?? [];
        if (
          deps.some(({ node }) => deleting(node.object) && finalizersOf(node.object).includes(FINALIZER_FOREGROUND))
        ) {
          if (!this.unblockOwnerReferences(n)) continue;
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
