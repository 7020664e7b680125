import { getEventListeners } from "node:events";
// HTTP-layer behaviour that does not depend on storage semantics: routing, query/body decoding, error bodies,
// discovery, auth, faults and watch framing. The backend here is a recording stub, so every assertion is about
// what the HTTP face does with a request; storage semantics over HTTP are in test/conformance/.
import type { KubeList, KubeObject, ListOptions, WatchEvent } from "@informer-ts/apimachinery";
import { newNotFound } from "@informer-ts/apimachinery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpFault } from "../engine/filters/http-faults.js";
import { DEFAULT_VERBS, type ServedResource } from "../engine/served-resource.js";
import type { ApiBackend, BackendRequestContext } from "./backend.js";
import { fetchRaw, openStream } from "./http-client.test-util.js";
import { SimHttpServer } from "./server.js";
import { generatePki, type SimPki } from "./tls.js";
import type { WatchStreamSource } from "./watch-server.js";

const configmaps: ServedResource = {
  group: "",
  version: "v1",
  resource: "configmaps",
  kind: "ConfigMap",
  singularName: "configmap",
  namespaced: true,
  shortNames: ["cm"],
  verbs: DEFAULT_VERBS,
};
const namespaces: ServedResource = {
  ...configmaps,
  resource: "namespaces",
  kind: "Namespace",
  singularName: "namespace",
  namespaced: false,
};

interface Call {
  method: string;
  namespace: string;
  name?: string;
  opts?: ListOptions;
  obj?: KubeObject;
  patchType?: string;
  body?: string;
  ctx?: BackendRequestContext;
}

/** A stub backend recording calls; `events` feeds watches. */
class StubBackend implements ApiBackend {
  calls: Call[] = [];
  fault: HttpFault | undefined;
  watchEvents: WatchEvent[] = [];
  stopped = 0;
  resources() {
    return [configmaps, namespaces];
  }
  async list(_r: ServedResource, namespace: string, opts: ListOptions): Promise<KubeList> {
    this.calls.push({ method: "list", namespace, opts });
    return {
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: { resourceVersion: "10" },
      items: [
        {
          metadata: {
            name: "a",
            namespace: "default",
            resourceVersion: "9",
            creationTimestamp: "2026-01-01T00:00:00Z",
          },
          data: { k: "v" },
        },
      ],
    };
  }
  async get(_r: ServedResource, namespace: string, name: string): Promise<KubeObject> {
    this.calls.push({ method: "get", namespace, name });
    if (name !== "a") throw newNotFound({ group: "", resource: "configmaps" }, name);
    return {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "a", namespace, resourceVersion: "9", uid: "u-a" },
      data: { k: "v" },
    };
  }
  async create(
    _r: ServedResource,
    namespace: string,
    obj: KubeObject,
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    this.calls.push({ method: "create", namespace, obj, ctx });
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: "11" } };
  }
  async update(_r: ServedResource, namespace: string, name: string, obj: KubeObject): Promise<KubeObject> {
    this.calls.push({ method: "update", namespace, name, obj });
    return obj;
  }
  async patch(
    _r: ServedResource,
    namespace: string,
    name: string,
    patchType: string,
    body: string,
    ctx: BackendRequestContext,
  ): Promise<KubeObject> {
    this.calls.push({ method: "patch", namespace, name, patchType, body, ctx });
    return { kind: "ConfigMap", apiVersion: "v1", metadata: { name, namespace, resourceVersion: "12" } };
  }
  async delete(_r: ServedResource, namespace: string, name: string): Promise<KubeObject> {
    this.calls.push({ method: "delete", namespace, name });
    return { metadata: { name, namespace, uid: "u-a" } };
  }
  async watch(_r: ServedResource, namespace: string, opts: ListOptions): Promise<WatchStreamSource> {
    this.calls.push({ method: "watch", namespace, opts });
    const events = [...this.watchEvents];
    let stopped = false;
    let wake: (() => void) | undefined;
    return {
      next: async () => {
        while (!stopped && events.length === 0) await new Promise<void>((r) => (wake = r));
        if (stopped) return { done: true, value: undefined };
        return { done: false, value: events.shift()! };
      },
      stop: () => {
        if (!stopped) this.stopped++;
        stopped = true;
        wake?.();
      },
    };
  }
  faultFor(): HttpFault | undefined {
    return this.fault;
  }
}

let backend: StubBackend;
let server: SimHttpServer;
let base: string;

