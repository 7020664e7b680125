// Server-side apply, managedFields and metadata-only responses over real HTTP (SimHttpServer + EngineBackend, engine
// on a FakeClock): status codes and exact Status bodies of kube-apiserver for apply conflicts, bad apply bodies and
// PatchOptions, the Update entries of POST/PUT/merge-patch writes, and PartialObjectMetadata(List) negotiation.
import { failureStatus as failure, type KubeObject, type Status } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { WIDGETS } from "../../packages/sim-apiserver/src/engine/resources.test-util.js";
import { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";
import { fetchRaw, openStream, type RawResponse } from "../../packages/sim-apiserver/src/http/http-client.test-util.js";
import { SimHttpServer } from "../../packages/sim-apiserver/src/http/server.js";

const CM = "/api/v1/namespaces/default/configmaps";
const APPLY = { "content-type": "application/apply-patch+yaml" };

const open: SimHttpServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function start() {
  const clock = new FakeClock(Date.parse("2026-05-01T12:00:00Z"));
  const engine = new SimApiServer({ clock, rand: seededRand(5), progressNotifyIntervalMs: 0, compactionIntervalMs: 0 });
  engine.register(WIDGETS);
  const server = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  open.push(server);
  const url = await server.start();
  const req = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
    fetchRaw(`${url}${path}`, {
      method,
      headers: { "user-agent": "conformance/1.0", ...headers },
      ...(body !== undefined && { body }),
    });
  return { clock, engine, url, req };
}

function expectStatus(r: RawResponse, status: Status): void {
  expect(r.status).toBe(status.code);
  expect(r.text.trimEnd()).toBe(JSON.stringify(status));
}

const mf = (o: unknown) =>
  (((o as KubeObject).metadata?.managedFields ?? []) as Array<Record<string, unknown>>).map((e) => [
    e.manager,
    e.operation,
    e.fieldsV1,
  ]);

describe("server-side apply over HTTP", () => {
  it("apply creates (201), conflicts with the creator (409 Status as upstream), force takes over (200)", async () => {
    const s = await start();
    const created = await s.req(
      "POST",
      `${CM}?fieldManager=kubectl-create`,
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } }),
      { "content-type": "application/json" },
    );
    expect(created.status).toBe(201);
    expect(mf(created.json)).toEqual([["kubectl-create", "Update", { "f:data": { ".": {}, "f:a": {} } }]]);

    const body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: '2'\n";
    const conflict = await s.req("PATCH", `${CM}/c?fieldManager=mgr`, body, APPLY);
    expectStatus(
      conflict,
      failure(409, "Conflict", 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a', {
        causes: [
          { reason: "FieldManagerConflict", message: 'conflict with "kubectl-create" using v1', field: ".data.a" },
        ],
      }),
    );
    const forced = await s.req("PATCH", `${CM}/c?fieldManager=mgr&force=true`, body, APPLY);
    expect(forced.status).toBe(200);
    expect((forced.json as KubeObject).data).toEqual({ a: "2" });
    expect(mf(forced.json)).toEqual([
      ["mgr", "Apply", { "f:data": { "f:a": {} } }],
      ["kubectl-create", "Update", { "f:data": {} }], // still owns the map itself
    ]);

    const fresh = await s.req(
      "PATCH",
      `${CM}/d?fieldManager=mgr`,
      '{"apiVersion":"v1","kind":"ConfigMap","data":{"x":"1"}}',
      APPLY,
    );
    expect(fresh.status).toBe(201);
    expect((fresh.json as KubeObject).metadata).toMatchObject({ name: "d", namespace: "default" });
  });

  it("a merge patch records an Update entry under the user agent's prefix", async () => {
    const s = await start();
    await s.engine.create(
      "configmaps",
      "default",
      { metadata: { name: "c" }, data: { a: "1" } },
      { fieldManager: "seed" },
    );
    const patched = await s.req("PATCH", `${CM}/c`, '{"data":{"b":"2"}}', {
      "content-type": "application/merge-patch+json",
    });
    expect(patched.status).toBe(200);
    // Same second: entries sort by manager name.
    expect(mf(patched.json)).toEqual([
      ["conformance", "Update", { "f:data": { "f:b": {} } }],
      ["seed", "Update", { "f:data": { ".": {}, "f:a": {} } }],
    ]);
  });

  it("bad input: YAML that does not parse (400), a list (400), no fieldManager (422), force on a merge patch (422); nothing written", async () => {
    const s = await start();
    const rv = s.engine.currentResourceVersion;
    expectStatus(
      await s.req("PATCH", `${CM}/c?fieldManager=m`, "apiVersion: v1\nkind: ConfigMap: x\n", APPLY),
      failure(
        400,
        "BadRequest",
        "error decoding YAML: error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context",
      ),
    );
    expectStatus(
      await s.req("PATCH", `${CM}/c?fieldManager=m`, "- a\n- b\n", APPLY),
      failure(
        400,
        "BadRequest",
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}",
      ),
    );
    expectStatus(
      await s.req("PATCH", `${CM}/c`, "apiVersion: v1\nkind: ConfigMap\n", APPLY),
      failure(
        422,
        "Invalid",
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        {
          group: "meta.k8s.io",
          kind: "PatchOptions",
          causes: [
            {
              reason: "FieldValueRequired",
              message: "Required value: is required for apply patch",
              field: "fieldManager",
            },
          ],
        },
      ),
    );
    const force = await s.req("PATCH", `${CM}/c?force=true`, "{}", { "content-type": "application/merge-patch+json" });
    expect([force.status, (force.json as Status).message]).toEqual([
      422,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    ]);
    const kind = await s.req("PATCH", `${CM}/c?fieldManager=m`, "apiVersion: v1\nkind: Secret\n", APPLY);
    expect([kind.status, (kind.json as Status).message]).toEqual([400, "invalid object type: /v1, Kind=Secret"]);
    expect(s.engine.currentResourceVersion).toBe(rv);
  });

  it("custom resources: apply by two managers keeps both; the conflict names the schemaless field", async () => {
    const s = await start();
    const path = `/apis/${WIDGETS.group}/${WIDGETS.version}/namespaces/default/${WIDGETS.resource}/w`;
    const doc = (spec: string) =>
      `apiVersion: ${WIDGETS.group}/${WIDGETS.version}\nkind: ${WIDGETS.kind}\nmetadata:\n  name: w\nspec:\n${spec}`;
    expect((await s.req("PATCH", `${path}?fieldManager=a`, doc("  size: 1\n"), APPLY)).status).toBe(201);
    const b = await s.req("PATCH", `${path}?fieldManager=b`, doc("  color: red\n"), APPLY);
    expect((b.json as KubeObject).spec).toEqual({ size: 1, color: "red" });
    const c = await s.req("PATCH", `${path}?fieldManager=b`, doc("  size: 2\n"), APPLY);
    expect([c.status, (c.json as Status).message]).toEqual([
      409,
      'Apply failed with 1 conflict: conflict with "a": .spec.size',
    ]);
  });
});

