import type { KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import type { AuthzAttributes, AuthzRule, AuthzUser } from "./authorizer.js";
import { forbiddenMessage } from "./authorizer.js";
import { appliesToUser, RbacAuthorizer, type RbacKind, type RbacObjects } from "./rbac-authorizer.js";
import { ruleAllows } from "./rbac-rules.js";

const RBAC = "rbac.authorization.k8s.io";

function objects(items: readonly KubeObject[]): RbacObjects {
  return {
    list: (kind: RbacKind, namespace: string) =>
      items.filter((o) => o.kind === kind && (namespace === "" || o.metadata?.namespace === namespace)),
  };
}

function role(kind: "Role" | "ClusterRole", name: string, rules: AuthzRule[], namespace?: string): KubeObject {
  return {
    kind,
    apiVersion: `${RBAC}/v1`,
    metadata: { name, ...(namespace !== undefined && { namespace }) },
    rules,
  } as KubeObject;
}

function binding(
  kind: "RoleBinding" | "ClusterRoleBinding",
  name: string,
  roleRef: { kind: string; name: string },
  subjects: { kind: string; name: string; namespace?: string }[],
  namespace?: string,
): KubeObject {
  return {
    kind,
    apiVersion: `${RBAC}/v1`,
    metadata: { name, ...(namespace !== undefined && { namespace }) },
    roleRef: { apiGroup: RBAC, ...roleRef },
    subjects,
  } as unknown as KubeObject;
}

const user = (username: string, ...groups: string[]): AuthzUser => ({ username, groups });

function res(
  u: AuthzUser,
  verb: string,
  apiGroup: string,
  resource: string,
  namespace = "",
  name = "",
  subresource = "",
): AuthzAttributes {
  return { user: u, resourceRequest: true, verb, apiGroup, resource, subresource, namespace, name };
}

function nonRes(u: AuthzUser, verb: string, path: string): AuthzAttributes {
  return { user: u, resourceRequest: false, verb, path };
}

// rbac_test.go TestAuthorizer: roles, bindings, and the requests that must pass or fail.
describe("TestAuthorizer", () => {
  const store = objects([
    role("ClusterRole", "admin", [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]),
    role("Role", "pod-reader", [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }], "ns1"),
    role("ClusterRole", "non-resource", [{ verbs: ["get"], nonResourceURLs: ["/apis/*", "/foo"] }]),
    role("ClusterRole", "scaler", [{ verbs: ["update"], apiGroups: ["*"], resources: ["*/scale"] }]),
    role("ClusterRole", "one-secret", [
      { verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["mine"] },
    ]),
    binding("ClusterRoleBinding", "admins", { kind: "ClusterRole", name: "admin" }, [
      { kind: "Group", name: "admins" },
    ]),
    binding("RoleBinding", "readers", { kind: "Role", name: "pod-reader" }, [{ kind: "User", name: "alice" }], "ns1"),
    binding("ClusterRoleBinding", "nr", { kind: "ClusterRole", name: "non-resource" }, [{ kind: "User", name: "bob" }]),
    binding(
      "RoleBinding",
      "scale",
      { kind: "ClusterRole", name: "scaler" },
      [{ kind: "ServiceAccount", name: "hpa" }],
      "ns2",
    ),
    binding(
      "RoleBinding",
      "secret",
      { kind: "ClusterRole", name: "one-secret" },
      [{ kind: "User", name: "carol" }],
      "ns1",
    ),
  ]);
  const authz = new RbacAuthorizer(store);
  const alice = user("alice", "system:authenticated");
  const bob = user("bob", "system:authenticated");
  const carol = user("carol", "system:authenticated");
  const hpa = user("system:serviceaccount:ns2:hpa", "system:serviceaccounts", "system:serviceaccounts:ns2");
  const root = user("admin-user", "admins");
  const cases: [string, AuthzAttributes, boolean][] = [
    ["group admins may do anything anywhere", res(root, "delete", "apps", "deployments", "x", "d"), true],
    ["a RoleBinding grants its Role in its namespace", res(alice, "list", "", "pods", "ns1"), true],
    ["... not in another namespace", res(alice, "list", "", "pods", "ns2"), false],
    ["... not at the cluster scope", res(alice, "list", "", "pods"), false],
    ["... not another verb", res(alice, "delete", "", "pods", "ns1", "p"), false],
    ["... not another group", res(alice, "list", "apps", "pods", "ns1"), false],
    ["... not a subresource", res(alice, "get", "", "pods", "ns1", "p", "log"), false],
    ["nonResourceURLs with a * suffix", nonRes(bob, "get", "/apis/apps/v1"), true],
    ["nonResourceURLs exact", nonRes(bob, "get", "/foo"), true],
    ["nonResourceURLs: not a longer path without *", nonRes(bob, "get", "/foo/bar"), false],
    ["nonResourceURLs: not another verb", nonRes(bob, "post", "/foo"), false],
    ["*/scale allows any resource's scale", res(hpa, "update", "apps", "deployments", "ns2", "d", "scale"), true],
    ["*/scale does not allow the resource", res(hpa, "update", "apps", "deployments", "ns2", "d"), false],
    [
      "a ServiceAccount subject without namespace is the binding's",
      res(hpa, "update", "", "x", "ns1", "", "scale"),
      false,
    ],
    ["resourceNames allow the named object", res(carol, "get", "", "secrets", "ns1", "mine"), true],
    ["resourceNames deny another name", res(carol, "get", "", "secrets", "ns1", "other"), false],
    ["resourceNames deny a list", res(carol, "list", "", "secrets", "ns1"), false],
    ["the bootstrap cluster-admin binds system:masters", res(user("x", "system:masters"), "*", "g", "r"), true],
    ["system:discovery for authenticated users", nonRes(alice, "get", "/apis"), true],
    [
      "system:discovery is not for the unauthenticated",
      nonRes(user("system:anonymous", "system:unauthenticated"), "get", "/apis"),
      false,
    ],
    [
      "system:public-info-viewer for everyone",
      nonRes(user("system:anonymous", "system:unauthenticated"), "get", "/version"),
      true,
    ],
    [
      "system:basic-user: selfsubjectaccessreviews",
      res(alice, "create", "authorization.k8s.io", "selfsubjectaccessreviews"),
      true,
    ],
    ["nobody else", res(user("eve", "system:authenticated"), "get", "", "pods", "ns1", "p"), false],
  ];
  for (const [name, attrs, allowed] of cases) {
    it(name, () => {
      expect(authz.authorize(attrs).decision).toBe(allowed ? "allow" : "no-opinion");
    });
  }

  it("names the binding that allowed the request", () => {
    expect(authz.authorize(res(alice, "get", "", "pods", "ns1", "p")).reason).toBe(
      'RBAC: allowed by RoleBinding "readers/ns1" of Role "pod-reader" to User "alice"',
    );
    expect(authz.authorize(res(root, "get", "", "pods")).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "admins" of ClusterRole "admin" to Group "admins"',
    );
    expect(authz.authorize(res(hpa, "update", "apps", "deployments", "ns2", "d", "scale")).reason).toBe(
      'RBAC: allowed by RoleBinding "scale/ns2" of ClusterRole "scaler" to ServiceAccount "hpa/ns2"',
    );
  });

  it("rulesFor lists the rules that apply in a namespace", () => {
    const { rules, incomplete } = authz.rulesFor(alice, "ns1");
    expect(incomplete).toBe(false);
    expect(rules).toContainEqual({ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] });
    expect(authz.rulesFor(alice, "ns2").rules).not.toContainEqual({
      verbs: ["get", "list", "watch"],
      apiGroups: [""],
      resources: ["pods"],
    });
  });
});

