// matching/matching_test.go's TestMatcher (the cases the simulator's resources can express) and the namespace and
// object selector predicates (webhook/predicates/namespace, object) the matcher uses.
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES, type SimResource } from "../../resources.js";
import { type MatchingContext, type MatchResources, matchesResources } from "./policy-matching.js";
import type { PolicyRequest } from "./policy-request.js";

const APPS_V1 = BUILTIN_RESOURCES.find((r) => r.group === "apps" && r.resource === "deployments")!;
// Equivalent versions of the same resource, as the mapper of the upstream test registers them.
const APPS_V1BETA1: SimResource = { ...APPS_V1, version: "v1beta1" };
const NAMESPACES = BUILTIN_RESOURCES.find((r) => r.group === "" && r.resource === "namespaces")!;
const NODES = BUILTIN_RESOURCES.find((r) => r.group === "" && r.resource === "nodes")!;

const ctx: MatchingContext = {
  namespaceLabels: (name) => (name === "ns" ? { env: "prod" } : name === "other" ? { env: "dev" } : undefined),
  equivalents: (r) => (r.resource === "deployments" ? [APPS_V1, APPS_V1BETA1] : [r]),
};

function request(over: Partial<PolicyRequest> = {}): PolicyRequest {
  return {
    resource: APPS_V1,
    operation: "CREATE",
    subresource: "",
    namespace: "ns",
    name: "name",
    object: { metadata: { name: "name", labels: { app: "web" } } },
    oldObject: undefined,
    dryRun: false,
    ...over,
  };
}

const rule = (groups: string[], versions: string[], resources: string[], extra: Record<string, unknown> = {}) => ({
  operations: ["*"],
  apiGroups: groups,
  apiVersions: versions,
  resources,
  scope: "*",
  ...extra,
});

interface Case {
  readonly name: string;
  readonly criteria: MatchResources;
  readonly req?: Partial<PolicyRequest>;
  readonly matches: boolean;
  readonly version?: string;
}

const CASES: readonly Case[] = [
  {
    name: "wildcard rule, match as requested",
    criteria: { resourceRules: [rule(["*"], ["*"], ["*"])] },
    matches: true,
    version: "v1",
  },
  {
    name: "specific rules, prefer exact match",
    criteria: {
      resourceRules: [rule(["apps"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1"], ["deployments"])],
    },
    matches: true,
    version: "v1",
  },
  {
    name: "specific rules, match miss",
    criteria: { resourceRules: [rule(["extensions"], ["v1beta1"], ["deployments"])] },
    matches: false,
  },
  {
    name: "specific rules, exact match miss",
    criteria: { matchPolicy: "Exact", resourceRules: [rule(["apps"], ["v1beta1"], ["deployments"])] },
    matches: false,
  },
  {
    name: "specific rules, equivalent match, prefer apps",
    criteria: { matchPolicy: "Equivalent", resourceRules: [rule(["apps"], ["v1beta1"], ["deployments"])] },
    matches: true,
    version: "v1beta1",
  },
  {
    name: "specific rules, subresource prefer exact match",
    criteria: { resourceRules: [rule(["apps"], ["v1"], ["deployments", "deployments/scale"])] },
    req: { subresource: "scale" },
    matches: true,
    version: "v1",
  },
  {
    name: "specific rules, subresource match miss",
    criteria: { resourceRules: [rule(["apps"], ["v1"], ["deployments"])] },
    req: { subresource: "scale" },
    matches: false,
  },
  {
    name: "specific rules, subresource wildcards",
    criteria: { resourceRules: [rule(["apps"], ["v1"], ["*/scale"])] },
    req: { subresource: "scale" },
    matches: true,
  },
  {
    name: "exclude resource match on miss",
    criteria: {
      resourceRules: [rule(["*"], ["*"], ["*"])],
      excludeResourceRules: [rule(["apps"], ["v1"], ["deployments"])],
    },
    matches: false,
  },
  {
    name: "exclude resource match on equivalent match",
    criteria: {
      resourceRules: [rule(["*"], ["*"], ["*"])],
      excludeResourceRules: [rule(["apps"], ["v1beta1"], ["deployments"])],
    },
    matches: false,
  },
  {
    name: "resourceNames: the request's name must be listed",
    criteria: { resourceRules: [rule(["apps"], ["v1"], ["deployments"], { resourceNames: ["other"] })] },
    matches: false,
  },
  {
    name: "resourceNames: a listed name matches",
    criteria: { resourceRules: [rule(["apps"], ["v1"], ["deployments"], { resourceNames: ["name"] })] },
    matches: true,
  },
  {
    name: "operations: a rule for UPDATE does not match a CREATE",
    criteria: { resourceRules: [rule(["apps"], ["v1"], ["deployments"], { operations: ["UPDATE"] })] },
    matches: false,
  },
  {
    name: "scope Cluster does not match a namespaced request",
    criteria: { resourceRules: [rule(["*"], ["*"], ["*"], { scope: "Cluster" })] },
    matches: false,
  },
  {
    name: "scope Cluster matches a cluster-scoped request",
    criteria: { resourceRules: [rule(["*"], ["*"], ["*"], { scope: "Cluster" })] },
    req: { resource: NODES, namespace: "" },
    matches: true,
  },
  {
    name: "namespace selector: the namespace's labels",
    criteria: { namespaceSelector: { matchLabels: { env: "prod" } }, resourceRules: [rule(["*"], ["*"], ["*"])] },
    matches: true,
  },
  {
    name: "namespace selector: another namespace",
    criteria: { namespaceSelector: { matchLabels: { env: "prod" } }, resourceRules: [rule(["*"], ["*"], ["*"])] },
    req: { namespace: "other" },
    matches: false,
  },
  {
    name: "namespace selector: a cluster-scoped request always matches",
    criteria: { namespaceSelector: { matchLabels: { env: "prod" } }, resourceRules: [rule(["*"], ["*"], ["*"])] },
    req: { resource: NODES, namespace: "" },
    matches: true,
  },
  {
    name: "namespace selector: a namespace is matched by its own labels",
    criteria: { namespaceSelector: { matchLabels: { env: "prod" } }, resourceRules: [rule(["*"], ["*"], ["*"])] },
    req: { resource: NAMESPACES, namespace: "", object: { metadata: { name: "x", labels: { env: "prod" } } } },
    matches: true,
  },
  {
    name: "object selector: the new or the old object's labels",
    criteria: { objectSelector: { matchLabels: { app: "db" } }, resourceRules: [rule(["*"], ["*"], ["*"])] },
    req: { operation: "UPDATE", oldObject: { metadata: { labels: { app: "db" } } } },
    matches: true,
  },
  {
    name: "object selector: neither",
    criteria: {
      objectSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["db"] }] },
      resourceRules: [rule(["*"], ["*"], ["*"])],
    },
    matches: false,
  },
  {
    name: "no rules (a binding's matchResources): matches what the selectors allow",
    criteria: { namespaceSelector: {} },
    matches: true,
  },
];

describe("TestMatcher", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const m = matchesResources(c.criteria, request(c.req), ctx);
      expect(m.matches).toBe(c.matches);
      if (c.version !== undefined) expect(m.resource?.version).toBe(c.version);
    });
  }

  it("an invalid selector throws (a configuration error of the binding)", () => {
    expect(() =>
      matchesResources({ objectSelector: { matchExpressions: [{ key: "a", operator: "Bogus" }] } }, request(), ctx),
    ).toThrow(/not a valid label selector operator/);
  });
});
