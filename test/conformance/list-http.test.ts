// LIST/GET conformance over real HTTP: the rows L1–L9 of reference/apiserver.md §3.2 and the §2 validation matrix
// against SimHttpServer + EngineBackend, asserting status codes, exact Status bodies in kube-apiserver's key order
// (§7.5), Retry-After headers, the list wire format (§7.2) and the served-from label in /metrics. The engine runs on a
// FakeClock (virtual time for the 3 s freshness waits and cache lag); sockets are real.
import { failureStatus as failure, type KubeList, type Status } from "@informer-ts/apimachinery";
import { FakeClock, seededRand, settle } from "@informer-ts/clock";
import { PromMetrics } from "@informer-ts/instrumentation";
import { afterEach, describe, expect, it } from "vitest";
import {
  INCONSISTENT_CONTINUE_MESSAGE,
  LIST_TOO_OLD,
  listQuery,
  tooLargeStatus,
  VALIDATION_CASES,
} from "../../packages/sim-apiserver/src/engine/list-cases.test-util.js";
import { WIDGETS } from "../../packages/sim-apiserver/src/engine/resources.test-util.js";
import { SimApiServer, type SimApiServerOptions } from "../../packages/sim-apiserver/src/engine/sim-apiserver.js";
import { encodeContinue } from "../../packages/sim-apiserver/src/engine/storage/continue-token.js";
import { EngineBackend } from "../../packages/sim-apiserver/src/http/engine-backend.js";
import { fetchRaw, type RawResponse } from "../../packages/sim-apiserver/src/http/http-client.test-util.js";
import { SimHttpServer } from "../../packages/sim-apiserver/src/http/server.js";

const CM = "/api/v1/namespaces/ns/configmaps";
const SEED = ["a", "b", "c", "d", "e"];

interface Sim {
  readonly clock: FakeClock;
  readonly engine: SimApiServer;
  readonly metrics: PromMetrics;
  readonly url: string;
  /** GET `path` (with `query`) on the server; the accounting is reset first. */
  get(path: string, query?: string): Promise<RawResponse>;
}

const open: SimHttpServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

/**
 * The engine (FakeClock, no background timers) behind the HTTP face, seeded with configmaps a–e in "ns" (RVs 2–6)
 * and x in "other" (RV 7).
 */
async function start(opts: Partial<SimApiServerOptions> = {}): Promise<Sim> {
  const clock = new FakeClock();
  const metrics = new PromMetrics();
  const engine = new SimApiServer({
    clock,
    rand: seededRand(3),
    progressNotifyIntervalMs: 0,
    compactionIntervalMs: 0,
    // "ns" and "other" have no Namespace objects: these tests are about list semantics, not the lifecycle.
    namespaceLifecycle: false,
    metrics,
    ...opts,
  });
  for (const name of SEED) await engine.create("configmaps", "ns", { metadata: { name }, data: { v: "v1" } });
  await engine.create("configmaps", "other", { metadata: { name: "x" }, data: { v: "v1" } });
  await clock.step(opts.cacheLagMs ?? 0);
  const server = new SimHttpServer({
    backend: new EngineBackend(engine),
    clock,
    metrics,
  });
  open.push(server);
  const url = await server.start();
  const get = (path: string, query = "") => {
    engine.accounting.reset(); // so that the request's own record is the only one
    return fetchRaw(`${url}${path}${query && `?${query}`}`);
  };
  return { clock, engine, metrics, url, get };
}

/** Yields to the event loop until the engine holds `n` timers (a request is blocked in a freshness wait). */
async function untilTimers(clock: FakeClock, n: number): Promise<void> {
  for (let i = 0; i < 2000 && clock.pendingTimers() < n; i++) await settle();
  expect(clock.pendingTimers()).toBe(n);
}

/** Sends a request that blocks in the engine, steps virtual time by `ms − 1` (still open), then 1 ms (answered). */
async function blockedFor(s: Sim, ms: number, timersWhenBlocked: number, path: string, query: string) {
  const res = s.get(path, query);
  await untilTimers(s.clock, timersWhenBlocked + 1); // + the server's 60 s request timeout
  await s.clock.step(ms - 1);
  expect(s.engine.accounting.rows()).toEqual([]); // not answered yet
  await s.clock.step(1);
  const r = await res;
  const rows = s.engine.accounting.rows();
  expect(rows.map((x) => x.latencyMsSum)).toEqual([ms]);
  return { res: r, servedFrom: rows[0]!.servedFrom };
}

