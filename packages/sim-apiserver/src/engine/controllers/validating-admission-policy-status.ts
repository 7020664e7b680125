import type { KubeObject } from "@informer-ts/apimachinery";
import { typeCheckPolicy } from "../admission/policy/policy-type-check.js";
import type { StorageEvent } from "../storage/index.js";
import { ControllerLoop } from "./controller-loop.js";

/** The user agent and field manager of the controller's status writes. */
export const VAP_STATUS_CONTROLLER = "validatingadmissionpolicy-status-controller";

function observedGeneration(p: KubeObject): number {
  const g = (p.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  return typeof g === "number" ? g : 0;
}

function stale(p: KubeObject): boolean {
  return (p.metadata?.generation ?? 0) > observedGeneration(p);
}

/**
 * kube-controller-manager's `validatingadmissionpolicy-status` controller (pkg/controller/validatingadmissionpolicystatus),
 * on the engine's clock: a ValidatingAdmissionPolicy whose `metadata.generation` is ahead of
 * `status.observedGeneration` is type-checked ({@link typeCheckPolicy}) and gets `status.observedGeneration` and
 * `status.typeChecking.expressionWarnings` (`typeChecking: {}`: checked, no warnings) through the `/status` subresource.
 * Difference: a status update with the stored resourceVersion rather than a forced server-side apply.
 */
export class ValidatingAdmissionPolicyStatusController extends ControllerLoop {
  protected readonly actionName = VAP_STATUS_CONTROLLER;

  protected relevant(ev: StorageEvent): boolean {
    const r = ev.resource;
    return (
      r.group === "admissionregistration.k8s.io" &&
      r.resource === "validatingadmissionpolicies" &&
      ev.type !== "DELETED" &&
      stale(ev.object)
    );
  }

  protected pass(): void {
    const resources = this.deps.resources();
    const r = resources.find(
      (x) => x.group === "admissionregistration.k8s.io" && x.resource === "validatingadmissionpolicies",
    );
    if (r === undefined) return;
    for (const [, p] of this.deps.storage.snapshot(r)) {
      if (!stale(p)) continue;
      let warnings: ReturnType<typeof typeCheckPolicy>;
      try {
        warnings = typeCheckPolicy(p, resources);
      } catch {
        // Type checking must not keep a policy unchecked (upstream skips a kind whose schema fails to resolve).
        warnings = [];
      }
      const name = p.metadata?.name ?? "";
      const status = {
        ...(p.status as Record<string, unknown> | undefined),
        observedGeneration: p.metadata?.generation ?? 0,
        // `expressionWarnings` is omitted when empty (upstream's omitempty): `typeChecking: {}` means checked, clean.
        typeChecking: warnings.length === 0 ? {} : { expressionWarnings: warnings },
      };
      try {
        this.deps.registry.update(
          r,
          "",
          name,
          { ...p, status },
          {
            subresource: "status",
            fieldManager: VAP_STATUS_CONTROLLER,
            userAgent: VAP_STATUS_CONTROLLER,
          },
        );
        this.report(`type-checked validatingadmissionpolicies ${name}: ${warnings.length} warning(s)`);
      } catch {
        // Changed or deleted meanwhile: its event arms the next pass.
      }
    }
  }
}
