// The registry's rules over HTTP (engine/registry/store.ts behind the HTTP face): status subresource routes, bad
// input with upstream's code and message and nothing written, finalizers, namespace lifecycle, 415 bodies.
import { FakeClock, seededRand } from "@informer-ts/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimApiServer } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";
import { fetchRaw } from "../../packages/sim-apiserver/src/http/http-client.test-util.js";
import { SimHttpServer } from "../../packages/sim-apiserver/src/http/server.js";

let clock: FakeClock;
let engine: SimApiServer;
let server: SimHttpServer;
let base: string;
const json = { "content-type": "application/json" };
const DEPLOY = "/apis/apps/v1/namespaces/default/deployments";
const CM = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  clock = new FakeClock();
  engine = new SimApiServer({ clock, rand: seededRand(21), compactionIntervalMs: 0, progressNotifyIntervalMs: 0 });
  server = new SimHttpServer({ backend: new EngineBackend(engine), clock });
  base = await server.start();
});
afterAll(async () => {
  await server.close();
  engine.stop();
});

/** Status JSON of a failed request, and whether the store's revision stayed where it was. */
async function rejected(path: string, init: Parameters<typeof fetchRaw>[1]) {
  const rv = engine.currentResourceVersion;
  const r = await fetchRaw(`${base}${path}`, init);
  return { status: r.status, body: r.json as Record<string, unknown>, unchanged: engine.currentResourceVersion === rv };
}

describe("registry over HTTP", () => {
  it("GET/PUT/PATCH /status of a deployment: status only; the main resource keeps the stored status", async () => {
    const body = {
      metadata: { name: "d" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "d" } },
        template: { metadata: { labels: { app: "d" } }, spec: { containers: [{ name: "c", image: "i" }] } },
      },
      status: { replicas: 3 },
    };
    const c = await fetchRaw(`${base}${DEPLOY}`, { method: "POST", headers: json, body: JSON.stringify(body) });
    expect(c.status).toBe(201);
    expect(c.json).not.toHaveProperty("status");
    const put = await fetchRaw(`${base}${DEPLOY}/d/status`, {
      method: "PUT",
      headers: json,
      body: JSON.stringify({ ...body, spec: { replicas: 9 }, status: { replicas: 1 } }),
    });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ spec: { replicas: 1 }, status: { replicas: 1 }, metadata: { generation: 1 } });
    const patch = await fetchRaw(`${base}${DEPLOY}/d/status`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: '{"status":{"readyReplicas":1}}',
    });
    expect(patch.json).toMatchObject({ status: { replicas: 1, readyReplicas: 1 } });
    const get = await fetchRaw(`${base}${DEPLOY}/d/status`);
    expect(get.json).toMatchObject({ kind: "Deployment", status: { replicas: 1, readyReplicas: 1 } });
    const main = await fetchRaw(`${base}${DEPLOY}/d`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: '{"spec":{"replicas":2},"status":{"replicas":0}}',
    });
    expect(main.json).toMatchObject({ spec: { replicas: 2 }, status: { replicas: 1 }, metadata: { generation: 2 } });
  });

  it("bad input: upstream's code and message, nothing written", async () => {
    await fetchRaw(`${base}${CM}`, { method: "POST", headers: json, body: '{"metadata":{"name":"c"}}' });
    const status = await rejected(`${CM}/c/status`, {
      method: "PUT",
      headers: json,
      body: '{"metadata":{"name":"c"}}',
    });
    expect(status).toEqual({
      status: 404,
      body: expect.objectContaining({
        reason: "NotFound",
        message: "the server could not find the requested resource",
      }),
      unchanged: true,
    });
    const testOp = await rejected(`${CM}/c`, {
      method: "PATCH",
      headers: { "content-type": "application/json-patch+json" },
      body: '[{"op":"test","path":"/metadata/name","value":"x"}]',
    });
    expect(testOp).toEqual({
      status: 422,
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server rejected our request due to an error in our request",
        reason: "Invalid",
        details: {},
        code: 422,
      },
      unchanged: true,
    });
    const fin = await rejected(CM, {
      method: "POST",
      headers: json,
      body: '{"metadata":{"name":"f","finalizers":["a b"]}}',
    });
    expect(fin.status).toBe(422);
    expect(String(fin.body.message)).toMatch(
      /^ConfigMap "f" is invalid: metadata\.finalizers\[0\]: Invalid value: "a b": name part must consist of/,
    );
    expect(fin.unchanged).toBe(true);
    const owner = await rejected(CM, {
      method: "POST",
      headers: json,
      body: '{"metadata":{"name":"o","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"c"}]}}',
    });
    expect([owner.status, owner.body.message, owner.unchanged]).toEqual([
      422,
      'ConfigMap "o" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      true,
    ]);
    const ns = await rejected("/api/v1/namespaces/nope/configmaps", {
      method: "POST",
      headers: json,
      body: '{"metadata":{"name":"x"}}',
    });
    expect([ns.status, ns.body.message, ns.unchanged]).toEqual([404, 'namespaces "nope" not found', true]);
    const proto = await rejected(CM, {
      method: "POST",
      headers: { "content-type": "application/vnd.kubernetes.protobuf" },
      body: "k8s\u0000",
    });
    expect([proto.status, proto.body.reason, proto.unchanged]).toEqual([400, "BadRequest", true]);
    // A kind the simulator has no protobuf schema for (PodTemplate; kubectl create never sends one typed).
    const noSchemaProto = await rejected("/api/v1/namespaces/default/podtemplates", {
      method: "POST",
      headers: { "content-type": "application/vnd.kubernetes.protobuf" },
      body: "k8s\u0000",
    });
    expect([noSchemaProto.status, noSchemaProto.body.reason, noSchemaProto.unchanged]).toEqual([
      415,
      "UnsupportedMediaType",
      true,
    ]);
  });

  it("DELETE of an object with a finalizer answers the object with deletionTimestamp; the finalizer's removal deletes it", async () => {
    await fetchRaw(`${base}${CM}`, {
      method: "POST",
      headers: json,
      body: '{"metadata":{"name":"h","finalizers":["example.com/h"]}}',
    });
    const del = await fetchRaw(`${base}${CM}/h`, {
      method: "DELETE",
      headers: json,
      body: '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}',
    });
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({
      kind: "ConfigMap",
      metadata: { name: "h", deletionGracePeriodSeconds: 0, finalizers: ["example.com/h", "foregroundDeletion"] },
    });
    const pre = await fetchRaw(`${base}${CM}/h`, {
      method: "DELETE",
      headers: json,
      body: '{"preconditions":{"resourceVersion":"1"}}',
    });
    expect(pre.status).toBe(409);
    await fetchRaw(`${base}${CM}/h`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: '{"metadata":{"finalizers":["foregroundDeletion"]}}',
    });
    await clock.step(0); // the garbage collector removes foregroundDeletion: no dependents block it
    expect((await fetchRaw(`${base}${CM}/h`)).status).toBe(404);
  });
});
