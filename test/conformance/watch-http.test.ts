// WATCH over real HTTP: SimHttpServer + EngineBackend on loopback, the engine on a FakeClock (timeouts, bookmark
// ticks and freshness waits move only when the test steps the clock; socket I/O is real and awaited, never slept
// on). Checks the wire format of reference/apiserver.md §7.4 (200, chunked NDJSON, event objects with kind and
// apiVersion, bookmark objects with only the RV and the init-end annotation), ERROR Status events followed by the end
// of the body, 400/422/429 as HTTP errors with exact bodies and Retry-After, single-object watches, the legacy
// /watch/ paths, and the clean end of the chunked body at timeoutSeconds.

import { request } from "node:http";
import type { KubeObject } from "@informer-ts/apimachinery";
import { failureStatus as status } from "@informer-ts/apimachinery";
import { FakeClock, seededRand } from "@informer-ts/clock";
import { afterEach, describe, expect, it } from "vitest";
import { fetchRaw, type LineStream, openStream } from "../../packages/sim-apiserver/src/http/http-client.test-util.js";
import {
  EngineBackend,
  SimApiServer,
  type SimApiServerOptions,
  SimHttpServer,
} from "../../packages/sim-apiserver/src/index.js";

interface Sim {
  readonly clock: FakeClock;
  readonly engine: SimApiServer;
  readonly server: SimHttpServer;
  readonly url: string;
  close(): Promise<void>;
}

const open: Array<{ close(): Promise<void> }> = [];
const streams: LineStream[] = [];

afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  for (const s of open.splice(0)) await s.close();
});

async function start(opts: SimApiServerOptions = {}): Promise<Sim> {
  const clock = new FakeClock();
  const engine = new SimApiServer({ clock, rand: seededRand(5), compactionIntervalMs: 0, ...opts });
  const server = new SimHttpServer({
    backend: new EngineBackend(engine),
    clock,
  });
  const url = await server.start();
  const sim: Sim = {
    clock,
    engine,
    server,
    url,
    async close() {
      engine.stop();
      await server.close();
    },
  };
  open.push(sim);
  return sim;
}

const CM = "/api/v1/namespaces/default/configmaps";

function cm(name: string, data: Record<string, string> = { k: name }): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

async function watch(sim: Sim, path: string): Promise<LineStream> {
  const s = await openStream(sim.url + path);
  streams.push(s);
  return s;
}

/** The next line parsed, failing when the body ended instead. */
async function nextEvent(s: LineStream): Promise<{ type: string; object: Record<string, unknown> }> {
  const e = await s.nextEvent();
  if (e === undefined) throw new Error("watch body ended");
  return e;
}

/** Lets socket I/O run until the engine has `n` pending timers (a request reached a freshness wait). */
async function untilPendingTimers(clock: FakeClock, n: number): Promise<void> {
  for (let i = 0; i < 10_000 && clock.pendingTimers() < n; i++) await new Promise((r) => setImmediate(r));
  expect(clock.pendingTimers()).toBeGreaterThanOrEqual(n);
}

