import type { AuthzAttributes, AuthzRule } from "./authorizer.js";

/**
 * RBAC's rule matching (`plugin/pkg/auth/authorizer/rbac/rbac.go` `RuleAllows` and
 * `pkg/apis/rbac/v1/evaluation_helpers.go` `VerbMatches`, `APIGroupMatches`, `ResourceMatches`,
 * `ResourceNameMatches`, `NonResourceURLMatches`).
 */

/** `VerbMatches`: the rule lists the verb or `*`. */
export function verbMatches(rule: AuthzRule, verb: string): boolean {
  return rule.verbs.some((v) => v === "*" || v === verb);
}

/** `APIGroupMatches`: the rule lists the group or `*`. */
export function apiGroupMatches(rule: AuthzRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === "*" || g === group);
}

/**
 * `ResourceMatches`: `*`, the combined `resource/subresource` itself, or `*\/subresource` for a request of that
 * subresource (`*\/scale` matches `deployments/scale`, not `deployments`).
 */
export function resourceMatches(rule: AuthzRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === "*" || r === combined) return true;
    if (subresource !== "" && r === `*/${subresource}`) return true;
  }
  return false;
}

/** `ResourceNameMatches`: an empty list matches every name; otherwise the name must be listed. */
export function resourceNameMatches(rule: AuthzRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `NonResourceURLMatches`: `*`, the path itself, or a `prefix*` the path starts with. */
export function nonResourceURLMatches(rule: AuthzRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === "*" || u === path) return true;
    if (u.endsWith("*") && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** `RuleAllows`: whether one PolicyRule allows the request. */
export function ruleAllows(attrs: AuthzAttributes, rule: AuthzRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.resourceRequest) return nonResourceURLMatches(rule, attrs.path);
  const combined = attrs.subresource === "" ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  return (
    apiGroupMatches(rule, attrs.apiGroup) &&
    resourceMatches(rule, combined, attrs.subresource) &&
    resourceNameMatches(rule, attrs.name)
  );
}