beforeAll(async () => {
  backend = new StubBackend();
  server = new SimHttpServer({ backend });
  base = await server.start();
});
afterAll(async () => {
  await server.close();
});

const CM = `/api/v1/namespaces/default/configmaps`;

function expectStatus(body: unknown, code: number, reason: string, message: string) {
  expect(body).toMatchObject({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  });
}

describe("binding and discovery", () => {
  it("binds 127.0.0.1 and reports the URL", () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
  it("/version, /api, /apis, /api/v1, health", async () => {
    expect((await fetchRaw(`${base}/version`)).json).toMatchObject({ major: "1", minor: "34" });
    expect((await fetchRaw(`${base}/api`)).json).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    expect((await fetchRaw(`${base}/apis`)).json).toEqual({ kind: "APIGroupList", apiVersion: "v1", groups: [] });
    const rl = await fetchRaw(`${base}/api/v1?timeout=32s`);
    expect(rl.headers["content-type"]).toBe("application/json");
    expect(rl.json).toMatchObject({ kind: "APIResourceList", groupVersion: "v1" });
    for (const p of ["/healthz", "/readyz", "/livez"]) expect((await fetchRaw(`${base}${p}`)).text).toBe("ok");
    expect((await fetchRaw(`${base}/openapi/v3`)).json).toHaveProperty(["paths", "api/v1", "serverRelativeURL"]);
  });
  it("unknown non-API path is Go's plain-text 404; unknown GV under /apis is a Status 404", async () => {
    const r = await fetchRaw(`${base}/nope`);
    expect(r.status).toBe(404);
    expect(r.text).toBe("404 page not found\n");
    expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
    const g = await fetchRaw(`${base}/apis/apps/v1`);
    expect(g.status).toBe(404);
    expectStatus(g.json, 404, "NotFound", "the server could not find the requested resource");
  });
});

describe("lifecycle: run(signal)", () => {
  it("serves until the signal aborts, then resolves once closed, leaving no listener on the signal", async () => {
    const ac = new AbortController();
    const own = new SimHttpServer({ backend: new StubBackend() });
    const url = await own.start();
    const running = own.run(ac.signal);
    expect((await fetchRaw(`${url}/healthz`)).text).toBe("ok");
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
    ac.abort();
    await running;
    expect(own.connections).toBe(0);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    await expect(fetchRaw(`${url}/healthz`)).rejects.toThrow();
  });

  it("listens by itself when not started, and returns at once for an aborted signal after closing", async () => {
    const ac = new AbortController();
    const own = new SimHttpServer({ backend: new StubBackend() });
    ac.abort();
    await own.run(ac.signal);
    expect(own.connections).toBe(0);
  });
});

describe("error statuses and routing", () => {
  it("404 unknown resource: exact body, key order, trailing newline", async () => {
    const r = await fetchRaw(`${base}/api/v1/namespaces/default/widgets`);
    expect(r.status).toBe(404);
    expect(r.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n',
    );
  });
  it("404 from the backend keeps the backend's Status (details.kind is the resource)", async () => {
    const r = await fetchRaw(`${base}${CM}/missing`);
    expect(r.status).toBe(404);
    expect(r.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"missing\\" not found","reason":"NotFound","details":{"name":"missing","kind":"configmaps"},"code":404}\n',
    );
  });
  it("405 for a method the path does not serve", async () => {
    for (const [method, path] of [
      ["PUT", CM],
      ["PATCH", CM],
      ["DELETE", CM],
      ["POST", `${CM}/a`],
      ["OPTIONS", `${CM}/a`],
      ["POST", "/api/v1/configmaps"],
      ["POST", "/api/v1/watch/namespaces/default/configmaps"],
    ] as const) {
      const r = await fetchRaw(`${base}${path}`, { method, body: "{}" });
      expect(r.status, `${method} ${path}`).toBe(405);
      expectStatus(r.json, 405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    }
  });
  it("400 for bad integers with Go's message (the backend is not called); the 422 matrix is the backend's", async () => {
    backend.calls = [];
    const r = await fetchRaw(`${base}${CM}?limit=abc`);
    expect(r.status).toBe(400);
    expectStatus(r.json, 400, "BadRequest", 'strconv.ParseInt: parsing "abc": invalid syntax');
    expect(backend.calls).toEqual([]);
    // The HTTP face only decodes: an invalid combination reaches the backend as sent (the engine answers 422; see
    // test/conformance/list-http.test.ts).
    const v = await fetchRaw(`${base}${CM}?resourceVersionMatch=Exact`);
    expect(v.status).toBe(200);
    expect(backend.calls).toEqual([{ method: "list", namespace: "default", opts: { resourceVersionMatch: "Exact" } }]);
  });
  it("400 for a conflicting field selector on a /watch/<name> path", async () => {
    const r = await fetchRaw(`${base}/api/v1/watch/namespaces/default/configmaps/a?fieldSelector=metadata.name%3Db`);
    expect(r.status).toBe(400);
    expectStatus(r.json, 400, "BadRequest", "fieldSelector metadata.name doesn't match requested name");
  });
  it("400 malformed JSON, wrong kind, wrong apiVersion, namespace mismatch, name mismatch", async () => {
    const post = (body: string, path = CM, method = "POST") =>
      fetchRaw(`${base}${path}`, { method, body, headers: { "content-type": "application/json" } });
    const bad = await post("{not json");
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toMatch(
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .* \(7b6e6f74206a736f6e\)$/,
    );
    const kind = await post('{"kind":"Secret","apiVersion":"v1","metadata":{"name":"x"}}');
    expect(kind.status).toBe(400);
    expect((kind.json as { message: string }).message).toMatch(
      /^Secret in version "v1" cannot be handled as a ConfigMap: /,
    );
    const av = await post('{"kind":"ConfigMap","apiVersion":"apps/v1","metadata":{"name":"x"}}');
    expectStatus(
      av.json,
      400,
      "BadRequest",
      "the API version in the data (apps/v1) does not match the expected API version (v1)",
    );
    const ns = await post('{"metadata":{"name":"x","namespace":"other"}}');
    expectStatus(
      ns.json,
      400,
      "BadRequest",
      "the namespace of the provided object does not match the namespace sent on the request",
    );
    const name = await post('{"metadata":{"name":"x"}}', `${CM}/y`, "PUT");
    expectStatus(name.json, 400, "BadRequest", "the name of the object (x) does not match the name on the URL (y)");
    expect(backend.calls.filter((c) => c.method === "create" || c.method === "update")).toEqual([]);
  });
  it("413 for a body over 3 MiB, and the server keeps serving", async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 1, 0x20);
    const r = await fetchRaw(`${base}${CM}`, {
      method: "POST",
      body: big,
      headers: { "content-type": "application/json" },
    });
    expect(r.status).toBe(413);
    expectStatus(r.json, 413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728");
    expect((await fetchRaw(`${base}/healthz`)).status).toBe(200);
  });
  it("a body of exactly 3 MiB is accepted", async () => {
    const head = '{"metadata":{"name":"big"},"data":{"p":"';
    const body = `${head}${"x".repeat(3 * 1024 * 1024 - head.length - 3)}"}}`;
    expect(Buffer.byteLength(body)).toBe(3 * 1024 * 1024);
    const r = await fetchRaw(`${base}${CM}`, { method: "POST", body, headers: { "content-type": "application/json" } });
    expect(r.status).toBe(201);
  });
  it("protobuf create bodies are decoded (a malformed one is 400), CBOR is 415; the backend is not called", async () => {
    backend.calls = [];
    const proto = await fetchRaw(`${base}${CM}`, {
      method: "POST",
      body: "k8s\0",
      headers: { "content-type": "application/vnd.kubernetes.protobuf" },
    });
    expect(proto.status).toBe(400);
    expect(proto.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the object provided is unrecognized (must be of type ConfigMap): empty body at byte 4 (6b387300)","reason":"BadRequest","code":400}\n',
    );
    const cbor = await fetchRaw(`${base}${CM}`, {
      method: "POST",
      body: "k8s\0",
      headers: { "content-type": "application/cbor" },
    });
    expect(cbor.status).toBe(415);
    expect(cbor.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"UnsupportedMediaType","code":415}\n',
    );
    expect(backend.calls).toEqual([]);
  });
});