describe("metadata-only responses over HTTP", () => {
  const LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
  const ONE = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

  it("lists and gets carry only metadata, kind/apiVersion meta.k8s.io/v1", async () => {
    const s = await start();
    await s.engine.create("configmaps", "default", { metadata: { name: "c", labels: { a: "b" } }, data: { big: "x" } });
    const list = await s.req("GET", CM, undefined, { accept: LIST });
    const l = list.json as { kind: string; apiVersion: string; items: KubeObject[] };
    expect([l.kind, l.apiVersion]).toEqual(["PartialObjectMetadataList", "meta.k8s.io/v1"]);
    expect(l.items).toHaveLength(1);
    expect(Object.keys(l.items[0]!)).toEqual(["kind", "apiVersion", "metadata"]);
    expect(l.items[0]!.metadata?.labels).toEqual({ a: "b" });
    const one = await s.req("GET", `${CM}/c`, undefined, { accept: ONE });
    expect(one.json).toMatchObject({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1" });
    expect((one.json as KubeObject).data).toBeUndefined();
  });

  it("watch events carry PartialObjectMetadata objects", async () => {
    const s = await start();
    await s.engine.create("configmaps", "default", { metadata: { name: "c" }, data: { big: "x" } });
    const rv = s.engine.currentResourceVersion;
    const stream = await openStream(`${s.url}${CM}?watch=true&resourceVersion=${rv}`, {
      headers: { accept: ONE },
    });
    try {
      await s.engine.create("configmaps", "default", { metadata: { name: "d" }, data: { big: "y" } });
      const e = await stream.nextEvent();
      expect(e?.type).toBe("ADDED");
      expect(Object.keys(e!.object)).toEqual(["kind", "apiVersion", "metadata"]);
      expect(e!.object).toMatchObject({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1" });
    } finally {
      stream.close();
    }
  });

  it("406: an unsupported as=, and the list/object kind that does not fit the endpoint", async () => {
    const s = await start();
    await s.engine.create("configmaps", "default", { metadata: { name: "c" } });
    expectStatus(
      await s.req("GET", CM, undefined, { accept: "application/json;as=Foo;g=meta.k8s.io;v=v1" }),
      failure(
        406,
        "NotAcceptable",
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
      ),
    );
    expectStatus(
      await s.req("GET", CM, undefined, { accept: ONE }),
      failure(
        406,
        "NotAcceptable",
        "you requested PartialObjectMetadata, but the requested object is a list (*v1.ConfigMapList)",
      ),
    );
    expectStatus(
      await s.req("GET", `${CM}/c`, undefined, { accept: LIST }),
      failure(
        406,
        "NotAcceptable",
        "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.ConfigMap)",
      ),
    );
  });
});