/** The single accounting record of the last request (served-from label and code). */
function lastRecord(s: Sim): { servedFrom: string; code: number } {
  const rows = s.engine.accounting.rows();
  expect(rows).toHaveLength(1);
  return { servedFrom: rows[0]!.servedFrom, code: rows[0]!.code };
}

/** GET a list and return it with where it was served from. */
async function listed(s: Sim, query: string, path = CM): Promise<{ list: KubeList; servedFrom: string }> {
  const r = await s.get(path, query);
  expect([r.status, r.headers["content-type"]]).toEqual([200, "application/json"]);
  return { list: r.json as KubeList, servedFrom: lastRecord(s).servedFrom };
}

/** Asserts an error response: code, body text exactly `status` in kube-apiserver's key order, Retry-After. */
function expectStatus(r: RawResponse, status: Status, retryAfter?: string): void {
  expect(r.status).toBe(status.code);
  expect(r.headers["content-type"]).toBe("application/json");
  expect(r.text.trimEnd()).toBe(JSON.stringify(status));
  expect(r.headers["retry-after"]).toBe(retryAfter);
}

const names = (l: KubeList) => l.items.map((o) => o.metadata?.name);
/** A watch-cache history of 4 events: older revisions fall out of the cache's reach quickly. */
const SHORT_HISTORY = { historyLowerBound: 4, historyUpperBound: 4 };

describe("L1/L2: RV unset (consistent reads) over HTTP", () => {
  it("L1: §7.2 wire format: kind, apiVersion, metadata, items; items without kind/apiVersion; from the cache", async () => {
    const s = await start();
    const r = await s.get(CM);
    const body = r.json as KubeList;
    expect(Object.keys(body)).toEqual(["kind", "apiVersion", "metadata", "items"]);
    expect([body.kind, body.apiVersion, body.metadata]).toEqual(["ConfigMapList", "v1", { resourceVersion: "7" }]);
    expect(r.text).not.toMatch(/"continue"|"remainingItemCount"/);
    for (const o of body.items) expect(Object.keys(o)).not.toContain("kind");
    expect(names(body)).toEqual(SEED);
    expect(lastRecord(s)).toEqual({ servedFrom: "cache", code: 200 });
  });

  it("L1: items is [] (never null or absent) for an empty list", async () => {
    const s = await start();
    const r = await s.get("/api/v1/namespaces/empty/configmaps");
    expect(r.text).toContain('"items":[]');
  });

  it("L1: the cache lags 1 s → the request waits 1 s and is served from the cache", async () => {
    const s = await start({ cacheLagMs: 1000 });
    await s.engine.create("configmaps", "ns", { metadata: { name: "f" } });
    const { res, servedFrom } = await blockedFor(s, 1000, 3, CM, "");
    expect([res.status, servedFrom, names(res.json as KubeList)]).toEqual([200, "cache", [...SEED, "f"]]);
  });

  it("L1: the cache lags 5 s → after the 3 s block timeout the list falls back to storage", async () => {
    const s = await start({ cacheLagMs: 5000 });
    await s.engine.create("configmaps", "ns", { metadata: { name: "f" } });
    const { res, servedFrom } = await blockedFor(s, 3000, 3, CM, "");
    expect([res.status, servedFrom, (res.json as KubeList).metadata]).toEqual([
      200,
      "storage",
      { resourceVersion: "8" },
    ]);
  });

  it("L2: limit pages through continue tokens; remainingItemCount only without selectors; last page has neither", async () => {
    const s = await start();
    const p1 = await listed(s, "limit=2");
    expect(p1.list.metadata).toEqual({
      resourceVersion: "7",
      continue: encodeContinue("ns/b", "ns/", 7),
      remainingItemCount: 3,
    });
    expect(Object.keys(p1.list.metadata)).toEqual(["resourceVersion", "continue", "remainingItemCount"]);
    const p2 = await listed(s, listQuery({ limit: 3, continue: p1.list.metadata.continue }));
    expect([names(p2.list), p2.list.metadata, p2.servedFrom]).toEqual([
      ["c", "d", "e"],
      { resourceVersion: "7" },
      "cache",
    ]);
    const selected = await listed(s, "limit=2&labelSelector=missing!%3Dx");
    expect(selected.list.metadata.continue).toBeDefined();
    expect(selected.list.metadata.remainingItemCount).toBeUndefined();
  });
});

