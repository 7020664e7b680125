// Schema fixtures the custom-resource schema tests (pruning, defaulting, validation) and the CEL validation tests
// share: a custom resource whose `spec` is an object of given properties, optionally with CEL rules on it.
import type { StructuralSchema } from "./custom-resource-schema.js";

/** A CEL rule entry of `x-kubernetes-validations` (rule, message, messageExpression, fieldPath, reason). */
export type ValidationRule = Readonly<Record<string, unknown>>;

/** A schema node with CEL rules (`x-kubernetes-validations` is not among {@link StructuralSchema}'s typed keys). */
export function withValidations(node: StructuralSchema, rules: readonly ValidationRule[]): StructuralSchema {
  return { ...node, "x-kubernetes-validations": rules } as StructuralSchema;
}

/** `{type: object, properties: {spec: {type: object, properties, …extra}}}`: a custom resource with a typed spec. */
export function specSchema(
  properties: Record<string, StructuralSchema>,
  extra: Partial<StructuralSchema> = {},
): StructuralSchema {
  return { type: "object", properties: { spec: { type: "object", properties, ...extra } } };
}

/** {@link specSchema} with `rules` on the spec object (`self` is the spec). */
export function specWithRules(
  rules: readonly ValidationRule[],
  properties: Record<string, StructuralSchema>,
): StructuralSchema {
  return { type: "object", properties: { spec: withValidations({ type: "object", properties }, rules) } };
}
