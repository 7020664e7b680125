import type { KubeObject } from "@informer-ts/apimachinery";
import { describe, expect, it } from "vitest";
import { ALWAYS_ALLOW } from "../engine/authorization/authorizer.js";
import { RbacAuthorizer, type RbacKind } from "../engine/authorization/rbac-authorizer.js";
import {
  impersonate,
  impersonationHeadersOf,
  parseImpersonationHeaders,
  splitServiceAccountUsername,
} from "./impersonation.js";

const RBAC = "rbac.authorization.k8s.io";

function parsed(headers: Record<string, string[]>) {
  const p = parseImpersonationHeaders(headers);
  if (!p.ok) throw new Error(p.error);
  return p;
}

describe("impersonation headers (buildImpersonationRequests)", () => {
  it("Impersonate-User names a user, or a service account when it is system:serviceaccount:<ns>:<name>", () => {
    expect(parsed({ "impersonate-user": ["bob"] }).requests).toEqual([{ kind: "User", name: "bob" }]);
    expect(parsed({ "impersonate-user": ["system:serviceaccount:ns:robot"] }).requests).toEqual([
      { kind: "ServiceAccount", namespace: "ns", name: "robot" },
    ]);
    // Not a valid namespace/name pair: a plain user name.
    expect(splitServiceAccountUsername("system:serviceaccount:ns")).toBeUndefined();
    expect(splitServiceAccountUsername("system:serviceaccount:NS:robot")).toBeUndefined();
    expect(splitServiceAccountUsername("system:serviceaccount:ns:a:b")).toBeUndefined();
    expect(parsed({ "impersonate-user": ["system:serviceaccount:Bad:x"] }).requests[0]?.kind).toBe("User");
  });

  it("groups, extras (key lowercased and percent-decoded) and uid follow the user, one request per value", () => {
    const p = parsed({
      "impersonate-user": ["bob"],
      "impersonate-group": ["dev", "ops"],
      "impersonate-extra-example.com%2fscopes": ["read", "write"],
      "impersonate-uid": ["1234"],
    });
    expect(p.groupsSpecified).toBe(true);
    expect(p.requests).toEqual([
      { kind: "User", name: "bob" },
      { kind: "Group", name: "dev" },
      { kind: "Group", name: "ops" },
      { kind: "UserExtra", key: "example.com/scopes", name: "read" },
      { kind: "UserExtra", key: "example.com/scopes", name: "write" },
      { kind: "UID", name: "1234" },
    ]);
    // A key that does not decode is kept as sent.
    expect(parsed({ "impersonate-user": ["bob"], "impersonate-extra-100%": ["x"] }).requests[1]).toEqual({
      kind: "UserExtra",
      key: "100%",
      name: "x",
    });
  });

  it("groups, extras or a uid without a user are upstream's error, with Go's rendering of the requests", () => {
    expect(parseImpersonationHeaders({ "impersonate-group": ["system:masters"] })).toEqual({
      ok: false,
      error: "requested [{Group  system:masters    }] without impersonating a user",
    });
    expect(parseImpersonationHeaders({ "impersonate-extra-scopes": ["a"], "impersonate-uid": ["7"] })).toEqual({
      ok: false,
      error:
        "requested [{UserExtra  a  authentication.k8s.io/v1  scopes} {UID  7  authentication.k8s.io/v1  }] without impersonating a user",
    });
    // No impersonation header: nothing requested.
    expect(parsed({})).toEqual({ ok: true, requests: [], groupsSpecified: false });
  });

  it("impersonationHeadersOf keeps every value and only the impersonate-* headers", () => {
    const h = impersonationHeadersOf(
      { "impersonate-user": "bob", "impersonate-group": "dev, ops", accept: "*/*" },
      () => ({ "impersonate-user": ["bob"], "impersonate-group": ["dev", "ops"], accept: ["*/*"] }),
    );
    expect(h).toEqual({ "impersonate-user": ["bob"], "impersonate-group": ["dev", "ops"] });
    // Without an impersonation header the distinct headers are not built.
    let built = false;
    expect(
      impersonationHeadersOf({ accept: "*/*" }, () => {
        built = true;
        return {};
      }),
    ).toEqual({});
    expect(built).toBe(false);
  });
});