describe("L3/L4: RV=0 and RV=N (not older than) over HTTP", () => {
  it("L3: RV=0 ignores limit: everything, no continue, from the cache", async () => {
    const s = await start();
    const { list, servedFrom } = await listed(s, "resourceVersion=0&limit=2");
    expect([names(list), list.metadata, servedFrom]).toEqual([SEED, { resourceVersion: "7" }, "cache"]);
  });

  it("L4: NotOlderThan honours limit and serves from the cache at its RV", async () => {
    const s = await start();
    const { list, servedFrom } = await listed(s, "resourceVersion=3&resourceVersionMatch=NotOlderThan&limit=4");
    expect([names(list), list.metadata.resourceVersion, list.metadata.remainingItemCount, servedFrom]).toEqual([
      ["a", "b", "c", "d"],
      "7",
      1,
      "cache",
    ]);
  });

  it("L4: an RV beyond the current one → 504 after 3 s with Retry-After: 1 and the exact Status body", async () => {
    const s = await start();
    const { res, servedFrom } = await blockedFor(s, 3000, 1, CM, "resourceVersion=100");
    expectStatus(res, tooLargeStatus(100, 7, 1), "1");
    expect(servedFrom).toBe("cache");
  });
});

describe("L5/L6: exact reads and continuations over HTTP", () => {
  /** a modified (RV 8), b deleted (9). */
  async function withHistory(opts: Partial<SimApiServerOptions> = {}) {
    const s = await start(opts);
    await s.engine.update("configmaps", "ns", "a", { metadata: { name: "a" }, data: { v: "v2" } });
    await s.engine.delete("configmaps", "ns", "b");
    return s;
  }

  it.each(
    [true, false].flatMap((listFromCacheSnapshot) =>
      ["resourceVersion=5&limit=10", "resourceVersion=5&resourceVersionMatch=Exact"].map((query) => ({
        query,
        listFromCacheSnapshot,
        from: listFromCacheSnapshot ? "cache" : "storage",
      })),
    ),
  )("L5: $query (ListFromCacheSnapshot $listFromCacheSnapshot) → from the $from, exactly as at RV 5", async (c) => {
    const s = await withHistory({ listFromCacheSnapshot: c.listFromCacheSnapshot });
    const { list, servedFrom } = await listed(s, c.query);
    expect(servedFrom).toBe(c.from);
    expect(list.metadata).toEqual({ resourceVersion: "5" });
    expect(list.items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)).toEqual([
      "a@2",
      "b@3",
      "c@4",
      "d@5",
    ]);
  });

  it("L5: out of the cache's history and below the compaction point → 410 with the exact body (no details)", async () => {
    const s = await withHistory(SHORT_HISTORY);
    s.engine.faults.compact(8);
    expectStatus(await s.get(CM, "resourceVersion=5&limit=10"), LIST_TOO_OLD);
  });

  it("L6: the next page is pinned to the first page's RV; once out of reach → 410 with the inconsistent token", async () => {
    const s = await start(SHORT_HISTORY);
    const p1 = await listed(s, "limit=2");
    await s.engine.update("configmaps", "ns", "c", { metadata: { name: "c" }, data: { v: "v2" } });
    const p2 = await listed(s, listQuery({ limit: 2, continue: p1.list.metadata.continue }));
    expect([p2.servedFrom, p2.list.metadata.resourceVersion, p2.list.items[0]?.metadata?.resourceVersion]).toEqual([
      "cache",
      "7",
      "4",
    ]);
    // Three more writes push RV 7 out of the 4-event history; compaction removes it from storage.
    for (const v of ["v2", "v3", "v4"]) {
      await s.engine.update("configmaps", "ns", "e", { metadata: { name: "e" }, data: { v } });
    }
    s.engine.faults.compact();
    const expired = await s.get(CM, listQuery({ limit: 2, continue: p1.list.metadata.continue }));
    expectStatus(expired, {
      kind: "Status",
      apiVersion: "v1",
      metadata: { continue: encodeContinue("ns/b", "ns/", -1) },
      status: "Failure",
      message: INCONSISTENT_CONTINUE_MESSAGE,
      reason: "Expired",
      code: 410,
    });
    const rest = await listed(s, listQuery({ continue: (expired.json as Status).metadata.continue }));
    expect([names(rest.list), rest.servedFrom]).toEqual([["c", "d", "e"], "cache"]);
  });
});

