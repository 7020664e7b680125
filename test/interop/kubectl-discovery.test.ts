// kubectl's discovery against the simulated apiserver (the HTTP server `pnpm apiserver` runs): kubectl 1.30+ asks
// `/api` and `/apis` for aggregated discovery (apidiscovery.k8s.io v2, then v2beta1, then the legacy documents) and
// reads everything it needs from those two answers; a server without it (a 1.22 release) makes it walk every group
// version, with the same `api-resources` table as the result.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";
import { SimHttpServer } from "../../packages/sim-apiserver/src/http/server.js";
import { run } from "./run.js";
import { type SimHandle, startSim } from "./sim.js";
import { checkKubectl, freshDir, kubectlBin, requireTool } from "./tools.js";

const kubectl = checkKubectl();

/** The paths of the requests kubectl's `-v=6` log shows (`GET http://…/apis?timeout=32s 200 OK`). */
function requestedPaths(stderr: string): string[] {
  return [...stderr.matchAll(/\bGET https?:\/\/[^/\s]+(\/[^?\s]*)/g)].map((m) => m[1] ?? "");
}

describe("interop: kubectl discovery", () => {
  let sim: SimHandle;
  let legacyServer: SimHttpServer;
  let legacyEngine: SimApiServer;
  let legacyUrl: string;
  let dir: string;
  let calls = 0;
  const k = (server: string, args: string[]) =>
    run(kubectlBin(), [`--server=${server}`, "--cache-dir", join(dir, `cache-${++calls}`), ...args], {
      env: { KUBECONFIG: join(dir, "no-kubeconfig") },
      timeoutMs: 60_000,
    });

  beforeAll(async () => {
    if (!kubectl.ok) return;
    sim = await startSim();
    legacyEngine = new SimApiServer({ kubeVersion: "1.22" });
    legacyServer = new SimHttpServer({ backend: new EngineBackend(legacyEngine) });
    legacyUrl = await legacyServer.start();
    dir = freshDir("kubectl-discovery");
  });
  afterAll(async () => {
    await sim?.close();
    await legacyServer?.close();
    legacyEngine?.stop();
  });

  it("kubectl api-resources uses aggregated discovery: /api and /apis only, answered as apidiscovery.k8s.io/v2", async (ctx) => {
    requireTool(kubectl, ctx);
    const r = await k(sim.url, ["api-resources", "-v=8"]);
    expect(r.code).toBe(0);
    expect(requestedPaths(r.stderr)).toEqual(["/api", "/apis"]);
    expect(r.stderr).toContain("Content-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    expect(r.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
  });

  it("kubectl api-resources -o wide prints the same table from aggregated and from legacy discovery", async (ctx) => {
    requireTool(kubectl, ctx);
    const aggregated = await k(sim.url, ["api-resources", "-o", "wide"]);
    const legacy = await k(legacyUrl, ["api-resources", "-o", "wide", "-v=6"]);
    expect(legacy.code).toBe(0);
    // the 1.22 server has no aggregated discovery: kubectl fetches each group version's APIResourceList
    expect(requestedPaths(legacy.stderr)).toContain("/apis/apps/v1");
    const table = (out: string) => out.split("\n").filter((l) => l.trim() !== "");
    expect(table(aggregated.stdout)).toEqual(table(legacy.stdout));
    expect(aggregated.stdout).toMatch(
      /^pods\s+po\s+v1\s+true\s+Pod\s+create,delete,deletecollection,get,list,patch,update,watch\s+all$/m,
    );
  });

  it("a CustomResourceDefinition appears in kubectl's aggregated discovery once created", async (ctx) => {
    requireTool(kubectl, ctx);
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "gizmos.disco.example.com" },
      spec: {
        group: "disco.example.com",
        scope: "Namespaced",
        names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo", shortNames: ["gz"] },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        ],
      },
    };
    const file = join(dir, "crd.json");
    writeFileSync(file, JSON.stringify(crd));
    expect((await k(sim.url, ["create", "-f", file])).code).toBe(0);
    const r = await k(sim.url, ["api-resources", "--api-group=disco.example.com", "-v=6"]);
    expect(r.code).toBe(0);
    expect(requestedPaths(r.stderr)).toEqual(["/api", "/apis"]);
    expect(r.stdout).toMatch(/^gizmos\s+gz\s+disco\.example\.com\/v1\s+true\s+Gizmo$/m);
  });
});
