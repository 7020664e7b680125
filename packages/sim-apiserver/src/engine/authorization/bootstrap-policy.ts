import type { KubeObject } from "@informer-ts/apimachinery";

/**
 * The part of kube-apiserver's bootstrap RBAC policy the simulator serves
 * (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go` `ClusterRoles` and `ClusterRoleBindings`):
 * `cluster-admin` bound to the group `system:masters`, and the discovery roles — `system:discovery` and
 * `system:basic-user` for every authenticated user, `system:public-info-viewer` for everyone — so kubectl's
 * discovery and `auth can-i` work for any authenticated user — and `system:service-account-issuer-discovery` (the
 * issuer's OIDC documents) for every service account.
 *
 * Difference from kube-apiserver: these objects are not written to storage (a list of clusterroles does not show
 * them; seeds stay as they were); the RBAC authorizer consults them after the stored ones of the same name.
 */
const RBAC = "rbac.authorization.k8s.io";

function clusterRole(name: string, rules: readonly Record<string, unknown>[]): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: { name, labels: { "kubernetes.io/bootstrapping": "rbac-defaults" } },
    rules,
  } as unknown as KubeObject;
}

function groupBinding(name: string, role: string, groups: readonly string[]): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name, labels: { "kubernetes.io/bootstrapping": "rbac-defaults" } },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
    subjects: groups.map((g) => ({ apiGroup: RBAC, kind: "Group", name: g })),
  } as unknown as KubeObject;
}

/** The bootstrap ClusterRoles. */
export const BOOTSTRAP_CLUSTER_ROLES: readonly KubeObject[] = Object.freeze([
  clusterRole("cluster-admin", [
    { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
    { verbs: ["*"], nonResourceURLs: ["*"] },
  ]),
  clusterRole("system:discovery", [
    {
      verbs: ["get"],
      nonResourceURLs: [
        "/api",
        "/api/*",
        "/apis",
        "/apis/*",
        "/healthz",
        "/livez",
        "/openapi",
        "/openapi/*",
        "/readyz",
        "/version",
        "/version/",
      ],
    },
  ]),
  clusterRole("system:basic-user", [
    {
      verbs: ["create"],
      apiGroups: ["authorization.k8s.io"],
      resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
    },
    { verbs: ["create"], apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"] },
  ]),
  clusterRole("system:service-account-issuer-discovery", [
    {
      verbs: ["get"],
      nonResourceURLs: [
        "/.well-known/openid-configuration",
        "/.well-known/openid-configuration/",
        "/openid/v1/jwks",
        "/openid/v1/jwks/",
      ],
    },
  ]),
  clusterRole("system:public-info-viewer", [
    { verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] },
  ]),
]);

/** The bootstrap ClusterRoleBindings. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly KubeObject[] = Object.freeze([
  groupBinding("cluster-admin", "cluster-admin", ["system:masters"]),
  groupBinding("system:discovery", "system:discovery", ["system:authenticated"]),
  groupBinding("system:basic-user", "system:basic-user", ["system:authenticated"]),
  groupBinding("system:service-account-issuer-discovery", "system:service-account-issuer-discovery", [
    "system:serviceaccounts",
  ]),
  groupBinding("system:public-info-viewer", "system:public-info-viewer", [
    "system:authenticated",
    "system:unauthenticated",
  ]),
]);
