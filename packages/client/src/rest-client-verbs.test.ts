import { isConflict, type KubeObject, type StatusError, type WatchEvent } from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { resources } from "./builtin-resources.js";
import { sendJSON, startServer, type TestServer } from "./internal/test-server.test-util.js";
import type { PartialObjectMetadata } from "./object-types.js";
import { customResource, RequestConstructionError } from "./resources.js";
import { KubeClient, METADATA_ACCEPT, METADATA_LIST_ACCEPT } from "./rest-client.js";
import { TokenBucketRateLimiter } from "./throttle.js";

let servers: TestServer[] = [];
let clients: KubeClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

/** A server that echoes what it received as the object it answers (so a test sees the wire shape). */
async function echoServer(answer?: (method: string, url: string, body: string) => unknown): Promise<TestServer> {
  const s = await startServer((req, res, body) => {
    const out =
      answer?.(req.method ?? "", req.url ?? "", body) ?? (body === "" ? { kind: "Status" } : JSON.parse(body));
    sendJSON(res, 200, out);
  });
  servers.push(s);
  return s;
}

function client(url: string): KubeClient {
  const c = new KubeClient({ server: url }, { rateLimiter: null, quiet: true });
  clients.push(c);
  return c;
}

const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "prod" },
  spec: { replicas: 2, selector: { matchLabels: { app: "web" } }, template: {} },
};

describe("subresources", () => {
  it("getStatus/updateStatus/patchStatus address /status", async () => {
    const s = await echoServer((m, _u, body) => (m === "GET" ? deployment : JSON.parse(body)));
    const c = client(s.url);
    const got = await c.getStatus(resources.deployments, "web", { namespace: "prod" });
    expect(got.metadata?.name).toBe("web");
    await c.updateStatus(resources.deployments, { ...deployment, status: { replicas: 2 } }, { fieldManager: "ctl" });
    await c.patchStatus(resources.deployments, "web", { status: { readyReplicas: 1 } }, { namespace: "prod" });
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /apis/apps/v1/namespaces/prod/deployments/web/status",
      "PUT /apis/apps/v1/namespaces/prod/deployments/web/status?fieldManager=ctl",
      "PATCH /apis/apps/v1/namespaces/prod/deployments/web/status",
    ]);
    expect(JSON.parse(s.requests[1]!.body).status).toEqual({ replicas: 2 });
    expect(s.requests[2]!.headers["content-type"]).toBe("application/merge-patch+json");
  });

  it("getScale/updateScale/patchScale address /scale with an autoscaling/v1 Scale", async () => {
    const scale = {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "web", namespace: "prod" },
      spec: { replicas: 2 },
    };
    const s = await echoServer((m, _u, body) => (m === "GET" ? scale : JSON.parse(body)));
    const c = client(s.url);
    const got = await c.getScale(resources.deployments, "web", { namespace: "prod" });
    expect(got.spec?.replicas).toBe(2);
    const updated = await c.updateScale(resources.deployments, { ...scale, spec: { replicas: 5 } });
    expect(updated.spec?.replicas).toBe(5);
    await c.patchScale(resources.statefulSets, "db", { spec: { replicas: 1 } }, { namespace: "prod" });
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /apis/apps/v1/namespaces/prod/deployments/web/scale",
      "PUT /apis/apps/v1/namespaces/prod/deployments/web/scale",
      "PATCH /apis/apps/v1/namespaces/prod/statefulsets/db/scale",
    ]);
  });

  it("a subresource the descriptor does not serve fails before sending, naming it", async () => {
    const s = await echoServer();
    const c = client(s.url);
    await expect(c.getStatus(resources.configMaps, "x", { namespace: "a" })).rejects.toThrow(
      /configmaps has no subresources \(asked for "status"\)/,
    );
    await expect(c.getScale(resources.daemonSets, "x", { namespace: "a" })).rejects.toThrow(
      /"scale" is not served for daemonsets\.apps \(served: status\)/,
    );
    // A custom resource without declared subresources is not checked by the client.
    const widgets = customResource({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget" });
    await c.getStatus(widgets, "w", { namespace: "a" });
    expect(s.requests.map((r) => r.url)).toEqual(["/apis/example.com/v1/namespaces/a/widgets/w/status"]);
  });
});

