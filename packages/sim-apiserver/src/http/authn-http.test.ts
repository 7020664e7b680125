import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeClock } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw } from "./http-client.test-util.js";

// The HTTP face's authentication beyond static tokens: service-account bearer tokens (TokenRequest's JWTs), the
// issuer's OIDC discovery documents, and impersonation, under RBAC.
let srv: EngineServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const ROOT = "root-token";
const RBAC = "rbac.authorization.k8s.io";

async function start(clock = new FakeClock(Date.parse("2026-05-01T00:00:00Z"))): Promise<EngineServer> {
  srv = await startEngineServer(
    clock,
    { authorizationMode: "RBAC" },
    { auth: { tokens: [`${ROOT},root,1,system:masters`, "alice-token,alice,1001,dev"] } },
  );
  return srv;
}

async function call(
  s: EngineServer,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return fetchRaw(`${s.url}${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

async function serviceAccountToken(s: EngineServer, ns: string, name: string): Promise<string> {
  const sa = await call(s, "POST", `/api/v1/namespaces/${ns}/serviceaccounts`, ROOT, { metadata: { name } });
  expect(sa.status).toBe(201);
  const tr = await call(s, "POST", `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, ROOT, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: {},
  });
  expect(tr.status).toBe(201);
  return (tr.json as { status: { token: string } }).status.token;
}

async function selfReview(s: EngineServer, token: string, headers: Record<string, string> = {}) {
  const r = await call(
    s,
    "POST",
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    token,
    { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    headers,
  );
  return { status: r.status, userInfo: (r.json as { status?: { userInfo?: unknown } }).status?.userInfo, json: r.json };
}

describe("service-account bearer tokens", () => {
  it("authenticate as system:serviceaccount:<ns>:<name> in the service-account groups, and RBAC sees them", async () => {
    const s = await start();
    const token = await serviceAccountToken(s, "default", "robot");
    const me = await selfReview(s, token);
    expect(me.status).toBe(201);
    const sa = await call(s, "GET", "/api/v1/namespaces/default/serviceaccounts/robot", ROOT);
    const uid = (sa.json as { metadata: { uid: string } }).metadata.uid;
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { jti: string };
    expect(me.userInfo).toEqual({
      username: "system:serviceaccount:default:robot",
      uid,
      groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
      extra: { "authentication.kubernetes.io/credential-id": [`JTI=${claims.jti}`] },
    });
    const denied = await call(s, "GET", "/api/v1/namespaces/default/configmaps", token);
    expect(denied.status).toBe(403);
    expect((denied.json as { message: string }).message).toBe(
      'configmaps is forbidden: User "system:serviceaccount:default:robot" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    const binding = await call(s, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", ROOT, {
      metadata: { name: "robot-view" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "cluster-admin" },
      subjects: [{ kind: "ServiceAccount", name: "robot", namespace: "default" }],
    });
    expect(binding.status).toBe(201);
    expect((await call(s, "GET", "/api/v1/namespaces/default/configmaps", token)).status).toBe(200);
  });

  it("a token of a deleted or recreated account, an expired token and a forged one are 401", async () => {
    const clock = new FakeClock(Date.parse("2026-05-01T00:00:00Z"));
    const s = await start(clock);
    const token = await serviceAccountToken(s, "default", "robot");
    expect((await selfReview(s, token)).status).toBe(201);
    // Forged: the claims changed, the signature kept.
    const [h, p, sig] = token.split(".");
    const claims = JSON.parse(Buffer.from(p!, "base64url").toString()) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: "system:serviceaccount:kube-system:admin" })).toString("base64url")}.${sig}`;
    const f = await selfReview(s, forged);
    expect(f.status).toBe(401);
    expect(f.json).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    // Recreated: same name, new uid.
    expect((await call(s, "DELETE", "/api/v1/namespaces/default/serviceaccounts/robot", ROOT)).status).toBe(200);
    expect((await selfReview(s, token)).status).toBe(401);
    const fresh = await serviceAccountToken(s, "default", "robot");
    expect((await selfReview(s, token)).status).toBe(401);
    expect((await selfReview(s, fresh)).status).toBe(201);
    // Expired: the default hour passed on the server's clock.
    await clock.step(3601_000);
    expect((await selfReview(s, fresh)).status).toBe(401);
  });
});

describe("service-account issuer discovery", () => {
  it("serves the OpenID configuration and the key set to service accounts; the keys verify a token", async () => {
    const s = await start();
    const token = await serviceAccountToken(s, "default", "robot");
    const conf = await call(s, "GET", "/.well-known/openid-configuration", token);
    expect(conf.status).toBe(200);
    expect(conf.headers["content-type"]).toBe("application/json");
    expect(conf.headers["cache-control"]).toBe("public, max-age=3600");
    expect(conf.json).toEqual({
      issuer: "https://kubernetes.default.svc.cluster.local",
      jwks_uri: `${s.url}/openid/v1/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    });
    const jwks = await call(s, "GET", "/openid/v1/jwks", token);
    expect(jwks.status).toBe(200);
    expect(jwks.headers["content-type"]).toBe("application/jwk-set+json");
    const keys = (jwks.json as { keys: { kid: string; kty: string; alg: string; use: string }[] }).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig", e: "AQAB" });
    const [h, p, sig] = token.split(".");
    expect(JSON.parse(Buffer.from(h!, "base64url").toString())).toEqual({ alg: "RS256", kid: keys[0]!.kid });
    const key = createPublicKey({ key: keys[0] as unknown as import("node:crypto").JsonWebKey, format: "jwk" });
    expect(verify("sha256", Buffer.from(`${h}.${p}`), key, Buffer.from(sig!, "base64url"))).toBe(true);
    // Not for a user outside system:serviceaccounts (system:service-account-issuer-discovery), nor anonymously.
    const alice = await call(s, "GET", "/openid/v1/jwks", "alice-token");
    expect(alice.status).toBe(403);
    expect((alice.json as { message: string }).message).toBe(
      'forbidden: User "alice" cannot get path "/openid/v1/jwks"',
    );
    expect((await call(s, "GET", "/.well-known/openid-configuration", undefined)).status).toBe(401);
  });
});

