import { type FieldError, isQualifiedName } from "@informer-ts/apimachinery";
import { listAt, objectAt, stringAt } from "./common.js";

/**
 * `ValidateNodeSelectorRequirement`: a qualified-name `key`, and `values` as the operator wants them — some for
 * `In`/`NotIn`, none for `Exists`/`DoesNotExist`, exactly one integer for `Gt`/`Lt`; another operator is
 * `Invalid value: "Foo": not a valid selector operator`.
 */
function validateRequirement(raw: unknown, path: string): FieldError[] {
  const r = objectAt(raw) ?? {};
  const errs: FieldError[] = [];
  const values = listAt(r.values);
  const op = stringAt(r.operator);
  switch (op) {
    case "In":
    case "NotIn":
      if (values.length === 0)
        errs.push({
          type: "FieldValueRequired",
          field: `${path}.values`,
          detail: "must be specified when `operator` is 'In' or 'NotIn'",
        });
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0)
        errs.push({
          type: "FieldValueForbidden",
          field: `${path}.values`,
          detail: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        });
      break;
    case "Gt":
    case "Lt":
      if (values.length !== 1)
        errs.push({
          type: "FieldValueRequired",
          field: `${path}.values`,
          detail: "must be specified single value when `operator` is 'Lt' or 'Gt'",
        });
      break;
    default:
      errs.push({
        type: "FieldValueInvalid",
        field: `${path}.operator`,
        badValue: op,
        detail: "not a valid selector operator",
      });
  }
  const key = stringAt(r.key);
  for (const detail of isQualifiedName(key))
    errs.push({ type: "FieldValueInvalid", field: `${path}.key`, badValue: key, detail });
  return errs;
}

/** A `NodeSelectorTerm`'s `matchExpressions` (`matchFields` take `metadata.name` only: not checked here). */
function validateTerm(raw: unknown, path: string): FieldError[] {
  const term = objectAt(raw) ?? {};
  return listAt(term.matchExpressions).flatMap((r, i) => validateRequirement(r, `${path}.matchExpressions[${i}]`));
}

function weight(raw: Record<string, unknown>, path: string): FieldError[] {
  const w = raw.weight;
  if (typeof w === "number" && w >= 1 && w <= 100) return [];
  return [
    {
      type: "FieldValueInvalid",
      field: `${path}.weight`,
      badValue: typeof w === "number" ? w : 0,
      detail: "must be in the range 1-100",
    },
  ];
}

/** A pod (anti-)affinity term: a `topologyKey` that is a qualified name (`Required value: can not be empty`). */
function validatePodAffinityTerm(raw: unknown, path: string): FieldError[] {
  const t = objectAt(raw) ?? {};
  const key = stringAt(t.topologyKey);
  if (key === "") return [{ type: "FieldValueRequired", field: `${path}.topologyKey`, detail: "can not be empty" }];
  return isQualifiedName(key).map((detail) => ({
    type: "FieldValueInvalid" as const,
    field: `${path}.topologyKey`,
    badValue: key,
    detail,
  }));
}

function validatePodAffinity(raw: unknown, path: string): FieldError[] {
  const a = objectAt(raw);
  if (a === undefined) return [];
  const req = `${path}.requiredDuringSchedulingIgnoredDuringExecution`;
  const pref = `${path}.preferredDuringSchedulingIgnoredDuringExecution`;
  return [
    ...listAt(a.requiredDuringSchedulingIgnoredDuringExecution).flatMap((t, i) =>
      validatePodAffinityTerm(t, `${req}[${i}]`),
    ),
    ...listAt(a.preferredDuringSchedulingIgnoredDuringExecution).flatMap((raw, i) => {
      const w = objectAt(raw) ?? {};
      return [
        ...weight(w, `${pref}[${i}]`),
        ...validatePodAffinityTerm(w.podAffinityTerm, `${pref}[${i}].podAffinityTerm`),
      ];
    }),
  ];
}

/**
 * `validateAffinity` (`pkg/apis/core/validation/validation.go`), the basics: node affinity's required terms (at least
 * one: `Required value: must have at least one node selector term`) and preferred terms (weight 1–100) with valid
 * match expressions; pod affinity and anti-affinity terms with a topology key, preferred ones weighted 1–100.
 * Differences: label selectors and namespaces of pod affinity terms are not validated.
 */
export function validateAffinity(value: unknown, path: string): FieldError[] {
  const affinity = objectAt(value);
  if (affinity === undefined) return [];
  const errs: FieldError[] = [];
  const node = objectAt(affinity.nodeAffinity);
  if (node !== undefined) {
    const np = `${path}.nodeAffinity`;
    const required = objectAt(node.requiredDuringSchedulingIgnoredDuringExecution);
    if (required !== undefined) {
      const rp = `${np}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      const terms = listAt(required.nodeSelectorTerms);
      if (terms.length === 0)
        errs.push({ type: "FieldValueRequired", field: rp, detail: "must have at least one node selector term" });
      terms.forEach((t, i) => {
        errs.push(...validateTerm(t, `${rp}[${i}]`));
      });
    }
    listAt(node.preferredDuringSchedulingIgnoredDuringExecution).forEach((raw, i) => {
      const p = `${np}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      const term = objectAt(raw) ?? {};
      errs.push(...weight(term, p), ...validateTerm(term.preference, `${p}.preference`));
    });
  }
  errs.push(...validatePodAffinity(affinity.podAffinity, `${path}.podAffinity`));
  errs.push(...validatePodAffinity(affinity.podAntiAffinity, `${path}.podAntiAffinity`));
  return errs;
}