describe("patches and server-side apply", () => {
  it("each patch type sends its content type and the body as given", async () => {
    const s = await echoServer(() => deployment);
    const c = client(s.url);
    const ns = { namespace: "prod" };
    await c.patch(resources.deployments, "web", { spec: { replicas: 3 } }, ns);
    await c.patch(resources.deployments, "web", { spec: { replicas: 3 } }, { ...ns, patchType: "strategic-merge" });
    await c.patch(resources.deployments, "web", [{ op: "replace", path: "/spec/replicas", value: 3 }], {
      ...ns,
      patchType: "json",
    });
    await c.patch(resources.deployments, "web", '{"spec":{"replicas":4}}', ns);
    expect(s.requests.map((r) => r.headers["content-type"])).toEqual([
      "application/merge-patch+json",
      "application/strategic-merge-patch+json",
      "application/json-patch+json",
      "application/merge-patch+json",
    ]);
    expect(s.requests.map((r) => r.body)).toEqual([
      '{"spec":{"replicas":3}}',
      '{"spec":{"replicas":3}}',
      '[{"op":"replace","path":"/spec/replicas","value":3}]',
      '{"spec":{"replicas":4}}',
    ]);
  });

  it("apply: application/apply-patch+yaml with a JSON body, fieldManager and force in the query, type filled in", async () => {
    const s = await echoServer();
    const c = client(s.url);
    const out = await c.apply(
      resources.configMaps,
      { metadata: { name: "cfg", namespace: "default" }, data: { a: "1" } },
      { fieldManager: "my-controller", force: true, dryRun: true },
    );
    expect(out.data).toEqual({ a: "1" });
    const r = s.requests[0]!;
    expect(r.method).toBe("PATCH");
    expect(r.url).toBe("/api/v1/namespaces/default/configmaps/cfg?dryRun=All&fieldManager=my-controller&force=true");
    expect(r.headers["content-type"]).toBe("application/apply-patch+yaml");
    expect(JSON.parse(r.body)).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cfg", namespace: "default" },
      data: { a: "1" },
    });
  });

  it("applyStatus patches /status with the apply content type", async () => {
    const s = await echoServer();
    const c = client(s.url);
    await c.applyStatus(
      resources.deployments,
      { metadata: { name: "web", namespace: "prod" }, status: { replicas: 1 } },
      { fieldManager: "ctl" },
    );
    expect(s.requests[0]!.url).toBe("/apis/apps/v1/namespaces/prod/deployments/web/status?fieldManager=ctl");
    expect(s.requests[0]!.headers["content-type"]).toBe("application/apply-patch+yaml");
  });

  it("a 409 apply conflict is the server's StatusError with its causes", async () => {
    const conflict = {
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      code: 409,
      reason: "Conflict",
      message: 'Apply failed with 1 conflict: conflict with "other" using v1: .data.a',
      details: {
        name: "cfg",
        kind: "configmaps",
        causes: [{ reason: "FieldManagerConflict", message: 'conflict with "other" using v1', field: ".data.a" }],
      },
    };
    const s = await startServer((_req, res) => sendJSON(res, 409, conflict));
    servers.push(s);
    const c = client(s.url);
    const err = await c
      .apply(resources.configMaps, { metadata: { name: "cfg", namespace: "d" } }, { fieldManager: "m" })
      .catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect((err as StatusError).status.details?.causes?.[0]).toEqual({
      reason: "FieldManagerConflict",
      message: 'conflict with "other" using v1',
      field: ".data.a",
    });
  });

  it.each([
    [{ patchType: "apply" }, /fieldManager: required for apply patch/],
    [{ patchType: "merge", force: true }, /force: may not be specified for non-apply patch/],
    [{ patchType: "bogus" }, /patchType must be one of merge, strategic-merge, json, apply; got "bogus"/],
    [{ fieldManager: "x".repeat(129) }, /fieldManager: must have at most 128 characters, got 129/],
    [{ fieldManager: "a\nb" }, /fieldManager: must only contain printable characters/],
    [{ fieldValidation: "Loose" }, /fieldValidation must be one of Strict, Warn, Ignore; got "Loose"/],
    [{ dryRun: "yes" }, /dryRun must be a boolean, got "yes"/],
  ])("patch options %j are refused before sending", async (options, message) => {
    const s = await echoServer();
    const c = client(s.url);
    await expect(
      c.patch(resources.deployments, "web", { a: 1 }, { namespace: "prod", ...(options as object) }),
    ).rejects.toThrow(message);
    expect(s.requests).toEqual([]);
  });

  it.each([
    ["json", { op: "add" }, /a json patch must be an array of operations, got an object/],
    [
      "json",
      [{ op: "frobnicate", path: "/a" }],
      /patch\[0\]\.op must be one of add, remove, replace, move, copy, test/,
    ],
    ["json", [{ op: "add", path: 1 }], /patch\[0\]\.path must be a string/],
    ["merge", [1, 2], /a merge patch must be a JSON object, got an array/],
    ["merge", "{not json", /patch: not valid JSON for a merge patch/],
    ["strategic-merge", null, /a strategic-merge patch must be a JSON object, got null/],
  ])("a %s patch %j is refused before sending", async (patchType, patch, message) => {
    const s = await echoServer();
    const c = client(s.url);
    await expect(
      c.patch(resources.deployments, "web", patch, { namespace: "prod", patchType: patchType as "json" }),
    ).rejects.toThrow(message);
    expect(s.requests).toEqual([]);
  });

  it("strategic merge patch of a custom resource is refused (custom resources answer 415)", async () => {
    const s = await echoServer();
    const c = client(s.url);
    const widgets = customResource({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget" });
    await expect(c.patch(widgets, "w", { spec: {} }, { namespace: "a", patchType: "strategic-merge" })).rejects.toThrow(
      /strategic-merge is not supported for widgets\.example\.com/,
    );
    expect(s.requests).toEqual([]);
  });

  it("apply refuses an object without a name, a kind that does not match, or a namespace mismatch", async () => {
    const s = await echoServer();
    const c = client(s.url);
    await expect(c.apply(resources.configMaps, { metadata: {} }, { fieldManager: "m" })).rejects.toThrow(
      /apply: metadata\.name is required/,
    );
    await expect(
      c.apply(resources.configMaps, { kind: "Secret", metadata: { name: "a", namespace: "n" } }, { fieldManager: "m" }),
    ).rejects.toThrow(/apply: kind "Secret" does not match the resource's "ConfigMap"/);
    await expect(
      c.apply(resources.configMaps, { metadata: { name: "a", namespace: "n" } }, { fieldManager: "m", namespace: "o" }),
    ).rejects.toThrow(/namespace of the request \("o"\) does not match metadata\.namespace \("n"\)/);
    await expect(
      c.apply(resources.configMaps, { metadata: { name: "a", namespace: "n" } }, { fieldManager: "" }),
    ).rejects.toThrow(/fieldManager is required/);
    expect(s.requests).toEqual([]);
  });
});

describe("create/update options", () => {
  it("dryRun, fieldManager and fieldValidation go in the query", async () => {
    const s = await echoServer();
    const c = client(s.url);
    const obj = { metadata: { name: "a", namespace: "n" }, data: {} };
    await c.create(resources.configMaps, obj, { dryRun: true, fieldManager: "m", fieldValidation: "Strict" });
    await c.update(resources.configMaps, obj, { dryRun: true });
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /api/v1/namespaces/n/configmaps?dryRun=All&fieldManager=m&fieldValidation=Strict",
      "PUT /api/v1/namespaces/n/configmaps/a?dryRun=All",
    ]);
  });

  it("refuses an object that is not an object and a namespace that contradicts the object's", async () => {
    const s = await echoServer();
    const c = client(s.url);
    await expect(c.create(resources.configMaps, [] as never, { namespace: "n" })).rejects.toThrow(
      /create: the object must be a JSON object/,
    );
    await expect(
      c.update(resources.configMaps, { metadata: { name: "a", namespace: "n" } }, { namespace: "m" }),
    ).rejects.toThrow(/does not match metadata\.namespace/);
    expect(s.requests).toEqual([]);
  });
});

