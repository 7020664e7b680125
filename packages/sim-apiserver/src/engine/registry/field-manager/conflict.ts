import { StatusError } from "@informer-ts/apimachinery";
import type { ManagerFields } from "./managed-fields.js";
import { type Path, pathString } from "./path-element.js";

/** A field the applier would change while another manager owns it (`merge.Conflict`). */
export interface Conflict {
  /** The owner's manager identifier (sort key). */
  readonly managerId: string;
  readonly owner: ManagerFields;
  readonly path: Path;
}

/** `printManager`: `"name"` for an applier, `"name" using v1` for an updater (with its subresource when set). */
export function printManager(m: ManagerFields): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource !== "") s = `${s} with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === "Update") return `${s} using ${m.apiVersion}`;
  return s;
}

/**
 * `NewConflictError`: the 409 `Conflict` Status of a failed apply, one `FieldManagerConflict` cause per conflicting
 * field and the message `Apply failed with 1 conflict: conflict with "mgr" using v1: .data.a` (several conflicts are
 * grouped by manager, managers in identifier order).
 */
export function newApplyConflict(conflicts: readonly Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => (a.managerId < b.managerId ? -1 : a.managerId > b.managerId ? 1 : 0));
  const causes = sorted.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(c.owner)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (sorted.length === 1) {
    const c = sorted[0]!;
    message = `Apply failed with 1 conflict: conflict with ${printManager(c.owner)}: ${pathString(c.path)}`;
  } else {
    const lines: string[] = [];
    let last: string | undefined;
    for (const c of sorted) {
      if (c.managerId !== last) {
        lines.push(`conflicts with ${printManager(c.owner)}:`);
        last = c.managerId;
      }
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join("\n")}`;
  }
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: "Conflict",
    details: { causes },
    code: 409,
  });
}
