import { getEventListeners } from "node:events";
import { gzipSync } from "node:zlib";
import {
  isExpired,
  isGone,
  isInternalError,
  isNotFound,
  isResourceVersionTooLarge,
  isServiceUnavailable,
  isTooManyRequests,
  isUnauthorized,
  type KubeObject,
  newInternalError,
  newNotFound,
  newResourceExpired,
  newServiceUnavailable,
  newTooLargeResourceVersion,
  newTooManyRequests,
  type WatchEvent,
} from "@informer-ts/apimachinery";
import { FakeClock } from "@informer-ts/clock";
import { InMemoryMetrics } from "@informer-ts/instrumentation";
import { filter, firstValueFrom } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { takeEscapedRxjsErrors } from "../../../test/setup/rxjs-unhandled.js";
import { builtinResources } from "./builtin-resources.js";
import type { ClientConfig } from "./client-config.js";
import { sendJSON, startServer, type TestServer, until } from "./internal/test-server.test-util.js";
import { RequestTimeoutError } from "./request-executor.js";
import { RequestConstructionError } from "./resources.js";
import { KubeClient, type KubeClientOptions } from "./rest-client.js";
import type { RestClientEvent } from "./rest-client-metrics.js";
import { TokenBucketRateLimiter } from "./throttle.js";
import { VERSION } from "./version.js";
import { WatchDecodeError } from "./watch-decoder.js";

const { configmaps, nodes, deployments } = builtinResources;

const cm = (name: string, rv: string): KubeObject => ({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name, namespace: "default", resourceVersion: rv },
  data: { k: "v" },
});

let servers: TestServer[] = [];
let clients: KubeClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

function client(config: ClientConfig, options: KubeClientOptions = {}): KubeClient {
  // Quiet unless the test captures the logs.
  const c = new KubeClient(config, options.logger === undefined ? { quiet: true, ...options } : options);
  clients.push(c);
  return c;
}

function nextEvent<T extends RestClientEvent["type"]>(
  c: KubeClient,
  type: T,
): Promise<Extract<RestClientEvent, { type: T }>> {
  return firstValueFrom(c.events$.pipe(filter((e): e is Extract<RestClientEvent, { type: T }> => e.type === type)));
}