describe("delete and deleteCollection", () => {
  it("delete sends DeleteOptions with every option", async () => {
    const s = await echoServer(() => ({ kind: "Status", apiVersion: "v1", status: "Success" }));
    const c = client(s.url);
    await c.delete(resources.pods, "p", {
      namespace: "n",
      gracePeriodSeconds: 0,
      propagationPolicy: "Foreground",
      preconditions: { uid: "u-1", resourceVersion: "42" },
      dryRun: true,
    });
    expect(s.requests[0]!.method).toBe("DELETE");
    expect(s.requests[0]!.url).toBe("/api/v1/namespaces/n/pods/p");
    expect(JSON.parse(s.requests[0]!.body)).toEqual({
      kind: "DeleteOptions",
      apiVersion: "v1",
      gracePeriodSeconds: 0,
      propagationPolicy: "Foreground",
      preconditions: { uid: "u-1", resourceVersion: "42" },
      dryRun: ["All"],
    });
  });

  it("deleteCollection: DELETE on the collection, list options in the query, delete options in the body", async () => {
    const s = await echoServer(() => ({ kind: "ConfigMapList", apiVersion: "v1", metadata: {}, items: [] }));
    const c = client(s.url);
    const out = await c.deleteCollection(resources.configMaps, {
      namespace: "n",
      labelSelector: "app=web",
      fieldSelector: "metadata.name!=keep",
      propagationPolicy: "Background",
    });
    expect(out).toMatchObject({ kind: "ConfigMapList" });
    expect(s.requests[0]!.method).toBe("DELETE");
    expect(s.requests[0]!.url).toBe(
      "/api/v1/namespaces/n/configmaps?fieldSelector=metadata.name%21%3Dkeep&labelSelector=app%3Dweb",
    );
    expect(JSON.parse(s.requests[0]!.body)).toEqual({
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Background",
    });
    await c.deleteCollection(resources.namespaces);
    expect(s.requests[1]!.url).toBe("/api/v1/namespaces");
    expect(s.requests[1]!.body).toBe("");
  });

  it.each([
    [{ gracePeriodSeconds: -1 }, /gracePeriodSeconds must be a non-negative integer, got -1/],
    [{ gracePeriodSeconds: 1.5 }, /gracePeriodSeconds must be a non-negative integer, got 1.5/],
    [
      { propagationPolicy: "Cascade" },
      /propagationPolicy must be one of Orphan, Background, Foreground; got "Cascade"/,
    ],
    [{ preconditions: { uid: "" } }, /preconditions\.uid must be a non-empty string/],
    [{ preconditions: { generation: 1 } }, /preconditions\.generation: unknown field/],
    [{ dryRun: 1 }, /dryRun must be a boolean, got 1/],
  ])("delete options %j are refused before sending", async (options, message) => {
    const s = await echoServer();
    const c = client(s.url);
    await expect(c.delete(resources.pods, "p", { namespace: "n", ...(options as object) })).rejects.toThrow(
      RequestConstructionError,
    );
    await expect(c.deleteCollection(resources.pods, { namespace: "n", ...(options as object) })).rejects.toThrow(
      message,
    );
    expect(s.requests).toEqual([]);
  });
});