describe("watch stream framing and event JSON (§7.4)", () => {
  it("W1: 200, application/json, chunked; one JSON event per line; objects carry kind/apiVersion; DELETED at the delete RV", async () => {
    const sim = await start();
    await sim.engine.create("configmaps", "default", cm("a"));
    const rv = sim.engine.currentResourceVersion;
    const s = await watch(sim, `${CM}?watch=1&resourceVersion=${rv}`);
    expect(s.status).toBe(200);
    expect(s.headers["content-type"]).toBe("application/json");
    expect(s.headers["transfer-encoding"]).toBe("chunked");
    const b = await sim.engine.create("configmaps", "default", cm("b"));
    const a2 = await sim.engine.update("configmaps", "default", "a", cm("a", { k: "2" }));
    const gone = await sim.engine.delete("configmaps", "default", "a");
    expect(await s.nextLine()).toBe(JSON.stringify({ type: "ADDED", object: b }));
    expect(await nextEvent(s)).toEqual({ type: "MODIFIED", object: a2 });
    const del = await nextEvent(s);
    expect(del).toEqual({ type: "DELETED", object: gone });
    expect(del.object).toMatchObject({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "a", resourceVersion: String(rv + 3) },
      data: { k: "2" },
    });
  });

  it("W2: watch-list with bookmarks: synthetic ADDED in key order, then the init-end BOOKMARK with only RV + annotation", async () => {
    const sim = await start();
    const b = await sim.engine.create("configmaps", "default", cm("b"));
    const a = await sim.engine.create("configmaps", "default", cm("a"));
    const rv = sim.engine.currentResourceVersion;
    const s = await watch(
      sim,
      `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    expect(await nextEvent(s)).toEqual({ type: "ADDED", object: a });
    expect(await nextEvent(s)).toEqual({ type: "ADDED", object: b });
    await sim.clock.step(1300);
    expect(await s.nextLine()).toBe(
      `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"${rv}","annotations":{"k8s.io/initial-events-end":"true"}}}}`,
    );
  });

  it("periodic BOOKMARK objects carry only metadata.resourceVersion", async () => {
    const sim = await start();
    await sim.engine.create("configmaps", "default", cm("a"));
    const rv = sim.engine.currentResourceVersion;
    const s = await watch(sim, `${CM}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=600`);
    await sim.engine.create("secrets", "default", { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } });
    await sim.clock.step(61_500); // progress notify at 5 s moved the configmaps cache; the 60 s slot sends it
    expect(await s.nextLine()).toBe(
      `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"${rv + 1}"}}}`,
    );
  });

  it("legacy RV=0 with WatchList on (server and engine): ADDED then the end marker", async () => {
    const sim = await start();
    const a = await sim.engine.create("configmaps", "default", cm("a"));
    const s = await watch(sim, `${CM}?watch=true&resourceVersion=0&allowWatchBookmarks=true`);
    expect(await nextEvent(s)).toEqual({ type: "ADDED", object: a });
    await sim.clock.step(1300);
    const bm = await nextEvent(s);
    expect(bm.type).toBe("BOOKMARK");
    expect(bm.object.metadata).toEqual({
      resourceVersion: a.metadata?.resourceVersion,
      annotations: { "k8s.io/initial-events-end": "true" },
    });
  });

  it("a deprecated /watch/ path is not defaulted to a watch-list: legacy RV=0 gets ADDED and no end marker", async () => {
    const sim = await start();
    const a = await sim.engine.create("configmaps", "default", cm("a"));
    const legacy = await watch(
      sim,
      "/api/v1/watch/namespaces/default/configmaps?resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=5",
    );
    expect(await nextEvent(legacy)).toEqual({ type: "ADDED", object: a });
    await sim.clock.step(5000); // bookmark ticks pass, the deadline ends the stream: no init-end marker was sent
    expect(await legacy.nextLine()).toBeUndefined();
  });

  it("W6: WatchList off: legacy RV=0 gets ADDED and no end marker; sendInitialEvents is a 422", async () => {
    const sim = await start({ watchList: false });
    const a = await sim.engine.create("configmaps", "default", cm("a"));
    const s = await watch(sim, `${CM}?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=5`);
    expect(await nextEvent(s)).toEqual({ type: "ADDED", object: a });
    await sim.clock.step(5000);
    expect(await s.nextLine()).toBeUndefined();
    const r = await fetchRaw(
      `${sim.url}${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    expect(r.status).toBe(422);
    expect(r.json).toEqual(
      status(
        422,
        "Invalid",
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        {
          group: "meta.k8s.io",
          kind: "ListOptions",
          causes: [
            {
              reason: "FieldValueForbidden",
              message:
                "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
              field: "sendInitialEvents",
            },
          ],
        },
      ),
    );
  });
});

