import type { KubeObject } from "@informer-ts/apimachinery";
import type { Clock } from "@informer-ts/clock";
import type { SimResource } from "../../resources.js";
import type { FieldManager, FieldManagerContext } from "../store.js";
import { schemaFor } from "./builtin-schemas.js";
import { FieldSet } from "./field-set.js";
import { fieldElement } from "./path-element.js";
import { StructuredMergeManager } from "./structured-merge-manager.js";

const STATUS = FieldSet.of([fieldElement("status")]);
const SPEC = FieldSet.of([fieldElement("spec")]);

/**
 * The registry's field-ownership hook ({@link FieldManager}) backed by one {@link StructuredMergeManager} per
 * resource and subresource (kube-apiserver builds one field manager per endpoint): every create, update and non-apply
 * patch records an `Update` entry, apply patches merge with ownership and conflicts. Fields an endpoint resets are
 * never owned there (`GetResetFields`): `status` on the main resource of a kind with a status subresource, `spec` on
 * `/status`.
 */
export class ServerSideApply implements FieldManager {
  private readonly managers = new WeakMap<SimResource, Map<string, StructuredMergeManager>>();

  /**
   * @param clock source of the entries' `time`.
   * @param hasStatus whether a resource has the status subresource (the registry's strategy knows).
   */
  constructor(
    private readonly clock: Clock,
    private readonly hasStatus: (r: SimResource) => boolean,
  ) {}

  /** The structured-merge manager of a resource's endpoint (`""` or a subresource), created on first use. */
  managerFor(r: SimResource, subresource: string): StructuredMergeManager {
    let byEndpoint = this.managers.get(r);
    if (byEndpoint === undefined) {
      byEndpoint = new Map();
      this.managers.set(r, byEndpoint);
    }
    let m = byEndpoint.get(subresource);
    if (m === undefined) {
      const ignored =
        subresource === "status" || subresource === "approval" ? SPEC : this.hasStatus(r) ? STATUS : undefined;
      m = new StructuredMergeManager({
        group: r.group,
        version: r.version,
        kind: r.kind,
        schema: schemaFor(r.group, r.kind, r.custom === true),
        clock: this.clock,
        ...(ignored !== undefined && { ignoredFields: ignored }),
        ...(subresource !== "" && { subresource }),
      });
      byEndpoint.set(subresource, m);
    }
    return m;
  }

  update(live: KubeObject | undefined, next: KubeObject, ctx: FieldManagerContext): KubeObject {
    return this.managerFor(ctx.resource, ctx.subresource).update(live, next, ctx.manager);
  }

  apply(live: KubeObject | undefined, patch: Record<string, unknown>, ctx: FieldManagerContext): KubeObject {
    return this.managerFor(ctx.resource, ctx.subresource).apply(live, patch, ctx.manager, ctx.force === true);
  }
}