describe("metadata-only list/watch", () => {
  const meta = (name: string, rv: string) => ({
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    metadata: { name, namespace: "n", resourceVersion: rv },
  });

  it("listMetadata sends the PartialObjectMetadataList Accept header and returns the server's list", async () => {
    const s = await echoServer(() => ({
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "9" },
      items: [meta("a", "5")],
    }));
    const c = client(s.url);
    const list = await c.listMetadata(resources.configMaps, { namespace: "n", limit: 10 });
    expect(s.requests[0]!.headers.accept).toBe(
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
    );
    expect(s.requests[0]!.headers.accept).toBe(METADATA_LIST_ACCEPT);
    expect(s.requests[0]!.url).toBe("/api/v1/namespaces/n/configmaps?limit=10");
    expect(list.items).toEqual([meta("a", "5")]);
    expect(list.metadata.resourceVersion).toBe("9");
  });

  it("full objects from a server that ignores as= are reduced to PartialObjectMetadata", async () => {
    const s = await echoServer(() => ({
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: { resourceVersion: "9" },
      items: [{ metadata: { name: "a", namespace: "n", resourceVersion: "5" }, data: { big: "x".repeat(100) } }],
    }));
    const c = client(s.url);
    const list = await c.listMetadata(resources.configMaps, { namespace: "n" });
    expect(list).toEqual({
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "9" },
      items: [meta("a", "5")],
    });
  });

  it("watchMetadata sends the PartialObjectMetadata Accept header; events carry metadata only", async () => {
    const s = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const full = {
        kind: "ConfigMap",
        apiVersion: "v1",
        metadata: { name: "b", namespace: "n", resourceVersion: "7" },
        data: {},
      };
      res.write(`${JSON.stringify({ type: "ADDED", object: meta("a", "6") })}\n`);
      res.write(`${JSON.stringify({ type: "MODIFIED", object: full })}\n`);
      res.end(`${JSON.stringify({ type: "ERROR", object: { kind: "Status", status: "Failure", code: 410 } })}\n`);
    });
    servers.push(s);
    const c = client(s.url);
    const w = await c.watchMetadata(resources.configMaps, { namespace: "n", resourceVersion: "5" });
    const events: WatchEvent<PartialObjectMetadata>[] = [];
    for await (const e of w) events.push(e);
    expect(s.requests[0]!.headers.accept).toBe(METADATA_ACCEPT);
    expect(s.requests[0]!.url).toBe("/api/v1/namespaces/n/configmaps?resourceVersion=5&watch=true");
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "ERROR"]);
    expect(events[1]!.object).toEqual(meta("b", "7"));
  });

  it("watchMetadata with dropManagedFields leaves managedFields out of every event, through nextBatch too", async () => {
    const mf = [{ manager: "kubectl", operation: "Update", fieldsV1: { "f:data": {} } }];
    const withFields = (name: string, rv: string) => {
      const m = meta(name, rv);
      return { ...m, metadata: { ...m.metadata, managedFields: mf } };
    };
    const full = {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "c", namespace: "n", resourceVersion: "8", managedFields: mf },
      data: {},
    };
    const body = [
      { type: "ADDED", object: withFields("a", "6") },
      { type: "MODIFIED", object: withFields("b", "7") },
      { type: "MODIFIED", object: full },
    ]
      .map((e) => `${JSON.stringify(e)}\n`)
      .join("");
    const s = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    servers.push(s);
    const c = client(s.url);
    const iterated: WatchEvent<PartialObjectMetadata>[] = [];
    for await (const e of await c.watchMetadata(resources.configMaps, {}, undefined, { dropManagedFields: true })) {
      iterated.push(e);
    }
    const w = await c.watchMetadata(resources.configMaps, {}, undefined, { dropManagedFields: true });
    expect(w.nextBatch).toBeTypeOf("function");
    const batched: WatchEvent<PartialObjectMetadata>[] = [];
    for (let r = await w.nextBatch!(); r.done !== true; r = await w.nextBatch!()) batched.push(...r.value);
    const expected = [
      { type: "ADDED", object: meta("a", "6") },
      { type: "MODIFIED", object: meta("b", "7") },
      { type: "MODIFIED", object: meta("c", "8") },
    ];
    expect(iterated).toEqual(expected);
    expect(batched).toEqual(expected);
    const kept = await c.watchMetadata(resources.configMaps);
    const first = await kept.nextBatch!();
    expect(first.done).toBe(false);
    const kept0 = (first.value as readonly WatchEvent<PartialObjectMetadata>[])[0]!.object as PartialObjectMetadata;
    expect(kept0.metadata?.managedFields).toEqual(mf);
    kept.stop();
  });

  it("getMetadata asks for PartialObjectMetadata", async () => {
    const s = await echoServer(() => meta("a", "3"));
    const c = client(s.url);
    const m = await c.getMetadata(resources.secrets, "a", { namespace: "n" });
    expect(m.metadata?.name).toBe("a");
    expect(s.requests[0]!.headers.accept).toBe(METADATA_ACCEPT);
  });
});

