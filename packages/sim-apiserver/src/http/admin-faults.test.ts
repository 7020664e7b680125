// Issue #4 item 6 through the admin endpoint of the engine-backed server (the `apiserver` command's wiring): drop
// watch connections, compact to force 410, 429 with Retry-After, 500s, added latency, stop bookmarks, truncate a
// watch line mid-JSON, cache re-initialization, and a watcher that stops reading. Virtual time (FakeClock): latency,
// bookmarks and the dispatch budget advance only when the test steps the clock.
import { request as httpRequest } from "node:http";
import { FakeClock, settle } from "@informer-ts/clock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { configMap, type EngineServer, startEngineServer } from "./engine-server.test-util.js";
import { fetchRaw, type LineStream, openStream } from "./http-client.test-util.js";

const json = { "content-type": "application/json" };
const CM = "/api/v1/namespaces/default/configmaps";

let s: EngineServer;
let clock: FakeClock;
const open: LineStream[] = [];

beforeAll(async () => {
  clock = new FakeClock();
  s = await startEngineServer(clock);
});
afterEach(async () => {
  for (const w of open.splice(0)) w.close();
  await fetchRaw(`${s.url}/_sim/faults`, { method: "DELETE" });
  await fetchRaw(`${s.url}/_sim/engine-faults`, { method: "DELETE" });
});
afterAll(async () => {
  await s.close();
});

