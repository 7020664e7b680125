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

/**
 * `SetDefaults_ValidatingWebhook` / `SetDefaults_MutatingWebhook` and `SetDefaults_ServiceReference` for each webhook
 * of a configuration: `failurePolicy: Fail`, `matchPolicy: Equivalent`, empty selectors, `timeoutSeconds: 10`, each
 * rule's `scope: "*"`, a service's `port: 443`; mutating ones `reinvocationPolicy: Never`.
 */
function defaultWebhooks(obj: KubeObject, mutating: boolean): void {
  for (const raw of listAt((obj as { webhooks?: unknown }).webhooks)) {
    const w = objectAt(raw);
    if (w === undefined) continue;
    w.failurePolicy ??= "Fail";
    w.matchPolicy ??= "Equivalent";
    w.namespaceSelector ??= {};
    w.objectSelector ??= {};
    w.timeoutSeconds ??= 10;
    if (mutating) w.reinvocationPolicy ??= "Never";
    for (const r of listAt(w.rules)) {
      const rule = objectAt(r);
      if (rule !== undefined) rule.scope ??= "*";
    }
    const svc = objectAt(objectAt(w.clientConfig)?.service);
    if (svc !== undefined) svc.port ??= 443;
  }
}

/** The defaults of a ValidatingWebhookConfiguration's webhooks. */
export function defaultValidatingWebhookConfiguration(obj: KubeObject): void {
  defaultWebhooks(obj, false);
}

/** The defaults of a MutatingWebhookConfiguration's webhooks. */
export function defaultMutatingWebhookConfiguration(obj: KubeObject): void {
  defaultWebhooks(obj, true);
}