describe("KubeClient requests", () => {
  it("list: GET on the collection with the list options, default headers and the bearer token", async () => {
    const s = await serve((_req, res) =>
      sendJSON(res, 200, {
        kind: "ConfigMapList",
        apiVersion: "v1",
        metadata: { resourceVersion: "42" },
        items: [cm("a", "7")],
      }),
    );
    const c = client({ server: s.url, token: "secret-token" });
    const list = await c.list(configmaps, { namespace: "default", limit: 500, resourceVersion: "0" });
    expect(list.metadata.resourceVersion).toBe("42");
    expect(list.items).toEqual([cm("a", "7")]);
    const req = s.requests[0]!;
    expect(req.method).toBe("GET");
    expect(req.url).toBe("/api/v1/namespaces/default/configmaps?limit=500&resourceVersion=0");
    expect(req.headers.authorization).toBe("Bearer secret-token");
    expect(req.headers["user-agent"]).toBe(`informer-ts/${VERSION} (${process.platform}/${process.arch})`);
    expect(req.headers.accept).toBe("application/json, */*");
    expect(req.headers["accept-encoding"]).toBe("gzip");
  });

  it("get / create / update / patch / delete send the right verb, path, body and content type", async () => {
    const s = await serve((req, res, body) => {
      if (req.method === "DELETE") {
        sendJSON(res, 200, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          details: { name: "a" },
        });
        return;
      }
      const obj = body === "" ? cm("a", "1") : { ...JSON.parse(body), metadata: { name: "a", resourceVersion: "9" } };
      sendJSON(res, req.method === "POST" ? 201 : 200, obj);
    });
    const c = client({ server: s.url, userAgent: "my-controller/1.0", qps: -1 });
    expect((await c.get(configmaps, "a", { namespace: "default" })).metadata?.name).toBe("a");
    await c.create(configmaps, cm("a", ""), { fieldManager: "me", dryRun: true });
    await c.update(configmaps, cm("a", "1"), { fieldValidation: "Strict" });
    await c.patch(configmaps, "a", { data: { k: null } }, { namespace: "default" });
    await c.patch(deployments, "d", [{ op: "add", path: "/x", value: 1 }], { namespace: "ns", patchType: "json" });
    const del = await c.delete(configmaps, "a", { namespace: "default", propagationPolicy: "Foreground" });
    await c.delete(nodes, "n1");
    expect(del).toMatchObject({ kind: "Status", status: "Success" });
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /api/v1/namespaces/default/configmaps/a",
      "POST /api/v1/namespaces/default/configmaps?dryRun=All&fieldManager=me",
      "PUT /api/v1/namespaces/default/configmaps/a?fieldValidation=Strict",
      "PATCH /api/v1/namespaces/default/configmaps/a",
      "PATCH /apis/apps/v1/namespaces/ns/deployments/d",
      "DELETE /api/v1/namespaces/default/configmaps/a",
      "DELETE /api/v1/nodes/n1",
    ]);
    expect(s.requests.map((r) => r.headers["content-type"])).toEqual([
      undefined,
      "application/json",
      "application/json",
      "application/merge-patch+json",
      "application/json-patch+json",
      "application/json",
      undefined,
    ]);
    expect(JSON.parse(s.requests[3]!.body)).toEqual({ data: { k: null } });
    expect(JSON.parse(s.requests[5]!.body)).toEqual({
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Foreground",
    });
    expect(s.requests[6]!.body).toBe("");
    expect(s.requests.every((r) => r.headers["user-agent"] === "my-controller/1.0")).toBe(true);
  });

  it("malformed requests fail before anything is sent", async () => {
    const s = await serve((_req, res) => sendJSON(res, 200, {}));
    const c = client({ server: s.url });
    await expect(c.get(configmaps, "a")).rejects.toThrow(RequestConstructionError);
    await expect(c.get(configmaps, "a/b", { namespace: "x" })).rejects.toThrow(/may not contain '\/'/);
    await expect(c.create(configmaps, { metadata: { name: "x" } })).rejects.toThrow(
      "an empty namespace may not be set during creation",
    );
    await expect(c.update(configmaps, { metadata: { namespace: "x" } })).rejects.toThrow(/no metadata.name/);
    expect(s.requests).toHaveLength(0);
  });

  it("a non-2xx Status answer rejects with that StatusError; a 2xx Failure Status too", async () => {
    let n = 0;
    const s = await serve((_req, res) => {
      n++;
      if (n === 1) sendJSON(res, 404, newNotFound({ group: "", resource: "configmaps" }, "nope").status);
      else
        sendJSON(res, 200, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          reason: "Gone",
          code: 410,
        });
    });
    const c = client({ server: s.url });
    const err = await c.get(configmaps, "nope", { namespace: "d" }).catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect((err as Error).message).toBe('configmaps "nope" not found');
    expect(isGone(await c.get(configmaps, "x", { namespace: "d" }).catch((e: unknown) => e))).toBe(true);
  });

  it("a 401 without a Status body is a typed Unauthorized error", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(401, { "content-type": "text/plain" });
      res.end("Unauthorized");
    });
    const err = await client({ server: s.url, token: "wrong" })
      .list(configmaps)
      .catch((e: unknown) => e);
    expect(isUnauthorized(err)).toBe(true);
  });

  it("decodes gzip-compressed responses", async () => {
    const big = { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "5" }, items: [cm("z", "5")] };
    const s = await serve((req, res) => {
      expect(req.headers["accept-encoding"]).toBe("gzip");
      const gz = gzipSync(JSON.stringify(big));
      res.writeHead(200, {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": gz.length,
      });
      res.end(gz);
    });
    expect(await client({ server: s.url }).list(configmaps)).toEqual(big);
  });

  it("disableCompression does not ask for gzip", async () => {
    const s = await serve((_req, res) => sendJSON(res, 200, { metadata: {}, items: [] }));
    await client({ server: s.url, disableCompression: true }).list(nodes);
    expect(s.requests[0]!.headers["accept-encoding"]).toBeUndefined();
  });

  it("basic auth, token providers and auth providers set Authorization (provider asked per request)", async () => {
    const s = await serve((_req, res) => sendJSON(res, 200, { metadata: {}, items: [] }));
    await client({ server: s.url, username: "u", password: "p" }).list(nodes);
    expect(s.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from("u:p").toString("base64")}`);
    let calls = 0;
    const c = client({ server: s.url, token: "static", tokenProvider: () => `tok-${++calls}` });
    await c.list(nodes);
    await c.list(nodes);
    expect(s.requests.slice(1).map((r) => r.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-2"]);
    const c2 = client({
      server: s.url,
      headers: { "Impersonate-User": "jane" },
      authProvider: async () => ({ headers: { Authorization: "Bearer from-exec" } }),
    });
    await c2.list(nodes);
    expect(s.requests[3]!.headers.authorization).toBe("Bearer from-exec");
    expect(s.requests[3]!.headers["impersonate-user"]).toBe("jane");
  });

  it("an auth provider failure fails the request with its error", async () => {
    const s = await serve((_req, res) => sendJSON(res, 200, { metadata: {}, items: [] }));
    const boom = new Error("exec plugin failed");
    const err = await client({ server: s.url, authProvider: () => Promise.reject(boom) })
      .list(nodes)
      .catch((e: unknown) => e);
    expect(err).toBe(boom);
    expect(s.requests).toHaveLength(0);
  });

  it("an aborted signal rejects with its reason, before or during the request", async () => {
    const s = await serve(() => {
      // Never answers.
    });
    const c = client({ server: s.url });
    const pre = new AbortController();
    const reason = new Error("cancelled");
    pre.abort(reason);
    await expect(c.list(nodes, {}, pre.signal)).rejects.toBe(reason);
    const ac = new AbortController();
    const p = c.list(nodes, {}, ac.signal);
    await until(() => s.requests.length === 1, "request reached the server");
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
  });

  it("config.timeoutMs fails a hanging non-watch request on the client's clock", async () => {
    const s = await serve(() => {
      // Never answers.
    });
    const clock = new FakeClock();
    const c = client({ server: s.url, timeoutMs: 5000 }, { clock });
    const p = c.get(configmaps, "a", { namespace: "d" }).catch((e: unknown) => e);
    await until(() => s.requests.length === 1, "request reached the server");
    await clock.step(4999);
    expect(s.requests).toHaveLength(1);
    await clock.step(1);
    const err = await p;
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect((err as RequestTimeoutError).timeoutMs).toBe(5000);
  });

  it("a 2xx body that is not JSON is a decode error naming the request", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("<html>");
    });
    await expect(client({ server: s.url }).list(nodes)).rejects.toThrow(/GET \/api\/v1\/nodes: cannot decode the 200/);
  });

  it("a connection refused is the transport error (ECONNREFUSED in the chain)", async () => {
    const s = await startServer(() => {});
    const url = s.url;
    await s.close();
    const err = await client({ server: url }, { maxRetries: 0 })
      .list(nodes)
      .catch((e: unknown) => e);
    const codes: unknown[] = [];
    for (let e: unknown = err; e !== undefined && e !== null; e = (e as { cause?: unknown }).cause) {
      codes.push((e as { code?: unknown }).code);
      if (Array.isArray((e as { errors?: unknown }).errors)) {
        for (const inner of (e as { errors: unknown[] }).errors) codes.push((inner as { code?: unknown }).code);
      }
    }
    expect(codes).toContain("ECONNREFUSED");
  });
});

describe("KubeClient retries (with_retry.go)", () => {
  it("429 with Retry-After is retried after sleeping Retry-After seconds on the clock, then succeeds", async () => {
    let n = 0;
    const s = await serve((_req, res) => {
      n++;
      if (n <= 3)
        sendJSON(res, 429, newTooManyRequests("storage is (re)initializing", 2).status, { "retry-after": "2" });
      else sendJSON(res, 200, { metadata: { resourceVersion: "1" }, items: [] });
    });
    const clock = new FakeClock();
    const metrics = new InMemoryMetrics();
    const c = client({ server: s.url }, { clock, metrics });
    const start = clock.now();
    const retries: number[] = [];
    c.events$.pipe(filter((e) => e.type === "retry")).subscribe((e) => {
      if (e.type === "retry") retries.push(e.waitMs);
    });
    const p = c.list(configmaps);
    for (let i = 0; i < 3; i++) {
      await nextEvent(c, "retry");
      expect(s.requests).toHaveLength(i + 1);
      await clock.step(1999);
      expect(s.requests).toHaveLength(i + 1);
      await clock.step(1);
    }
    const list = await p;
    expect(list.items).toEqual([]);
    expect(s.requests).toHaveLength(4);
    expect(retries).toEqual([2000, 2000, 2000]);
    expect(clock.since(start)).toBe(6000);
    const host = new URL(s.url).host;
    expect(metrics.value("rest_client_requests_total", { code: "200", method: "GET", host })).toBe(1);
    expect(metrics.value("rest_client_request_retries_total", { code: "429", verb: "GET", host })).toBe(3);
    expect(metrics.histogramValue("rest_client_request_duration_seconds", { verb: "GET", host }).values).toEqual([6]);
  });

  it("gives up after 10 retries (11 attempts) and returns the last error", async () => {
    const s = await serve((_req, res) =>
      sendJSON(res, 503, newServiceUnavailable("apiserver is shutting down").status, { "retry-after": "1" }),
    );
    const clock = new FakeClock();
    const c = client({ server: s.url }, { clock });
    const p = c.get(configmaps, "a", { namespace: "d" }).catch((e: unknown) => e);
    for (let i = 0; i < 10; i++) {
      await nextEvent(c, "retry");
      await clock.step(1000);
    }
    const err = await p;
    expect(isServiceUnavailable(err)).toBe(true);
    expect(s.requests).toHaveLength(11);
  });

  it("maxRetries: 0 returns the first 429 at once", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(429, { "content-type": "text/plain", "retry-after": "7" });
      res.end("Too many requests, please try again later.");
    });
    const err = await client({ server: s.url }, { maxRetries: 0 })
      .list(nodes)
      .catch((e: unknown) => e);
    expect(isTooManyRequests(err)).toBe(true);
    expect((err as { retryAfterSeconds?: number }).retryAfterSeconds).toBe(7);
    expect(s.requests).toHaveLength(1);
  });

  it("5xx without Retry-After and 4xx are not retried", async () => {
    let code = 500;
    const s = await serve((_req, res) =>
      sendJSON(res, code, { kind: "Status", status: "Failure", code, reason: "InternalError" }),
    );
    const c = client({ server: s.url }, { clock: new FakeClock() });
    expect(isInternalError(await c.list(nodes).catch((e: unknown) => e))).toBe(true);
    code = 409;
    await c.list(nodes).catch(() => undefined);
    expect(s.requests).toHaveLength(2);
  });

  it("writes are retried too when the server sent Retry-After (the server asked)", async () => {
    let n = 0;
    const s = await serve((_req, res, body) => {
      n++;
      if (n === 1) sendJSON(res, 429, newTooManyRequests("slow down", 1).status, { "retry-after": "1" });
      else sendJSON(res, 201, JSON.parse(body));
    });
    const clock = new FakeClock();
    const c = client({ server: s.url }, { clock });
    const p = c.create(configmaps, cm("a", ""));
    await nextEvent(c, "retry");
    await clock.step(1000);
    await p;
    expect(s.requests.map((r) => r.method)).toEqual(["POST", "POST"]);
    expect(s.requests[1]!.body).toBe(s.requests[0]!.body);
  });

  it("a GET whose connection is reset is retried after 1 s; a POST is not", async () => {
    let n = 0;
    const s = await serve((req, res) => {
      n++;
      if (n === 1 || req.method === "POST") {
        req.socket.destroy();
        return;
      }
      sendJSON(res, 200, { metadata: {}, items: [] });
    });
    const clock = new FakeClock();
    const c = client({ server: s.url }, { clock });
    const p = c.list(nodes);
    const retry = await nextEvent(c, "retry");
    expect(retry.waitMs).toBe(1000);
    await clock.step(1000);
    await p;
    expect(n).toBe(2);
    await expect(c.create(configmaps, cm("x", ""))).rejects.toBeDefined();
    expect(n).toBe(3);
  });
});

describe("KubeClient client-side rate limiting", () => {
  it("requests wait for the token bucket on the clock (qps 1, burst 2)", async () => {
    const s = await serve((_req, res) => sendJSON(res, 200, { metadata: {}, items: [] }));
    const clock = new FakeClock();
    const metrics = new InMemoryMetrics();
    const c = client({ server: s.url, qps: 1, burst: 2 }, { clock, metrics });
    await c.list(nodes);
    await c.list(nodes);
    const throttled: number[] = [];
    c.events$.subscribe((e) => {
      if (e.type === "throttled") throttled.push(e.waitedMs);
    });
    const third = c.list(nodes);
    await until(() => clock.pendingTimers() === 1, "third request waits for a token");
    expect(s.requests).toHaveLength(2);
    await clock.step(1000);
    await third;
    expect(s.requests).toHaveLength(3);
    expect(throttled).toEqual([1000]);
    const host = new URL(s.url).host;
    expect(metrics.histogramValue("rest_client_rate_limiter_duration_seconds", { verb: "GET", host }).values).toEqual([
      0, 0, 1,
    ]);
  });

  it("the first attempt of a watch is not throttled (client-go Request.Watch)", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end();
    });
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(1, 1, clock);
    expect(limiter.tryAccept()).toBe(true);
    const c = client({ server: s.url }, { clock, rateLimiter: limiter });
    const w = await c.watch(configmaps);
    w.stop();
    expect(s.requests).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("rateLimiter: null and qps < 0 disable throttling", async () => {
    const s = await serve((_req, res) => sendJSON(res, 200, { metadata: {}, items: [] }));
    const clock = new FakeClock();
    const a = client({ server: s.url, qps: 1, burst: 1 }, { clock, rateLimiter: null });
    const b = client({ server: s.url, qps: -1 }, { clock });
    for (let i = 0; i < 5; i++) {
      await a.list(nodes);
      await b.list(nodes);
    }
    expect(s.requests).toHaveLength(10);
  });
});

describe("KubeClient watch", () => {
  function ev(type: WatchEvent["type"], obj: unknown): string {
    return `${JSON.stringify({ type, object: obj })}\n`;
  }

  it("sends watch=true with the options, resolves on headers, then streams events as they are written", async () => {
    let write: ((s: string) => void) | undefined;
    let end: (() => void) | undefined;
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      res.flushHeaders();
      write = (t) => res.write(t);
      end = () => res.end();
    });
    const c = client({ server: s.url });
    const w = await c.watch(configmaps, {
      namespace: "default",
      resourceVersion: "10",
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    expect(s.requests[0]!.url).toBe(
      "/api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&resourceVersion=10&timeout=5m0s&timeoutSeconds=300&watch=true",
    );
    const it = w[Symbol.asyncIterator]();
    const first = it.next();
    write!(ev("ADDED", cm("a", "11")).slice(0, 20));
    write!(ev("ADDED", cm("a", "11")).slice(20) + ev("BOOKMARK", { metadata: { resourceVersion: "12" } }));
    expect((await first).value).toEqual({ type: "ADDED", object: cm("a", "11") });
    expect((await it.next()).value).toEqual({ type: "BOOKMARK", object: { metadata: { resourceVersion: "12" } } });
    write!(ev("ERROR", newResourceExpired("too old resource version: 2 (455)").status));
    const err = await it.next();
    expect(err.value).toMatchObject({ type: "ERROR", object: { code: 410, reason: "Expired" } });
    end!();
    expect((await it.next()).done).toBe(true);
  });

  it("stop() ends a pending iteration and closes the connection", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
    });
    const c = client({ server: s.url });
    const closed = nextEvent(c, "watch-closed");
    const w = await c.watch(configmaps);
    const pending = w[Symbol.asyncIterator]().next();
    await until(() => s.sockets.size === 1, "socket open");
    w.stop();
    expect((await pending).done).toBe(true);
    expect(await closed).toMatchObject({ type: "watch-closed", events: 0, stopped: true });
    await until(() => s.sockets.size === 0, "server saw the connection close");
  });

  it("stop() after an ERROR event (no next() pending) reports watch-closed once, closes the connection and leaves no abort listener", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(ev("ERROR", newResourceExpired("too old resource version: 2 (455)").status));
    });
    const c = client({ server: s.url });
    const closes: RestClientEvent[] = [];
    c.events$.pipe(filter((e) => e.type === "watch-closed")).subscribe((e) => closes.push(e));
    const ac = new AbortController();
    const w = await c.watch(configmaps, {}, ac.signal);
    const it = w[Symbol.asyncIterator]();
    expect((await it.next()).value).toMatchObject({ type: "ERROR", object: { code: 410 } });
    // What the reflector does on an ERROR event: stop without return().
    w.stop();
    expect(closes).toHaveLength(1);
    expect(closes[0]).toMatchObject({ type: "watch-closed", events: 1, stopped: true });
    await until(() => s.sockets.size === 0, "server saw the connection close");
    // Neither the watch nor the request (undici drops its listener once the body is destroyed) keeps one.
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    w.stop();
    expect(closes).toHaveLength(1);
  });

  it("aborting the watch's signal after it started stops it", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(ev("ADDED", cm("a", "1")));
    });
    const ac = new AbortController();
    const w = await client({ server: s.url }).watch(configmaps, {}, ac.signal);
    const got: WatchEvent[] = [];
    for await (const e of w) {
      got.push(e);
      ac.abort();
    }
    expect(got).toHaveLength(1);
  });

  it("a non-200 answer to a watch rejects with the StatusError", async () => {
    const s = await serve((_req, res) => sendJSON(res, 410, newResourceExpired("too old resource version").status));
    const err = await client({ server: s.url })
      .watch(configmaps, { resourceVersion: "1" })
      .catch((e: unknown) => e);
    expect(isGone(err) || (err as { reason?: string }).reason === "Expired").toBe(true);
  });

  it("a malformed line ends iteration with a WatchDecodeError", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`${ev("ADDED", cm("a", "1"))}{"type":"ADDED","object":{oops}\n`);
    });
    const w = await client({ server: s.url }).watch(configmaps);
    const got: WatchEvent[] = [];
    const err = await (async () => {
      for await (const e of w) got.push(e);
    })().catch((e: unknown) => e);
    expect(got).toHaveLength(1);
    expect(err).toBeInstanceOf(WatchDecodeError);
    expect((err as WatchDecodeError).offset).toBe(Buffer.byteLength(ev("ADDED", cm("a", "1"))));
  });

  it("decodes a gzip-compressed watch stream incrementally", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(ev("ADDED", cm("a", "1")) + ev("MODIFIED", cm("a", "2"))));
    });
    const got: string[] = [];
    for await (const e of await client({ server: s.url }).watch(configmaps)) got.push(e.type);
    expect(got).toEqual(["ADDED", "MODIFIED"]);
  });

  it("a watch has no body timeout: a quiet stream stays open (no client-side abort)", async () => {
    let write: ((s: string) => void) | undefined;
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      write = (t) => res.end(t);
    });
    const clock = new FakeClock();
    const w = await client({ server: s.url, timeoutMs: 1000 }, { clock }).watch(configmaps);
    const next = w[Symbol.asyncIterator]().next();
    await clock.step(3_600_000);
    write!(ev("ADDED", cm("late", "1")));
    expect((await next).value).toEqual({ type: "ADDED", object: cm("late", "1") });
  });

  it("429 + Retry-After on watch start is retried (and that retry is throttled)", async () => {
    let n = 0;
    const s = await serve((_req, res) => {
      n++;
      if (n === 1) sendJSON(res, 429, newTooManyRequests("x", 1).status, { "retry-after": "1" });
      else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end();
      }
    });
    const clock = new FakeClock();
    const limiter = new TokenBucketRateLimiter(1, 1, clock);
    limiter.tryAccept();
    const c = client({ server: s.url }, { clock, rateLimiter: limiter });
    const p = c.watch(configmaps);
    await nextEvent(c, "retry");
    // 1 s of Retry-After sleep refills the single token: the retry's throttle does not wait any further.
    await clock.step(1000);
    const w = await p;
    w.stop();
    expect(n).toBe(2);
  });
});

describe("errors the reflector classifies (F9–F12, F18)", () => {
  it("F9/F11 + §9.1: a list answered 504 TooLarge with Retry-After: 1 is retried 10 times (~10 s) before it surfaces", async () => {
    const s = await serve((_req, res) =>
      sendJSON(res, 504, newTooLargeResourceVersion(20, 10, 1).status, { "retry-after": "1" }),
    );
    const clock = new FakeClock();
    const c = client({ server: s.url }, { clock });
    const start = clock.now();
    const p = c.list(configmaps, { resourceVersion: "20" }).catch((e: unknown) => e);
    for (let i = 0; i < 10; i++) {
      await nextEvent(c, "retry");
      await clock.step(1000);
    }
    const err = await p;
    expect(isResourceVersionTooLarge(err)).toBe(true);
    expect(s.requests).toHaveLength(11);
    expect(clock.since(start)).toBe(10_000);
  });

  it("F11: the etcd-path TooLarge (no Retry-After) surfaces at once", async () => {
    const s = await serve((_req, res) => sendJSON(res, 504, newTooLargeResourceVersion(20, 10, 0).status));
    const err = await client({ server: s.url })
      .list(configmaps)
      .catch((e: unknown) => e);
    expect(isResourceVersionTooLarge(err)).toBe(true);
    expect(s.requests).toHaveLength(1);
  });

  it("F10: a list answered 410 Expired is isExpired", async () => {
    const s = await serve((_req, res) =>
      sendJSON(res, 410, newResourceExpired("The resourceVersion for the provided list is too old.").status),
    );
    expect(
      isExpired(
        await client({ server: s.url })
          .list(configmaps)
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
  });

  it("F12: a watch start answered 429 without Retry-After rejects with TooManyRequests at once", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(429, { "content-type": "text/plain" });
      res.end("Too many requests, please try again later.");
    });
    const err = await client({ server: s.url })
      .watch(configmaps)
      .catch((e: unknown) => e);
    expect(isTooManyRequests(err)).toBe(true);
    expect(s.requests).toHaveLength(1);
  });

  it("F18: in-stream ERROR events (410, 500) arrive as events; the stream then ends normally", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(`${JSON.stringify({ type: "ERROR", object: newInternalError("etcd leader changed").status })}\n`);
      res.end(
        `${JSON.stringify({ type: "ERROR", object: newResourceExpired("too old resource version: 1 (5)").status })}\n`,
      );
    });
    const got: WatchEvent[] = [];
    for await (const e of await client({ server: s.url }).watch(configmaps)) got.push(e);
    expect(got.map((e) => (e.type === "ERROR" ? e.object.code : 0))).toEqual([500, 410]);
  });

  it("a watch start that keeps hitting EOF is retried after 1 s, then an already-ended watch is returned", async () => {
    const s = await serve((req) => {
      req.socket.destroy();
    });
    const clock = new FakeClock();
    const c = client({ server: s.url }, { clock, maxRetries: 2 });
    const p = c.watch(configmaps);
    for (let i = 0; i < 2; i++) {
      await nextEvent(c, "retry");
      await clock.step(1000);
    }
    const w = await p;
    const got: unknown[] = [];
    for await (const e of w) got.push(e);
    expect(got).toEqual([]);
    expect(s.requests).toHaveLength(3);
  });
});

describe("events$ is read-only and safe (issue 9 item 4)", () => {
  it("a throwing subscriber never reaches RxJS's unhandled-error path (the host); the other subscribers are served", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const s = await serve((_req, res) =>
        sendJSON(res, 200, { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: [] }),
      );
      const c = client({ server: s.url, qps: -1 });
      expect("emit" in c.events$).toBe(false);
      c.events$.subscribe(() => {
        throw new Error("consumer bug");
      });
      const seen: string[] = [];
      c.events$.subscribe((e) => seen.push(e.type));
      await c.list(configmaps, { namespace: "default" });
      expect(seen).toContain("response");
      expect(takeEscapedRxjsErrors()).toEqual([]); // nothing reached RxJS's unhandled-error path (the host)
      expect(errors.mock.calls.some((call) => String(call[0]).includes("a subscriber of client events$ threw"))).toBe(
        true,
      );
    } finally {
      errors.mockRestore();
    }
  });
});