describe("writes", () => {
  it("POST fills kind/apiVersion/namespace, passes fieldManager, answers 201 with the object", async () => {
    backend.calls = [];
    const r = await fetchRaw(`${base}${CM}?fieldManager=kubectl-create&fieldValidation=Strict`, {
      method: "POST",
      body: '{"metadata":{"name":"n"},"data":{"a":"1"}}',
      headers: { "content-type": "application/json" },
    });
    expect(r.status).toBe(201);
    expect(backend.calls[0]!.obj).toEqual({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "n", namespace: "default" },
      data: { a: "1" },
    });
    expect(r.json).toMatchObject({ kind: "ConfigMap", metadata: { name: "n", resourceVersion: "11" } });
  });
  it("YAML bodies are accepted with Content-Type application/yaml", async () => {
    backend.calls = [];
    const r = await fetchRaw(`${base}${CM}`, {
      method: "POST",
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n",
      headers: { "content-type": "application/yaml" },
    });
    expect(r.status).toBe(201);
    expect(backend.calls[0]!.obj?.metadata?.name).toBe("y");
  });
  it("dryRun, fieldManager and force reach the backend in the request context", async () => {
    backend.calls = [];
    const r = await fetchRaw(`${base}${CM}?dryRun=All&fieldManager=me`, {
      method: "POST",
      body: '{"metadata":{"name":"d"}}',
    });
    expect(r.status).toBe(201);
    expect(backend.calls).toHaveLength(1);
    expect([backend.calls[0]!.ctx?.dryRun, backend.calls[0]!.ctx?.fieldManager]).toEqual([true, "me"]);
  });
  it("PATCH hands the content type and the body to the backend (the registry patches)", async () => {
    backend.calls = [];
    const r = await fetchRaw(`${base}${CM}/a?fieldManager=me&force=true`, {
      method: "PATCH",
      body: '{"data":{"k":null}}',
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ metadata: { name: "a", resourceVersion: "12" } });
    expect(backend.calls).toHaveLength(1);
    const c = backend.calls[0]!;
    expect([c.method, c.name, c.patchType, c.body]).toEqual([
      "patch",
      "a",
      "application/apply-patch+yaml",
      '{"data":{"k":null}}',
    ]);
    expect([c.ctx?.fieldManager, c.ctx?.force]).toEqual(["me", true]);
  });
  it("DELETE answers the Success Status with name, kind=resource and uid", async () => {
    const r = await fetchRaw(`${base}${CM}/a`, { method: "DELETE" });
    expect(r.status).toBe(200);
    expect(r.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"a","kind":"configmaps","uid":"u-a"}}\n',
    );
  });
});