describe("errors", () => {
  it("W1: too old RV → 200 with one ERROR Status event, then the body ends", async () => {
    const sim = await start({ historyLowerBound: 4, historyUpperBound: 4 });
    for (let i = 0; i < 10; i++) await sim.engine.create("configmaps", "default", cm(`c${i}`));
    const s = await watch(sim, `${CM}?watch=1&resourceVersion=2`);
    expect(s.status).toBe(200);
    expect(await s.nextLine()).toBe(
      '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 2 (7)","reason":"Expired","code":410}}',
    );
    expect(await s.nextLine()).toBeUndefined();
    expect(await s.ended).toBe(true);
  });

  it("W4: watch-list at an RV the cache does not reach → ERROR 504 after 3 s, then the end", async () => {
    const sim = await start();
    const rv = sim.engine.currentResourceVersion;
    const pending = watch(
      sim,
      `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${rv + 5}`,
    );
    await untilPendingTimers(sim.clock, 1);
    await sim.clock.step(2999);
    expect(sim.engine.caches.watchers("configmaps")).toHaveLength(0); // still waiting for the cache, nothing sent
    await sim.clock.step(1);
    const s = await pending;
    expect(s.status).toBe(200);
    expect(await nextEvent(s)).toEqual({
      type: "ERROR",
      object: status(504, "Timeout", `Timeout: Too large resource version: ${rv + 5}, current: ${rv}`, {
        causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
        retryAfterSeconds: 1,
      }),
    });
    expect(await s.nextLine()).toBeUndefined();
  });

  it.each([
    {
      query: "watch=1&sendInitialEvents=true",
      code: 422,
      body: status(
        422,
        "Invalid",
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        {
          group: "meta.k8s.io",
          kind: "ListOptions",
          causes: [
            {
              reason: "FieldValueForbidden",
              message: "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
              field: "resourceVersionMatch",
            },
          ],
        },
      ),
    },
    {
      query: "watch=1&resourceVersion=5&resourceVersionMatch=NotOlderThan",
      code: 422,
      body: status(
        422,
        "Invalid",
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        {
          group: "meta.k8s.io",
          kind: "ListOptions",
          causes: [
            {
              reason: "FieldValueForbidden",
              message: "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
              field: "resourceVersionMatch",
            },
          ],
        },
      ),
    },
    {
      query: "watch=1&resourceVersion=abc",
      code: 400,
      body: status(
        400,
        "BadRequest",
        'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
      ),
    },
    {
      query: "watch=1&fieldSelector=data.k%3Dv",
      code: 400,
      body: status(
        400,
        "BadRequest",
        '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"',
      ),
    },
  ])("$code for $query: an HTTP error with the exact Status body, no stream", async ({ query, code, body }) => {
    const sim = await start();
    const r = await fetchRaw(`${sim.url}${CM}?${query}`);
    expect(r.status).toBe(code);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.json).toEqual(body);
  });

  it("W8: 429 + Retry-After while the cache re-initializes; open watches end cleanly; older RVs are 410 after", async () => {
    const sim = await start();
    await sim.engine.create("configmaps", "default", cm("a"));
    const rv = sim.engine.currentResourceVersion;
    const s = await watch(sim, `${CM}?watch=1&resourceVersion=${rv}`);
    sim.engine.faults.reinitializeCache("configmaps", 60_000);
    expect(await s.nextLine()).toBeUndefined();
    expect(await s.ended).toBe(true);
    const at = async () => {
      const r = await fetchRaw(`${sim.url}${CM}?watch=1&resourceVersion=${rv}`);
      return [r.status, r.headers["retry-after"], r.json];
    };
    const body = (n: number) => status(429, "TooManyRequests", "storage is (re)initializing", { retryAfterSeconds: n });
    expect(await at()).toEqual([429, "1", body(1)]);
    await sim.clock.step(30_000);
    expect(await at()).toEqual([429, "6", body(6)]);
    await sim.engine.create("configmaps", "default", cm("b"));
    await sim.clock.step(30_000);
    const listRV = sim.engine.caches.cacher("configmaps").resourceVersion;
    const old = await watch(sim, `${CM}?watch=1&resourceVersion=${rv}`);
    expect(old.status).toBe(200);
    expect((await nextEvent(old)).object).toMatchObject({
      code: 410,
      message: `too old resource version: ${rv} (${listRV})`,
    });
  });
});

describe("W5 and selector transitions on the wire", () => {
  it("W5: RV=0, sendInitialEvents=false, RVM=NotOlderThan: no synthetic events, changes from now", async () => {
    const sim = await start();
    await sim.engine.create("configmaps", "default", cm("a"));
    const s = await watch(
      sim,
      `${CM}?watch=true&resourceVersion=0&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`,
    );
    const b = await sim.engine.create("configmaps", "default", cm("b"));
    expect(await nextEvent(s)).toEqual({ type: "ADDED", object: b });
  });

  it("entering the label selector is ADDED, leaving it is DELETED with the previous object at the event's RV", async () => {
    const sim = await start();
    await sim.engine.create("configmaps", "default", cm("a"));
    const s = await watch(
      sim,
      `${CM}?watch=true&resourceVersion=${sim.engine.currentResourceVersion}&labelSelector=team%3Dblue`,
    );
    const blue = await sim.engine.update("configmaps", "default", "a", {
      ...cm("a", { k: "1" }),
      metadata: { name: "a", labels: { team: "blue" } },
    });
    expect(await nextEvent(s)).toEqual({ type: "ADDED", object: blue });
    const plain = await sim.engine.update("configmaps", "default", "a", cm("a", { k: "2" }));
    const del = await nextEvent(s);
    expect(del.type).toBe("DELETED");
    expect(del.object).toEqual({
      ...blue,
      metadata: { ...blue.metadata, resourceVersion: plain.metadata?.resourceVersion },
    });
  });
});