describe("slow client-side throttling warning", () => {
  it("warns once, naming qps/burst and how to change them; later long waits are info lines", async () => {
    const s = await echoServer(() => ({ kind: "ConfigMap", metadata: { name: "a" } }));
    const clock = new FakeClock();
    const lines: { level: string; message: string; fields?: Readonly<Record<string, unknown>> }[] = [];
    const c = new KubeClient(
      { server: s.url, qps: 1, burst: 1 },
      {
        clock,
        logger: {
          log: (level, message, fields) => {
            lines.push({ level, message, ...(fields !== undefined && { fields }) });
          },
        },
      },
    );
    clients.push(c);
    const gets = [0, 1, 2, 3].map(() => c.get(resources.configMaps, "a", { namespace: "n" }));
    // 1 token, then one per second: the 2nd request waits 1 s (not more than a second), the 3rd 2 s.
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setImmediate(r));
      await clock.step(1000);
    }
    await Promise.all(gets);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.level).toBe("warn");
    expect(lines[1]).toMatchObject({
      level: "info",
      message: "waited 3.0 s due to client-side throttling, not API priority and fairness",
      fields: { verb: "GET", waitedMs: 3000 },
    });
    expect(lines[0]!.message).toMatch(
      /client-side throttling delayed a request by 2\.0 s \(client-side rate limit qps=1 burst=1\)/,
    );
    expect(lines[0]!.message).toMatch(/raise ClientConfig\.qps and burst/);
    expect(lines[0]!.fields).toMatchObject({ qps: 1, burst: 1, verb: "GET" });
  });

  it("names a custom limiter, and a throwing logger does not fail the request", async () => {
    const s = await echoServer(() => ({ kind: "ConfigMap", metadata: { name: "a" } }));
    const clock = new FakeClock();
    let messages = 0;
    const c = new KubeClient(
      { server: s.url },
      {
        clock,
        rateLimiter: new TokenBucketRateLimiter(0.5, 1, clock),
        logger: {
          log: (_l, message) => {
            messages++;
            expect(message).toMatch(/KubeClientOptions\.rateLimiter/);
            throw new Error("logger down");
          },
        },
      },
    );
    clients.push(c);
    const gets = [0, 1].map(() => c.get(resources.configMaps, "a", { namespace: "n" }));
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setImmediate(r));
      await clock.step(1000);
    }
    await Promise.all(gets);
    expect(messages).toBe(1);
  });

  it("stays silent when no request waits more than a second", async () => {
    const s = await echoServer(() => ({ kind: "ConfigMap", metadata: { name: "a" } }));
    const clock = new FakeClock();
    const lines: string[] = [];
    const c = new KubeClient(
      { server: s.url, qps: 10, burst: 1 },
      { clock, logger: { log: (_l, m) => lines.push(m) } },
    );
    clients.push(c);
    const gets = [0, 1, 2].map(() => c.get(resources.configMaps, "a", { namespace: "n" }));
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      await clock.step(100);
    }
    await Promise.all(gets);
    expect(lines).toEqual([]);
  });
});

