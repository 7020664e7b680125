import { labelSelectorAsSelector, type MetaV1LabelSelector } from "@informer-ts/apimachinery";
import type { SimResource } from "../../resources.js";
import type { PolicyRequest } from "./policy-request.js";

/** One `NamedRuleWithOperations` of `matchConstraints`/`matchResources`. */
export interface NamedRule {
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly scope?: string;
  readonly resourceNames?: readonly string[];
}

/** `admissionregistration.k8s.io/v1` `MatchResources`. */
export interface MatchResources {
  readonly namespaceSelector?: MetaV1LabelSelector;
  readonly objectSelector?: MetaV1LabelSelector;
  readonly resourceRules?: readonly NamedRule[];
  readonly excludeResourceRules?: readonly NamedRule[];
  readonly matchPolicy?: string;
}

/** How the matcher reads the cluster: a namespace's labels, and the resources equivalent to one. */
export interface MatchingContext {
  /** The labels of namespace `name`, `undefined` when it does not exist. */
  namespaceLabels(name: string): Readonly<Record<string, string>> | undefined;
  /** The served resources of the same group and resource in other versions (`EquivalentResourcesFor`). */
  equivalents(r: SimResource): readonly SimResource[];
}

/** The outcome of matching: whether it applies, and the resource (version) it matched as. */
export interface MatchResult {
  readonly matches: boolean;
  readonly resource?: SimResource;
}

const NO_MATCH: MatchResult = { matches: false };

function has(list: readonly string[] | undefined, value: string): boolean {
  return list !== undefined && (list.includes("*") || list.includes(value));
}

/** `rules.Matcher.resource`: all (star), all with subresources (star slash star), `res`, `res/sub`, star slash `sub`, `res` slash star. */
function resourceMatches(resources: readonly string[] | undefined, resource: string, sub: string): boolean {
  for (const spec of resources ?? []) {
    const [res, subres = ""] = spec.split("/", 2) as [string, string?];
    if (res !== "*" && res !== resource) continue;
    if (spec.includes("/") ? subres === "*" || subres === sub : sub === "") return true;
  }
  return false;
}

/**
 * `webhook/predicates/rules.Matcher.Matches`: the operation (`*` for all), group, version, resource (with its
 * subresource) and scope (`*` by default, `Cluster`, `Namespaced`) of the request against one rule.
 */
export function ruleMatches(rule: NamedRule, req: PolicyRequest, r: SimResource = req.resource): boolean {
  const scope = rule.scope ?? "*";
  const scoped = scope === "*" || (scope === "Cluster" ? req.namespace === "" : req.namespace !== "");
  return (
    scoped &&
    has(rule.operations, req.operation) &&
    has(rule.apiGroups, r.group) &&
    has(rule.apiVersions, r.version) &&
    resourceMatches(rule.resources, r.resource, req.subresource)
  );
}

function named(rule: NamedRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `matching.matchesResourceRules`: exact first, then (matchPolicy `Equivalent`) the equivalent resources. */
function matchesRules(
  rules: readonly NamedRule[],
  policy: string | undefined,
  req: PolicyRequest,
  ctx: MatchingContext,
): MatchResult {
  for (const rule of rules)
    if (ruleMatches(rule, req) && named(rule, req.name)) return { matches: true, resource: req.resource };
  // The API defaults matchPolicy to Equivalent; only Exact turns the fuzzy step off.
  if (policy === "Exact") return NO_MATCH;
  const equivalents = ctx.equivalents(req.resource);
  for (const rule of rules)
    for (const eq of equivalents)
      if (eq !== req.resource && ruleMatches(rule, req, eq) && named(rule, req.name))
        return { matches: true, resource: eq };
  return NO_MATCH;
}

function labelsOf(obj: unknown): Record<string, string> {
  const l = (obj as { metadata?: { labels?: unknown } } | undefined)?.metadata?.labels;
  return typeof l === "object" && l !== null ? (l as Record<string, string>) : {};
}

/**
 * `namespace.Matcher.MatchNamespaceSelector`: cluster-scoped requests other than on namespaces match; a namespace
 * (object) is matched by its own labels, anything namespaced by its namespace's. A missing selector is `{}` (all).
 */
function namespaceMatches(sel: MetaV1LabelSelector | undefined, req: PolicyRequest, ctx: MatchingContext): boolean {
  if (sel === undefined) return true;
  const selector = labelSelectorAsSelector(sel);
  if (selector.empty()) return true;
  const isNamespace = req.resource.group === "" && req.resource.resource === "namespaces";
  if (req.namespace === "" && !isNamespace) return true;
  if (isNamespace) return selector.matches(labelsOf(req.object ?? req.oldObject));
  const labels = ctx.namespaceLabels(req.namespace);
  return selector.matches(labels ?? {});
}

/** `object.Matcher.MatchObjectSelector`: the new or the old object's labels match. */
function objectMatches(sel: MetaV1LabelSelector | undefined, req: PolicyRequest): boolean {
  if (sel === undefined) return true;
  const selector = labelSelectorAsSelector(sel);
  if (selector.empty()) return true;
  return (
    (req.object !== undefined && selector.matches(labelsOf(req.object))) ||
    (req.oldObject !== undefined && selector.matches(labelsOf(req.oldObject)))
  );
}

/**
 * `matching.Matcher.Matches` (apiserver/pkg/admission/plugin/policy/matching/matching.go): namespace selector, object
 * selector, `excludeResourceRules`, then `resourceRules` — where an empty list (a binding's `matchResources` without
 * rules) matches everything the policy matched. Throws the selector's parse error for an invalid selector.
 */
export function matchesResources(m: MatchResources | undefined, req: PolicyRequest, ctx: MatchingContext): MatchResult {
  if (m === undefined) return { matches: true, resource: req.resource };
  if (!namespaceMatches(m.namespaceSelector, req, ctx) || !objectMatches(m.objectSelector, req)) return NO_MATCH;
  if (matchesRules(m.excludeResourceRules ?? [], m.matchPolicy, req, ctx).matches) return NO_MATCH;
  const rules = m.resourceRules ?? [];
  if (rules.length === 0) return { matches: true, resource: req.resource };
  return matchesRules(rules, m.matchPolicy, req, ctx);
}
