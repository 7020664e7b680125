import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimApiServer } from "../engine/sim-apiserver.js";
import { EngineBackend } from "./engine-backend.js";
import { SimHttpServer } from "./server.js";

// The HTTP face under `authorization: "RBAC"`: token users with groups (`--token t,user,uid,groups`), the
// authorization filter on resource requests and non-resource paths, 403 Status bodies as kube-apiserver's.
describe("HTTP authorization (RBAC)", () => {
  let engine: SimApiServer;
  let server: SimHttpServer;
  let url: string;
  const get = async (path: string, token?: string) => {
    const r = await fetch(url + path, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    engine = new SimApiServer({ authorization: "RBAC" });
    server = new SimHttpServer({
      backend: new EngineBackend(engine),
      auth: { tokens: ["alice-token,alice,1001,dev", "root-token,root,1,system:masters"] },
    });
    url = await server.start();
  });
  afterAll(async () => {
    await server.close();
    engine.stop();
  });

  it("a resource request not allowed is 403 with forbiddenMessage; the superuser's group may", async () => {
    const r = await get("/api/v1/namespaces/ns/configmaps", "alice-token");
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      message:
        'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "ns"',
      details: { kind: "configmaps" },
    });
    expect((await get("/api/v1/namespaces/ns/configmaps", "root-token")).status).toBe(200);
    const log = await get("/api/v1/namespaces/ns/pods/p/log", "alice-token");
    expect(log.body.message).toBe(
      'pods "p" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "ns"',
    );
    const named = await get("/apis/apps/v1/deployments", "alice-token");
    expect(named.body.message).toBe(
      'deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" at the cluster scope',
    );
  });

  it("discovery is allowed to authenticated users (system:discovery); other paths are 403 'forbidden: …'", async () => {
    expect((await get("/apis", "alice-token")).status).toBe(200);
    expect((await get("/api/v1", "alice-token")).status).toBe(200);
    const r = await get("/metrics", "alice-token");
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('forbidden: User "alice" cannot get path "/metrics"');
    // Anonymous requests reach only the public paths (system:public-info-viewer): authentication answers the rest.
    expect((await get("/version")).status).toBe(200);
    expect((await get("/apis")).status).toBe(401);
  });

  it("authorization comes before routing: a request with no route is 403 for a user who may not make it", async () => {
    const send = async (method: string, path: string, token: string) => {
      const r = await fetch(url + path, { method, headers: { authorization: `Bearer ${token}` } });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    // Namespaces serve no deletecollection (405), an unknown resource has no route (404): both only once allowed.
    const noVerb = await send("DELETE", "/api/v1/namespaces", "alice-token");
    expect(noVerb.status).toBe(403);
    expect(noVerb.body.message).toBe(
      'namespaces is forbidden: User "alice" cannot deletecollection resource "namespaces" in API group "" at the cluster scope',
    );
    expect((await send("DELETE", "/api/v1/namespaces", "root-token")).status).toBe(405);
    const unknown = await send("GET", "/api/v1/namespaces/ns/widgets", "alice-token");
    expect(unknown.status).toBe(403);
    expect(unknown.body.message).toBe(
      'widgets is forbidden: User "alice" cannot list resource "widgets" in API group "" in the namespace "ns"',
    );
    expect((await send("GET", "/api/v1/namespaces/ns/widgets", "root-token")).status).toBe(404);
  });

  it("the token user's groups from its --token entry are its groups (SelfSubjectReview)", async () => {
    const r = await fetch(`${url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      method: "POST",
      headers: { authorization: "Bearer alice-token", "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
    });
    expect(r.status).toBe(201);
    const body = (await r.json()) as { status: { userInfo: unknown } };
    expect(body.status.userInfo).toEqual({ username: "alice", uid: "1001", groups: ["dev", "system:authenticated"] });
  });
});
