import { type KubeObject, statusOf } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { describe, expect, it } from "vitest";
import { SimApiServer } from "../sim-apiserver.js";

function setup() {
  return new SimApiServer({ clock: new FakeClock(), rand: seededRand(3), compactionIntervalMs: 0 });
}

async function failure(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  try {
    await p;
  } catch (err) {
    const s = statusOf(err);
    if (s === undefined) throw err;
    return { code: s.code ?? 0, reason: s.reason ?? "", message: s.message ?? "" };
  }
  throw new Error("expected a failure");
}

describe("review kinds (pkg/registry/authorization/*review, authentication/selfsubjectreview)", () => {
  it("SelfSubjectAccessReview: allowed, answered with the spec sent, nothing stored, create is the only verb", async () => {
    const engine = setup();
    const rv = engine.storage.currentRevision;
    const sar = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb: "list", resource: "pods", namespace: "default" } },
    };
    const out = await engine.create("selfsubjectaccessreviews.authorization.k8s.io", "", sar);
    expect(out).toMatchObject({ kind: "SelfSubjectAccessReview", spec: sar.spec, status: { allowed: true } });
    expect(engine.storage.currentRevision).toBe(rv);
    expect(await failure(engine.list("selfsubjectaccessreviews.authorization.k8s.io", ""))).toEqual({
      code: 405,
      reason: "MethodNotAllowed",
      message: 'list is not supported on resources of kind "selfsubjectaccessreviews.authorization.k8s.io"',
    });
  });

  it("SelfSubjectAccessReview without attributes is 422 naming spec.resourceAttributes", async () => {
    const engine = setup();
    const f = await failure(engine.create("selfsubjectaccessreviews.authorization.k8s.io", "", { spec: {} }));
    expect(f.code).toBe(422);
    expect(f.message).toContain(
      'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  });

  it("SelfSubjectRulesReview: every verb on everything; no namespace is 400", async () => {
    const engine = setup();
    const out = (await engine.create("selfsubjectrulesreviews.authorization.k8s.io", "", {
      spec: { namespace: "default" },
    })) as KubeObject & { status: unknown };
    expect(out.status).toEqual({
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      incomplete: false,
    });
    expect(await failure(engine.create("selfsubjectrulesreviews.authorization.k8s.io", "", { spec: {} }))).toEqual({
      code: 400,
      reason: "BadRequest",
      message: "no namespace on request",
    });
  });

  it("SubjectAccessReview needs a user or group; LocalSubjectAccessReview's namespace must match", async () => {
    const engine = setup();
    const attrs = { resourceAttributes: { verb: "get", resource: "pods", namespace: "a" } };
    expect(
      (await failure(engine.create("subjectaccessreviews.authorization.k8s.io", "", { spec: attrs }))).message,
    ).toContain('spec.user: Invalid value: "": at least one of user or group must be specified');
    const lsar = await engine.create("localsubjectaccessreviews.authorization.k8s.io", "a", {
      spec: { ...attrs, user: "alice" },
    });
    expect(lsar).toMatchObject({ metadata: { namespace: "a" }, status: { allowed: true } });
    const f = await failure(
      engine.create("localsubjectaccessreviews.authorization.k8s.io", "b", { spec: { ...attrs, user: "alice" } }),
    );
    expect(f.message).toContain('spec.resourceAttributes.namespace: Invalid value: "a": must match metadata.namespace');
  });

  it("SelfSubjectReview answers the requester: system:admin in-process, the HTTP face's user otherwise", async () => {
    const engine = setup();
    expect(await engine.create("selfsubjectreviews.authentication.k8s.io", "", {})).toMatchObject({
      status: { userInfo: { username: "system:admin", groups: ["system:masters", "system:authenticated"] } },
    });
    const anon = await engine.requests.create(
      "selfsubjectreviews.authentication.k8s.io",
      "",
      {},
      {
        user: "system:anonymous",
      },
    );
    expect(anon.object).toMatchObject({
      status: { userInfo: { username: "system:anonymous", groups: ["system:unauthenticated"] } },
    });
  });
});

describe("the kubernetes Service (pkg/controlplane/controller/kubernetesservice)", () => {
  it("default holds the kubernetes Service, its Endpoints and its EndpointSlice at start", async () => {
    const engine = setup();
    const svc = await engine.get("services", "default", "kubernetes");
    expect(svc).toMatchObject({
      metadata: { labels: { component: "apiserver", provider: "kubernetes" } },
      spec: { clusterIP: "10.96.0.1", type: "ClusterIP", ports: [{ name: "https", port: 443, targetPort: 6443 }] },
    });
    expect(await engine.get("endpoints", "default", "kubernetes")).toMatchObject({
      subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: 6443 }] }],
    });
    expect(await engine.get("endpointslices.discovery.k8s.io", "default", "kubernetes")).toMatchObject({
      addressType: "IPv4",
      metadata: { labels: { "kubernetes.io/service-name": "kubernetes" } },
    });
  });

  it("is absent with systemNamespaces: false", async () => {
    const engine = new SimApiServer({ clock: new FakeClock(), systemNamespaces: false, compactionIntervalMs: 0 });
    expect((await engine.list("services", "")).items).toEqual([]);
  });
});
