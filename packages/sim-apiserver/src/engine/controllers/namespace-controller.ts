import type { KubeObject } from "@informer-ts/apimachinery";
import { FINALIZER_KUBERNETES } from "../registry/index.js";
import type { SimResource } from "../resources.js";
import type { StorageEvent } from "../storage/index.js";
import { type ControllerDeps, ControllerLoop } from "./controller-loop.js";
import { type ContentTotals, updatedConditions } from "./namespace-conditions.js";

function specFinalizers(ns: KubeObject): string[] {
  const f = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? (f as string[]) : [];
}

/** What the namespace controller follows of its release. */
export interface NamespaceControllerOptions {
  /** `OrderedNamespaceDeletion` (on from 1.33): pods first, the rest once no pod is left. Default true. */
  readonly orderedDeletion?: boolean;
  /** The controller's clock as RFC 3339 (condition transition times). */
  readonly now: () => string;
}

/** The user agent of the namespace controller's writes. */
export const NAMESPACE_CONTROLLER_USER_AGENT = "kube-controller-manager/v1.34.0 (namespace-controller)";

/**
 * The simulated namespace controller (kube-controller-manager's `pkg/controller/namespace`,
 * `deletion/namespaced_resources_deleter.go`), on the engine's clock: for every namespace that is being deleted and
 * still has the `kubernetes` spec finalizer, each pass
 * - deletes the namespace's content (background propagation; objects with finalizers stay until their finalizers
 *   are removed, pods in their grace period until it ends) — with `OrderedNamespaceDeletion` (1.33+) the pods first,
 *   and every other resource only once no pod is left (`deleteAllContent`);
 * - writes the namespace's `status.conditions` (`NamespaceDeletionDiscoveryFailure`, `…GroupVersionParsingFailure`,
 *   `…ContentFailure`, `NamespaceContentRemaining`, `NamespaceFinalizersRemaining`; see `namespace-conditions.ts`)
 *   through `/status` when they changed;
 * - once the namespace is empty removes `kubernetes` from its spec finalizers (`/finalize`), which deletes the
 *   namespace when no other finalizer holds it.
 *
 * Differences from kube-controller-manager: no estimate of the remaining graceful-termination time (the pass is
 * re-armed by the content's own events instead); content is found by reading storage, not by discovery + list, so
 * the discovery and parsing conditions are always `False`.
 */
export class NamespaceController extends ControllerLoop {
  protected readonly actionName = "namespace-controller";
  private readonly ordered: boolean;

  constructor(
    deps: ControllerDeps,
    private readonly opts: NamespaceControllerOptions = { now: () => new Date(deps.clock.now()).toISOString() },
  ) {
    super(deps);
    this.ordered = opts.orderedDeletion ?? true;
  }

  private namespacesResource(): SimResource | undefined {
    return this.deps.resources().find((r) => r.group === "" && r.resource === "namespaces");
  }

  private terminating(name: string): boolean {
    const nsr = this.namespacesResource();
    if (nsr === undefined || name === "") return false;
    const ns = this.deps.storage.get(nsr, "", name);
    return ns !== undefined && ns.metadata?.deletionTimestamp !== undefined;
  }

  protected relevant(ev: StorageEvent): boolean {
    const r = ev.resource;
    if (r.group === "" && r.resource === "namespaces") {
      return ev.type !== "DELETED" && ev.object.metadata?.deletionTimestamp !== undefined;
    }
    return r.namespaced && this.terminating(ev.object.metadata?.namespace ?? "");
  }

  /**
   * `deleteAllContentForGroupVersionResource`: deletes what of `r` in `name` is not deleting yet and counts what is
   * left (every instance, deleting or not) by resource and by finalizer.
   */
  private deleteContent(
    r: SimResource,
    name: string,
    byResource: Map<string, number>,
    byFinalizer: Map<string, number>,
  ): number {
    let remaining = 0;
    for (const [key, o] of this.deps.storage.snapshot(r)) {
      if (!key.startsWith(`${name}/`)) continue;
      if (o.metadata?.deletionTimestamp === undefined) {
        try {
          this.deps.registry.delete(r, name, o.metadata?.name ?? "", {
            propagationPolicy: "Background",
            preconditions: { uid: o.metadata?.uid ?? "" },
          });
          this.report(`deleted ${r.resource} ${name}/${o.metadata?.name ?? ""}: its namespace is terminating`);
        } catch {
          // Gone or replaced meanwhile: the next pass sees the current state.
        }
      }
      const now = this.deps.storage.get(r, name, o.metadata?.name ?? "");
      if (now === undefined) continue;
      remaining++;
      for (const f of now.metadata?.finalizers ?? []) byFinalizer.set(f, (byFinalizer.get(f) ?? 0) + 1);
    }
    if (remaining > 0) byResource.set(`${r.resource}.${r.group}`, remaining);
    return remaining;
  }

  protected pass(): void {
    const nsr = this.namespacesResource();
    if (nsr === undefined) return;
    for (const [, ns] of this.deps.storage.snapshot(nsr)) {
      if (ns.metadata?.deletionTimestamp === undefined) continue;
      const fins = specFinalizers(ns);
      if (!fins.includes(FINALIZER_KUBERNETES)) continue;
      const name = ns.metadata?.name ?? "";
      const byResource = new Map<string, number>();
      const byFinalizer = new Map<string, number>();
      let remaining = 0;
      // Each stored object once: a served version kept in another served resource's storage is skipped, and of
      // several versions kept in one storage that is not served itself (a custom resource's) only the first.
      const all = this.deps.resources();
      const namespaced = all.filter(
        (r, i) =>
          r.namespaced &&
          r.verbs.includes("delete") &&
          !(
            r.storedAs !== undefined &&
            (all.includes(r.storedAs.resource) ||
              all.slice(0, i).some((x) => x.storedAs?.resource === r.storedAs?.resource))
          ),
      );
      const pods = namespaced.find((r) => r.group === "" && r.resource === "pods");
      if (this.ordered && pods !== undefined) remaining += this.deleteContent(pods, name, byResource, byFinalizer);
      // OrderedNamespaceDeletion: nothing else is deleted while pods remain.
      if (remaining === 0) {
        for (const r of namespaced) {
          if (this.ordered && r === pods) continue;
          remaining += this.deleteContent(r, name, byResource, byFinalizer);
        }
      }
      this.writeConditions(nsr, name, { byResource, byFinalizer });
      if (remaining > 0) continue;
      const current = this.deps.storage.get(nsr, "", name);
      try {
        this.deps.registry.finalizeNamespace(
          nsr,
          name,
          specFinalizers(current ?? ns).filter((f) => f !== FINALIZER_KUBERNETES),
        );
        this.report(`removed finalizer kubernetes from namespace ${name}: it is empty`);
      } catch {
        // Changed meanwhile; its event arms the next pass.
      }
    }
  }

  private writeConditions(nsr: SimResource, name: string, totals: ContentTotals): void {
    const ns = this.deps.storage.get(nsr, "", name);
    if (ns === undefined) return;
    const conditions = updatedConditions(ns, totals, this.opts.now());
    if (conditions === undefined) return;
    const next = structuredClone(ns) as KubeObject;
    next.status = { ...(next.status as object | undefined), conditions };
    try {
      this.deps.registry.update(nsr, "", name, next, {
        subresource: "status",
        userAgent: NAMESPACE_CONTROLLER_USER_AGENT,
      });
    } catch {
      // Changed meanwhile; its event arms the next pass.
    }
  }
}
