import type { FieldError, KubeObject } from "@informer-ts/apimachinery";

type Condition = { type?: unknown };

function conditionsOf(obj: KubeObject): Condition[] {
  const c = (obj.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
}

/** The condition types only `/approval` may add (`CertificateApproved`, `CertificateDenied`). */
const APPROVAL_TYPES = ["Approved", "Denied"] as const;

/** The condition types no update may remove (`CertificateApproved`, `CertificateDenied`, `CertificateFailed`). */
const KEPT_TYPES = ["Approved", "Denied", "Failed"] as const;

/**
 * The condition rules of `validateCertificateSigningRequestUpdate` (pkg/apis/certificates/validation): no update
 * removes an Approved, Denied or Failed condition (`updates may not remove a condition of type "Approved"`), and a
 * `/status` write (`allowSettingApprovalConditions` false) adds none of Approved or Denied (`updates may not add a
 * condition of type "Approved"`) — approval goes through `/approval`. The field errors of the registry's 422.
 */
export function validateCsrConditionsUpdate(obj: KubeObject, old: KubeObject, subresource: string): FieldError[] {
  const errs: FieldError[] = [];
  const count = (o: KubeObject, type: string) => conditionsOf(o).filter((c) => c.type === type).length;
  for (const type of KEPT_TYPES) {
    if (count(obj, type) < count(old, type))
      errs.push({
        type: "FieldValueForbidden",
        field: "status.conditions",
        detail: `updates may not remove a condition of type ${JSON.stringify(type)}`,
      });
  }
  if (subresource !== "approval") {
    for (const type of APPROVAL_TYPES) {
      if (count(obj, type) > count(old, type))
        errs.push({
          type: "FieldValueForbidden",
          field: "status.conditions",
          detail: `updates may not add a condition of type ${JSON.stringify(type)}`,
        });
    }
  }
  return errs;
}