describe("list/get output", () => {
  it("list passes typed ListOptions (watch=True is a watch, ParseBool forms)", async () => {
    backend.calls = [];
    await fetchRaw(`${base}${CM}?limit=500&resourceVersion=0&labelSelector=a%3Db&unknown=1`);
    expect(backend.calls[0]).toEqual({
      method: "list",
      namespace: "default",
      opts: { limit: 500, resourceVersion: "0", labelSelector: "a=b" },
    });
    for (const v of ["1", "t", "T", "TRUE", "true", "True"]) {
      backend.calls = [];
      backend.watchEvents = [];
      const s = await openStream(`${base}${CM}?watch=${v}&resourceVersion=5&timeoutSeconds=7`);
      expect(s.status).toBe(200);
      s.close();
      await s.ended;
      expect(backend.calls[0]).toMatchObject({ method: "watch", opts: { resourceVersion: "5", timeoutSeconds: 7 } });
    }
    for (const v of ["0", "false", "False", "FALSE"]) {
      backend.calls = [];
      await fetchRaw(`${base}${CM}?watch=${v}`);
      expect(backend.calls[0]!.method).toBe("list");
    }
  });
  it("Table for kubectl's Accept: NAME DATA AGE for configmaps", async () => {
    const r = await fetchRaw(`${base}${CM}?limit=500`, {
      headers: {
        accept:
          "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
      },
    });
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.json).toMatchObject({
      kind: "Table",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "10" },
      rows: [{ cells: ["a", 1, expect.any(String)], object: { kind: "PartialObjectMetadata" } }],
    });
  });
  it("Table with includeObject=Object: each row's full object carries kind/apiVersion (list items do not)", async () => {
    const table = { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" };
    const full = await fetchRaw(`${base}${CM}?includeObject=Object`, { headers: table });
    expect(full.json).toMatchObject({
      kind: "Table",
      rows: [{ object: { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a" }, data: { k: "v" } } }],
    });
    const list = await fetchRaw(`${base}${CM}`);
    expect((list.json as { items: Record<string, unknown>[] }).items[0]).not.toHaveProperty("kind");
  });
  it("GET object carries kind/apiVersion", async () => {
    expect((await fetchRaw(`${base}${CM}/a`)).json).toMatchObject({ kind: "ConfigMap", apiVersion: "v1" });
  });
  it("GET object?watch=true is a get, as on kube-apiserver", async () => {
    backend.calls = [];
    const r = await fetchRaw(`${base}${CM}/a?watch=true`);
    expect(r.status).toBe(200);
    expect(backend.calls.map((c) => c.method)).toEqual(["get"]);
  });
});

const ev = (type: "ADDED" | "MODIFIED", name: string, rv: string): WatchEvent => ({
  type,
  object: {
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: { name, namespace: "default", resourceVersion: rv },
    data: { i: name },
  },
});

describe("watch streaming", () => {
  it("200, application/json, chunked, one JSON object + newline per event; headers before any event", async () => {
    backend.watchEvents = [];
    const s = await openStream(`${base}${CM}?watch=1&resourceVersion=5`);
    expect(s.status).toBe(200);
    expect(s.headers["content-type"]).toBe("application/json");
    expect(s.headers["transfer-encoding"]).toBe("chunked");
    s.close();
    backend.watchEvents = [ev("ADDED", "a", "6"), ev("MODIFIED", "a", "7")];
    const s2 = await openStream(`${base}${CM}?watch=1&resourceVersion=5`);
    expect(await s2.nextLine()).toBe(JSON.stringify(ev("ADDED", "a", "6")));
    expect(await s2.nextEvent()).toEqual(ev("MODIFIED", "a", "7"));
    s2.close();
  });
  it("client disconnect stops the engine watch", async () => {
    backend.watchEvents = [];
    const before = backend.stopped;
    const s = await openStream(`${base}${CM}?watch=1`);
    s.close();
    await expect.poll(() => backend.stopped).toBe(before + 1);
  });
  it("Table watch: first event has columnDefinitions, later ones null", async () => {
    backend.watchEvents = [ev("ADDED", "a", "6"), ev("MODIFIED", "a", "7")];
    const s = await openStream(`${base}${CM}?watch=true&resourceVersion=5`, {
      headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
    });
    const e1 = await s.nextEvent();
    const e2 = await s.nextEvent();
    expect(e1).toMatchObject({ type: "ADDED", object: { kind: "Table", columnDefinitions: expect.any(Array) } });
    expect((e1!.object.rows as unknown[]).length).toBe(1);
    expect(e2!.object.columnDefinitions).toBeNull();
    s.close();
  });
  it("no timeoutSeconds → the handler passes none (the backend picks the default); a given one is passed on", async () => {
    backend.calls = [];
    backend.watchEvents = [];
    const s = await openStream(`${base}${CM}?watch=1`);
    s.close();
    const t = await openStream(`${base}${CM}?watch=1&timeoutSeconds=30`);
    t.close();
    expect(backend.calls.map((c) => c.opts)).toEqual([{}, { timeoutSeconds: 30 }]);
  });
});

describe("back-pressure", () => {
  it("a client that stops reading blocks the writer; no more events are pulled until it reads again", async () => {
    // An endless source of 32 KiB events that counts how many the HTTP writer pulled.
    let pulled = 0;
    const big = "x".repeat(32 * 1024);
    class Endless extends StubBackend {
      override async watch(): Promise<WatchStreamSource> {
        let stopped = false;
        return {
          next: async () => {
            if (stopped) return { done: true, value: undefined };
            pulled++;
            return {
              done: false,
              value: { type: "ADDED", object: { metadata: { name: `e${pulled}` }, data: { big } } },
            };
          },
          stop: () => {
            stopped = true;
          },
        };
      }
    }
    const endless = new Endless();
    const srv = new SimHttpServer({ backend: endless });
    const url = await srv.start();
    try {
      const s = await openStream(`${url}${CM}?watch=1`);
      s.pause();
      await expect.poll(() => srv.stats.blockedWatches, { timeout: 20_000 }).toBe(1);
      const atBlock = pulled;
      // While blocked the writer does not call next(): exactly the events written so far were pulled.
      expect(atBlock).toBe(srv.stats.watchEvents);
      expect(srv.stats.backpressureWaits).toBeGreaterThanOrEqual(1);
      // Let the event loop turn many times: nothing more is pulled while the client is paused.
      for (let i = 0; i < 200; i++) await new Promise<void>((r) => setImmediate(r));
      expect(pulled).toBe(atBlock);
      s.resume();
      await expect.poll(() => pulled, { timeout: 20_000 }).toBeGreaterThan(atBlock);
      s.close();
      await expect.poll(() => srv.stats.openWatches).toBe(0);
    } finally {
      await srv.close();
    }
  });
});

describe("faults", () => {
  it("APF 429 is plain text with Retry-After", async () => {
    backend.fault = { type: "apf-429", retryAfterSeconds: 3 };
    try {
      const r = await fetchRaw(`${base}${CM}`);
      expect(r.status).toBe(429);
      expect(r.headers["retry-after"]).toBe("3");
      expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(r.text).toBe("Too many requests, please try again later.\n");
    } finally {
      backend.fault = undefined;
    }
  });
  it("an injected Status error carries Retry-After when retryAfterSeconds > 0", async () => {
    const { newTooManyRequests } = await import("@informer-ts/apimachinery");
    backend.fault = { type: "status", error: newTooManyRequests("storage is (re)initializing", 2) };
    try {
      const r = await fetchRaw(`${base}${CM}?watch=1`);
      expect(r.status).toBe(429);
      expect(r.headers["retry-after"]).toBe("2");
      expect(r.text).toBe(
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","details":{"retryAfterSeconds":2},"code":429}\n',
      );
    } finally {
      backend.fault = undefined;
    }
  });
  it("truncate-mid-JSON writes half a line and ends the response", async () => {
    backend.fault = { type: "truncate-watch", afterEvents: 1 };
    backend.watchEvents = [ev("ADDED", "a", "6"), ev("ADDED", "b", "7")];
    try {
      const s = await openStream(`${base}${CM}?watch=1&resourceVersion=5`);
      expect(await s.nextEvent()).toEqual(ev("ADDED", "a", "6"));
      expect(await s.nextLine()).toBeUndefined();
      const full = JSON.stringify(ev("ADDED", "b", "7"));
      expect(s.rest()).toBe(full.slice(0, Math.floor((full.length + 1) / 2)));
      expect(() => JSON.parse(s.rest())).toThrow();
    } finally {
      backend.fault = undefined;
    }
  });
});

describe("metrics", () => {
  it("/metrics renders the provider; the HTTP layer records long-running watches (request totals are the backend's)", async () => {
    const { PromMetrics } = await import("@informer-ts/instrumentation");
    const prom = new PromMetrics();
    const srv = new SimHttpServer({ backend, metrics: prom, metricsProvider: prom });
    const url = await srv.start();
    try {
      await fetchRaw(`${url}${CM}`);
      await fetchRaw(`${url}${CM}/missing`);
      backend.watchEvents = [];
      const s = await openStream(`${url}${CM}?watch=1`);
      const during = (await fetchRaw(`${url}/metrics`)).text;
      expect(during).toContain('apiserver_longrunning_requests{verb="WATCH",resource="configmaps"} 1');
      s.close();
      await expect.poll(() => srv.stats.openWatches).toBe(0);
      const text = (await fetchRaw(`${url}/metrics`)).text;
      expect(text).not.toContain("apiserver_request_total");
      expect(text).toContain('apiserver_longrunning_requests{verb="WATCH",resource="configmaps"} 0');
    } finally {
      await srv.close();
    }
  });
  it("/metrics is 404 without a renderer", async () => {
    expect((await fetchRaw(`${base}/metrics`)).status).toBe(404);
  });
});

describe("HTTPS and authentication", () => {
  let pki: SimPki;
  let tlsServer: SimHttpServer;
  let tbase: string;
  beforeAll(async () => {
    pki = generatePki();
    tlsServer = new SimHttpServer({ backend, tls: pki, auth: { tokens: ["s3cret"], clientCertificates: true } });
    tbase = await tlsServer.start();
  });
  afterAll(async () => {
    await tlsServer.close();
  });
  it("serves https on 127.0.0.1 with the generated CA", () => {
    expect(tbase).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });
  it("401 Status without credentials or with a wrong token; public paths stay readable", async () => {
    const anon = await fetchRaw(`${tbase}${CM}`, { ca: pki.ca.cert });
    expect(anon.status).toBe(401);
    expect(anon.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n',
    );
    const wrong = await fetchRaw(`${tbase}/healthz`, { ca: pki.ca.cert, headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect((await fetchRaw(`${tbase}/healthz`, { ca: pki.ca.cert })).status).toBe(200);
  });
  it("bearer token or CA-signed client certificate is accepted", async () => {
    expect(
      (await fetchRaw(`${tbase}${CM}`, { ca: pki.ca.cert, headers: { authorization: "Bearer s3cret" } })).status,
    ).toBe(200);
    expect(
      (await fetchRaw(`${tbase}${CM}`, { ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key })).status,
    ).toBe(200);
    const other = generatePki();
    const foreign = await fetchRaw(`${tbase}${CM}`, {
      ca: pki.ca.cert,
      cert: other.client.cert,
      key: other.client.key,
    });
    expect(foreign.status).toBe(401);
  });
});
