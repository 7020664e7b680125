import type { KubeObject } from "@informer-ts/apimachinery";
import { listAt, objectAt } from "../validation/common.js";

/**
 * `SetDefaults_MatchResources` and `SetDefaults_NamedRuleWithOperations` (pkg/apis/admissionregistration/v1
 * defaults.go): `matchPolicy: Equivalent`, empty namespace and object selectors, each rule's `scope: "*"`.
 */
function defaultMatchResources(m: Record<string, unknown>): void {
  m.matchPolicy ??= "Equivalent";
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const list of [m.resourceRules, m.excludeResourceRules])
    for (const r of listAt(list)) {
      const rule = objectAt(r);
      if (rule !== undefined) rule.scope ??= "*";
    }
}

/** `SetDefaults_ValidatingAdmissionPolicySpec`: `failurePolicy: Fail`, and the match constraints' defaults. */
export function defaultValidatingAdmissionPolicy(obj: KubeObject): void {
  const spec = objectAt(obj.spec);
  if (spec === undefined) return;
  spec.failurePolicy ??= "Fail";
  const mc = objectAt(spec.matchConstraints);
  if (mc !== undefined) defaultMatchResources(mc);
}

/** A binding's `matchResources`, when given, gets the same defaults. */
export function defaultValidatingAdmissionPolicyBinding(obj: KubeObject): void {
  const mr = objectAt(objectAt(obj.spec)?.matchResources);
  if (mr !== undefined) defaultMatchResources(mr);
}