// The clusterrole-aggregation controller's result, computed on read.
describe("aggregated ClusterRoles", () => {
  it("an aggregationRule collects the rules of the ClusterRoles its selectors match", () => {
    const agg = {
      ...role("ClusterRole", "monitoring", []),
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { "rbac.example.com/aggregate-to-monitoring": "true" } }],
      },
    } as KubeObject;
    const part = role("ClusterRole", "monitoring-endpoints", [
      { verbs: ["get"], apiGroups: [""], resources: ["endpoints"] },
    ]);
    (part.metadata as { labels?: Record<string, string> }).labels = {
      "rbac.example.com/aggregate-to-monitoring": "true",
    };
    const authz = new RbacAuthorizer(
      objects([
        agg,
        part,
        binding("ClusterRoleBinding", "m", { kind: "ClusterRole", name: "monitoring" }, [{ kind: "User", name: "m" }]),
      ]),
    );
    expect(authz.authorize(res(user("m"), "get", "", "endpoints", "ns", "e")).decision).toBe("allow");
    expect(authz.authorize(res(user("m"), "list", "", "endpoints", "ns")).decision).toBe("no-opinion");
  });
});

// rule_test.go TestAppliesTo.
describe("TestAppliesTo", () => {
  const cases: [string, { kind: string; name: string; namespace?: string }, AuthzUser, string, boolean][] = [
    ["simple user", { kind: "User", name: "foobar" }, user("foobar"), "", true],
    ["simple user, no match", { kind: "User", name: "foobar" }, user("baz"), "", false],
    ["simple group", { kind: "Group", name: "group" }, user("baz", "other", "group"), "", true],
    ["simple group, no match", { kind: "Group", name: "group" }, user("baz", "other"), "", false],
    [
      "sa in its namespace",
      { kind: "ServiceAccount", name: "default", namespace: "kube-system" },
      user("system:serviceaccount:kube-system:default"),
      "",
      true,
    ],
    [
      "sa, binding namespace",
      { kind: "ServiceAccount", name: "default" },
      user("system:serviceaccount:ns:default"),
      "ns",
      true,
    ],
    [
      "sa, no namespace anywhere",
      { kind: "ServiceAccount", name: "default" },
      user("system:serviceaccount::default"),
      "",
      false,
    ],
    [
      "sa, other namespace",
      { kind: "ServiceAccount", name: "default", namespace: "a" },
      user("system:serviceaccount:b:default"),
      "a",
      false,
    ],
    ["unknown kind", { kind: "Robot", name: "foobar" }, user("foobar"), "", false],
  ];
  for (const [name, subject, u, ns, want] of cases) {
    it(name, () => expect(appliesToUser(u, subject, ns)).toBe(want));
  }
});