describe("impersonate (WithImpersonation)", () => {
  const alice = { username: "alice", groups: ["dev", "system:authenticated"] };

  it("builds the identity: a service account's fixed groups, system:authenticated or system:unauthenticated", () => {
    expect(impersonate(alice, parsed({ "impersonate-user": ["bob"] }), ALWAYS_ALLOW)).toEqual({
      name: "bob",
      method: "impersonated",
      groups: ["system:authenticated"],
    });
    expect(
      impersonate(alice, parsed({ "impersonate-user": ["system:serviceaccount:ns:robot"] }), ALWAYS_ALLOW).groups,
    ).toEqual(["system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"]);
    // Groups given replace the service account's.
    expect(
      impersonate(
        alice,
        parsed({ "impersonate-user": ["system:serviceaccount:ns:robot"], "impersonate-group": ["g"] }),
        ALWAYS_ALLOW,
      ).groups,
    ).toEqual(["g", "system:authenticated"]);
    expect(
      impersonate(
        alice,
        parsed({ "impersonate-user": ["bob"], "impersonate-group": ["system:unauthenticated"] }),
        ALWAYS_ALLOW,
      ).groups,
    ).toEqual(["system:unauthenticated"]);
    expect(impersonate(alice, parsed({ "impersonate-user": ["system:anonymous"] }), ALWAYS_ALLOW).groups).toEqual([
      "system:unauthenticated",
    ]);
    expect(
      impersonate(
        alice,
        parsed({ "impersonate-user": ["bob"], "impersonate-uid": ["u-1"], "impersonate-extra-scope": ["a", "b"] }),
        ALWAYS_ALLOW,
      ),
    ).toEqual({
      name: "bob",
      method: "impersonated",
      groups: ["system:authenticated"],
      uid: "u-1",
      extra: { scope: ["a", "b"] },
    });
  });

  it("asks RBAC for verb impersonate on each request; the first one denied is upstream's 403", () => {
    const items: KubeObject[] = [
      {
        kind: "ClusterRole",
        apiVersion: `${RBAC}/v1`,
        metadata: { name: "impersonator" },
        rules: [
          { verbs: ["impersonate"], apiGroups: [""], resources: ["users"], resourceNames: ["bob"] },
          { verbs: ["impersonate"], apiGroups: [""], resources: ["serviceaccounts"] },
          { verbs: ["impersonate"], apiGroups: ["authentication.k8s.io"], resources: ["userextras/scopes"] },
        ],
      } as unknown as KubeObject,
      {
        kind: "ClusterRoleBinding",
        apiVersion: `${RBAC}/v1`,
        metadata: { name: "impersonator" },
        roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "impersonator" },
        subjects: [{ kind: "User", name: "alice" }],
      } as unknown as KubeObject,
    ];
    const rbac = new RbacAuthorizer({ list: (kind: RbacKind) => items.filter((o) => o.kind === kind) });
    expect(
      impersonate(alice, parsed({ "impersonate-user": ["bob"], "impersonate-extra-scopes": ["x"] }), rbac).name,
    ).toBe("bob");
    expect(impersonate(alice, parsed({ "impersonate-user": ["system:serviceaccount:ns:robot"] }), rbac).name).toBe(
      "system:serviceaccount:ns:robot",
    );
    const denied = (h: Record<string, string[]>) => {
      try {
        impersonate(alice, parsed(h), rbac);
      } catch (err) {
        return (err as { status: { code: number; message: string } }).status;
      }
      throw new Error("expected a 403");
    };
    expect(denied({ "impersonate-user": ["carol"] })).toMatchObject({
      code: 403,
      message:
        'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    });
    expect(denied({ "impersonate-user": ["bob"], "impersonate-group": ["system:masters"] }).message).toBe(
      'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
    expect(denied({ "impersonate-user": ["bob"], "impersonate-uid": ["9"] }).message).toBe(
      'uids.authentication.k8s.io "9" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
    );
    expect(denied({ "impersonate-user": ["bob"], "impersonate-extra-other": ["v"] }).message).toBe(
      'userextras.authentication.k8s.io "v" is forbidden: User "alice" cannot impersonate resource "userextras/other" in API group "authentication.k8s.io" at the cluster scope',
    );
  });
});
