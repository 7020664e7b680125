// The CertificateSigningRequest's two status write paths (pkg/registry/certificates/certificates/strategy.go):
// `/approval` (csrApprovalStrategy) changes the conditions only; `/status` (csrStatusStrategy) changes the rest of
// the status but keeps the Approved and Denied conditions as they were, and refuses (422) one that adds or removes
// them — approval and issuance stay separate.
import type { KubeObject } from "@informer-ts/apimachinery";

type Condition = { type?: unknown };

function conditionsOf(obj: KubeObject): Condition[] {
  const c = (obj.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
}

/** The condition types only `/approval` may add, remove or change (`CertificateApproved`, `CertificateDenied`). */
const APPROVAL_TYPES = new Set(["Approved", "Denied"]);

/**
 * `csrApprovalStrategy.PrepareForUpdate`: the stored spec and status, with the request's `status.conditions`
 * (metadata as the request has it). Mutates and returns `obj`.
 */
export function prepareForCsrApprovalUpdate(obj: KubeObject, old: KubeObject): KubeObject {
  const conditions = (obj.status as { conditions?: unknown } | undefined)?.conditions;
  if (old.spec === undefined) delete obj.spec;
  else obj.spec = old.spec;
  const status: Record<string, unknown> = { ...((old.status as Record<string, unknown> | undefined) ?? {}) };
  if (conditions === undefined) delete status.conditions;
  else status.conditions = conditions;
  if (Object.keys(status).length === 0) delete obj.status;
  else obj.status = status;
  return obj;
}

/**
 * `csrStatusStrategy.PrepareForUpdate`'s `preserveConditionInstances` for Approved and Denied: where the request
 * has as many conditions of the type as the stored object, each is replaced by the stored one, so a `/status` write
 * cannot change them; where the counts differ the request is left as it is, for
 * `validateCsrConditionsUpdate`'s 422 (admission/validation/certificates.ts). Mutates `obj`.
 */
export function preserveCsrApprovalConditions(obj: KubeObject, old: KubeObject): void {
  const oldConds = conditionsOf(old);
  const next = [...conditionsOf(obj)];
  let changed = false;
  for (const type of APPROVAL_TYPES) {
    const oldOnes = oldConds.filter((c) => c.type === type);
    const newIdx = next.flatMap((c, i) => (c.type === type ? [i] : []));
    if (oldOnes.length !== newIdx.length) continue;
    for (const [k, at] of newIdx.entries()) next[at] = oldOnes[k]!;
    changed ||= newIdx.length > 0;
  }
  if (!changed) return;
  obj.status = { ...((obj.status as Record<string, unknown> | undefined) ?? {}), conditions: next };
}
