import type { KubeObject } from "@informer-ts/apimachinery";
import type { SimResource } from "../../resources.js";

/** An admission operation as `admission.Attributes.GetOperation()` names it. */
export type PolicyOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** What a ValidatingAdmissionPolicy sees of one write (apiserver's `admission.Attributes`). */
export interface PolicyRequest {
  /** The resource written, as requested (its version is `request.requestResource`'s). */
  readonly resource: SimResource;
  /** `CREATE`, `UPDATE` or `DELETE` (the registry's writes). */
  readonly operation: PolicyOperation;
  /** `""`, `"status"`, … */
  readonly subresource: string;
  /** `""` for cluster-scoped resources. */
  readonly namespace: string;
  /** The object's name (`""` on a create with `generateName` before the name is drawn). */
  readonly name: string;
  /** The object being written (`undefined` on DELETE). */
  readonly object: KubeObject | undefined;
  /** The stored object of an UPDATE or DELETE. */
  readonly oldObject: KubeObject | undefined;
  /** `dryRun=All`: the write is admitted (or denied) alike and then not stored. */
  readonly dryRun: boolean;
  /** Where `Warn` actions' warnings go (the HTTP face sends them as `Warning: 299` headers). */
  readonly warnings?: string[];
}

/** `admission.Attributes.GetKind()` of a resource: its group, version and kind. */
export function kindOf(r: SimResource): { group: string; version: string; kind: string } {
  return { group: r.group, version: r.version, kind: r.kind };
}