// rbac_test.go TestRuleMatches.
describe("TestRuleMatches", () => {
  const u = user("u");
  const cases: [string, AuthzRule, AuthzAttributes, boolean][] = [
    [
      "star verb, exact match other",
      { verbs: ["*"], apiGroups: ["g"], resources: ["r"] },
      res(u, "get", "g", "r"),
      true,
    ],
    ["star group", { verbs: ["get"], apiGroups: ["*"], resources: ["r"] }, res(u, "get", "x", "r"), true],
    ["star resource", { verbs: ["get"], apiGroups: ["g"], resources: ["*"] }, res(u, "get", "g", "any"), true],
    [
      "star resource matches a subresource",
      { verbs: ["get"], apiGroups: ["g"], resources: ["*"] },
      res(u, "get", "g", "r", "", "", "status"),
      true,
    ],
    [
      "resource/subresource exact",
      { verbs: ["get"], apiGroups: ["g"], resources: ["r/status"] },
      res(u, "get", "g", "r", "", "", "status"),
      true,
    ],
    [
      "resource does not match its subresource",
      { verbs: ["get"], apiGroups: ["g"], resources: ["r"] },
      res(u, "get", "g", "r", "", "", "status"),
      false,
    ],
    [
      "*/subresource",
      { verbs: ["get"], apiGroups: ["g"], resources: ["*/status"] },
      res(u, "get", "g", "x", "", "", "status"),
      true,
    ],
    [
      "*/subresource, other subresource",
      { verbs: ["get"], apiGroups: ["g"], resources: ["*/status"] },
      res(u, "get", "g", "x", "", "", "scale"),
      false,
    ],
    ["no apiGroups matches nothing", { verbs: ["get"], resources: ["r"] }, res(u, "get", "", "r"), false],
    [
      "a resource rule does not match a path",
      { verbs: ["get"], apiGroups: ["*"], resources: ["*"] },
      nonRes(u, "get", "/api"),
      false,
    ],
    ["non-resource star", { verbs: ["get"], nonResourceURLs: ["*"] }, nonRes(u, "get", "/anything"), true],
    ["non-resource prefix", { verbs: ["get"], nonResourceURLs: ["/api/*"] }, nonRes(u, "get", "/api/v1"), true],
    [
      "non-resource prefix without the slash",
      { verbs: ["get"], nonResourceURLs: ["/api/*"] },
      nonRes(u, "get", "/api"),
      false,
    ],
    [
      "a path rule does not match a resource",
      { verbs: ["get"], nonResourceURLs: ["*"] },
      res(u, "get", "", "pods"),
      false,
    ],
  ];
  for (const [name, rule, attrs, want] of cases) {
    it(name, () => expect(ruleAllows(attrs, rule)).toBe(want));
  }
});

// responsewriters/errors_test.go TestForbidden: the 403 message forms.
describe("TestForbidden", () => {
  const alice = user("alice");
  it.each([
    [
      res(alice, "list", "", "configmaps", "ns"),
      'User "alice" cannot list resource "configmaps" in API group "" in the namespace "ns"',
    ],
    [
      res(alice, "get", "apps", "deployments", "", "d", "scale"),
      'User "alice" cannot get resource "deployments/scale" in API group "apps" at the cluster scope',
    ],
    [nonRes(alice, "get", "/apis"), 'User "alice" cannot get path "/apis"'],
  ])("%#", (attrs, msg) => expect(forbiddenMessage(attrs, "")).toBe(msg));
  it("appends the reason", () =>
    expect(forbiddenMessage(nonRes(alice, "get", "/x"), "because")).toBe('User "alice" cannot get path "/x": because'));
});
