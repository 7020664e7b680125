// webhook/predicates/rules/rules_test.go's tables (TestGroup, TestVersion, TestOperation, TestResource,
// TestScope) against the rule matcher the webhooks use (`policy/policy-matching.ts`'s ruleMatches).
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES, type SimResource } from "../../resources.js";
import { type NamedRule, ruleMatches } from "../policy/policy-matching.js";
import type { PolicyOperation, PolicyRequest } from "../policy/policy-request.js";

const find = (group: string, resource: string): SimResource =>
  BUILTIN_RESOURCES.find((r) => r.group === group && r.resource === resource)!;
const PODS = find("", "pods");
const NODES = find("", "nodes");
const DEPLOYMENTS = find("apps", "deployments");

function attrs(
  r: SimResource,
  over: { operation?: PolicyOperation; subresource?: string; namespace?: string; version?: string } = {},
): PolicyRequest {
  return {
    resource: over.version === undefined ? r : { ...r, version: over.version },
    operation: over.operation ?? "CREATE",
    subresource: over.subresource ?? "",
    namespace: over.namespace ?? (r.namespaced ? "ns" : ""),
    name: "name",
    object: undefined,
    oldObject: undefined,
    dryRun: false,
  };
}

const all = (over: Partial<NamedRule>): NamedRule => ({
  operations: ["*"],
  apiGroups: ["*"],
  apiVersions: ["*"],
  resources: ["*/*"],
  scope: "*",
  ...over,
});

describe("rules.Matcher", () => {
  it.each([
    ["wildcard", ["*"], DEPLOYMENTS, true],
    ["exact", ["apps"], DEPLOYMENTS, true],
    ["core group", [""], PODS, true],
    ["core group misses apps", [""], DEPLOYMENTS, false],
    ["other group", ["batch", "policy"], DEPLOYMENTS, false],
    ["one of several", ["batch", "apps"], DEPLOYMENTS, true],
  ] as const)("group: %s", (_name, apiGroups, r, want) => {
    expect(ruleMatches(all({ apiGroups: [...apiGroups] }), attrs(r))).toBe(want);
  });

  it.each([
    ["wildcard", ["*"], "v1", true],
    ["exact", ["v1"], "v1", true],
    ["other", ["v1beta1", "v2"], "v1", false],
    ["one of several", ["v2", "v1beta1"], "v1beta1", true],
  ] as const)("version: %s", (_name, apiVersions, version, want) => {
    expect(ruleMatches(all({ apiVersions: [...apiVersions] }), attrs(PODS, { version }))).toBe(want);
  });

  it.each([
    ["wildcard", ["*"], "DELETE", true],
    ["exact", ["CREATE"], "CREATE", true],
    ["other", ["CREATE", "UPDATE"], "DELETE", false],
    ["connect", ["CONNECT"], "CONNECT", true],
    ["none listed", [], "CREATE", false],
  ] as const)("operation: %s", (_name, operations, operation, want) => {
    expect(ruleMatches(all({ operations: [...operations] }), attrs(PODS, { operation }))).toBe(want);
  });

  it.each([
    ["star: the resource", ["*"], "", true],
    ["star: not a subresource", ["*"], "status", false],
    ["star slash star: the resource", ["*/*"], "", true],
    ["star slash star: any subresource", ["*/*"], "status", true],
    ["named resource", ["pods"], "", true],
    ["named resource: not its subresource", ["pods"], "status", false],
    ["named subresource", ["pods/status"], "status", true],
    ["named subresource: not the resource", ["pods/status"], "", false],
    ["named subresource: not another", ["pods/status"], "log", false],
    ["star slash subresource", ["*/status"], "status", true],
    ["star slash subresource: not another", ["*/status"], "exec", false],
    ["resource slash star", ["pods/*"], "attach", true],
    // `splitResource` + `sub == "*"`: a star subresource also matches the resource itself.
    ["resource slash star: the resource too", ["pods/*"], "", true],
    ["another resource", ["services", "configmaps"], "", false],
    ["another resource's subresource", ["services/status"], "status", false],
  ] as const)("resource: %s", (_name, resources, subresource, want) => {
    expect(ruleMatches(all({ resources: [...resources] }), attrs(PODS, { subresource }))).toBe(want);
  });

  it.each([
    ["cluster scope, cluster resource", "Cluster", NODES, "", true],
    ["cluster scope, namespaced resource", "Cluster", PODS, "ns", false],
    ["namespaced scope, namespaced resource", "Namespaced", PODS, "ns", true],
    ["namespaced scope, cluster resource", "Namespaced", NODES, "", false],
    ["all scopes, cluster resource", "*", NODES, "", true],
    ["all scopes, namespaced resource", "*", PODS, "ns", true],
    // A namespace itself is cluster-scoped (its request has no namespace).
    ["cluster scope, a namespace", "Cluster", find("", "namespaces"), "", true],
  ] as const)("scope: %s", (_name, scope, r, namespace, want) => {
    expect(ruleMatches(all({ scope }), attrs(r, { namespace }))).toBe(want);
  });
});