// The untyped default still works.
describe("untyped usage", () => {
  it("a KubeObject descriptor returns KubeObjects", async () => {
    const s = await echoServer(() => ({ kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } }));
    const c = client(s.url);
    const widgets = customResource({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget" });
    const w: KubeObject = await c.get(widgets, "w", { namespace: "a" });
    expect(w.spec).toEqual({ size: 1 });
  });
});

describe("getRaw", () => {
  it("GETs a path below the server's base path with the given Accept; refuses paths that are not absolute", async () => {
    const s = await echoServer(() => ({ kind: "APIVersions", versions: ["v1"] }));
    const c = new KubeClient({ server: `${s.url}/k8s/clusters/c-1` }, { rateLimiter: null, quiet: true });
    clients.push(c);
    expect(await c.getRaw("/api", { accept: "application/json" })).toEqual({ kind: "APIVersions", versions: ["v1"] });
    await c.getRaw("/version?x=1");
    expect(s.requests.map((r) => r.url)).toEqual(["/k8s/clusters/c-1/api", "/k8s/clusters/c-1/version?x=1"]);
    expect(s.requests[0]!.headers.accept).toBe("application/json");
    await expect(c.getRaw("api")).rejects.toThrow(/path must start with "\/"/);
    await expect(c.getRaw("/api/../secrets")).rejects.toThrow(/may not contain "\.\."/);
    expect(s.requests).toHaveLength(2);
  });
});

describe("createSubresource", () => {
  it("POSTs below the object: a Pod eviction, a ServiceAccount token", async () => {
    const s = await echoServer();
    const c = client(s.url);
    const eviction = {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "p", namespace: "n" },
      deleteOptions: { gracePeriodSeconds: 30 },
    };
    await c.createSubresource(resources.pods, "p", "eviction", eviction, { namespace: "n", dryRun: true });
    const token = await c.createSubresource<{ spec: { expirationSeconds: number } }>(
      resources.serviceAccounts,
      "default",
      "token",
      { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } },
      { namespace: "n" },
    );
    expect(token.spec.expirationSeconds).toBe(600);
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /api/v1/namespaces/n/pods/p/eviction?dryRun=All",
      "POST /api/v1/namespaces/n/serviceaccounts/default/token",
    ]);
    expect(JSON.parse(s.requests[0]!.body)).toEqual(eviction);
  });

  it("refuses a subresource the resource does not serve and a body that is not an object", async () => {
    const s = await echoServer();
    const c = client(s.url);
    await expect(c.createSubresource(resources.configMaps, "a", "eviction", {}, { namespace: "n" })).rejects.toThrow(
      /configmaps has no subresources/,
    );
    await expect(c.createSubresource(resources.pods, "p", "eviction", "x", { namespace: "n" })).rejects.toThrow(
      /the eviction body must be a JSON object/,
    );
    expect(s.requests).toEqual([]);
  });
});