describe("impersonation over HTTP", () => {
  it("the impersonated identity is what SelfSubjectReview, SelfSubjectAccessReview and RBAC see", async () => {
    const s = await start();
    const me = await selfReview(s, ROOT, {
      "Impersonate-User": "bob",
      "Impersonate-Group": "dev",
      "Impersonate-Uid": "b-1",
      "Impersonate-Extra-Scopes": "view",
    });
    expect(me.status).toBe(201);
    expect(me.userInfo).toEqual({
      username: "bob",
      uid: "b-1",
      groups: ["dev", "system:authenticated"],
      extra: { scopes: ["view"] },
    });
    const sa = await selfReview(s, ROOT, { "Impersonate-User": "system:serviceaccount:ns:robot" });
    expect(sa.userInfo).toEqual({
      username: "system:serviceaccount:ns:robot",
      groups: ["system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"],
    });
    const ssar = await call(
      s,
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      ROOT,
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { verb: "list", resource: "configmaps", namespace: "default" } },
      },
      { "Impersonate-User": "bob" },
    );
    expect(ssar.status).toBe(201);
    expect((ssar.json as { status: { allowed: boolean } }).status.allowed).toBe(false);
    const list = await call(s, "GET", "/api/v1/namespaces/default/configmaps", ROOT, undefined, {
      "Impersonate-User": "bob",
    });
    expect(list.status).toBe(403);
    expect((list.json as { message: string }).message).toContain('User "bob" cannot list resource "configmaps"');
  });

  it("impersonating needs RBAC's impersonate verb: 403 as upstream; a group without a user is a 500", async () => {
    const s = await start();
    const denied = await selfReview(s, "alice-token", { "Impersonate-User": "bob" });
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      message:
        'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
      details: { name: "bob", kind: "users" },
    });
    const role = await call(s, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", ROOT, {
      metadata: { name: "impersonate-bob" },
      rules: [{ verbs: ["impersonate"], apiGroups: [""], resources: ["users"], resourceNames: ["bob"] }],
    });
    expect(role.status).toBe(201);
    const crb = await call(s, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", ROOT, {
      metadata: { name: "alice-impersonates-bob" },
      roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "impersonate-bob" },
      subjects: [{ apiGroup: RBAC, kind: "User", name: "alice" }],
    });
    expect(crb.status).toBe(201);
    expect((await selfReview(s, "alice-token", { "Impersonate-User": "bob" })).userInfo).toEqual({
      username: "bob",
      groups: ["system:authenticated"],
    });
    const masters = await selfReview(s, "alice-token", {
      "Impersonate-User": "bob",
      "Impersonate-Group": "system:masters",
    });
    expect(masters.status).toBe(403);
    const noUser = await call(s, "GET", "/api/v1/namespaces", ROOT, undefined, {
      "Impersonate-Group": "system:masters",
    });
    expect(noUser.status).toBe(500);
    expect(noUser.text).toBe(
      'Internal Server Error: "/api/v1/namespaces": requested [{Group  system:masters    }] without impersonating a user',
    );
  });
});

describe("--service-account-signing-key-file", () => {
  it("tokens are signed with the given key, which the key set publishes; a key that is not RSA is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sa-key-"));
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const file = join(dir, "sa.key");
    writeFileSync(file, privateKey.export({ type: "pkcs8", format: "pem" }));
    srv = await startEngineServer(new FakeClock(), { serviceAccountSigningKeyFile: file });
    const s = srv;
    const sa = await call(s, "POST", "/api/v1/namespaces/default/serviceaccounts", undefined, {
      metadata: { name: "r" },
    });
    expect(sa.status).toBe(201);
    const tr = await call(s, "POST", "/api/v1/namespaces/default/serviceaccounts/r/token", undefined, { spec: {} });
    const token = (tr.json as { status: { token: string } }).status.token;
    const [h, p, sig] = token.split(".");
    expect(verify("sha256", Buffer.from(`${h}.${p}`), publicKey, Buffer.from(sig!, "base64url"))).toBe(true);
    const jwks = (await call(s, "GET", "/openid/v1/jwks", undefined)).json as { keys: { n: string }[] };
    expect(jwks.keys.map((k) => k.n)).toEqual([publicKey.export({ format: "jwk" }).n]);
    const ec = join(dir, "ec.key");
    writeFileSync(
      ec,
      generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }),
    );
    await expect(startEngineServer(new FakeClock(), { serviceAccountSigningKeyFile: ec })).rejects.toThrow(
      `--service-account-signing-key-file ${ec}: service-account signing key: a ec key; only RSA keys (RS256) are supported`,
    );
    const garbage = join(dir, "garbage.key");
    writeFileSync(garbage, "not a key");
    await expect(startEngineServer(new FakeClock(), { serviceAccountSigningKeyFile: garbage })).rejects.toThrow(
      `--service-account-signing-key-file ${garbage}: service-account signing key: not a PEM private key`,
    );
  });
});
