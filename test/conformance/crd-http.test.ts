// CustomResourceDefinitions over real HTTP (SimHttpServer + EngineBackend, engine on a FakeClock): POST a definition,
// its group and resource appear in discovery without a restart, objects are served (with /status and /scale as
// declared),
// DELETE of the definition removes them and the routes answer 404; an invalid definition is a 422 with upstream's
// Status and nothing is stored.
import { failureStatus as failure, type KubeObject } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";
import { fetchRaw } from "../../packages/sim-apiserver/src/http/http-client.test-util.js";
import { SimHttpServer } from "../../packages/sim-apiserver/src/http/server.js";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const JSON_TYPE = { "content-type": "application/json" };

const open: SimHttpServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function start() {
  const clock = new FakeClock(Date.parse("2026-06-01T00:00:00Z"));
  const engine = new SimApiServer({ clock, rand: seededRand(9), progressNotifyIntervalMs: 0, compactionIntervalMs: 0 });
  const server = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  open.push(server);
  const url = await server.start();
  const req = (method: string, path: string, body?: unknown, headers: Record<string, string> = JSON_TYPE) =>
    fetchRaw(`${url}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  return { engine, clock, req };
}

function definition(name = "robots.example.net"): KubeObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name },
    spec: {
      group: "example.net",
      names: { plural: "robots", kind: "Robot" },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: {
            status: {},
            scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
          },
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
}

describe("CustomResourceDefinition over HTTP", () => {
  it("POST serves the resource at once (discovery, objects, /status), DELETE stops it (404)", async () => {
    const s = await start();
    const created = await s.req("POST", CRDS, definition());
    expect(created.status).toBe(201);
    expect((created.json as KubeObject).status).toMatchObject({ acceptedNames: { kind: "Robot", plural: "robots" } });
    const groups = (await s.req("GET", "/apis")).json as { groups: Array<{ name: string }> };
    expect(groups.groups.map((g) => g.name)).toContain("example.net");
    const resources = (await s.req("GET", "/apis/example.net/v1")).json as { resources: Array<{ name: string }> };
    expect(resources.resources.map((r) => r.name)).toEqual(["robots", "robots/status", "robots/scale"]);

    const path = "/apis/example.net/v1/namespaces/default/robots";
    const robot = await s.req("POST", path, { apiVersion: "example.net/v1", kind: "Robot", metadata: { name: "r1" } });
    expect(robot.status).toBe(201);
    const status = await s.req(
      "PATCH",
      `${path}/r1/status?fieldManager=ctrl`,
      { status: { ready: true } },
      { "content-type": "application/merge-patch+json" },
    );
    expect(status.status).toBe(200);
    const entries = (status.json as KubeObject).metadata?.managedFields as Array<Record<string, unknown>>;
    expect(entries.find((e) => e.manager === "ctrl")).toMatchObject({
      operation: "Update",
      subresource: "status",
      fieldsV1: { "f:status": { ".": {}, "f:ready": {} } },
    });

    const put = await s.req("PUT", `${path}/r1/scale`, {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "r1" },
      spec: { replicas: 3 },
    });
    expect([put.status, (put.json as KubeObject).spec]).toEqual([200, { replicas: 3 }]);
    const scale = (await s.req("GET", `${path}/r1/scale`)).json as KubeObject;
    expect(scale).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 3 } });
    expect(((await s.req("GET", `${path}/r1`)).json as KubeObject).spec).toEqual({ replicas: 3 });
    const wrongKind = await s.req("PUT", `${path}/r1/scale`, { kind: "Robot", apiVersion: "example.net/v1" });
    expect(wrongKind.status).toBe(400);

    const deleted = await s.req("DELETE", `${CRDS}/robots.example.net`);
    expect(deleted.status).toBe(200);
    // The first answer is the definition, held by the cleanup finalizer until its objects are gone.
    expect((deleted.json as KubeObject).metadata?.finalizers).toEqual(["customresourcecleanup.apiextensions.k8s.io"]);
    for (let i = 0; i < 5; i++) await s.clock.step(0);
    expect((await s.req("GET", `${CRDS}/robots.example.net`)).status).toBe(404);
    expect((await s.req("GET", path)).status).toBe(404);
    expect((await s.req("GET", "/apis/example.net/v1")).status).toBe(404);
  });

  it("several served versions: each is served over one storage, a deprecated one answers with its Warning", async () => {
    const s = await start();
    const crd = definition();
    const spec = crd.spec as { versions: Array<Record<string, unknown>> };
    spec.versions.push({ ...spec.versions[0], name: "v1beta1", storage: false, deprecated: true });
    expect((await s.req("POST", CRDS, crd)).status).toBe(201);
    const group = (await s.req("GET", "/apis/example.net")).json as {
      versions: Array<{ version: string }>;
      preferredVersion: { version: string };
    };
    expect([group.versions.map((v) => v.version), group.preferredVersion.version]).toEqual([["v1", "v1beta1"], "v1"]);
    const beta = "/apis/example.net/v1beta1/namespaces/default/robots";
    const made = await s.req("POST", `${beta}?fieldManager=old-client`, {
      apiVersion: "example.net/v1beta1",
      kind: "Robot",
      metadata: { name: "r1" },
      spec: { replicas: 1 },
    });
    expect(made.status).toBe(201);
    expect(made.headers.warning).toBe('299 - "example.net/v1beta1 Robot is deprecated; use example.net/v1 Robot"');
    expect((made.json as KubeObject).apiVersion).toBe("example.net/v1beta1");
    const list = await s.req("GET", beta);
    expect(list.headers.warning).toContain("is deprecated");
    expect((list.json as { items: KubeObject[] }).items.map((o) => o.apiVersion)).toEqual(["example.net/v1beta1"]);
    const current = await s.req("GET", "/apis/example.net/v1/namespaces/default/robots/r1");
    expect(current.headers.warning).toBeUndefined();
    const obj = current.json as KubeObject;
    expect([obj.apiVersion, obj.spec]).toEqual(["example.net/v1", { replicas: 1 }]);
    // The manager's entry keeps the version it wrote with.
    const entries = obj.metadata?.managedFields as Array<Record<string, unknown>>;
    expect(entries.find((e) => e.manager === "old-client")?.apiVersion).toBe("example.net/v1beta1");
    // storageVersionHash hashes the current storage version: it moves when v1beta1 becomes the storage version.
    const hash = async () =>
      (
        (await s.req("GET", "/apis/example.net/v1")).json as {
          resources: Array<{ name: string; storageVersionHash: string }>;
        }
      ).resources.find((r) => r.name === "robots")?.storageVersionHash;
    const before = await hash();
    const first = (await s.req("GET", `${CRDS}/robots.example.net`)).json as KubeObject;
    const swapped = (first.spec as typeof spec).versions.map((v) => ({ ...v, storage: v.name === "v1beta1" }));
    const swap = await s.req("PUT", `${CRDS}/robots.example.net`, {
      ...first,
      spec: { ...(first.spec as object), versions: swapped },
    });
    expect(swap.status).toBe(200);
    expect((swap.json as { status: { storedVersions: string[] } }).status.storedVersions).toEqual(["v1", "v1beta1"]);
    expect(await hash()).not.toBe(before);
    // Served no more: 404, discovery without it.
    const stored = (await s.req("GET", `${CRDS}/robots.example.net`)).json as KubeObject;
    const versions = (stored.spec as typeof spec).versions.map((v) =>
      v.name === "v1beta1" ? { ...v, served: false } : v,
    );
    const put = await s.req("PUT", `${CRDS}/robots.example.net`, {
      ...stored,
      spec: { ...(stored.spec as object), versions },
    });
    expect(put.status).toBe(200);
    expect((await s.req("GET", `${beta}/r1`)).status).toBe(404);
    expect((await s.req("GET", "/apis/example.net/v1beta1")).status).toBe(404);
    const after = (await s.req("GET", "/apis/example.net")).json as { versions: Array<{ version: string }> };
    expect(after.versions.map((v) => v.version)).toEqual(["v1"]);
  });

  it("Table output prints each version's additionalPrinterColumns (NAME AGE without)", async () => {
    const s = await start();
    const crd = definition();
    const spec = crd.spec as { versions: Array<Record<string, unknown>> };
    spec.versions[0]!.additionalPrinterColumns = [
      { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
      { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1 },
    ];
    spec.versions.push({ ...spec.versions[0], name: "v1beta1", storage: false, additionalPrinterColumns: undefined });
    expect((await s.req("POST", CRDS, crd)).status).toBe(201);
    const path = "/apis/example.net/v1/namespaces/default/robots";
    await s.req("POST", path, {
      apiVersion: "example.net/v1",
      kind: "Robot",
      metadata: { name: "r1" },
      spec: { replicas: 2 },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    });
    const asTable = { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" };
    const v1 = (await s.req("GET", path, undefined, asTable)).json as {
      columnDefinitions: Array<{ name: string; priority: number }>;
      rows: Array<{ cells: unknown[] }>;
    };
    expect(v1.columnDefinitions.map((c) => [c.name, c.priority])).toEqual([
      ["Name", 0],
      ["Replicas", 0],
      ["Ready", 1],
    ]);
    // The status subresource dropped the created status: no Ready condition, a null cell.
    expect(v1.rows.map((r) => r.cells)).toEqual([["r1", 2, null]]);
    const beta = (await s.req("GET", "/apis/example.net/v1beta1/namespaces/default/robots", undefined, asTable))
      .json as {
      columnDefinitions: Array<{ name: string }>;
    };
    expect(beta.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Age"]);
  });

  it("an invalid definition is a 422 with upstream's Status; nothing is stored or served", async () => {
    const s = await start();
    const rv = s.engine.currentResourceVersion;
    const r = await s.req("POST", CRDS, definition("robots"));
    expect(r.status).toBe(422);
    expect(r.text.trimEnd()).toBe(
      JSON.stringify(
        failure(
          422,
          "Invalid",
          'CustomResourceDefinition.apiextensions.k8s.io "robots" is invalid: metadata.name: Invalid value: "robots": must be spec.names.plural+"."+spec.group',
          {
            name: "robots",
            group: "apiextensions.k8s.io",
            kind: "CustomResourceDefinition",
            causes: [
              {
                reason: "FieldValueInvalid",
                message: 'Invalid value: "robots": must be spec.names.plural+"."+spec.group',
                field: "metadata.name",
              },
            ],
          },
        ),
      ),
    );
    expect(s.engine.currentResourceVersion).toBe(rv);
    expect((await s.req("GET", "/apis/example.net/v1")).status).toBe(404);
  });
});
