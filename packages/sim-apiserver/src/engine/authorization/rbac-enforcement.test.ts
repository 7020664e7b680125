import { type KubeObject, statusOf } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";

const RBAC = "rbac.authorization.k8s.io";

function setup(): SimApiServer {
  return new SimApiServer({
    clock: new FakeClock(),
    rand: seededRand(7),
    compactionIntervalMs: 0,
    authorization: "RBAC",
  });
}

async function rejection(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const s = statusOf(err);
    if (s === undefined) throw err;
    return { code: s.code ?? 0, message: s.message ?? "" };
  }
  throw new Error("expected a rejection");
}

async function grantConfigMapReader(engine: SimApiServer, subject: Record<string, string>): Promise<void> {
  await engine.create(`clusterroles.${RBAC}`, "", {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: { name: "cm-reader" },
    rules: [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["configmaps"] }],
  } as KubeObject);
  await engine.create(`rolebindings.${RBAC}`, "default", {
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    metadata: { name: "cm-reader", namespace: "default" },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "cm-reader" },
    subjects: [subject],
  } as unknown as KubeObject);
}

// The authorization filter (filters/authorization.go) on the in-process face, and the review kinds answering from
// the RBAC authorizer (pkg/registry/authorization/*review/rest.go).
describe("authorization: RBAC on the engine", () => {
  it("an in-process request without a user is the superuser's; one with a user is authorized as that user", async () => {
    const engine = setup();
    await engine.list("configmaps", "default");
    expect(await rejection(engine.list("configmaps", "default", {}, { user: "alice" }))).toEqual({
      code: 403,
      message:
        'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"',
    });
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } } as KubeObject;
    const rv = engine.storage.currentRevision;
    expect((await rejection(engine.create("configmaps", "default", cm, { user: "alice" }))).code).toBe(403);
    expect(engine.storage.currentRevision).toBe(rv); // a rejected write changes nothing
    await grantConfigMapReader(engine, { kind: "User", apiGroup: RBAC, name: "alice" });
    await engine.list("configmaps", "default", {}, { user: "alice" });
    expect(await rejection(engine.get("configmaps", "kube-system", "x", {}, { user: "alice" }))).toEqual({
      code: 403,
      message:
        'configmaps "x" is forbidden: User "alice" cannot get resource "configmaps" in API group "" in the namespace "kube-system"',
    });
  });

  it("a service account's user name and groups match ServiceAccount and group subjects", async () => {
    const engine = setup();
    const sa = { user: "system:serviceaccount:default:builder" };
    expect((await rejection(engine.list("configmaps", "default", {}, sa))).code).toBe(403);
    await grantConfigMapReader(engine, { kind: "Group", apiGroup: RBAC, name: "system:serviceaccounts:default" });
    await engine.list("configmaps", "default", {}, sa);
  });

  it("SubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview answer from RBAC", async () => {
    const engine = setup();
    const sar = (user: string) =>
      engine.create(`subjectaccessreviews.authorization.k8s.io`, "", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user, resourceAttributes: { verb: "list", resource: "configmaps", namespace: "default" } },
      } as unknown as KubeObject);
    expect((await sar("bob")).status).toEqual({ allowed: false });
    await grantConfigMapReader(engine, { kind: "User", apiGroup: RBAC, name: "bob" });
    expect((await sar("bob")).status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "cm-reader/default" of ClusterRole "cm-reader" to User "bob"',
    });
    const self = await engine.create(
      "selfsubjectaccessreviews.authorization.k8s.io",
      "",
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { nonResourceAttributes: { verb: "get", path: "/apis" } },
      } as unknown as KubeObject,
      { user: "carol" },
    );
    expect(self.status).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
    const rules = await engine.create(
      "selfsubjectrulesreviews.authorization.k8s.io",
      "",
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectRulesReview",
        spec: { namespace: "default" },
      } as unknown as KubeObject,
      { user: "bob" },
    );
    const status = rules.status as { resourceRules: unknown[]; nonResourceRules: unknown[]; incomplete: boolean };
    expect(status.incomplete).toBe(false);
    expect(status.resourceRules).toContainEqual({
      verbs: ["get", "list", "watch"],
      apiGroups: [""],
      resources: ["configmaps"],
    });
    expect(status.resourceRules).toContainEqual({
      verbs: ["create"],
      apiGroups: ["authorization.k8s.io"],
      resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
    });
    expect(status.nonResourceRules.length).toBeGreaterThan(0);
  });
});
