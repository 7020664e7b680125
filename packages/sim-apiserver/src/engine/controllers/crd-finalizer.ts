import type { KubeObject } from "@informer-ts/apimachinery";
import {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  CUSTOM_RESOURCE_DEFINITIONS,
  withTerminatingCondition,
} from "../registry/index.js";
import type { SimResource } from "../resources.js";
import type { StorageEvent } from "../storage/index.js";
import { type ControllerDeps, ControllerLoop } from "./controller-loop.js";

/** The user agent of the finalizer's writes (it runs inside kube-apiserver). */
export const APISERVER_USER_AGENT = "kube-apiserver/v1.34.0";

/** What the finalizer needs from the engine about the resources definitions serve. */
export interface DefinitionServing {
  /** The resource a definition (by name) serves, if the engine serves one for it. */
  served(definition: string): SimResource | undefined;
  /** Stops serving it (its watchers end, requests are 404). */
  retire(definition: string): void;
  /** The server clock's RFC 3339 "now" (condition transition times). */
  now(): string;
}

/**
 * apiextensions-apiserver's `CRDFinalizer`, on the engine's clock: for every definition that is being deleted and
 * still carries `customresourcecleanup.apiextensions.k8s.io`, a pass marks it `Terminating`
 * (`InstanceDeletionInProgress`), deletes every object of its resource through the registry (objects with
 * finalizers stay until those are removed), and once none is left stops serving the resource and removes the
 * finalizer, which deletes the definition.
 *
 * Differences from apiextensions-apiserver: the objects are found by reading storage and deleted one by one (no
 * DeleteCollection); no `InstanceDeletionFailed`/`InstanceDeletionCheck` conditions.
 */
export class CrdFinalizer extends ControllerLoop {
  protected readonly actionName = "crd-finalizer";

  constructor(
    deps: ControllerDeps,
    private readonly serving: DefinitionServing,
  ) {
    super(deps);
  }

  private terminatingFor(r: SimResource): boolean {
    for (const [, crd] of this.deps.storage.snapshot(CUSTOM_RESOURCE_DEFINITIONS)) {
      if (crd.metadata?.deletionTimestamp !== undefined && this.serving.served(crd.metadata.name ?? "") === r)
        return true;
    }
    return false;
  }

  protected relevant(ev: StorageEvent): boolean {
    if (ev.resource === CUSTOM_RESOURCE_DEFINITIONS) {
      return ev.type !== "DELETED" && ev.object.metadata?.deletionTimestamp !== undefined;
    }
    return ev.resource.custom === true && this.terminatingFor(ev.resource);
  }

  protected pass(): void {
    for (const [, crd] of this.deps.storage.snapshot(CUSTOM_RESOURCE_DEFINITIONS)) {
      if (crd.metadata?.deletionTimestamp === undefined) continue;
      const finalizers = crd.metadata.finalizers ?? [];
      if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) continue;
      const name = crd.metadata.name ?? "";
      const r = this.serving.served(name);
      let current: KubeObject = crd;
      if (r !== undefined) {
        current = this.mark(current, name, "InstanceDeletionInProgress", "CustomResource deletion is in progress");
        let remaining = 0;
        for (const [, o] of this.deps.storage.snapshot(r)) {
          remaining++;
          if (o.metadata?.deletionTimestamp !== undefined) continue;
          try {
            this.deps.registry.delete(r, o.metadata?.namespace ?? "", o.metadata?.name ?? "", {
              preconditions: { uid: o.metadata?.uid ?? "" },
            });
          } catch {
            // Gone or replaced meanwhile: the next pass sees the current state.
          }
        }
        if (remaining > 0) continue;
        this.serving.retire(name);
      }
      try {
        const next = structuredClone(current) as KubeObject;
        next.metadata = {
          ...next.metadata,
          finalizers: finalizers.filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER),
        };
        this.deps.registry.update(CUSTOM_RESOURCE_DEFINITIONS, "", name, next, { userAgent: APISERVER_USER_AGENT });
      } catch {
        // Changed meanwhile; its event arms the next pass.
      }
    }
  }

  /** Sets the Terminating condition (a write only when it changes). */
  private mark(crd: KubeObject, name: string, reason: string, message: string): KubeObject {
    const next = withTerminatingCondition(crd, reason, message, this.serving.now());
    if (next === crd) return crd;
    try {
      return this.deps.registry.update(CUSTOM_RESOURCE_DEFINITIONS, "", name, next, {
        userAgent: APISERVER_USER_AGENT,
        subresource: "status",
      });
    } catch {
      return crd;
    }
  }
}
