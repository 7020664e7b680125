// test/e2e/auth/service_accounts.go, ServiceAccountIssuerDiscovery: re-implemented with @kubernetes/client-node
// against the simulator over HTTP under RBAC. Upstream runs a pod (agnhost test-service-account-issuer-discovery)
// that reads its projected token, fetches the issuer's OIDC discovery document and key set from the apiserver with
// that token, and verifies the token with them; here the test does the pod's part with a TokenRequest's token.
import { createPublicKey, type JsonWebKey, verify } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2eCluster, startE2eCluster } from "./harness.js";

let c: E2eCluster;
beforeAll(async () => {
  c = await startE2eCluster({ rbac: true });
});
afterAll(async () => {
  await c.close();
});

const AUDIENCE = "oidc-discovery-test";

function decodePart(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
}

describe("[sig-auth] ServiceAccounts (auth/service_accounts.go)", () => {
  it("ServiceAccountIssuerDiscovery should support OIDC discovery of service account issuer", async () => {
    const ns = await c.namespace("svcaccounts");
    const rbac = c.kc.makeApiClient(c.k8s.RbacAuthorizationV1Api);
    // The namespace's `default` account (the service-account controller's; this harness runs none).
    await c.core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: "default" } } });
    // Upstream binds the bootstrap discovery role to the account explicitly (a cluster may lack the default binding).
    const clusterRoleName = "system:service-account-issuer-discovery";
    const crbName = `${ns}-${clusterRoleName}`;
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: crbName },
        subjects: [{ kind: "ServiceAccount", apiGroup: "", name: "default", namespace: ns }],
        roleRef: { name: clusterRoleName, apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole" },
      },
    });
    try {
      // The token the pod's projected volume would carry, for the test's audience.
      const tr = await c.core.createNamespacedServiceAccountToken({
        namespace: ns,
        name: "default",
        body: { spec: { audiences: [AUDIENCE], expirationSeconds: 3600 } },
      });
      const token = tr.status?.token ?? "";
      const [header = "", payload = "", signature = ""] = token.split(".");
      const claims = decodePart(payload);
      expect(claims.sub).toBe(`system:serviceaccount:${ns}:default`);
      expect(claims.aud).toEqual([AUDIENCE]);
      const asPod = { authorization: `Bearer ${token}` };
      // A token for another audience does not authenticate to the apiserver (401): the pod reads the documents with
      // its apiserver token (the automounted one's audience, the issuer).
      const apiToken =
        (
          await c.core.createNamespacedServiceAccountToken({
            namespace: ns,
            name: "default",
            body: { spec: { audiences: [] } },
          })
        ).status?.token ?? "";
      expect((await c.raw("GET", "/.well-known/openid-configuration", undefined, asPod)).status).toBe(401);
      const asAccount = { authorization: `Bearer ${apiToken}` };
      const conf = await c.raw("GET", "/.well-known/openid-configuration", undefined, asAccount);
      expect(conf.status).toBe(200);
      const config = conf.json as { issuer: string; jwks_uri: string; id_token_signing_alg_values_supported: string[] };
      // The issuer of the discovery document is the token's.
      expect(config.issuer).toBe(claims.iss);
      expect(config.id_token_signing_alg_values_supported).toContain("RS256");
      const jwksUri = new URL(config.jwks_uri);
      expect(jwksUri.pathname).toBe("/openid/v1/jwks");
      const jwks = await c.raw("GET", jwksUri.pathname, undefined, asAccount);
      expect(jwks.status).toBe(200);
      const keys = (jwks.json as { keys: (JsonWebKey & { kid: string })[] }).keys;
      // The token's key is in the set, and its signature verifies with it.
      const kid = decodePart(header).kid;
      const key = keys.find((k) => k.kid === kid);
      expect(key).toBeDefined();
      const publicKey = createPublicKey({ key: key as JsonWebKey, format: "jwk" });
      expect(
        verify("sha256", Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, "base64url")),
      ).toBe(true);
      expect(typeof claims.exp === "number" && claims.exp * 1000 > Date.now()).toBe(true);
    } finally {
      await rbac.deleteClusterRoleBinding({ name: crbName });
    }
  });
});
