// `kubectl auth can-i` and a forbidden `kubectl get` against the simulated apiserver under
// `--authorization-mode=RBAC`: a token user over HTTPS (kubectl sends a bearer token only over TLS; impersonation, `--as`, is not served) starts with the bootstrap
// policy's discovery roles only, so it may discover but not list secrets, until a Role and RoleBinding grant it.
import { join } from "node:path";
import type { KubeObject } from "@informer-ts/apimachinery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";
import { writeKubeconfig } from "../../packages/sim-apiserver/src/http/kubeconfig.js";
import { SimHttpServer } from "../../packages/sim-apiserver/src/http/server.js";
import { generatePki } from "../../packages/sim-apiserver/src/http/tls.js";
import { run } from "./run.js";
import { checkKubectl, freshDir, kubectlBin, requireTool } from "./tools.js";

const kubectl = checkKubectl();
const RBAC = "rbac.authorization.k8s.io";

describe("interop: kubectl auth can-i under RBAC", () => {
  let engine: SimApiServer;
  let server: SimHttpServer;
  let url: string;
  let dir: string;
  let calls = 0;
  const k = (token: string, args: string[]) =>
    run(kubectlBin(), ["--cache-dir", join(dir, `cache-${++calls}`), ...args], {
      env: { KUBECONFIG: join(dir, `${token}.yaml`) },
      timeoutMs: 60_000,
    });

  beforeAll(async () => {
    if (!kubectl.ok) return;
    engine = new SimApiServer({ authorization: "RBAC" });
    const pki = generatePki();
    server = new SimHttpServer({
      backend: new EngineBackend(engine),
      tls: pki,
      auth: { tokens: ["alice-token,alice,1001,dev", "admin-token,admin,1,system:masters"] },
    });
    url = await server.start();
    dir = freshDir("kubectl-auth");
    for (const token of ["alice-token", "admin-token"]) {
      writeKubeconfig(join(dir, `${token}.yaml`), { server: url, ca: pki.ca.cert, token });
    }
    await engine.create("namespaces", "", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } });
  });
  afterAll(async () => {
    await server?.close();
    engine?.stop();
  });

  it("kubectl auth can-i says no, and a list is 403 with upstream's message", async (ctx) => {
    requireTool(kubectl, ctx);
    const can = await k("alice-token", ["auth", "can-i", "list", "secrets", "-n", "ns"]);
    expect(can.stdout.trim(), can.stderr).toBe("no");
    expect(can.code).toBe(1);
    const get = await k("alice-token", ["get", "secrets", "-n", "ns"]);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toContain(
      'Error from server (Forbidden): secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "ns"',
    );
    // The superuser (group system:masters) may.
    const admin = await k("admin-token", ["auth", "can-i", "list", "secrets", "-n", "ns"]);
    expect(admin.stdout.trim()).toBe("yes");
  });

  it("kubectl auth can-i says yes after a Role and RoleBinding grant it (to the user or its group)", async (ctx) => {
    requireTool(kubectl, ctx);
    await engine.create("roles.rbac.authorization.k8s.io", "ns", {
      apiVersion: `${RBAC}/v1`,
      kind: "Role",
      metadata: { name: "secret-reader", namespace: "ns" },
      rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["secrets"] }],
    } as KubeObject);
    await engine.create("rolebindings.rbac.authorization.k8s.io", "ns", {
      apiVersion: `${RBAC}/v1`,
      kind: "RoleBinding",
      metadata: { name: "devs-read-secrets", namespace: "ns" },
      roleRef: { apiGroup: RBAC, kind: "Role", name: "secret-reader" },
      subjects: [{ apiGroup: RBAC, kind: "Group", name: "dev" }],
    } as unknown as KubeObject);
    const can = await k("alice-token", ["auth", "can-i", "list", "secrets", "-n", "ns"]);
    expect(can.stdout.trim()).toBe("yes");
    expect(can.code).toBe(0);
    expect((await k("alice-token", ["auth", "can-i", "delete", "secrets", "-n", "ns"])).stdout.trim()).toBe("no");
    expect((await k("alice-token", ["auth", "can-i", "list", "secrets", "-n", "default"])).stdout.trim()).toBe("no");
    const get = await k("alice-token", ["get", "secrets", "-n", "ns"]);
    expect(get.code).toBe(0);
    const list = await k("alice-token", ["auth", "can-i", "--list", "-n", "ns"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^secrets\s+\[\]\s+\[\]\s+\[get list\]$/m);
  });
});