describe("L7–L9: GET over HTTP", () => {
  it("L7: RV unset → storage; 404 with details.kind = the resource", async () => {
    const s = await start();
    expect((await s.get(`${CM}/a`)).status).toBe(200);
    expect(lastRecord(s).servedFrom).toBe("storage");
    expectStatus(
      await s.get(`${CM}/nope`),
      failure(404, "NotFound", 'configmaps "nope" not found', { name: "nope", kind: "configmaps" }),
    );
  });

  it("L8: RV=0 → the cache, which may not have the newest version yet", async () => {
    const s = await start({ cacheLagMs: 1000 });
    await s.engine.update("configmaps", "ns", "a", { metadata: { name: "a" }, data: { v: "v2" } });
    const r = await s.get(`${CM}/a`, "resourceVersion=0");
    expect([(r.json as { data: unknown }).data, lastRecord(s).servedFrom]).toEqual([{ v: "v1" }, "cache"]);
  });

  it("L9: RV=N → waits for the cache; beyond the current RV → 504 with Retry-After: 1 after 3 s", async () => {
    const s = await start({ cacheLagMs: 1000 });
    await s.engine.update("configmaps", "ns", "a", { metadata: { name: "a" }, data: { v: "v2" } }); // RV 8
    const fresh = await blockedFor(s, 1000, 3, `${CM}/a`, "resourceVersion=8");
    expect([(fresh.res.json as { data: unknown }).data, fresh.servedFrom]).toEqual([{ v: "v2" }, "cache"]);
    const late = await blockedFor(s, 3000, 1, `${CM}/a`, "resourceVersion=50");
    expectStatus(late.res, tooLargeStatus(50, 8, 1), "1");
  });
});

describe("cache not ready over HTTP", () => {
  it("429 storage is (re)initializing with Retry-After; paged lists without selectors from storage", async () => {
    const s = await start();
    s.engine.faults.reinitializeCache("configmaps", 60_000);
    await s.clock.step(30_000);
    expectStatus(
      await s.get(CM, "resourceVersion=0"),
      failure(429, "TooManyRequests", "storage is (re)initializing", { retryAfterSeconds: 6 }),
      "6",
    );
    const paged = await listed(s, "resourceVersion=0&limit=2");
    expect([names(paged.list), paged.servedFrom]).toEqual([["a", "b"], "storage"]);
  });
});

describe("custom resources over HTTP", () => {
  it("list items keep kind and apiVersion", async () => {
    const s = await start();
    s.engine.register(WIDGETS);
    await s.engine.create("widgets.example.com", "ns", { metadata: { name: "w" } });
    const { list } = await listed(s, "", "/apis/example.com/v1/namespaces/ns/widgets");
    expect([list.kind, list.apiVersion, list.items[0]?.kind, list.items[0]?.apiVersion]).toEqual([
      "WidgetList",
      "example.com/v1",
      "Widget",
      "example.com/v1",
    ]);
  });
});

describe("§2 validation over HTTP: status code and exact body", () => {
  it.each(VALIDATION_CASES)("$what", async ({ watch, watchList, options, status }) => {
    const s = await start({ ...(watchList !== undefined && { watchList }) });
    const r = await s.get(CM, listQuery(options, watch));
    expectStatus(r, status);
    expect(lastRecord(s)).toEqual({ servedFrom: "", code: status.code });
  });
});

describe("/metrics", () => {
  it("apiserver_request_total counts each list (verb LIST, as upstream reports it) with its served_from label", async () => {
    const s = await start({ cacheLagMs: 5000 });
    await s.get(CM, "resourceVersion=0"); // cache
    await s.engine.create("configmaps", "ns", { metadata: { name: "f" } });
    await blockedFor(s, 3000, 3, CM, ""); // storage fallback
    await s.get(CM, "resourceVersion=abc"); // 400
    const text = (await s.get("/metrics")).text;
    const series = text
      .split("\n")
      .filter((l) => l.startsWith("apiserver_request_total{") && /verb="list"/i.test(l))
      .map((l) => {
        const labels = Object.fromEntries([...l.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
        return `${labels.resource} ${labels.code} ${labels.served_from} ${l.slice(l.lastIndexOf(" ") + 1)}`;
      })
      .sort();
    expect(series).toEqual(["configmaps 200 cache 1", "configmaps 200 storage 1", "configmaps 400  1"]);
  });
});