async function admin(path: string, body?: unknown, method = "POST") {
  return fetchRaw(`${s.url}/_sim/${path}`, {
    method,
    headers: json,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

async function watch(query = "", headers: Record<string, string> = {}): Promise<LineStream> {
  const rv = s.engine.currentResourceVersion;
  const w = await openStream(`${s.url}${CM}?watch=true&resourceVersion=${rv}&timeoutSeconds=600${query}`, {
    headers,
  });
  expect(w.status).toBe(200);
  open.push(w);
  return w;
}

let seq = 0;
const create = () => s.engine.create("configmaps", "default", configMap(`f-${++seq}`));

describe("faults through /_sim (item 6)", () => {
  it("GET /_sim/ and /_sim list the admin endpoints; an unknown sub-path is a JSON 404 naming it", async () => {
    const endpoints = [
      "/_sim/faults",
      "/_sim/compact",
      "/_sim/reinit",
      "/_sim/watchers",
      "/_sim/accounting",
      "/_sim/engine-faults",
      "/_sim/state",
    ];
    for (const path of ["/_sim/", "/_sim"]) {
      const r = await fetchRaw(`${s.url}${path}`);
      expect([path, r.status, r.json]).toEqual([path, 200, { endpoints }]);
    }
    const unknown = await fetchRaw(`${s.url}/_sim/nope`);
    expect([unknown.status, unknown.json]).toEqual([404, { error: "unknown admin path /_sim/nope" }]);
  });

  it("drop-watches closes open watch connections; the stream ends", async () => {
    const a = await watch();
    const b = await watch();
    const r = await admin("engine-faults", { type: "drop-watches", resource: "configmaps" });
    expect([r.status, r.json]).toEqual([201, { dropped: 2 }]);
    expect(await a.ended).toBe(true);
    expect(await b.ended).toBe(true);
    expect(s.engine.caches.watcherInfo("configmaps")).toEqual([]);
  });

  it("drop-connection (HTTP fault) resets the socket of the matching request", async () => {
    await admin("faults", { type: "drop-connection", verbs: ["list"], count: 1 });
    const ua = { "user-agent": "dropped-client" };
    await expect(fetchRaw(`${s.url}${CM}`, { headers: ua })).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await fetchRaw(`${s.url}${CM}`, { headers: ua })).status).toBe(200);
    // No status line went out: recorded as kube-apiserver's timeout filter records a request whose connection went
    // away (504), not as a fictitious 200 nor a code no server writes.
    await expect.poll(() => s.engine.accounting.count({ userAgent: "dropped-client", code: 504 })).toBe(1);
    expect(s.engine.accounting.count({ userAgent: "dropped-client", code: 200 })).toBe(1);
  });

  it("compact (engine-faults and /_sim/compact) forces 410 for older resourceVersions", async () => {
    await create();
    const old = s.engine.currentResourceVersion;
    await create();
    const head = s.engine.currentResourceVersion;
    const c = await admin("engine-faults", { type: "compact" });
    // Compaction writes etcd's compact key, so it bumps the global revision itself.
    expect(c.json).toEqual({ compactedResourceVersion: String(head), resourceVersion: String(head + 1) });
    // With ListFromCacheSnapshot (1.34) the watch cache could still serve it: empty its history too.
    await admin("engine-faults", { type: "reinit", resource: "configmaps" });
    const r = await fetchRaw(`${s.url}${CM}?resourceVersion=${old}&resourceVersionMatch=Exact`);
    expect(r.status).toBe(410);
    expect(r.json).toMatchObject({
      reason: "Expired",
      message: "The resourceVersion for the provided list is too old.",
    });
  });

  it("apf-429: plain-text 429 with Retry-After, then served again", async () => {
    await admin("faults", { type: "apf-429", retryAfterSeconds: 3, verbs: ["list"], count: 1 });
    const r = await fetchRaw(`${s.url}${CM}`);
    expect([r.status, r.headers["retry-after"], r.headers["content-type"], r.text]).toEqual([
      429,
      "3",
      "text/plain; charset=utf-8",
      "Too many requests, please try again later.\n",
    ]);
    expect((await fetchRaw(`${s.url}${CM}`)).status).toBe(200);
    const rules = (await fetchRaw(`${s.url}/_sim/faults`)).json as {
      faults: Array<{ matched: number; fired: number }>;
    };
    expect(rules.faults).toMatchObject([{ matched: 2, fired: 1 }]);
  });

  it("status 429: a Status with details.retryAfterSeconds and Retry-After", async () => {
    await admin("faults", { type: "status", code: 429, retryAfterSeconds: 2, message: "slow down", count: 1 });
    const r = await fetchRaw(`${s.url}${CM}/x`);
    expect(r.status).toBe(429);
    expect(r.headers["retry-after"]).toBe("2");
    expect(r.json).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "slow down",
      reason: "TooManyRequests",
      details: { retryAfterSeconds: 2 },
      code: 429,
    });
  });

  it.each([
    [503, "ServiceUnavailable"],
    [500, "InternalError"],
    [409, "Conflict"],
  ])("status %i with retryAfterSeconds: details.retryAfterSeconds and the Retry-After header", async (code, reason) => {
    await admin("faults", { type: "status", code, retryAfterSeconds: 7, message: "busy", count: 1 });
    const r = await fetchRaw(`${s.url}${CM}/x`);
    expect([r.status, r.headers["retry-after"]]).toEqual([code, "7"]);
    expect(r.json).toMatchObject({ kind: "Status", reason, code, details: { retryAfterSeconds: 7 } });
  });

  it("status 503 without retryAfterSeconds: no Retry-After", async () => {
    await admin("faults", { type: "status", code: 503, count: 1 });
    const r = await fetchRaw(`${s.url}${CM}/x`);
    expect([r.status, r.headers["retry-after"]]).toEqual([503, undefined]);
  });

  it("status 500 every 2nd write: alternating 500 and 201, nothing stored by the failed ones", async () => {
    await admin("faults", { type: "status", code: 500, verbs: ["create"], every: 2 });
    const codes: number[] = [];
    const rv0 = s.engine.currentResourceVersion;
    for (let i = 0; i < 4; i++) {
      const r = await fetchRaw(`${s.url}${CM}`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(configMap(`five-${i}`)),
      });
      codes.push(r.status);
    }
    expect(codes).toEqual([201, 500, 201, 500]);
    expect(s.engine.currentResourceVersion).toBe(rv0 + 2);
  });

  it("latency: matching requests take ms longer on the engine clock; others do not", async () => {
    await admin("engine-faults", { type: "latency", ms: 700, verbs: ["list"], resource: "configmaps" });
    let done = false;
    const p = fetchRaw(`${s.url}${CM}`, { headers: { "user-agent": "latency-probe" } }).then((r) => {
      done = true;
      return r;
    });
    const other = await fetchRaw(`${s.url}/api/v1/namespaces/default/secrets`);
    expect(other.status).toBe(200);
    await settle();
    expect(done).toBe(false);
    await clock.step(699);
    await settle();
    expect(done).toBe(false);
    await clock.step(1);
    expect((await p).status).toBe(200);
    const row = s.engine.accounting.rows().find((r) => r.userAgent === "latency-probe")!;
    expect(row.latencyMsSum).toBe(700);
  });

  it("a client that goes away before the answer: its URI and the status kube-apiserver records (504; a watch 200)", async () => {
    await admin("engine-faults", { type: "latency", ms: 10_000, verbs: ["list", "watch"], resource: "configmaps" });
    const cases = [
      { uri: `${CM}?limit=500&resourceVersion=0`, ua: "gone-lister", code: 504, status: "Failure", reason: "Timeout" },
      { uri: `${CM}?watch=true&resourceVersion=0`, ua: "gone-watcher", code: 200, status: "Success" },
    ];
    for (const c of cases) {
      const timers = clock.pendingTimers();
      const req = httpRequest(`${s.url}${c.uri}`, { agent: false, headers: { "user-agent": c.ua } });
      req.on("error", () => {});
      req.end();
      await expect.poll(() => clock.pendingTimers()).toBeGreaterThan(timers); // waiting on the latency
      req.destroy();
      await expect.poll(() => s.engine.accounting.count({ userAgent: c.ua })).toBe(1);
      expect(s.engine.accounting.count({ userAgent: c.ua, code: c.code })).toBe(1);
      const line = JSON.parse(s.auditLines.findLast((l) => l.includes(`"userAgent":"${c.ua}"`))!);
      expect(line.requestURI).toBe(c.uri);
      expect(line.responseStatus).toEqual({
        metadata: {},
        status: c.status,
        message:
          c.code === 504 ? "Timeout: request did not complete within the allotted timeout" : "Connection closed early",
        ...(c.reason !== undefined && { reason: c.reason }),
        code: c.code,
      });
    }
    // The server's work for them ended with the client: no latency wait is left behind.
    await expect.poll(() => s.server.stats.openWatches).toBe(0);
  });

  it("bookmarks: periodic bookmarks every 60 s when on; none with no-periodic; no init-end bookmark with off", async () => {
    const on = await watch("&allowWatchBookmarks=true");
    await create();
    expect(await on.nextEvent()).toMatchObject({ type: "ADDED" });
    await clock.step(61_000);
    expect(await on.nextEvent()).toMatchObject({ type: "BOOKMARK", object: { kind: "ConfigMap" } });

    await admin("engine-faults", { type: "bookmarks", mode: "no-periodic" });
    const quiet = await watch("&allowWatchBookmarks=true");
    await create();
    expect(await quiet.nextEvent()).toMatchObject({ type: "ADDED" });
    await clock.step(61_000);
    await create();
    expect(await quiet.nextEvent()).toMatchObject({ type: "ADDED", object: { metadata: { name: `f-${seq}` } } });

    await admin("engine-faults", { type: "bookmarks", mode: "off" });
    const wl = await openStream(
      `${s.url}${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=600`,
    );
    open.push(wl);
    const initial = s.engine.storage.count(s.engine.resource("configmaps"));
    for (let i = 0; i < initial; i++) expect(await wl.nextEvent()).toMatchObject({ type: "ADDED" });
    await clock.step(3000);
    await create();
    expect(await wl.nextEvent()).toMatchObject({ type: "ADDED", object: { metadata: { name: `f-${seq}` } } });
    // Control: back on, a watch-list gets its end marker.
    await admin("engine-faults", undefined, "DELETE");
    const wl2 = await openStream(
      `${s.url}${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=600`,
    );
    open.push(wl2);
    for (let i = 0; i < initial + 1; i++) expect(await wl2.nextEvent()).toMatchObject({ type: "ADDED" });
    await clock.step(2000);
    expect(await wl2.nextEvent()).toMatchObject({
      type: "BOOKMARK",
      object: { metadata: { annotations: { "k8s.io/initial-events-end": "true" } } },
    });
  });

  it("truncate-watch: after n events the next line is cut mid-JSON and the response ends", async () => {
    await admin("faults", { type: "truncate-watch", afterEvents: 1, count: 1 });
    const w = await watch();
    await create();
    await create();
    const first = await w.nextLine();
    expect(JSON.parse(first!)).toMatchObject({ type: "ADDED" });
    expect(await w.nextLine()).toBeUndefined();
    expect(await w.ended).toBe(true);
    expect(w.rest()).toMatch(/^\{"type":"ADDED"/);
    expect(() => JSON.parse(w.rest())).toThrow();
  });

  it("reinit: every watcher of the resource is closed; watches get 429 + Retry-After during the downtime", async () => {
    const a = await watch();
    const r = await admin("reinit", { resource: "configmaps", downtimeMs: 2000 });
    expect(r.json).toEqual({ reinitialized: "configmaps" });
    expect(await a.ended).toBe(true);
    const during = await fetchRaw(`${s.url}${CM}?watch=true`);
    expect(during.status).toBe(429);
    expect(during.headers["retry-after"]).toMatch(/^\d+$/);
    expect(during.json).toMatchObject({ reason: "TooManyRequests", message: "storage is (re)initializing" });
    await clock.step(2000);
    await settle();
    const after = await watch();
    expect(after.status).toBe(200);
  });

  it("stall-watchers: a watcher that stops reading is closed by the dispatch budget; its neighbour keeps streaming", async () => {
    const slow = await watch("", { "user-agent": "stalled-client/1" });
    const fast = await watch("", { "user-agent": "healthy-client/1" });
    const before = s.engine.caches.cacher("configmaps").terminatedWatchers;
    const r = await admin("engine-faults", { type: "stall-watchers", userAgent: "stalled-client" });
    expect(r.json).toEqual({ stalled: 1 });
    const listed = (await fetchRaw(`${s.url}/_sim/watchers`)).json as {
      watchers: Array<{ userAgent: string; stalled: boolean }>;
    };
    expect(listed.watchers.map((w) => [w.userAgent, w.stalled])).toEqual([
      ["stalled-client/1", true],
      ["healthy-client/1", false],
    ]);
    const names: string[] = [];
    for (let i = 0; i < 40; i++) {
      await create();
      names.push(`f-${seq}`);
      await settle();
    }
    await clock.step(1000);
    expect(await slow.ended).toBe(true);
    expect(await slow.nextLine()).toBeUndefined();
    expect(s.engine.caches.cacher("configmaps").terminatedWatchers).toBe(before + 1);
    const got: string[] = [];
    for (let i = 0; i < 40; i++) got.push(((await fast.nextEvent())!.object.metadata as { name: string }).name);
    expect(got).toEqual(names);
    const metrics = (await fetchRaw(`${s.url}/metrics`)).text;
    expect(metrics).toMatch(/^apiserver_terminated_watchers_total\{group="",resource="configmaps"\} [1-9]\d*$/m);
  });

  it("stall-watchers with future: watchers opened later by that client are stalled on arrival", async () => {
    await admin("engine-faults", { type: "stall-watchers", userAgent: "late-client", future: true });
    await watch("", { "user-agent": "late-client/2" });
    const info = (await fetchRaw(`${s.url}/_sim/watchers`)).json as { watchers: Array<{ stalled: boolean }> };
    expect(info.watchers.map((w) => w.stalled)).toEqual([true]);
    const resumed = await admin("engine-faults", { type: "resume-watchers" });
    expect(resumed.json).toEqual({ resumed: 1 });
  });

  it("a resource that is not served answers 404 naming it on every admin path that takes one; nothing changes", async () => {
    const w = await watch();
    const notFound = { error: "the server could not find the requested resource (gizmos)" };
    const calls = [
      await admin("reinit", { resource: "gizmos" }),
      await admin("engine-faults", { type: "reinit", resource: "gizmos", downtimeMs: 1000 }),
      await admin("engine-faults", { type: "drop-watches", resource: "gizmos" }),
      await admin("engine-faults", { type: "stall-watchers", resource: "gizmos", future: true }),
      await admin("engine-faults", { type: "resume-watchers", resource: "gizmos" }),
    ];
    expect(calls.map((r) => [r.status, r.json])).toEqual(calls.map(() => [404, notFound]));
    // No rule was added, the watch is open and not stalled, and the server keeps serving.
    const info = (await fetchRaw(`${s.url}/_sim/watchers`)).json as { watchers: Array<{ stalled: boolean }> };
    expect(info.watchers.map((x) => x.stalled)).toEqual([false]);
    await create();
    expect((await w.nextEvent())?.type).toBe("ADDED");
    expect((await fetchRaw(`${s.url}${CM}`)).status).toBe(200);
  });

  it("bad admin input answers 400 naming the problem; unknown paths 404; the server keeps serving", async () => {
    const bad = await admin("engine-faults", { type: "stall-watchers", ids: ["x"] });
    expect([bad.status, bad.json]).toEqual([
      400,
      { error: "stall-watchers: ids must be an array of watcher ids (integers)" },
    ]);
    const badType = await admin("engine-faults", { type: "explode" });
    expect(badType.status).toBe(400);
    expect((badType.json as { error: string }).error).toContain('got "explode"');
    const notJson = await fetchRaw(`${s.url}/_sim/faults`, { method: "POST", headers: json, body: "{" });
    expect(notJson.status).toBe(400);
    expect((await admin("nope", {})).status).toBe(404);
    expect((await fetchRaw(`${s.url}${CM}`)).status).toBe(200);
  });
});