describe("addressing", () => {
  it("a watch on one object (legacy /watch/…/name) is a watch with fieldSelector metadata.name (trigger-sized channels)", async () => {
    const sim = await start();
    await sim.engine.create("configmaps", "default", cm("a"));
    await sim.engine.create("configmaps", "default", cm("b"));
    const rv = sim.engine.currentResourceVersion;
    const s = await watch(sim, `/api/v1/watch/namespaces/default/configmaps/a?resourceVersion=${rv}`);
    expect(sim.engine.caches.watchers("configmaps").map((w) => [w.triggerValue, w.chanSize])).toEqual([["a", 10]]);
    await sim.engine.update("configmaps", "default", "b", cm("b", { k: "x" }));
    const a2 = await sim.engine.update("configmaps", "default", "a", cm("a", { k: "x" }));
    expect(await nextEvent(s)).toEqual({ type: "MODIFIED", object: a2 });
    const r = await fetchRaw(`${sim.url}/api/v1/watch/namespaces/default/configmaps/a?fieldSelector=metadata.name%3Db`);
    expect([r.status, r.json]).toEqual([
      400,
      status(400, "BadRequest", "fieldSelector metadata.name doesn't match requested name"),
    ]);
  });

  it("GET on the object URL with ?watch=1 is a plain GET, as in kube-apiserver (only collection and /watch/ paths watch)", async () => {
    const sim = await start();
    const a = await sim.engine.create("configmaps", "default", cm("a"));
    const r = await fetchRaw(`${sim.url}${CM}/a?watch=1`);
    expect([r.status, r.headers["transfer-encoding"], r.json]).toEqual([200, undefined, a]);
    expect(sim.engine.caches.watchers("configmaps")).toHaveLength(0);
  });

  it.each([
    { path: "/api/v1/watch/namespaces/default/configmaps", names: ["a", "b"] },
    { path: "/api/v1/watch/namespaces/default/configmaps/b", names: ["b"] },
    { path: "/api/v1/watch/configmaps", names: ["a", "b"] },
  ])("legacy watch path $path streams the same events", async ({ path, names }) => {
    const sim = await start();
    const rv = sim.engine.currentResourceVersion;
    const s = await watch(sim, `${path}?resourceVersion=${rv}`);
    expect(s.status).toBe(200);
    const created = [
      await sim.engine.create("configmaps", "default", cm("a")),
      await sim.engine.create("configmaps", "default", cm("b")),
    ];
    for (const n of names) {
      expect(await nextEvent(s)).toEqual({ type: "ADDED", object: created.find((o) => o.metadata?.name === n) });
    }
  });
});

describe("timeouts", () => {
  it("timeoutSeconds: the chunked body ends cleanly at the deadline (no event, no partial line)", async () => {
    const sim = await start();
    await sim.engine.create("configmaps", "default", cm("a"));
    const rv = sim.engine.currentResourceVersion;
    const s = await watch(sim, `${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=5`);
    await sim.clock.step(4999);
    expect(sim.engine.caches.watchers("configmaps")).toHaveLength(1);
    await sim.clock.step(1);
    expect(await s.nextLine()).toBeUndefined();
    expect(await s.ended).toBe(true);
    expect(s.rest()).toBe("");
    expect(sim.engine.caches.watchers("configmaps")).toHaveLength(0);
  });

  it("without timeoutSeconds the server's deadline is in [30 min, 60 min)", async () => {
    const sim = await start();
    await watch(sim, `${CM}?watch=1&resourceVersion=1`);
    const [w] = sim.engine.caches.watchers("configmaps");
    const d = w!.deadline - sim.clock.now();
    expect(d).toBeGreaterThanOrEqual(1800_000);
    expect(d).toBeLessThan(3600_000);
  });

  it("a client that goes away stops the engine watch", async () => {
    const sim = await start();
    const s = await watch(sim, `${CM}?watch=1&resourceVersion=1`);
    expect(sim.engine.caches.watchers("configmaps")).toHaveLength(1);
    s.close();
    await s.ended;
    // The server notices the closed socket on its next I/O turn.
    for (let i = 0; i < 50 && sim.engine.caches.watchers("configmaps").length > 0; i++) {
      await new Promise((r) => setImmediate(r));
    }
    expect(sim.engine.caches.watchers("configmaps")).toHaveLength(0);
  });

  it("a client that goes away while the engine is still opening the watch (latency) leaves no engine watch", async () => {
    const sim = await start();
    sim.engine.faults.latency({ ms: 1000, verbs: ["watch"] });
    const idle = sim.clock.pendingTimers();
    const req = request(`${sim.url}${CM}?watch=1&resourceVersion=1`);
    req.on("error", () => {});
    req.end();
    const turns = async (until: () => boolean) => {
      for (let i = 0; i < 200 && !until(); i++) await new Promise((r) => setImmediate(r));
    };
    await turns(() => sim.clock.pendingTimers() > idle); // the request is in the engine, sleeping on the latency
    req.destroy();
    await turns(() => sim.server.connections === 0); // the server saw the client go
    await sim.clock.step(1000); // the engine now opens the watch, for a request that is already over
    await turns(() => sim.engine.caches.watchers("configmaps").length === 0);
    expect(sim.engine.caches.watchers("configmaps")).toHaveLength(0);
  });
});
