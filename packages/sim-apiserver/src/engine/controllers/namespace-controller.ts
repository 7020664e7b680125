import type { KubeObject } from "@informer-ts/apimachinery";
import { FINALIZER_KUBERNETES } from "../registry/index.js";
import type { SimResource } from "../resources.js";
import type { StorageEvent } from "../storage/index.js";
import { type ControllerDeps, ControllerLoop } from "./controller-loop.js";

function specFinalizers(ns: KubeObject): string[] {
  const f = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? (f as string[]) : [];
}

/**
 * The simulated namespace controller (kube-controller-manager's `pkg/controller/namespace`), on the engine's clock:
 * for every namespace that is being deleted and still has the `kubernetes` spec finalizer, each pass deletes every
 * object of every namespaced resource in it (background propagation; objects with finalizers stay until their
 * finalizers are removed), and once the namespace is empty removes `kubernetes` from its spec finalizers
 * (`/finalize`), which deletes the namespace when no other finalizer holds it.
 *
 * Differences from kube-controller-manager: no `NamespaceDeletion*` status conditions and no estimate of the
 * remaining graceful-termination time; content is found by reading storage, not by discovery + list.
 */
export class NamespaceController extends ControllerLoop {
  constructor(deps: ControllerDeps) {
    super(deps);
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

  protected pass(): void {
    const nsr = this.namespacesResource();
    if (nsr === undefined) return;
    for (const [, ns] of this.deps.storage.snapshot(nsr)) {
      if (ns.metadata?.deletionTimestamp === undefined) continue;
      const fins = specFinalizers(ns);
      if (!fins.includes(FINALIZER_KUBERNETES)) continue;
      const name = ns.metadata?.name ?? "";
      let remaining = 0;
      for (const r of this.deps.resources()) {
        if (!r.namespaced) continue;
        for (const [key, o] of this.deps.storage.snapshot(r)) {
          if (!key.startsWith(`${name}/`)) continue;
          remaining++;
          if (o.metadata?.deletionTimestamp !== undefined) continue;
          try {
            this.deps.registry.delete(r, name, o.metadata?.name ?? "", {
              propagationPolicy: "Background",
              preconditions: { uid: o.metadata?.uid ?? "" },
            });
          } catch {
            // Gone or replaced meanwhile: the next pass sees the current state.
          }
        }
      }
      if (remaining > 0) continue;
      try {
        this.deps.registry.finalizeNamespace(
          nsr,
          name,
          fins.filter((f) => f !== FINALIZER_KUBERNETES),
        );
      } catch {
        // Changed meanwhile; its event arms the next pass.
      }
    }
  }
}
